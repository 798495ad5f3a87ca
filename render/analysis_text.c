/* Text and JSON views of peaks, their characteristic-time matches and
 * preemption predictions, and nesting hints (`osprof peaks`, `osprof report`). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <osprof/analysis.h>
#include <osprof/clock.h>
#include <osprof/render.h>

#define MAX_MATCH 3

struct peaks {
	unsigned n;
	struct osp_peak *pk;
	struct osp_preempt_peak *pre;
};

static int peaks_get(const struct osp_profile *p, const struct osp_preempt_view *pv,
                     struct peaks *out)
{
	unsigned max = p->hist.nbuckets / 2 + 2;
	out->pk = malloc(max * sizeof(*out->pk));
	out->pre = pv ? calloc(max, sizeof(*out->pre)) : NULL;
	if (!out->pk || (pv && !out->pre)) {
		free(out->pk);
		free(out->pre);
		return -1;
	}
	out->n = osp_find_peaks(&p->hist, NULL, out->pk, max);
	if (pv && p->unit == OSP_UNIT_NS)
		osp_preempt_peaks(&p->hist, out->pk, out->n, pv->quantum_ns, pv->nprocs, out->pre);
	return 0;
}

static void peaks_free(struct peaks *ps)
{
	free(ps->pk);
	free(ps->pre);
}

/* Bucket b as DESIGN.md defines it: floor(r log2 v); "0" for the zero
 * bucket and "ovf" for the overflow bucket. */
static void bucket_name(char *buf, size_t len, unsigned idx, unsigned r)
{
	if (idx == 0)
		snprintf(buf, len, "zero");
	else if (idx == osp_nbuckets(r) - 1)
		snprintf(buf, len, "ovf");
	else
		snprintf(buf, len, "%u", idx - 1);
}

static void value_text(char *buf, size_t len, double v, enum osp_unit u)
{
	if (u == OSP_UNIT_NS)
		osp_format_ns((uint64_t)v, buf, (unsigned)len);
	else
		snprintf(buf, len, "%.0f", v);
}

void osp_print_peaks(FILE *out, const struct osp_profile *p, const struct osp_set *calib,
                     const struct osp_preempt_view *pv)
{
	char label[256], tot[32];
	struct peaks ps;
	const struct osp_hist *h = &p->hist;
	if (peaks_get(p, pv, &ps))
		return;
	value_text(tot, sizeof(tot), (double)h->total, p->unit);
	fprintf(out, "%s (%s): %" PRIu64 " ops, total %s, %u peak%s\n",
	        osp_profile_label(p, label, sizeof(label)), osp_unit_name(p->unit), h->count, tot,
	        ps.n, ps.n == 1 ? "" : "s");
	if (pv && p->unit == OSP_UNIT_NS) {
		char q[32];
		double moved = osp_preempt_total(h, pv->quantum_ns, pv->nprocs);
		fprintf(out,
		        "  preemption model: Q = %s (%s), %u runnable processes, never yielding: "
		        "%.1f requests predicted to be preempted\n",
		        osp_format_ns(pv->quantum_ns, q, sizeof(q)), pv->source, pv->nprocs, moved);
	}
	peaks_free(&ps);
	osp_print_peak_table(out, p, calib, pv);
}

void osp_print_peak_table(FILE *out, const struct osp_profile *p, const struct osp_set *calib,
                          const struct osp_preempt_view *pv)
{
	struct peaks ps;
	const struct osp_hist *h = &p->hist;
	if (peaks_get(p, pv, &ps))
		return;
	if (!ps.n) {
		peaks_free(&ps);
		return;
	}
	fprintf(out, "  %4s %-9s %-23s %10s %11s %6s %6s  %s\n", "PEAK", "BUCKETS", "RANGE",
	        "COUNT", "MEAN", "OPS%", "LAT%", "NOTES");
	for (unsigned i = 0; i < ps.n; i++) {
		const struct osp_peak *k = &ps.pk[i];
		char b1[16], b2[16], bk[40], lo[32], hi[32], rng[72], mean[32];
		bucket_name(b1, sizeof(b1), k->first, h->r);
		bucket_name(b2, sizeof(b2), k->last, h->r);
		if (k->first == k->last)
			snprintf(bk, sizeof(bk), "%s", b1);
		else
			snprintf(bk, sizeof(bk), "%s-%s", b1, b2);
		value_text(lo, sizeof(lo), (double)k->lo_ns, p->unit);
		value_text(hi, sizeof(hi), (double)k->hi_ns, p->unit);
		snprintf(rng, sizeof(rng), "%s - %s", lo, hi);
		value_text(mean, sizeof(mean), k->mean_ns, p->unit);
		/* The overflow bucket holds negative deltas (v >= 2^63): it has no
		 * upper bound and its values no meaningful mean. */
		if (k->last + 1 == h->nbuckets) {
			if (k->first + 1 == h->nbuckets)
				snprintf(rng, sizeof(rng), ">= 2^63 (overflow)");
			else
				snprintf(rng, sizeof(rng), "%s - overflow", lo);
			snprintf(mean, sizeof(mean), "-");
		}
		fprintf(out, "  %4u %-9s %-23s %10" PRIu64 " %11s %6.1f %6.1f", i + 1, bk, rng,
		        k->count, mean, k->share_ops * 100, k->share_lat * 100);
		const char *names[MAX_MATCH];
		unsigned nm =
		    p->unit == OSP_UNIT_NS ? osp_annotate_peak(calib, k, names, MAX_MATCH) : 0;
		for (unsigned j = 0; j < nm; j++)
			fprintf(out, "%s~ %s", j ? ", " : "  ", names[j]);
		if (pv && p->unit == OSP_UNIT_NS && ps.pre[i].predicted >= 0.5) {
			double pr = ps.pre[i].predicted;
			fprintf(out, "%spreemption predicts %.0f (%.0f-%.0f)%s", nm ? "; " : " ",
			        pr, pr * (1 - OSP_PREEMPT_PRECISION),
			        pr * (1 + OSP_PREEMPT_PRECISION),
			        ps.pre[i].explained ? ": explained by preemption" : "");
		}
		fputc('\n', out);
	}
	peaks_free(&ps);
}

