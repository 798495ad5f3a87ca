/* `osprof report` text view: header, ops ranked by total latency, then one
 * histogram per profile. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <osprof/clock.h>
#include <osprof/render.h>

static void print_header(FILE *out, const struct osp_set *s)
{
	static const char *const keys[] = {"command",         "host",         "kernel",
	                                   "layers",          "duration_ns",  "lost_events",
	                                   "unpaired_events", "probe_cost_ns"};
	fprintf(out, "osprof profile set: %zu profiles, resolution r=%u", s->n, s->r);
	if (s->slice_ns) {
		char b[32];
		fprintf(out, ", slices of %s", osp_format_ns(s->slice_ns, b, sizeof(b)));
	}
	fputc('\n', out);
	for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *v = osp_get_meta(s, keys[i]);
		if (!v)
			continue;
		if (!strcmp(keys[i], "duration_ns")) {
			char b[32];
			fprintf(out, "  %-16s %s\n", "duration",
			        osp_format_ns(strtoull(v, NULL, 10), b, sizeof(b)));
		} else {
			fprintf(out, "  %-16s %s\n", keys[i], v);
		}
	}
	if (osp_meta_u64(s, "lost_events") || osp_meta_u64(s, "unpaired_events"))
		fprintf(out,
		        "  WARNING: events were lost or unpaired; counts above are lower bounds\n");
	fputc('\n', out);
}

static void fmt_cell(char *b, size_t n, uint64_t v, enum osp_unit u)
{
	if (u == OSP_UNIT_NS)
		osp_format_ns(v, b, (unsigned)n);
	else
		snprintf(b, n, "%" PRIu64, v);
}

/* Latency of one layer: shares are taken within a layer, since layers nest
 * (a read's syscall time contains its fs time) and a sum across layers would
 * count the same nanoseconds twice. */
static uint64_t layer_total(const struct osp_set *s, const char *layer)
{
	uint64_t t = 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->profiles[i]->unit == OSP_UNIT_NS && !strcmp(s->profiles[i]->layer, layer))
			t += s->profiles[i]->hist.total;
	return t;
}

/* Sum of totals of the profiles of the same layer ranked at or above i. */
static uint64_t layer_cumulative(const struct osp_set *s, size_t i)
{
	uint64_t t = 0;
	for (size_t j = 0; j <= i; j++)
		if (s->profiles[j]->unit == OSP_UNIT_NS &&
		    !strcmp(s->profiles[j]->layer, s->profiles[i]->layer))
			t += s->profiles[j]->hist.total;
	return t;
}

static void print_summary(FILE *out, struct osp_set *s, const struct osp_report_opts *o, size_t n)
{
	char label[256], tot[24], mean[24], mn[24], mx[24], pc[24];
	fprintf(out, "%-40s %10s %11s %6s %6s %11s %11s %11s", "PROFILE", "COUNT", "TOTAL", "SHARE",
	        "CUM", "MEAN", "MIN", "MAX");
	for (unsigned j = 0; j < o->npcts; j++) {
		snprintf(pc, sizeof(pc), "P%g", o->pcts[j]);
		fprintf(out, " %11s", pc);
	}
	fputc('\n', out);
	for (size_t i = 0; i < n; i++) {
		const struct osp_profile *p = s->profiles[i];
		const struct osp_hist *h = &p->hist;
		fmt_cell(tot, sizeof(tot), h->total, p->unit);
		fmt_cell(mean, sizeof(mean), h->count ? h->total / h->count : 0, p->unit);
		fmt_cell(mn, sizeof(mn), h->count ? h->min : 0, p->unit);
		fmt_cell(mx, sizeof(mx), h->max, p->unit);
		fprintf(out, "%-40s %10" PRIu64 " %11s", osp_profile_label(p, label, sizeof(label)),
		        h->count, tot);
		uint64_t lt = p->unit == OSP_UNIT_NS ? layer_total(s, p->layer) : 0;
		if (lt)
			fprintf(out, " %5.1f%% %5.1f%%", 100.0 * (double)h->total / (double)lt,
			        100.0 * (double)layer_cumulative(s, i) / (double)lt);
		else
			fprintf(out, " %6s %6s", "-", "-");
		fprintf(out, " %11s %11s %11s", mean, mn, mx);
		for (unsigned j = 0; j < o->npcts; j++) {
			fmt_cell(pc, sizeof(pc), osp_hist_quantile(h, o->pcts[j] / 100.0), p->unit);
			fprintf(out, " %11s", pc);
		}
		fputc('\n', out);
	}
	fprintf(out, "(SHARE and CUM: of the total latency of the profile's layer)\n\n");
}

/* One row per slice, one character per bucket: a text heat map. */
static void print_slices(FILE *out, const struct osp_set *s, const struct osp_profile *p)
{
	static const char shades[] = " .:-=+*#%@";
	const struct osp_hist *h = &p->hist;
	int first = osp_hist_first(h), last = osp_hist_last(h);
	uint64_t peak = 0;
	char b1[24], b2[24], b3[24];
	if (first < 0 || !p->nslices)
		return;
	for (size_t j = 0; j < p->nslices; j++)
		for (int i = first; i <= last; i++)
			if (p->slices[j].buckets[i] > peak)
				peak = p->slices[j].buckets[i];
	fprintf(out,
	        "  time slices (%s each), buckets %s .. %s, shade = count (peak %" PRIu64 ")\n",
	        osp_format_ns(s->slice_ns, b1, sizeof(b1)),
	        osp_format_ns(osp_bucket_lo((unsigned)first, h->r), b2, sizeof(b2)),
	        osp_format_ns(osp_bucket_hi((unsigned)last, h->r), b3, sizeof(b3)), peak);
	for (size_t j = 0; j < p->nslices; j++) {
		uint64_t n = 0;
		fprintf(out, "  %10.3fs |", (double)(p->slices[j].index * s->slice_ns) / 1e9);
		for (int i = first; i <= last; i++) {
			uint64_t c = p->slices[j].buckets[i];
			n += c;
			fputc(c ? shades[1 + (c * 8 + peak - 1) / peak] : ' ', out);
		}
		fprintf(out, "| %" PRIu64 "\n", n);
	}
}

void osp_render_text(FILE *out, struct osp_set *s, const struct osp_report_opts *o)
{
	osp_set_sort_by_total(s);
	size_t n = o->top && o->top < s->n ? o->top : s->n;
	print_header(out, s);
	if (!s->n) {
		fprintf(out, "no profiles\n");
		return;
	}
	print_summary(out, s, o, n);
	if (o->after_summary)
		o->after_summary(out, s, o->ctx);
	if (o->no_hist)
		return;
	for (size_t i = 0; i < n; i++) {
		const struct osp_profile *p = s->profiles[i];
		char label[256];
		uint64_t div = o->unit_div ? o->unit_div : osp_pick_unit_div(&p->hist);
		fprintf(out, "%s (%s)\n", osp_profile_label(p, label, sizeof(label)),
		        osp_unit_name(p->unit));
		osp_print_hist(out, &p->hist, p->hist.buckets, p->unit, div);
		if (o->slices)
			print_slices(out, s, p);
		if (o->after_hist)
			o->after_hist(out, p, o->ctx);
		fputc('\n', out);
	}
}
