/* The self-contained HTML report: render/html/report.html with the style,
 * the script and the profile data (JSON) put in place of its markers. The
 * data layout is documented in docs/views.md. */
#include <stdlib.h>
#include <string.h>
#include <osprof/render.h>
#include <osprof/sort.h>
#include "render/vmodel.h"
#include "html_assets.h"

/* JSON string safe inside <script>: '<' and '&' are escaped too, so no
 * "</script>" or "<!--" can appear in the data. */
static void js_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&' || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static void js_num(FILE *f, double v)
{
	/* JSON has no NaN or Infinity. */
	if (v != v || v > 1e300 || v < -1e300)
		v = 0;
	fprintf(f, "%.6g", v);
}

/* Non-empty span of b as FIRST<sep>[counts...]. */
static void buckets_json(FILE *f, const uint64_t *b, unsigned n, const char *sep)
{
	int first = -1, last = -1;
	for (unsigned i = 0; i < n; i++)
		if (b[i]) {
			if (first < 0)
				first = (int)i;
			last = (int)i;
		}
	if (first < 0) {
		fprintf(f, "0%s[]", sep);
		return;
	}
	fprintf(f, "%d%s[", first, sep);
	for (int i = first; i <= last; i++)
		fprintf(f, "%s%llu", i > first ? "," : "", (unsigned long long)b[i]);
	fputc(']', f);
}

static void profile_json(FILE *f, const struct osp_set *s, const struct osp_profile *p,
                         const struct osp_vm_totals *tot, int slices)
{
	struct osp_vm_stats st;
	struct osp_vm_note nt[OSP_VM_MAX_NOTES];
	osp_vm_stats(p, tot, &st);
	unsigned nn = osp_vm_notes(s, p, nt, OSP_VM_MAX_NOTES);
	fputs("{\"l\":", f);
	js_str(f, p->layer);
	fputs(",\"o\":", f);
	js_str(f, p->op);
	fputs(",\"d\":{", f);
	for (unsigned i = 0; i < p->ndims; i++) {
		if (i)
			fputc(',', f);
		js_str(f, p->dims[i].name);
		fputc(':', f);
		js_str(f, p->dims[i].value);
	}
	fprintf(f, "},\"u\":\"%s\",\"c\":%llu,\"t\":%llu,\"mn\":%llu,\"mx\":%llu,\"mean\":%llu,",
	        osp_unit_name(p->unit), (unsigned long long)st.count, (unsigned long long)st.total,
	        (unsigned long long)(p->hist.count ? p->hist.min : 0),
	        (unsigned long long)p->hist.max, (unsigned long long)st.mean);
	fprintf(f, "\"p50\":%llu,\"p99\":%llu,\"sh\":", (unsigned long long)st.p50,
	        (unsigned long long)st.p99);
	js_num(f, st.share);
	fputs(",\"f\":", f);
	buckets_json(f, p->hist.buckets, p->hist.nbuckets, ",\"b\":");
	fputs(",\"pk\":[", f);
	for (unsigned k = 0; k < st.npeaks; k++) {
		const struct osp_vm_peak *pk = &st.peaks[k];
		fprintf(f, "%s[%u,%u,%u,%llu,", k ? "," : "", pk->lo, pk->hi, pk->mode,
		        (unsigned long long)pk->count);
		js_num(f, pk->mean);
		fputc(',', f);
		js_num(f, pk->share_ops);
		fputc(',', f);
		js_num(f, pk->share_lat);
		fputc(',', f);
		js_str(f, pk->note);
		fputc(']', f);
	}
	fputs("],\"nt\":[", f);
	for (unsigned k = 0; k < nn; k++) {
		fputs(k ? ",[" : "[", f);
		js_num(f, nt[k].value);
		fputc(',', f);
		js_str(f, nt[k].label);
		fputc(']', f);
	}
	fputs("],\"s\":[", f);
	for (size_t i = 0; slices && i < p->nslices; i++) {
		fprintf(f, "%s[%llu,", i ? "," : "", (unsigned long long)p->slices[i].index);
		buckets_json(f, p->slices[i].buckets, p->hist.nbuckets, ",");
		fputc(']', f);
	}
	fputs("]}", f);
}

struct pidx {
	const struct osp_profile *p;
	long i;
};

static int by_ptr(const void *x, const void *y)
{
	const struct osp_profile *a = ((const struct pidx *)x)->p, *b = ((const struct pidx *)y)->p;
	return a < b ? -1 : a > b;
}

static long index_of(const struct pidx *v, size_t n, const struct osp_profile *p)
{
	if (!p)
		return -1;
	struct pidx key = {p, 0};
	const struct pidx *hit = bsearch(&key, v, n, sizeof(*v), by_ptr);
	return hit ? hit->i : -1;
}

static struct pidx *index_set(const struct osp_set *s)
{
	struct pidx *v = malloc((s->n ? s->n : 1) * sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; i < s->n; i++)
		v[i] = (struct pidx){s->profiles[i], (long)i};
	osp_sort(v, s->n, sizeof(*v), by_ptr);
	return v;
}

/* Which profiles carry their time slices into the report: the max_heat
 * sliced ones with the most latency (0: all), so a long recording of many
 * profiles cannot blow the report up. flags[i] is set for s->profiles[i]. */