void osp_print_peaks_json(FILE *out, const struct osp_profile *p, const struct osp_set *calib,
                          const struct osp_preempt_view *pv)
{
	struct peaks ps;
	if (peaks_get(p, pv, &ps))
		return;
	fputc('{', out);
	osp_json_profile_key(out, p);
	fprintf(out, ",\"unit\":\"%s\",\"count\":%" PRIu64 ",\"total\":%" PRIu64,
	        osp_unit_name(p->unit), p->hist.count, p->hist.total);
	if (pv && p->unit == OSP_UNIT_NS)
		fprintf(out,
		        ",\"preemption\":{\"quantum_ns\":%" PRIu64
		        ",\"nprocs\":%u,\"source\":\"%s\",\"predicted_total\":%.2f}",
		        pv->quantum_ns, pv->nprocs, pv->source,
		        osp_preempt_total(&p->hist, pv->quantum_ns, pv->nprocs));
	fputs(",\"peaks\":[", out);
	for (unsigned i = 0; i < ps.n; i++) {
		const struct osp_peak *k = &ps.pk[i];
		fprintf(out,
		        "%s{\"index\":%u,\"first_bucket\":%d,\"last_bucket\":%d,\"lo_ns\":%" PRIu64
		        ",\"hi_ns\":%" PRIu64 ",\"count\":%" PRIu64
		        ",\"mean_ns\":%.0f,\"share_ops\":%.6f,\"share_lat\":%.6f",
		        i ? "," : "", i + 1, (int)k->first - 1, (int)k->last - 1, k->lo_ns,
		        k->hi_ns, k->count, k->mean_ns, k->share_ops, k->share_lat);
		const char *names[MAX_MATCH];
		unsigned nm =
		    p->unit == OSP_UNIT_NS ? osp_annotate_peak(calib, k, names, MAX_MATCH) : 0;
		fputs(",\"matches\":[", out);
		for (unsigned j = 0; j < nm; j++) {
			fputs(j ? ",\"" : "\"", out);
			osp_json_string(out, names[j]);
			fputc('"', out);
		}
		fputc(']', out);
		if (pv && p->unit == OSP_UNIT_NS)
			fprintf(out, ",\"preempt_predicted\":%.2f,\"preempt_explained\":%s",
			        ps.pre[i].predicted, ps.pre[i].explained ? "true" : "false");
		fputc('}', out);
	}
	fputs("]}\n", out);
	peaks_free(&ps);
}

void osp_print_nest_hints(FILE *out, const struct osp_nest_hint *h, size_t n)
{
	if (!n)
		return;
	fprintf(out,
	        "Likely nested (a peak's population equals another op's count within "
	        "%.1f %% or %d):\n",
	        OSP_NEST_TOL * 100, OSP_NEST_ABS_SLACK);
	for (size_t i = 0; i < n; i++) {
		char lo[256], li[256], which[48];
		if (h[i].peak_first == 1 && h[i].peak_last == h[i].npeaks)
			snprintf(which, sizeof(which), "(all ");
		else if (h[i].peak_first == h[i].peak_last)
			snprintf(which, sizeof(which), "peak %u (", h[i].peak_first);
		else
			snprintf(which, sizeof(which), "peaks %u-%u (", h[i].peak_first,
			         h[i].peak_last);
		fprintf(out,
		        "  %s %s%" PRIu64 " ops) ~ %s (%" PRIu64 " ops): %s probably calls %s\n",
		        osp_profile_label(h[i].outer, lo, sizeof(lo)), which, h[i].outer_count,
		        osp_profile_label(h[i].inner, li, sizeof(li)), h[i].inner_count, lo, li);
	}
	fputc('\n', out);
}
