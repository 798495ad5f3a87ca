/* .osp file format: lossless round trip, merge, and every malformed-input
 * class giving "FILE:LINE: ..." instead of a crash. */
#include <stdlib.h>
#include <string.h>
#include <osprof/profile.h>
#include "check.h"

static struct osp_set *sample_set(unsigned r)
{
	struct osp_set *s = osp_set_new(r);
	osp_set_meta(s, "command", "dd if=/dev/zero of=/tmp/x bs=4k count=10");
	osp_set_meta(s, "weird", "100%=sure\ttab\nnewline");
	osp_set_meta(s, "empty", "");
	s->slice_ns = 1000000;
	struct osp_dim d[] = {{"pid", "42"}, {"comm", "a b=c%"}};
	struct osp_profile *p = osp_set_get(s, "user", "read", d, 2);
	for (uint64_t v = 0; v < 5000; v += 7)
		osp_profile_add(s, p, v * 13, v * 1000);
	p = osp_set_get(s, "block", "rq_size", NULL, 0);
	p->unit = OSP_UNIT_BYTES;
	osp_profile_add(s, p, 4096, 0);
	osp_profile_add(s, p, 1ull << 63, 0); /* overflow bucket */
	osp_set_get(s, "syscall", "empty", NULL, 0);
	return s;
}

static char *to_text(const struct osp_set *s)
{
	char *buf;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	osp_set_write(s, f);
	fclose(f);
	return buf;
}

static struct osp_set *from_text(const char *text, char *err, size_t errlen)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct osp_set *s = NULL;
	if (osp_set_read(f, "t.osp", &s, err, errlen))
		s = NULL;
	fclose(f);
	return s;
}

static void round_trip_is_lossless(void)
{
	for (unsigned r = 1; r <= 16; r *= 2) {
		struct osp_set *s = sample_set(r);
		char *a = to_text(s), err[256];
		struct osp_set *back = from_text(a, err, sizeof(err));
		CHECK(back != NULL);
		if (!back) {
			fprintf(stderr, "%s\n", err);
			continue;
		}
		char *b = to_text(back);
		CHECK_STR(a, b);
		CHECK_STR(osp_get_meta(back, "weird"), "100%=sure\ttab\nnewline");
		CHECK_STR(osp_get_meta(back, "empty"), "");
		struct osp_dim d[] = {{"comm", "a b=c%"}, {"pid", "42"}};
		struct osp_profile *p = osp_set_find(back, "user", "read", d, 2);
		CHECK(p && p->nslices == 5 && p->hist.count == 715);
		free(a);
		free(b);
		osp_set_free(s);
		osp_set_free(back);
	}
}

static void merge_adds_and_refuses_mixed_r(void)
{
	struct osp_set *a = sample_set(2), *b = sample_set(2), *c = sample_set(4);
	char err[256];
	CHECK(osp_set_merge(a, b, err, sizeof(err)) == 0);
	struct osp_dim d[] = {{"pid", "42"}, {"comm", "a b=c%"}};
	struct osp_profile *p = osp_set_find(a, "user", "read", d, 2);
	CHECK_EQ_U64(p->hist.count, 2 * 715);
	CHECK(osp_hist_check(&p->hist) == 0);
	CHECK_EQ_U64(p->slices[0].buckets[osp_bucket_index(13 * 7, 2)], 2);
	CHECK(osp_set_merge(a, c, err, sizeof(err)) != 0);
	CHECK(strstr(err, "resolutions differ") != NULL);
	osp_set_free(a);
	osp_set_free(b);
	osp_set_free(c);
}

/* Loss and probe-time counts add up, in total and per layer; other
 * metadata keeps the first set's value. */
static void merge_adds_counts(void)
{
	struct osp_set *a = osp_set_new(1), *b = osp_set_new(1);
	char err[256];
	osp_set_meta(a, "lost_events.lock", "1");
	osp_set_meta(b, "lost_events.lock", "2");
	osp_set_meta(a, "probe_runs", "10");
	osp_set_meta(b, "probe_runs", "5");
	osp_set_meta(a, "user_static_paths", "/a");
	osp_set_meta(b, "user_static_paths", "/b");
	osp_set_meta(a, "probe_cost_ns", "65");
	osp_set_meta(b, "probe_cost_ns", "70");
	CHECK(osp_set_merge(a, b, err, sizeof(err)) == 0);
	CHECK_EQ_U64(osp_meta_u64(a, "lost_events.lock"), 3);
	CHECK_EQ_U64(osp_meta_u64(a, "probe_runs"), 15);
	CHECK_STR(osp_get_meta(a, "user_static_paths"), "/a");
	CHECK_STR(osp_get_meta(a, "probe_cost_ns"), "65");
	osp_set_free(a);
	osp_set_free(b);
}

