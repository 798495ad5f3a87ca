/* `osprof report` text view: header, ops ranked by total latency, then one
 * histogram per profile. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <osprof/clock.h>
#include <osprof/losses.h>
#include <osprof/render.h>
#include <osprof/sort.h>

static void print_header(FILE *out, const struct osp_set *s)
{
	static const char *const keys[] = {"command",         "host",
	                                   "kernel",          "layers",
	                                   "duration_ns",     "lost_events",
	                                   "unpaired_events", "dropped_events",
	                                   "user_static",     "user_static_paths",
	                                   "user_setuid",     "user_setuid_paths",
	                                   "probe_cost_ns",   "probe_runs",
	                                   "probe_ns"};
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
		if (!strcmp(keys[i], "duration_ns") || !strcmp(keys[i], "probe_ns")) {
			char b[32];
			fprintf(out, "  %-16s %s\n",
			        strcmp(keys[i], "probe_ns") ? "duration" : "probe_time",
			        osp_format_ns(strtoull(v, NULL, 10), b, sizeof(b)));
		} else {
			fprintf(out, "  %-16s %s\n", keys[i], v);
		}
	}
	struct osp_losses l;
	osp_losses_read(s, &l);
	if (osp_losses_any(&l)) {
		char what[1024];
		osp_losses_describe(&l, what, sizeof(what));
		fprintf(out, "  WARNING: lost while collecting: %s; counts are lower bounds\n",
		        what);
	} else if (l.unpaired_events) {
		fprintf(out,
		        "  note: %llu calls were in flight when the probes attached (unpaired, "
		        "not counted)\n",
		        (unsigned long long)l.unpaired_events);
	}
	fputc('\n', out);
}

static void fmt_cell(char *b, size_t n, uint64_t v, enum osp_unit u)
{
	/* Only the overflow bucket (negative deltas) reaches 2^63: its values
	 * are no durations, so do not print them as 9223372036.85 s. */
	if (v >= (UINT64_C(1) << 63))
		snprintf(b, n, "overflow");
	else if (u == OSP_UNIT_NS)
		osp_format_ns(v, b, (unsigned)n);
	else
		snprintf(b, n, "%" PRIu64, v);
}

/* The summary has one section per layer, since layers nest (a read's
 * syscall time contains its fs time) and a ranking or a share across layers
 * would count the same nanoseconds twice. Within a section profiles are
 * ranked by total latency and SHARE/CUM are of the section's total, so CUM
 * grows to 100%. Non-latency profiles (bytes, counts) close their section
 * without shares. A set has a handful of layers: a short list will do. */
struct layer_acc {
	const char *layer;
	uint64_t total;
	size_t nprof;
};
#define MAX_LAYER_ACC 64

static struct layer_acc *layer_acc_find(struct layer_acc *acc, unsigned *n, const char *layer)
{
	for (unsigned i = 0; i < *n; i++)
		if (!strcmp(acc[i].layer, layer))
			return &acc[i];
	if (*n == MAX_LAYER_ACC)
		return NULL;
	acc[*n] = (struct layer_acc){.layer = layer};
	return &acc[(*n)++];
}

/* Sections in order of their layer's total latency, for the comparator:
 * qsort takes no context argument (set and cleared by sort_sections). */
static struct layer_acc *g_acc;
static unsigned g_nacc;

static unsigned layer_rank(const char *layer)
{
	for (unsigned i = 0; i < g_nacc; i++)
		if (!strcmp(g_acc[i].layer, layer))
			return i;
	return g_nacc;
}

static int cmp_section(const void *a, const void *b)
{
	const struct osp_profile *x = *(const struct osp_profile *const *)a;
	const struct osp_profile *y = *(const struct osp_profile *const *)b;
	unsigned lx = layer_rank(x->layer), ly = layer_rank(y->layer);
	if (lx != ly)
		return lx < ly ? -1 : 1;
	int nx = x->unit == OSP_UNIT_NS, ny = y->unit == OSP_UNIT_NS;
	if (nx != ny)
		return nx ? -1 : 1;
	if (x->hist.total != y->hist.total)
		return x->hist.total > y->hist.total ? -1 : 1;
	return strcmp(x->op, y->op);
}

static int cmp_acc(const void *a, const void *b)
{
	const struct layer_acc *x = a, *y = b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->layer, y->layer);
}

/* Orders the first n profiles (the --top selection) into layer sections;
 * acc gets every layer's total over the whole set. */
