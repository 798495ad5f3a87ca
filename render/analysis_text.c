/* Text and JSON views of peaks, their characteristic-time matches and
 * preemption predictions, and nesting hints (`osprof peaks`, `osprof report`). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <osprof/analysis.h>
#include <osprof/clock.h>
#include <osprof/render.h>
#include <osprof/sort.h>

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
	if (pv && p->unit == OSP_UNIT_NS) {
		osp_preempt_peaks(&p->hist, out->pk, out->n, pv->quantum_ns, pv->nprocs, out->pre);
		osp_preempt_evidence(pv->set, p, out->pk, out->n, out->pre);
	}
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

/* The preemption verdict of one peak: measured where the set has the
 * evidence, else only what the model allows ("could be", never "is"). */
static void preempt_note(FILE *out, const struct osp_preempt_peak *r, const char *sep)
{
	double pr = r->predicted;
	switch (r->evidence) {
	case OSP_PREEMPT_EV_SPLIT:
		if (!r->measured && pr < 0.5)
			return;
		fprintf(out,
		        "%s%" PRIu64 " of %" PRIu64 " calls preempted in flight (measured, "
		        "--split preempt): %s",
		        sep, r->measured, r->calls,
		        r->explained ? "explained by preemption" : "not explained by preemption");
		return;
	case OSP_PREEMPT_EV_OFFCPU:
		if (!r->measured && pr < 0.5)
			return;
		fprintf(out,
		        "%spreemption predicts %.0f, %" PRIu64 " preempted switch-outs of this "
		        "length (measured, sched:offcpu): %s",
		        sep, pr, r->measured,
		        r->explained ? "explained by preemption" : "not explained by preemption");
		return;
	case OSP_PREEMPT_EV_MODEL:
		break;
	}
	if (pr < 0.5)
		return;
	fprintf(out, "%spreemption predicts %.0f (%.0f-%.0f)%s", sep, pr,
	        pr * (1 - OSP_PREEMPT_PRECISION), pr * (1 + OSP_PREEMPT_PRECISION),
	        r->model_fits ? ": could be explained by preemption (model)" : "");
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
		struct osp_peak_label lb[MAX_MATCH];
		unsigned nm = osp_label_peak(calib, p, k, lb, MAX_MATCH);
		for (unsigned j = 0; j < nm; j++)
			fprintf(out, "%s%s%s", j ? ", " : "  consistent with ", lb[j].label,
			        lb[j].fs_unknown ? " (fs unknown)" : "");
		if (pv && p->unit == OSP_UNIT_NS)
			preempt_note(out, &ps.pre[i], nm ? "; " : " ");
		fputc('\n', out);
	}
	uint64_t in = 0;
	for (unsigned i = 0; i < ps.n; i++)
		in += ps.pk[i].count;
	if (in < h->count)
		fprintf(out,
		        "  %4s %" PRIu64 " calls in hills of < %d calls between empty buckets\n",
		        "-", h->count - in, OSP_PEAK_MIN_COUNT);
	peaks_free(&ps);
}

/* Each label with the calibration item and the evidence. */
static void json_labels(struct osp_json *j, const struct osp_peak_label *lb, unsigned nm)
{
	osp_json_karr(j, "matches");
	for (unsigned i = 0; i < nm; i++)
		osp_json_str(j, lb[i].label);
	osp_json_arr_end(j);
	osp_json_karr(j, "labels");
	for (unsigned i = 0; i < nm; i++) {
		osp_json_obj(j);
		osp_json_kstr(j, "label", lb[i].label);
		osp_json_kstr(j, "wording", "consistent with");
		osp_json_kbool(j, "fs_unknown", lb[i].fs_unknown);
		osp_json_kstr(j, "calibration_item", lb[i].item);
		osp_json_kdbl(j, "calib_ns", "%.0f", lb[i].calib_ns);
		osp_json_kdbl(j, "calib_lo_ns", "%.0f", lb[i].calib_lo_ns);
		osp_json_kdbl(j, "calib_hi_ns", "%.0f", lb[i].calib_hi_ns);
		osp_json_kstr(j, "evidence", lb[i].evidence);
		osp_json_obj_end(j);
	}
	osp_json_arr_end(j);
}

static void json_preempt(struct osp_json *j, const struct osp_preempt_peak *r)
{
	static const char *const ev[] = {"model", "split", "offcpu"};
	osp_json_kdbl(j, "preempt_predicted", "%.2f", r->predicted);
	osp_json_kbool(j, "preempt_model_fits", r->model_fits);
	osp_json_kstr(j, "preempt_evidence", ev[r->evidence]);
	/* explained is a measured verdict: null without measurement. */
	if (r->evidence == OSP_PREEMPT_EV_MODEL) {
		osp_json_key(j, "preempt_explained");
		osp_json_null(j);
		return;
	}
	osp_json_ku64(j, "preempt_measured", r->measured);
	osp_json_ku64(j, "preempt_calls", r->calls);
	osp_json_kbool(j, "preempt_explained", r->explained);
}

