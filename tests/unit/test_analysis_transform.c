/* Coarsening and dropping dimensions keep every count and total. */
#include <stdlib.h>
#include "tests/unit/check.h"
#include <osprof/analysis.h>

static void test_coarsen(void)
{
	struct osp_set *s = osp_set_new(4), *ref = osp_set_new(1);
	struct osp_profile *p = osp_set_get(s, "fs", "read", NULL, 0);
	struct osp_profile *q = osp_set_get(ref, "fs", "read", NULL, 0);
	uint64_t vals[] = {0, 1, 3, 1000, 1023, 1024, 1500, 99999, 1ull << 40, UINT64_MAX};
	for (unsigned i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		osp_profile_add(s, p, vals[i], 0);
		osp_profile_add(ref, q, vals[i], 0);
	}
	osp_set_meta(s, "host", "h1");
	struct osp_set *c = osp_set_coarsen(s, 1);
	CHECK(c != NULL);
	const struct osp_profile *cp = osp_set_find(c, "fs", "read", NULL, 0);
	CHECK(cp != NULL);
	/* Same buckets as recording the values at r = 1 directly. */
	for (unsigned i = 0; cp && i < q->hist.nbuckets; i++)
		CHECK_EQ_U64(cp->hist.buckets[i], q->hist.buckets[i]);
	CHECK_EQ_U64(cp->hist.count, q->hist.count);
	CHECK_EQ_U64(cp->hist.total, q->hist.total);
	CHECK_EQ_U64(cp->hist.min, 0);
	CHECK_EQ_U64(cp->hist.max, UINT64_MAX);
	CHECK(osp_hist_check(&cp->hist) == 0);
	CHECK_STR(osp_get_meta(c, "host"), "h1");
	CHECK(osp_set_coarsen(s, 8) == NULL); /* finer is not coarser */
	osp_set_free(c);
	osp_set_free(s);
	osp_set_free(ref);
}

static void test_drop_dims(void)
{
	struct osp_set *s = osp_set_new(1);
	struct osp_dim d1[2] = {{"pid", "1"}, {"fs", "ext4"}},
	               d2[2] = {{"pid", "2"}, {"fs", "ext4"}};
	struct osp_dim d3[1] = {{"pid", "3"}};
	struct osp_profile *a = osp_set_get(s, "syscall", "read", d1, 2);
	struct osp_profile *b = osp_set_get(s, "syscall", "read", d2, 2);
	struct osp_profile *c = osp_set_get(s, "syscall", "read", d3, 1);
	for (int i = 0; i < 10; i++) {
		osp_profile_add(s, a, 100, 0);
		osp_profile_add(s, b, 5000, 0);
		osp_profile_add(s, c, 7, 0);
	}
	const char *drop[] = {"pid"};
	struct osp_set *t = osp_set_drop_dims(s, drop, 1);
	CHECK(t != NULL && t->n == 2);
	struct osp_dim fs[1] = {{"fs", "ext4"}};
	const struct osp_profile *m = osp_set_find(t, "syscall", "read", fs, 1);
	const struct osp_profile *n = osp_set_find(t, "syscall", "read", NULL, 0);
	CHECK(m && m->hist.count == 20 && m->hist.total == 51000 && m->hist.min == 100 &&
	      m->hist.max == 5000);
	CHECK(n && n->hist.count == 10 && n->hist.total == 70);
	osp_set_free(t);
	osp_set_free(s);
}

int main(void)
{
	RUN(test_coarsen);
	RUN(test_drop_dims);
	CHECK_EXIT();
}
