/* Minimal unit-test harness: each TEST prints "ok NAME" or "not ok NAME",
 * and tests/run.sh tallies the lines. A failed CHECK names FILE:LINE. */
#ifndef OSPROF_TEST_CHECK_H
#define OSPROF_TEST_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failed_;
static int check_reported_; /* failures printed in this test, capped */
static int check_total_failed_;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			if (check_reported_++ < 10)                                                \
				fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__,   \
				        #cond);                                                    \
			check_failed_ = 1;                                                         \
		}                                                                                  \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                                         \
	do {                                                                                       \
		unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b);     \
		if (a_ != b_) {                                                                    \
			fprintf(stderr, "%s:%d: %s == %llu, expected %s == %llu\n", __FILE__,      \
			        __LINE__, #a, a_, #b, b_);                                         \
			check_failed_ = 1;                                                         \
		}                                                                                  \
	} while (0)

#define CHECK_STR(a, b)                                                                            \
	do {                                                                                       \
		const char *a_ = (a), *b_ = (b);                                                   \
		if (!a_ || !b_ || strcmp(a_, b_)) {                                                \
			fprintf(stderr, "%s:%d: \"%s\" != \"%s\"\n", __FILE__, __LINE__,           \
			        a_ ? a_ : "(null)", b_ ? b_ : "(null)");                           \
			check_failed_ = 1;                                                         \
		}                                                                                  \
	} while (0)

#define RUN(fn)                                                                                    \
	do {                                                                                       \
		check_failed_ = 0;                                                                 \
		check_reported_ = 0;                                                               \
		fn();                                                                              \
		printf("%s %s\n", check_failed_ ? "not ok" : "ok", #fn);                           \
		fflush(stdout);                                                                    \
		check_total_failed_ += check_failed_;                                              \
	} while (0)

#define CHECK_EXIT() return check_total_failed_ ? 1 : 0

#endif