void osp_print_peaks_json(FILE *out, const struct osp_profile *p, const struct osp_set *calib,
                          const struct osp_preempt_view *pv)
{
	struct peaks ps;
	struct osp_json j;
	if (peaks_get(p, pv, &ps))
		return;
	osp_json_init(&j, out);
	osp_json_obj(&j);
	osp_json_profile_key(&j, p);
	osp_json_kstr(&j, "unit", osp_unit_name(p->unit));
	osp_json_ku64(&j, "count", p->hist.count);
	osp_json_ku64(&j, "total", p->hist.total);
	if (pv && p->unit == OSP_UNIT_NS) {
		osp_json_kobj(&j, "preemption");
		osp_json_ku64(&j, "quantum_ns", pv->quantum_ns);
		osp_json_ku64(&j, "nprocs", pv->nprocs);
		osp_json_kstr(&j, "source", pv->source);
		osp_json_kdbl(&j, "predicted_total", "%.2f",
		              osp_preempt_total(&p->hist, pv->quantum_ns, pv->nprocs));
		osp_json_obj_end(&j);
	}
	uint64_t in = 0;
	for (unsigned i = 0; i < ps.n; i++)
		in += ps.pk[i].count;
	/* Calls in outlier hills, which belong to no peak. */
	osp_json_ku64(&j, "outliers", p->hist.count - in);
	osp_json_karr(&j, "peaks");
	for (unsigned i = 0; i < ps.n; i++) {
		const struct osp_peak *k = &ps.pk[i];
		osp_json_obj(&j);
		osp_json_ku64(&j, "index", i + 1);
		osp_json_ki64(&j, "first_bucket", (int)k->first - 1);
		osp_json_ki64(&j, "last_bucket", (int)k->last - 1);
		osp_json_ku64(&j, "lo_ns", k->lo_ns);
		osp_json_ku64(&j, "hi_ns", k->hi_ns);
		osp_json_ku64(&j, "count", k->count);
		osp_json_kdbl(&j, "mean_ns", "%.0f", k->mean_ns);
		osp_json_kdbl(&j, "share_ops", "%.6f", k->share_ops);
		osp_json_kdbl(&j, "share_lat", "%.6f", k->share_lat);
		struct osp_peak_label lb[MAX_MATCH];
		json_labels(&j, lb, osp_label_peak(calib, p, k, lb, MAX_MATCH));
		if (pv && p->unit == OSP_UNIT_NS)
			json_preempt(&j, &ps.pre[i]);
		osp_json_obj_end(&j);
	}
	osp_json_arr_end(&j);
	osp_json_obj_end(&j);
	osp_json_line(&j);
	peaks_free(&ps);
}

void osp_print_nest_hints(FILE *out, const struct osp_nest_hint *h, size_t n)
{
	if (!n)
		return;
	fprintf(out,
	        "Nesting guessed from counts, not measured (a peak's population equals "
	        "another op's count within %.1f %% or %d):\n",
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
		        "  %s %s%" PRIu64 " ops) ~ %s (%" PRIu64 " ops): guess: %s may call %s\n",
		        osp_profile_label(h[i].outer, lo, sizeof(lo)), which, h[i].outer_count,
		        osp_profile_label(h[i].inner, li, sizeof(li)), h[i].inner_count, lo, li);
	}
	fputc('\n', out);
}

/* "layer:op dim=value ..." of a parent entry, as osp_profile_label writes a key. */
static const char *parent_label(const struct osp_parent *q, char *buf, size_t len)
{
	size_t o = (size_t)snprintf(buf, len, "%s:%s", q->layer, q->op);
	for (unsigned d = 0; d < q->ndims && o < len; d++)
		o +=
		    (size_t)snprintf(buf + o, len - o, " %s=%s", q->dims[d].name, q->dims[d].value);
	return buf;
}

/* Parents of one layer, most calls first, shown per profile and layer. */
#define NEST_SHOWN 3

static int by_calls(const void *x, const void *y)
{
	const struct osp_parent *a = *(const struct osp_parent *const *)x;
	const struct osp_parent *b = *(const struct osp_parent *const *)y;
	return a->count < b->count ? 1 : a->count > b->count ? -1 : 0;
}

/* The parents of p at `layer`: the NEST_SHOWN with most calls, the rest
 * summed on one line. */
static void print_layer_parents(FILE *out, const struct osp_profile *p, const char *layer)
{
	const struct osp_parent **q = malloc(p->nparents * sizeof(*q));
	char li[256], lo[256];
	size_t n = 0;
	if (!q)
		return;
	for (size_t k = 0; k < p->nparents; k++)
		if (!strcmp(p->parents[k].layer, layer))
			q[n++] = &p->parents[k];
	osp_sort(q, n, sizeof(*q), by_calls);
	uint64_t of = osp_profile_parent_total(p, layer), rest = 0;
	osp_profile_label(p, li, sizeof(li));
	for (size_t k = 0; k < n; k++) {
		if (k >= NEST_SHOWN)
			rest += q[k]->count;
		else if (q[k]->op)
			fprintf(out, "  %s -> %s: %" PRIu64 " of %" PRIu64 " calls\n",
			        parent_label(q[k], lo, sizeof(lo)), li, q[k]->count, of);
		else
			fprintf(out, "  outside any %s -> %s: %" PRIu64 " of %" PRIu64 " calls\n",
			        layer, li, q[k]->count, of);
	}
	if (n > NEST_SHOWN)
		fprintf(out, "  %zu more at %s -> %s: %" PRIu64 " of %" PRIu64 " calls\n",
		        n - NEST_SHOWN, layer, li, rest, of);
	free(q);
}

