/* Selection of the profiles that differ between two sets, in the three
 * phases of seed 001 §3.2:
 *   1. drop pairs that are insignificant in their sets (small share of the
 *      total latency and of the ops, or too few ops) and pairs whose totals
 *      are near-equal (once phase 2 found no peak change); pairs whose op
 *      counts differ by a factor of 2 or more differ already (the early exit
 *      of seed 000's GROUPOPS);
 *   2. compare the number and position of the significant peaks;
 *   3. score with the chosen metric (EMD by default) against a threshold. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <osprof/analysis.h>
#include <osprof/clock.h>
#include <osprof/sort.h>

static const char *const verdict_names[] = {
    [OSP_VERDICT_DIFFERS] = "differs",
    [OSP_VERDICT_ONLY_IN_A] = "only_in_a",
    [OSP_VERDICT_ONLY_IN_B] = "only_in_b",
    [OSP_VERDICT_SIMILAR] = "similar",
    [OSP_VERDICT_INSIGNIFICANT] = "insignificant",
};

const char *osp_verdict_name(enum osp_verdict v)
{
	return (unsigned)v <= OSP_VERDICT_INSIGNIFICANT ? verdict_names[v] : "?";
}

void osp_diff_opts_default(struct osp_diff_opts *o)
{
	o->metric = OSP_METRIC_EMD;
	o->threshold = -1;
	o->min_share_lat = 0.01;
	o->min_share_ops = 0.01;
	o->min_count = 10;
	o->skip_insignificant_scores = 0;
	osp_cmp_opts_default(&o->cmp);
}

struct totals {
	double lat, ops;
};

static struct totals set_totals(const struct osp_set *s)
{
	struct totals t = {0, 0};
	for (size_t i = 0; i < s->n; i++)
		if (s->profiles[i]->unit == OSP_UNIT_NS) {
			t.lat += (double)s->profiles[i]->hist.total;
			t.ops += (double)s->profiles[i]->hist.count;
		}
	return t;
}

/* Share of a profile in its set: of latency for ns profiles, of the set's
 * ns ops otherwise (bytes/counts have no latency to compare). */
static void shares(const struct osp_profile *p, const struct totals *t, double *lat, double *ops)
{
	*lat = 0;
	*ops = 0;
	if (!p)
		return;
	if (p->unit == OSP_UNIT_NS && t->lat > 0)
		*lat = (double)p->hist.total / t->lat;
	if (t->ops > 0)
		*ops = (double)p->hist.count / t->ops;
	if (p->unit != OSP_UNIT_NS)
		*lat = *ops;
}

