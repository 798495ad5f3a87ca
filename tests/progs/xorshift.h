/* xorshift64 (Marsaglia): the reproducible generator of the programs that
 * make synthetic data (tests/progs, tests/unit/trace_gen.h,
 * bench/diff_speed.c). *x must not be 0. */
#ifndef OSPROF_TESTS_PROGS_XORSHIFT_H
#define OSPROF_TESTS_PROGS_XORSHIFT_H

#include <stdint.h>

static inline uint64_t xorshift64(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

#endif