void osp_print_nesting_measured(FILE *out, const struct osp_set *s)
{
	int any = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct osp_profile *p = s->profiles[i];
		for (size_t k = 0; k < p->nparents; k++) {
			const char *layer = p->parents[k].layer;
			size_t first = 0;
			while (strcmp(p->parents[first].layer, layer))
				first++;
			if (first != k)
				continue; /* this layer was printed at its first entry */
			if (!any++)
				fputs(
				    "Nesting, measured (the operation in flight at the layer above "
				    "when each call ran):\n",
				    out);
			print_layer_parents(out, p, layer);
		}
	}
	if (any)
		fputc('\n', out);
}

/* osprof netfs */

static void netfs_dist(FILE *out, const struct osp_netfs_class *c)
{
	const struct osp_hist *h[3] = {&c->client, &c->server, &c->remainder};
	int lo = -1, hi = -1;
	for (int k = 0; k < 3; k++) {
		int f = osp_hist_first(h[k]), l = osp_hist_last(h[k]);
		if (f >= 0 && (lo < 0 || f < lo))
			lo = f;
		if (l > hi)
			hi = l;
	}
	fprintf(out, "  %-27s %10s %10s %12s\n", "latency", "client", "server", "remainder~");
	fputs("  (remainder~: an estimate; the two ends' calls are not paired one by one,\n"
	      "   so it couples the client's and the server's quantiles)\n",
	      out);
	for (int b = lo; b >= 0 && b <= hi; b++) {
		char a[32], z[32], range[80];
		osp_format_ns(osp_bucket_lo((unsigned)b, c->client.r), a, sizeof(a));
		osp_format_ns(osp_bucket_hi((unsigned)b, c->client.r), z, sizeof(z));
		if (b == 0)
			snprintf(range, sizeof(range), "0");
		else
			snprintf(range, sizeof(range), "%s - %s", a, z);
		fprintf(out, "  %-27s %10llu %10llu %12llu\n", range,
		        (unsigned long long)c->client.buckets[b],
		        (unsigned long long)c->server.buckets[b],
		        (unsigned long long)c->remainder.buckets[b]);
	}
	for (unsigned i = 0; i < c->net_peaks; i++) {
		char a[32], z[32];
		fprintf(out,
		        "  guess: network peak %s - %s (a client peak with no server peak "
		        "there)\n",
		        osp_format_ns(c->net_peak_lo[i], a, sizeof(a)),
		        osp_format_ns(c->net_peak_hi[i], z, sizeof(z)));
	}
}

static double netfs_mean(const struct osp_hist *h)
{
	return h->count ? (double)h->total / (double)h->count : 0;
}

void osp_print_netfs(FILE *out, const char *client, const char *server,
                     const struct osp_netfs_class *c, int n)
{
	fprintf(out, "osprof netfs: client %s, server %s\n\n", client, server);
	fprintf(out, "%-8s %9s %11s %8s %11s %7s %12s %7s\n", "CLASS", "CALLS", "CLIENT MEAN",
	        "RPCS/OP", "SERVER MEAN", "SERVER", "REMAINDER", "LAYER");
	for (int i = 0; i < n; i++) {
		char cm[32], sm[32], rm[32];
		double r = c[i].remainder_ns;
		osp_format_ns((uint64_t)netfs_mean(&c[i].client), cm, sizeof(cm));
		osp_format_ns((uint64_t)netfs_mean(&c[i].server), sm, sizeof(sm));
		osp_format_ns((uint64_t)fabs(r), rm, sizeof(rm));
		fprintf(out, "%-8s %9llu %11s %8.2f %11s %6.1f%% %s%11s %7s\n", c[i].name,
		        (unsigned long long)c[i].client.count, cm, c[i].rpcs_per_op, sm,
		        100 * c[i].server_share, r < 0 ? "-" : " ", rm, c[i].server_layer);
	}
	fprintf(out, "(SERVER: the server's share of the client's total latency; REMAINDER: mean\n"
	             " per client call left to network, protocol and client queueing)\n");
	for (int i = 0; i < n; i++) {
		fprintf(out, "\n%s:\n", c[i].name);
		if (c[i].nfs)
			fprintf(out, "  client RPCs of the class: %llu (rpc layer, side=client)\n",
			        (unsigned long long)c[i].client_rpcs);
		netfs_dist(out, &c[i]);
	}
}