static void addf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void addf(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	if (used + 3 >= len)
		return;
	if (used)
		used += (size_t)snprintf(buf + used, len - used, ", ");
	va_list ap;
	va_start(ap, fmt);
	if (used < len)
		vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

static void pct_change(char *buf, size_t len, const char *what, double a, double b)
{
	/* Unchanged totals are no reason. */
	if (a > 0 && fabs(b - a) / a < 0.005)
		return;
	if (a > 0)
		addf(buf, len, "%s %+.0f %%", what, (b - a) / a * 100);
	else if (b > 0)
		addf(buf, len, "%s from 0", what);
}

/* A value in the profile's unit: latency, bytes or a plain count. */
void osp_format_value(uint64_t v, enum osp_unit u, char *buf, size_t len)
{
	if (u == OSP_UNIT_NS)
		osp_format_ns(v, buf, (unsigned)len);
	else if (u == OSP_UNIT_BYTES && v >= 1024)
		snprintf(buf, len, "%.4g %s", v >= 1048576 ? (double)v / 1048576 : (double)v / 1024,
		         v >= 1048576 ? "MiB" : "KiB");
	else
		snprintf(buf, len, "%llu%s", (unsigned long long)v,
		         u == OSP_UNIT_BYTES ? " B" : "");
}

/* Kolmogorov-Smirnov statistic on the buckets, scaled by the effective
 * sample size: sqrt(na nb / (na + nb)) * max |CDFa - CDFb|. Above 1.95 the
 * shapes differ beyond chance at p < 0.001 (ties in buckets make the test
 * conservative); one outlier among a handful of calls stays far below. */
static double ks_lambda(const struct osp_hist *a, const struct osp_hist *b)
{
	double na = (double)a->count, nb = (double)b->count, ca = 0, cb = 0, d = 0;
	if (na <= 0 || nb <= 0)
		return 0;
	for (unsigned i = 0; i < a->nbuckets && i < b->nbuckets; i++) {
		ca += (double)a->buckets[i] / na;
		cb += (double)b->buckets[i] / nb;
		d = fmax(d, fabs(ca - cb));
	}
	return sqrt(na * nb / (na + nb)) * d;
}

#define OSP_DIFF_KS_LAMBDA 1.95

static void decided(struct osp_diff_entry *e, int phase, const char *by, double v, double thr)
{
	e->phase = phase;
	e->decided_by = by;
	e->decided_value = v;
	e->decided_threshold = thr;
}

/* Facts that explain a verdict, largest first. */
static void explain(const struct osp_profile *pa, const struct osp_profile *pb,
                    const struct osp_scores *s, const char *peak_reason, char *buf, size_t len)
{
	const struct osp_hist *a = &pa->hist, *b = &pb->hist;
	if (peak_reason && *peak_reason)
		addf(buf, len, "%s", peak_reason);
	if (pa->unit == OSP_UNIT_NS)
		pct_change(buf, len, "total latency", (double)a->total, (double)b->total);
	pct_change(buf, len, "ops", (double)a->count, (double)b->count);
	if (a->count && b->count) {
		char x[32], y[32];
		uint64_t ma = osp_hist_quantile(a, 0.5), mb = osp_hist_quantile(b, 0.5);
		if (ma != mb &&
		    (ma == 0 || mb == 0 || fabs(log2((double)mb / (double)ma)) >= 0.5)) {
			osp_format_value(ma, pa->unit, x, sizeof(x));
			osp_format_value(mb, pa->unit, y, sizeof(y));
			addf(buf, len, "median %s -> %s", x, y);
		}
	}
	addf(buf, len, "EMD %.2f octaves", s->emd / (a->r ? a->r : 1));
}

static int entry_rank(const void *x, const void *y)
{
	const struct osp_diff_entry *a = x, *b = y;
	if (a->verdict != b->verdict)
		return a->verdict < b->verdict ? -1 : 1;
	if (a->verdict == OSP_VERDICT_DIFFERS && a->score != b->score)
		return a->score < b->score ? 1 : -1;
	if (a->share != b->share)
		return a->share < b->share ? 1 : -1;
	const struct osp_profile *pa = a->a ? a->a : a->b, *pb = b->a ? b->a : b->b;
	return strcmp(pa->key ? pa->key : pa->op, pb->key ? pb->key : pb->op);
}

static void judge(const struct osp_diff_opts *o, double thr, const struct totals *ta,
                  const struct totals *tb, struct osp_diff_entry *e)
{
	const struct osp_hist *a = &e->a->hist, *b = &e->b->hist;
	double la, oa, lb, ob;
	shares(e->a, ta, &la, &oa);
	shares(e->b, tb, &lb, &ob);
	e->share = fmax(la, lb);
	e->reason[0] = '\0';
	int insignificant = (fmax(la, lb) < o->min_share_lat && fmax(oa, ob) < o->min_share_ops) ||
	                    (a->count < o->min_count && b->count < o->min_count);
	if (!insignificant || !o->skip_insignificant_scores)
		osp_compare_hists(a, b, &o->cmp, &e->scores);
	e->score = e->scores.score[o->metric];

	/* Phase 1. */
	if (insignificant) {
		e->verdict = OSP_VERDICT_INSIGNIFICANT;
		decided(e, 1, "insignificant", e->share, o->min_share_lat);
		addf(e->reason, sizeof(e->reason),
		     "phase 1: %.2g %% of latency, %.2g %% of ops, %llu/%llu ops", e->share * 100,
		     fmax(oa, ob) * 100, (unsigned long long)a->count,
		     (unsigned long long)b->count);
		return;
	}
	double ca = (double)a->count, cb = (double)b->count;
	double xa = (double)a->total, xb = (double)b->total;
	double dc = fmax(ca, cb) > 0 ? fabs(ca - cb) / fmax(ca, cb) : 0;
	double dt = fmax(xa, xb) > 0 ? fabs(xa - xb) / fmax(xa, xb) : 0;
	/* The number of operations is set by the workload, not by timing
	 * noise: a factor of 2 (very_different) is a difference already, if
	 * more than a Poisson count of this size varies by chance (3 vs 7
	 * calls is not). */
	double fac = fmin(ca, cb) > 0 ? fmax(ca, cb) / fmin(ca, cb) - 1 : INFINITY;
	if (fac >= o->cmp.very_different && fabs(ca - cb) >= OSP_DIFF_Z * sqrt(ca + cb)) {
		e->verdict = OSP_VERDICT_DIFFERS;
		decided(e, 1, "ops", fac + 1, o->cmp.very_different + 1);
		addf(e->reason, sizeof(e->reason), "phase 1: ops x%.2g >= x%g", fac + 1,
		     o->cmp.very_different + 1);
		explain(e->a, e->b, &e->scores, NULL, e->reason, sizeof(e->reason));
		return;
	}
	/* Near-equal totals end the comparison before the metric, but not
	 * before the peaks: equal totals can hide a new peak whose latency
	 * happens to match what stalls added to the other run. */
	struct osp_peak_cmp pc;
	struct osp_cmp_opts co = o->cmp;
	char pr[sizeof(pc.reason) + 48];
	co.unit = e->a->unit;
	osp_compare_peaks(a, b, &co, &pc);
	if (pc.differs) {
		e->verdict = OSP_VERDICT_DIFFERS;
		decided(e, 2, "peaks", 1, OSP_DIFF_Z);
		snprintf(pr, sizeof(pr), "phase 2 peaks (z >= %.2f): %s", OSP_DIFF_Z, pc.reason);
		explain(e->a, e->b, &e->scores, pr, e->reason, sizeof(e->reason));
		return;
	}
	struct osp_peak_growth g;
	if (e->a->unit == OSP_UNIT_NS && osp_peak_growth(a, b, &o->cmp, &g)) {
		char lo[32], hi[32];
		e->verdict = OSP_VERDICT_DIFFERS;
		decided(e, 2, "peak-growth", g.of_change, OSP_DIFF_GROWTH_SHARE);
		osp_format_ns(osp_bucket_lo(g.first, a->r), lo, sizeof(lo));
		osp_format_ns(osp_bucket_hi(g.last, a->r), hi, sizeof(hi));
		addf(e->reason, sizeof(e->reason),
		     "phase 2 (peak growth): peak %s-%s %llu -> %llu calls makes %.0f %% of the "
		     "total-latency change (>= %.0f %%)",
		     lo, hi, (unsigned long long)g.ca, (unsigned long long)g.cb, g.of_change * 100,
		     OSP_DIFF_GROWTH_SHARE * 100);
		explain(e->a, e->b, &e->scores, NULL, e->reason, sizeof(e->reason));
		return;
	}
	if (dc <= o->cmp.near_equal && dt <= o->cmp.near_equal) {
		e->verdict = OSP_VERDICT_SIMILAR;
		decided(e, 1, "near-equal", fmax(dc, dt), o->cmp.near_equal);
		addf(e->reason, sizeof(e->reason), "phase 1: ops and total latency within %.0f %%",
		     o->cmp.near_equal * 100);
		return;
	}
	/* Phase 3: the metric, and a difference of shape beyond what samples
	 * of these sizes show by chance. */
	double ks = ks_lambda(a, b);
	if (e->score >= thr && ks >= OSP_DIFF_KS_LAMBDA) {
		e->verdict = OSP_VERDICT_DIFFERS;
		decided(e, 3, osp_metric_name(o->metric), e->score, thr);
		addf(e->reason, sizeof(e->reason), "phase 3: %s %.0f >= %g (KS %.2f >= %.2f)",
		     osp_metric_name(o->metric), e->score, thr, ks, OSP_DIFF_KS_LAMBDA);
		explain(e->a, e->b, &e->scores, NULL, e->reason, sizeof(e->reason));
	} else if (e->score >= thr) {
		e->verdict = OSP_VERDICT_SIMILAR;
		decided(e, 3, "KS", ks, OSP_DIFF_KS_LAMBDA);
		addf(e->reason, sizeof(e->reason),
		     "phase 3: %s %.0f >= %g but KS %.2f < %.2f: within chance for %llu/%llu calls",
		     osp_metric_name(o->metric), e->score, thr, ks, OSP_DIFF_KS_LAMBDA,
		     (unsigned long long)a->count, (unsigned long long)b->count);
	} else {
		e->verdict = OSP_VERDICT_SIMILAR;
		decided(e, 3, osp_metric_name(o->metric), e->score, thr);
		addf(e->reason, sizeof(e->reason), "phase 3: %s %.0f < %g",
		     osp_metric_name(o->metric), e->score, thr);
	}
}

int osp_diff_sets(const struct osp_set *a, const struct osp_set *b,
                  const struct osp_diff_opts *opts, struct osp_diff *out, char *err, size_t errlen)
{
	struct osp_diff_opts def;
	const struct osp_diff_opts *o = opts;
	if (!o) {
		osp_diff_opts_default(&def);
		o = &def;
	}
	memset(out, 0, sizeof(*out));
	if (a->r != b->r) {
		snprintf(err, errlen,
		         "resolutions differ (r=%u and r=%u): compare sets taken with the same -r",
		         a->r, b->r);
		return -EINVAL;
	}
	double thr = o->threshold >= 0 ? o->threshold : osp_metric_default_threshold(o->metric);
	struct totals ta = set_totals(a), tb = set_totals(b);
	out->e = calloc(a->n + b->n + 1, sizeof(*out->e));
	if (!out->e)
		return -ENOMEM;
	for (size_t i = 0; i < a->n; i++) {
		struct osp_diff_entry *e = &out->e[out->n++];
		e->a = a->profiles[i];
		e->b = osp_set_find(b, e->a->layer, e->a->op, e->a->dims, e->a->ndims);
		if (e->b) {
			judge(o, thr, &ta, &tb, e);
			continue;
		}
		double l, x;
		shares(e->a, &ta, &l, &x);
		e->share = l;
		e->verdict = OSP_VERDICT_ONLY_IN_A;
		snprintf(e->reason, sizeof(e->reason), "%llu ops, %.2g %% of latency in A",
		         (unsigned long long)e->a->hist.count, l * 100);
	}
	for (size_t i = 0; i < b->n; i++) {
		const struct osp_profile *p = b->profiles[i];
		if (osp_set_find(a, p->layer, p->op, p->dims, p->ndims))
			continue;
		struct osp_diff_entry *e = &out->e[out->n++];
		double l, x;
		e->b = p;
		shares(p, &tb, &l, &x);
		e->share = l;
		e->verdict = OSP_VERDICT_ONLY_IN_B;
		snprintf(e->reason, sizeof(e->reason), "%llu ops, %.2g %% of latency in B",
		         (unsigned long long)p->hist.count, l * 100);
	}
	osp_sort(out->e, out->n, sizeof(*out->e), entry_rank);
	for (size_t i = 0; i < out->n; i++) {
		switch (out->e[i].verdict) {
		case OSP_VERDICT_DIFFERS:
			out->ndiffer++;
			break;
		case OSP_VERDICT_ONLY_IN_A:
			out->nonly_a++;
			break;
		case OSP_VERDICT_ONLY_IN_B:
			out->nonly_b++;
			break;
		case OSP_VERDICT_SIMILAR:
			out->nsimilar++;
			break;
		case OSP_VERDICT_INSIGNIFICANT:
			out->ninsignificant++;
			break;
		}
	}
	return 0;
}

void osp_diff_free(struct osp_diff *d)
{
	free(d->e);
	d->e = NULL;
	d->n = 0;
}