static void expect_error(const char *text, const char *want)
{
	char err[256] = "";
	struct osp_set *s = from_text(text, err, sizeof(err));
	CHECK(s == NULL);
	if (!strstr(err, want)) {
		fprintf(stderr, "want '%s' in error, got '%s'\n", want, err);
		CHECK(0);
	}
	osp_set_free(s);
}

#define HDR "osprof-profile-set 1\nr 1\nslice_ns 0\n"

static void malformed_inputs(void)
{
	expect_error("", "t.osp:1: empty file");
	expect_error("hello\n", "t.osp:1: missing header");
	expect_error("osprof-profile-set 7\n", "t.osp:1: unsupported format version 7");
	expect_error(HDR "profile user read\nstats 3 10 1 5\nbuckets 1:1 2:1\nend 1\n",
	             "t.osp:6: count 3 != sum of buckets 2");
	expect_error(HDR "profile user read\nstats 3x 10 1 5\n", "t.osp:5: bad number '3x'");
	expect_error(HDR "profile user read\nstats 1 10 1 5\nbuckets 1:1\n",
	             "t.osp:7: truncated: no 'end' line");
	expect_error(HDR "profile user read\nstats 1 10 1\n", "t.osp:5: missing max");
	expect_error(HDR "profile user read\nstats 1 10 1 5\nbuckets 999:1\n", "out of range");
	expect_error(HDR "profile user read\nstats 1 10 1 5\nend 1\n", "lacks a buckets line");
	expect_error(HDR "r 3\n", "resolution 3 is not one of");
	expect_error(HDR "bogus 1\n", "t.osp:4: unknown record 'bogus'");
	expect_error(HDR "end 2\n", "end says 2 profiles");
	expect_error(HDR "stats 1 1 1 1\n", "outside a profile");
	expect_error(HDR "profile user read\nstats 0 0 0 0\nbuckets\nprofile user read\n",
	             "given twice");
	expect_error(HDR "profile user read\nstats 99999999999999999999999 0 0 0\n", "bad number");
	static const char bin[] = "osprof-profile-set 1\n\x7f"
	                          "ELF\x02\x01\x00\x00garbage\n";
	FILE *f = fmemopen((void *)bin, sizeof(bin) - 1, "r");
	struct osp_set *s = NULL;
	char err[256] = "";
	CHECK(osp_set_read(f, "bin", &s, err, sizeof(err)) != 0);
	CHECK(strstr(err, "bin:2: binary data") != NULL);
	fclose(f);
}

static void find_and_sort(void)
{
	struct osp_set *s = osp_set_new(1);
	struct osp_profile *a = osp_set_get(s, "syscall", "read", NULL, 0);
	struct osp_profile *b = osp_set_get(s, "syscall", "write", NULL, 0);
	CHECK(osp_set_get(s, "syscall", "read", NULL, 0) == a);
	CHECK(osp_set_get(s, "bad layer", "read", NULL, 0) == NULL);
	struct osp_dim dup[] = {{"pid", "1"}, {"pid", "2"}};
	CHECK(osp_set_get(s, "syscall", "read", dup, 2) == NULL);
	osp_profile_add(s, a, 10, 0);
	osp_profile_add(s, b, 1000, 0);
	osp_set_sort_by_total(s);
	CHECK(s->profiles[0] == b);
	CHECK_EQ_U64(osp_set_total(s), 1010);
	osp_meta_add_u64(s, "lost_events", 3);
	osp_meta_add_u64(s, "lost_events", 4);
	CHECK_EQ_U64(osp_meta_u64(s, "lost_events"), 7);
	osp_set_free(s);
}

int main(void)
{
	RUN(round_trip_is_lossless);
	RUN(merge_adds_and_refuses_mixed_r);
	RUN(merge_adds_counts);
	RUN(malformed_inputs);
	RUN(find_and_sort);
	CHECK_EXIT();
}
