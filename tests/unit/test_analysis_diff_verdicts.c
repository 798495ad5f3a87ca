/* diff verdicts a user can believe (issue 11): small samples and one outlier
 * never differ alone, a peak's growth that drives the total latency does,
 * each verdict names its phase and test, and values keep the profile's unit. */
#include <string.h>
#include "tests/unit/check.h"
#include <osprof/analysis.h>

static void put(struct osp_set *s, const char *op, uint64_t v, unsigned n)
{
	struct osp_profile *p = osp_set_get(s, "syscall", op, NULL, 0);
	for (unsigned i = 0; i < n; i++)
		osp_profile_add(s, p, v, 0);
}

static const struct osp_diff_entry *entry(const struct osp_diff *d, const char *op)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->e[i].a && !strcmp(d->e[i].a->op, op))
			return &d->e[i];
	return NULL;
}

static void test_small(void)
{
	struct osp_set *a = osp_set_new(1), *b = osp_set_new(1);
	/* tar: one 24 ms read among 13. */
	put(a, "read", 5000, 13);
	put(b, "read", 5000, 12);
	put(b, "read", 24000000, 1);
	/* 10-op profiles, 3 calls moved 2 octaves. */
	put(a, "fsync", 100000, 10);
	put(b, "fsync", 100000, 7);
	put(b, "fsync", 400000, 3);
	/* 12 vs 30 calls: a factor of 2.5 but within Poisson noise? no:
	 * |30 - 12| = 18 >= 3.29 sqrt(42) = 21.3 is false: not a difference. */
	put(a, "open", 5000, 12);
	put(b, "open", 5000, 30);
	/* A real change of a small profile: all 12 calls 16x slower. */
	put(a, "unlink", 5000, 12);
	put(b, "unlink", 80000, 12);
	struct osp_diff d;
	char err[128];
	CHECK(osp_diff_sets(a, b, NULL, &d, err, sizeof(err)) == 0);
	const struct osp_diff_entry *e;
	CHECK((e = entry(&d, "read")) && e->verdict == OSP_VERDICT_SIMILAR);
	CHECK((e = entry(&d, "fsync")) && e->verdict == OSP_VERDICT_SIMILAR);
	CHECK((e = entry(&d, "open")) && e->verdict == OSP_VERDICT_SIMILAR);
	CHECK((e = entry(&d, "unlink")) && e->verdict == OSP_VERDICT_DIFFERS);
	if (e)
		CHECK(strstr(e->reason, "phase ") == e->reason);
	osp_diff_free(&d);
	osp_set_free(a);
	osp_set_free(b);
}

static void test_growth(void)
{
	/* CPU hog beside zero-byte reads: the preemption peak 328 -> 603 calls. */
	struct osp_set *a = osp_set_new(1), *b = osp_set_new(1);
	put(a, "read", 1500, 280000);
	put(a, "read", 3000000, 328);
	put(b, "read", 1500, 280000);
	put(b, "read", 3000000, 603);
	struct osp_diff d;
	char err[128];
	CHECK(osp_diff_sets(a, b, NULL, &d, err, sizeof(err)) == 0);
	const struct osp_diff_entry *e = entry(&d, "read");
	CHECK(e && e->scores.score[OSP_METRIC_EMD] < 55); /* the shape barely moves */
	CHECK(e && e->verdict == OSP_VERDICT_DIFFERS && e->phase == 2);
	CHECK(e && e->decided_by && !strcmp(e->decided_by, "peak-growth"));
	CHECK(e && strstr(e->reason, "328 -> 603 calls"));
	osp_diff_free(&d);
	osp_set_free(a);
	osp_set_free(b);
}

static void test_units(void)
{
	struct osp_set *a = osp_set_new(1), *b = osp_set_new(1);
	struct osp_profile *pa = osp_set_get(a, "syscall", "read", NULL, 0);
	struct osp_profile *pb = osp_set_get(b, "syscall", "read", NULL, 0);
	pa->unit = pb->unit = OSP_UNIT_BYTES;
	for (int i = 0; i < 1000; i++) {
		osp_profile_add(a, pa, 131072, 0);
		osp_profile_add(b, pb, 6144, 0);
	}
	struct osp_diff d;
	struct osp_diff_opts o;
	char err[128];
	osp_diff_opts_default(&o);
	o.min_share_lat = o.min_share_ops = 0; /* no ns ops to take a share of */
	CHECK(osp_diff_sets(a, b, &o, &d, err, sizeof(err)) == 0);
	const struct osp_diff_entry *e = entry(&d, "read");
	CHECK(e && e->verdict == OSP_VERDICT_DIFFERS);
	CHECK(e && strstr(e->reason, "KiB"));
	CHECK(e && !strstr(e->reason, " us"));
	osp_diff_free(&d);
	osp_set_free(a);
	osp_set_free(b);
}

/* put() a main mode over buckets 10-13 beside whatever else the caller adds. */
static void main_mode(struct osp_set *s, const char *op)
{
	put(s, op, 1500, 20);
	put(s, op, 3000, 600);
	put(s, op, 6000, 500);
	put(s, op, 12000, 19);
}

static void test_bucket_edge(void)
{
	struct osp_set *a = osp_set_new(1), *b = osp_set_new(1);
	/* tar's xfs writes: 68 calls at 991 ns in one run (bucket 9, its own
	 * peak), at 1.03 us in the next (bucket 10, inside the main peak). */
	put(a, "write", 991, 68);
	put(b, "write", 1030, 68);
	main_mode(a, "write");
	main_mode(b, "write");
	/* The same 68 calls at 700 ns, half an octave from the edge, really
	 * leave bucket 9: gone. */
	put(a, "pwrite64", 700, 68);
	put(b, "pwrite64", 3000, 68);
	main_mode(a, "pwrite64");
	main_mode(b, "pwrite64");
	struct osp_diff d;
	char err[128];
	CHECK(osp_diff_sets(a, b, NULL, &d, err, sizeof(err)) == 0);
	const struct osp_diff_entry *e;
	CHECK((e = entry(&d, "write")) && e->verdict == OSP_VERDICT_SIMILAR);
	CHECK((e = entry(&d, "pwrite64")) && e->verdict == OSP_VERDICT_DIFFERS);
	if (e)
		CHECK(strstr(e->reason, "gone") != NULL);
	osp_diff_free(&d);
	osp_set_free(a);
	osp_set_free(b);
}

int main(void)
{
	RUN(test_bucket_edge);
	RUN(test_small);
	RUN(test_growth);
	RUN(test_units);
	CHECK_EXIT();
}
