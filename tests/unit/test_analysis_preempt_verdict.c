/* Preemption verdicts (analysis/preempt_evidence.c): the model alone only
 * allows "could be"; measurement decides. Cases of issue 11: a lock-wait
 * peak the model fits but where --split preempt measured 4 of 351 calls
 * preempted is not preemption; a peak at Q beside sched:offcpu switch-outs of
 * the same length is. */
#include <stdlib.h>
#include "tests/unit/check.h"
#include <osprof/analysis.h>

#define Q (1u << 20) /* ~1 ms quantum */

static void add(struct osp_set *s, struct osp_profile *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		osp_profile_add(s, p, v, 0);
}

/* 1,000,000 fast calls and a peak at Q + t that the model fits (1464 moved). */
static struct osp_profile *fast_and_q(struct osp_set *s, const char *layer, uint64_t slow_n)
{
	struct osp_profile *p = osp_set_get(s, layer, "lseek", NULL, 0);
	add(s, p, 1536, 1000000);
	add(s, p, Q + 1536, (unsigned)slow_n);
	return p;
}

static unsigned verdicts(const struct osp_set *s, const struct osp_profile *p,
                         struct osp_preempt_peak *res, struct osp_peak *pk)
{
	unsigned n = osp_find_peaks(&p->hist, NULL, pk, 8);
	osp_preempt_peaks(&p->hist, pk, n, Q, 2, res);
	osp_preempt_evidence(s, p, pk, n, res);
	return n;
}

static void test_model_only(void)
{
	struct osp_set *s = osp_set_new(1);
	struct osp_profile *p = fast_and_q(s, "syscall", 1460);
	struct osp_peak pk[8];
	struct osp_preempt_peak res[8];
	unsigned n = verdicts(s, p, res, pk);
	CHECK_EQ_U64(n, 2);
	CHECK(res[1].model_fits);
	CHECK(res[1].evidence == OSP_PREEMPT_EV_MODEL);
	CHECK(!res[1].explained); /* the model never explains alone */
	osp_set_free(s);
}

static void test_split_refutes(void)
{
	struct osp_set *s = osp_set_new(1);
	struct osp_profile *p = fast_and_q(s, "syscall", 1460);
	struct osp_dim d = {"state", "preempted"};
	add(s, osp_set_get(s, "syscall", "lseek", &d, 1), Q + 1536, 4);
	struct osp_peak pk[8];
	struct osp_preempt_peak res[8];
	verdicts(s, p, res, pk);
	CHECK(res[1].model_fits);
	CHECK(res[1].evidence == OSP_PREEMPT_EV_SPLIT);
	CHECK_EQ_U64(res[1].measured, 4);
	CHECK_EQ_U64(res[1].calls, 1464);
	CHECK(!res[1].explained);
	osp_set_free(s);
}

static void test_split_confirms(void)
{
	struct osp_set *s = osp_set_new(1);
	struct osp_profile *p = fast_and_q(s, "syscall", 300);
	struct osp_dim d = {"state", "preempted"};
	struct osp_profile *pre = osp_set_get(s, "syscall", "lseek", &d, 1);
	add(s, pre, Q + 1536, 1100);
	struct osp_peak pk[8];
	struct osp_preempt_peak res[8];
	verdicts(s, p, res, pk);
	CHECK(res[1].evidence == OSP_PREEMPT_EV_SPLIT);
	CHECK(res[1].explained);
	/* The preempted profile itself: every peak measured preempted. */
	unsigned n = verdicts(s, pre, res, pk);
	CHECK_EQ_U64(n, 1);
	CHECK(res[0].explained);
	osp_set_free(s);
}

static void test_split_run_without_preempted(void)
{
	/* A --split preempt run in which nothing was preempted writes no
	 * state=preempted profile: measured 0, not "unknown". */
	struct osp_set *s = osp_set_new(1);
	struct osp_profile *p = fast_and_q(s, "syscall", 1460);
	osp_set_meta(s, "split", "preempt");
	struct osp_peak pk[8];
	struct osp_preempt_peak res[8];
	verdicts(s, p, res, pk);
	CHECK(res[1].evidence == OSP_PREEMPT_EV_SPLIT);
	CHECK_EQ_U64(res[1].measured, 0);
	CHECK(!res[1].explained);
	/* The user layer cannot split: still the model. */
	struct osp_profile *u = fast_and_q(s, "user", 1460);
	verdicts(s, u, res, pk);
	CHECK(res[1].evidence == OSP_PREEMPT_EV_MODEL);
	osp_set_free(s);
}

static void test_offcpu(void)
{
	struct osp_set *s = osp_set_new(1);
	struct osp_profile *p = fast_and_q(s, "user", 1460);
	struct osp_dim d = {"reason", "preempted"};
	struct osp_profile *off = osp_set_get(s, "sched", "offcpu", &d, 1);
	add(s, off, Q, 100); /* too few for 1464 calls */
	struct osp_peak pk[8];
	struct osp_preempt_peak res[8];
	verdicts(s, p, res, pk);
	CHECK(res[1].evidence == OSP_PREEMPT_EV_OFFCPU);
	CHECK(!res[1].explained);
	add(s, off, Q, 1500);
	verdicts(s, p, res, pk);
	CHECK_EQ_U64(res[1].measured, 1600);
	CHECK(res[1].explained);
	/* Switch-outs of another length say nothing about this peak. */
	struct osp_set *t = osp_set_new(1);
	p = fast_and_q(t, "user", 1460);
	add(t, osp_set_get(t, "sched", "offcpu", &d, 1), 20000, 5000);
	verdicts(t, p, res, pk);
	CHECK_EQ_U64(res[1].measured, 0);
	CHECK(!res[1].explained);
	osp_set_free(t);
	osp_set_free(s);
}

int main(void)
{
	RUN(test_model_only);
	RUN(test_split_refutes);
	RUN(test_split_confirms);
	RUN(test_split_run_without_preempted);
	RUN(test_offcpu);
	CHECK_EXIT();
}