static void sort_sections(struct osp_set *s, size_t n, struct layer_acc *acc, unsigned *nacc)
{
	*nacc = 0;
	for (size_t i = 0; i < s->n; i++) {
		struct layer_acc *a = layer_acc_find(acc, nacc, s->profiles[i]->layer);
		if (a && s->profiles[i]->unit == OSP_UNIT_NS)
			a->total += s->profiles[i]->hist.total;
		if (a && i < n)
			a->nprof++;
	}
	osp_sort(acc, *nacc, sizeof(*acc), cmp_acc);
	g_acc = acc;
	g_nacc = *nacc;
	osp_sort(s->profiles, n, sizeof(*s->profiles), cmp_section);
	g_acc = NULL;
	g_nacc = 0;
}

/* The label column is as wide as the longest label shown (at least the
 * header's), so long dimension lists never push the numbers out of line. */
static int label_width(const struct osp_set *s, size_t n)
{
	char label[256];
	int w = (int)strlen("PROFILE");
	for (size_t i = 0; i < n; i++) {
		int l = (int)strlen(osp_profile_label(s->profiles[i], label, sizeof(label)));
		if (l > w)
			w = l;
	}
	return w;
}

static void print_summary(FILE *out, struct osp_set *s, const struct osp_report_opts *o, size_t n)
{
	char label[256], tot[24], mean[24], mn[24], mx[24], pc[24];
	struct layer_acc acc[MAX_LAYER_ACC];
	unsigned nacc;
	sort_sections(s, n, acc, &nacc);
	int lw = label_width(s, n);
	const char *cur = NULL;
	uint64_t cum = 0, layer_total = 0;
	for (size_t i = 0; i < n; i++) {
		const struct osp_profile *p = s->profiles[i];
		const struct osp_hist *h = &p->hist;
		if (!cur || strcmp(cur, p->layer)) {
			cur = p->layer;
			cum = 0;
			layer_total = 0;
			size_t np = 0;
			for (unsigned a = 0; a < nacc; a++)
				if (!strcmp(acc[a].layer, cur)) {
					layer_total = acc[a].total;
					np = acc[a].nprof;
				}
			if (i)
				fputc('\n', out);
			fmt_cell(tot, sizeof(tot), layer_total, OSP_UNIT_NS);
			fprintf(out, "LAYER %s: %zu profile%s", cur, np, np == 1 ? "" : "s");
			if (layer_total)
				fprintf(out, ", total latency %s", tot);
			fputc('\n', out);
			fprintf(out, "%-*s %10s %11s %6s %6s %11s %11s %11s", lw, "PROFILE",
			        "COUNT", "TOTAL", "SHARE", "CUM", "MEAN", "MIN", "MAX");
			for (unsigned j = 0; j < o->npcts; j++) {
				snprintf(pc, sizeof(pc), "P%g", o->pcts[j]);
				fprintf(out, " %11s", pc);
			}
			fputc('\n', out);
		}
		fmt_cell(tot, sizeof(tot), h->total, p->unit);
		fmt_cell(mean, sizeof(mean), h->count ? h->total / h->count : 0, p->unit);
		fmt_cell(mn, sizeof(mn), h->count ? h->min : 0, p->unit);
		fmt_cell(mx, sizeof(mx), h->max, p->unit);
		fprintf(out, "%-*s %10" PRIu64 " %11s", lw,
		        osp_profile_label(p, label, sizeof(label)), h->count, tot);
		if (layer_total && p->unit == OSP_UNIT_NS) {
			cum += h->total;
			fprintf(out, " %5.1f%% %5.1f%%",
			        100.0 * (double)h->total / (double)layer_total,
			        100.0 * (double)cum / (double)layer_total);
		} else {
			fprintf(out, " %6s %6s", "-", "-");
		}
		fprintf(out, " %11s %11s %11s", mean, mn, mx);
		for (unsigned j = 0; j < o->npcts; j++) {
			fmt_cell(pc, sizeof(pc), osp_hist_quantile(h, o->pcts[j] / 100.0), p->unit);
			fprintf(out, " %11s", pc);
		}
		fputc('\n', out);
	}
	fprintf(out, "(one section per layer, ranked by total latency; SHARE and CUM: of the "
	             "layer's total latency)\n\n");
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
		/* The title names the unit the scale below is in. */
		fprintf(out, "%s (%s)\n", osp_profile_label(p, label, sizeof(label)),
		        osp_unit_div_name(p->unit == OSP_UNIT_NS ? div : 1, p->unit));
		osp_print_hist(out, &p->hist, p->hist.buckets, p->unit, div);
		if (o->slices)
			print_slices(out, s, p);
		if (o->after_hist)
			o->after_hist(out, p, o->ctx);
		fputc('\n', out);
	}
}
