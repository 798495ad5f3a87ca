/* Preemption verdicts from measurement (docs/analysis.md, "Preemption"):
 * the model of preempt.c only says a peak *could* be preemption; a set taken
 * with `--split preempt` or the sched layer says whether it was. */
#include <string.h>
#include <osprof/analysis.h>

/* q is p plus exactly the dimension state=preempted. */
static int preempted_sibling(const struct osp_profile *p, const struct osp_profile *q)
{
	const char *st = osp_profile_dim(q, "state");
	if (!st || strcmp(st, "preempted") || q->ndims != p->ndims + 1 ||
	    strcmp(p->layer, q->layer) || strcmp(p->op, q->op) || q->unit != p->unit ||
	    q->hist.r != p->hist.r)
		return 0;
	for (unsigned i = 0; i < p->ndims; i++) {
		const char *v = osp_profile_dim(q, p->dims[i].name);
		if (!v || strcmp(v, p->dims[i].value))
			return 0;
	}
	return 1;
}

/* Layers whose collectors honour --split preempt (collect/: syscall.c,
 * fs.c, uprobe.c, kfunc.c). The user layer cannot see a switch. */
static int split_layer(const struct osp_set *s, const char *layer)
{
	static const char *const names[] = {"syscall", "fs", "uprobe", "func"};
	const char *m = osp_get_meta(s, "split");
	if (!m || strcmp(m, "preempt"))
		return 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(layer, names[i]))
			return 1;
	return 0;
}

static uint64_t in_buckets(const struct osp_hist *h, unsigned first, unsigned last)
{
	uint64_t n = 0;
	for (unsigned i = first; i <= last && i < h->nbuckets; i++)
		n += h->buckets[i];
	return n;
}

/* Switch-outs of h (off-CPU times) between lo and hi ns: whole buckets whose
 * range overlaps [lo, hi]. */
static uint64_t in_range(const struct osp_hist *h, double lo, double hi)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < h->nbuckets; i++)
		if (h->buckets[i] && (double)osp_bucket_hi(i, h->r) >= lo &&
		    (double)osp_bucket_lo(i, h->r) <= hi)
			n += h->buckets[i];
	return n;
}

void osp_preempt_evidence(const struct osp_set *s, const struct osp_profile *p,
                          const struct osp_peak *pk, unsigned npeaks, struct osp_preempt_peak *res)
{
	const char *st = osp_profile_dim(p, "state");
	const struct osp_profile *sib = NULL;
	int offcpu = 0;
	if (!s || p->unit != OSP_UNIT_NS)
		return;
	for (size_t i = 0; i < s->n && !sib; i++)
		if (preempted_sibling(p, s->profiles[i]))
			sib = s->profiles[i];
	for (size_t i = 0; i < s->n; i++) {
		const struct osp_profile *q = s->profiles[i];
		const char *reason = osp_profile_dim(q, "reason");
		offcpu |= !strcmp(q->layer, "sched") && !strcmp(q->op, "offcpu") && reason &&
		          !strcmp(reason, "preempted");
	}
	for (unsigned k = 0; k < npeaks; k++) {
		struct osp_preempt_peak *r = &res[k];
		if (st && !strcmp(st, "preempted")) {
			/* The collector measured every call here preempted. */
			r->evidence = OSP_PREEMPT_EV_SPLIT;
			r->measured = r->calls = pk[k].count;
			r->explained = 1;
		} else if (sib || split_layer(s, p->layer)) {
			/* The plain profile lacks the preempted calls: a run without
			 * --split would show both in this range. No sibling in a
			 * split run: none was preempted. */
			r->evidence = OSP_PREEMPT_EV_SPLIT;
			r->measured = sib ? in_buckets(&sib->hist, pk[k].first, pk[k].last) : 0;
			r->calls = pk[k].count + r->measured;
			r->explained =
			    (double)r->measured >= OSP_PREEMPT_MEASURED_SHARE * (double)r->calls;
		} else if (offcpu && strcmp(p->layer, "sched")) {
			/* Thread-level, not per call: as many switch-outs of
			 * the peak's length as half its calls. */
			uint64_t n = 0;
			for (size_t i = 0; i < s->n; i++) {
				const struct osp_profile *q = s->profiles[i];
				const char *reason = osp_profile_dim(q, "reason");
				if (!strcmp(q->layer, "sched") && !strcmp(q->op, "offcpu") &&
				    reason && !strcmp(reason, "preempted"))
					n += in_range(&q->hist, (double)pk[k].lo_ns / 2,
					              (double)pk[k].hi_ns);
			}
			r->evidence = OSP_PREEMPT_EV_OFFCPU;
			r->measured = n;
			r->calls = pk[k].count;
			r->explained =
			    (double)n >= OSP_PREEMPT_MEASURED_SHARE * (double)pk[k].count;
		}
	}
}