static size_t pick_heatmaps(const struct osp_set *s, unsigned max_heat, char *flags,
                            size_t *nsliced)
{
	const struct osp_profile **v = NULL;
	long n = osp_vm_select(s, NULL, 0, &v);
	struct pidx *ix = index_set(s);
	size_t picked = 0;
	*nsliced = 0;
	for (long k = 0; k < n && ix; k++) {
		if (!v[k]->nslices)
			continue;
		++*nsliced;
		if (max_heat && picked == max_heat)
			continue;
		long i = index_of(ix, s->n, v[k]);
		if (i >= 0) {
			flags[i] = 1;
			picked++;
		}
	}
	free(v);
	free(ix);
	return picked;
}

static void set_json(FILE *f, const struct osp_set *s, const char *name, int heat,
                     unsigned max_heat)
{
	fputs("{\"name\":", f);
	js_str(f, name ? name : "");
	fprintf(f, ",\"r\":%u,\"slice_ns\":%llu,\"meta\":[", s->r, (unsigned long long)s->slice_ns);
	for (size_t i = 0; i < s->nmeta; i++) {
		fputs(i ? ",[" : "[", f);
		js_str(f, s->meta[i].key);
		fputc(',', f);
		js_str(f, s->meta[i].value);
		fputc(']', f);
	}
	struct osp_vm_totals tot;
	osp_vm_totals(s, &tot);
	fprintf(f, "],\"total\":%llu,\"edges\":[", (unsigned long long)osp_set_total(s));
	for (unsigned i = 0; i < osp_nbuckets(s->r); i++)
		fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)osp_bucket_lo(i, s->r));
	char *flags = calloc(s->n ? s->n : 1, 1);
	size_t nsliced = 0,
	       picked = heat && flags ? pick_heatmaps(s, max_heat, flags, &nsliced) : 0;
	fprintf(f, "],\"sliced\":%zu,\"heat\":%zu,\"profiles\":[\n", nsliced, picked);
	for (size_t i = 0; i < s->n; i++) {
		if (i)
			fputs(",\n", f);
		profile_json(f, s, s->profiles[i], &tot, flags && flags[i]);
	}
	fputs("]}", f);
	free(flags);
}

static int diff_json(FILE *f, const struct osp_set *a, const struct osp_set *b)
{
	struct osp_vm_diff *d = NULL;
	long n = osp_vm_diff(a, b, &d);
	struct pidx *ia = index_set(a), *ib = index_set(b);
	if (n < 0 || !ia || !ib) {
		free(d);
		free(ia);
		free(ib);
		return -1;
	}
	fputs("[\n", f);
	for (long k = 0; k < n; k++) {
		fprintf(f, "%s{\"a\":%ld,\"b\":%ld,\"score\":", k ? ",\n" : "",
		        index_of(ia, a->n, d[k].a), index_of(ib, b->n, d[k].b));
		js_num(f, d[k].score);
		fputs(",\"verdict\":", f);
		js_str(f, d[k].verdict ? d[k].verdict : "");
		fputs(",\"reason\":", f);
		js_str(f, d[k].reason);
		fputc('}', f);
	}
	fputs("]", f);
	free(d);
	free(ia);
	free(ib);
	return 0;
}

/* Writes template bytes up to the next "<!--OSPROF:NAME-->" marker (or the
 * end) and returns what follows the marker, NULL at the end. */
static const char *upto_marker(FILE *f, const char *t, const char *end, const char **name)
{
	static const char mk[] = "<!--OSPROF:";
	const char *m = memmem(t, (size_t)(end - t), mk, sizeof(mk) - 1);
	if (!m) {
		fwrite(t, 1, (size_t)(end - t), f);
		return NULL;
	}
	fwrite(t, 1, (size_t)(m - t), f);
	*name = m + sizeof(mk) - 1;
	const char *close = memmem(m, (size_t)(end - m), "-->", 3);
	return close ? close + 3 : NULL;
}

static void rootcause_json(FILE *f, const struct osp_folded_set *rc, const char *name)
{
	fputs("{\"name\":", f);
	js_str(f, name ? name : "");
	fputs(",\"paths\":[", f);
	for (size_t i = 0; i < rc->n; i++) {
		fputs(i ? ",\n[" : "[", f);
		js_str(f, rc->e[i].path);
		fprintf(f, ",%llu]", (unsigned long long)rc->e[i].count);
	}
	fputs("]}", f);
}

int osp_render_html(FILE *f, const struct osp_set *a, const struct osp_html_opts *o)
{
	const struct osp_set *b = o->b;
	const char *t = (const char *)render_html_report_html;
	osp_vm_set_calibration(o->calib);
	const char *end = t + render_html_report_html_len, *name = NULL;
	while ((t = upto_marker(f, t, end, &name))) {
		if (!strncmp(name, "CSS", 3)) {
			fwrite(render_html_report_css, 1, render_html_report_css_len, f);
		} else if (!strncmp(name, "JS", 2)) {
			fwrite(render_html_report_js, 1, render_html_report_js_len, f);
		} else if (!strncmp(name, "DATA", 4)) {
			fputs("{\"version\":1,\"a\":", f);
			set_json(f, a, o->name_a, 1, o->max_heatmaps);
			fputs(",\n\"b\":", f);
			if (b)
				set_json(f, b, o->name_b, 0, 0); /* heat maps are A's */
			else
				fputs("null", f);
			fputs(",\n\"diff\":", f);
			if (!b)
				fputs("[]", f);
			else if (diff_json(f, a, b) < 0)
				return -1;
			fputs(",\n\"rc\":", f);
			if (o->rootcause)
				rootcause_json(f, o->rootcause, o->rootcause_name);
			else
				fputs("null", f);
			fputs("}", f);
		}
	}
	return ferror(f) ? -1 : 0;
}
