/* The self-contained HTML report: render/html/report.html with the style,
 * the script and the profile data (JSON) put in place of its markers. The
 * data layout is documented in docs/views.md. */
#include <stdlib.h>
#include <string.h>
#include <osprof/render.h>
#include <osprof/sort.h>
#include "render/vmodel.h"
#include "html_assets.h"

/* A number for the page's script: JSON has no NaN or Infinity, and the
 * views read a missing number as 0. */
static void num(struct osp_json *j, double v)
{
	osp_json_dbl(j, "%.6g", v != v || v > 1e300 || v < -1e300 ? 0 : v);
}

/* The non-empty span of b: its first index (0 when empty), then the array
 * of its counts; as the value of key (with "b" for the counts) or as two
 * values of an array when key is NULL. */
static void buckets_json(struct osp_json *j, const char *key, const uint64_t *b, unsigned n)
{
	int first = -1, last = -1;
	for (unsigned i = 0; i < n; i++)
		if (b[i]) {
			if (first < 0)
				first = (int)i;
			last = (int)i;
		}
	if (key)
		osp_json_key(j, key);
	osp_json_u64(j, first < 0 ? 0 : (uint64_t)first);
	if (key)
		osp_json_key(j, "b");
	osp_json_arr(j);
	for (int i = first; first >= 0 && i <= last; i++)
		osp_json_u64(j, b[i]);
	osp_json_arr_end(j);
}

static void peaks_json(struct osp_json *j, const struct osp_vm_stats *st)
{
	osp_json_karr(j, "pk");
	for (unsigned k = 0; k < st->npeaks; k++) {
		const struct osp_vm_peak *pk = &st->peaks[k];
		osp_json_arr(j);
		osp_json_u64(j, pk->lo);
		osp_json_u64(j, pk->hi);
		osp_json_u64(j, pk->mode);
		osp_json_u64(j, pk->count);
		num(j, pk->mean);
		num(j, pk->share_ops);
		num(j, pk->share_lat);
		osp_json_str(j, pk->note);
		osp_json_arr_end(j);
	}
	osp_json_arr_end(j);
}

static void profile_json(struct osp_json *j, const struct osp_set *s, const struct osp_profile *p,
                         const struct osp_vm_totals *tot, int slices)
{
	struct osp_vm_stats st;
	struct osp_vm_note nt[OSP_VM_MAX_NOTES];
	osp_vm_stats(p, tot, &st);
	unsigned nn = osp_vm_notes(s, p, nt, OSP_VM_MAX_NOTES);
	osp_json_obj(j);
	osp_json_kstr(j, "l", p->layer);
	osp_json_kstr(j, "o", p->op);
	osp_json_kobj(j, "d");
	for (unsigned i = 0; i < p->ndims; i++)
		osp_json_kstr(j, p->dims[i].name, p->dims[i].value);
	osp_json_obj_end(j);
	osp_json_kstr(j, "u", osp_unit_name(p->unit));
	osp_json_ku64(j, "c", st.count);
	osp_json_ku64(j, "t", st.total);
	osp_json_ku64(j, "mn", p->hist.count ? p->hist.min : 0);
	osp_json_ku64(j, "mx", p->hist.max);
	osp_json_ku64(j, "mean", st.mean);
	osp_json_ku64(j, "p50", st.p50);
	osp_json_ku64(j, "p99", st.p99);
	osp_json_key(j, "sh");
	num(j, st.share);
	buckets_json(j, "f", p->hist.buckets, p->hist.nbuckets);
	peaks_json(j, &st);
	osp_json_karr(j, "nt");
	for (unsigned k = 0; k < nn; k++) {
		osp_json_arr(j);
		num(j, nt[k].value);
		osp_json_str(j, nt[k].label);
		osp_json_arr_end(j);
	}
	osp_json_arr_end(j);
	osp_json_karr(j, "s");
	for (size_t i = 0; slices && i < p->nslices; i++) {
		osp_json_arr(j);
		osp_json_u64(j, p->slices[i].index);
		buckets_json(j, NULL, p->slices[i].buckets, p->hist.nbuckets);
		osp_json_arr_end(j);
	}
	osp_json_arr_end(j);
	osp_json_obj_end(j);
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

static void set_json(struct osp_json *j, const struct osp_set *s, const char *name, int heat,
                     unsigned max_heat)
{
	osp_json_obj(j);
	osp_json_kstr(j, "name", name ? name : "");
	osp_json_ku64(j, "r", s->r);
	osp_json_ku64(j, "slice_ns", s->slice_ns);
	osp_json_karr(j, "meta");
	for (size_t i = 0; i < s->nmeta; i++) {
		osp_json_arr(j);
		osp_json_str(j, s->meta[i].key);
		osp_json_str(j, s->meta[i].value);
		osp_json_arr_end(j);
	}
	osp_json_arr_end(j);
	struct osp_vm_totals tot;
	osp_vm_totals(s, &tot);
	osp_json_ku64(j, "total", osp_set_total(s));
	osp_json_karr(j, "edges");
	for (unsigned i = 0; i < osp_nbuckets(s->r); i++)
		osp_json_u64(j, osp_bucket_lo(i, s->r));
	osp_json_arr_end(j);
	char *flags = calloc(s->n ? s->n : 1, 1);
	size_t nsliced = 0,
	       picked = heat && flags ? pick_heatmaps(s, max_heat, flags, &nsliced) : 0;
	osp_json_ku64(j, "sliced", nsliced);
	osp_json_ku64(j, "heat", picked);
	osp_json_karr(j, "profiles");
	osp_json_raw(j, "\n");
	osp_json_lines(j);
	for (size_t i = 0; i < s->n; i++)
		profile_json(j, s, s->profiles[i], &tot, flags && flags[i]);
	osp_json_arr_end(j);
	osp_json_obj_end(j);
	free(flags);
}

static int diff_json(struct osp_json *j, const struct osp_set *a, const struct osp_set *b)
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
	osp_json_arr(j);
	osp_json_raw(j, "\n");
	osp_json_lines(j);
	for (long k = 0; k < n; k++) {
		osp_json_obj(j);
		osp_json_ki64(j, "a", index_of(ia, a->n, d[k].a));
		osp_json_ki64(j, "b", index_of(ib, b->n, d[k].b));
		osp_json_key(j, "score");
		num(j, d[k].score);
		osp_json_kstr(j, "verdict", d[k].verdict ? d[k].verdict : "");
		osp_json_kstr(j, "reason", d[k].reason);
		osp_json_obj_end(j);
	}
	osp_json_arr_end(j);
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

static void rootcause_json(struct osp_json *j, const struct osp_folded_set *rc, const char *name)
{
	osp_json_obj(j);
	osp_json_kstr(j, "name", name ? name : "");
	osp_json_karr(j, "paths");
	osp_json_lines(j);
	for (size_t i = 0; i < rc->n; i++) {
		osp_json_arr(j);
		osp_json_str(j, rc->e[i].path);
		osp_json_u64(j, rc->e[i].count);
		osp_json_arr_end(j);
	}
	osp_json_arr_end(j);
	osp_json_obj_end(j);
}

/* The data object the page's script reads (docs/views.md). */
static int data_json(FILE *f, const struct osp_set *a, const struct osp_html_opts *o)
{
	struct osp_json j;
	osp_json_init(&j, f);
	j.script_safe = 1;
	osp_json_obj(&j);
	osp_json_ku64(&j, "version", 1);
	osp_json_key(&j, "a");
	set_json(&j, a, o->name_a, 1, o->max_heatmaps);
	osp_json_lines(&j); /* "b", "diff" and "rc" start a line each */
	osp_json_key(&j, "b");
	if (o->b)
		set_json(&j, o->b, o->name_b, 0, 0); /* heat maps are A's */
	else
		osp_json_null(&j);
	osp_json_key(&j, "diff");
	if (!o->b) {
		osp_json_arr(&j);
		osp_json_arr_end(&j);
	} else if (diff_json(&j, a, o->b) < 0) {
		return -1;
	}
	osp_json_key(&j, "rc");
	if (o->rootcause)
		rootcause_json(&j, o->rootcause, o->rootcause_name);
	else
		osp_json_null(&j);
	osp_json_obj_end(&j);
	return 0;
}

int osp_render_html(FILE *f, const struct osp_set *a, const struct osp_html_opts *o)
{
	const char *t = (const char *)render_html_report_html;
	osp_vm_set_calibration(o->calib);
	const char *end = t + render_html_report_html_len, *name = NULL;
	while ((t = upto_marker(f, t, end, &name))) {
		if (!strncmp(name, "CSS", 3)) {
			fwrite(render_html_report_css, 1, render_html_report_css_len, f);
		} else if (!strncmp(name, "JS", 2)) {
			fwrite(render_html_report_js, 1, render_html_report_js_len, f);
		} else if (!strncmp(name, "DATA", 4)) {
			if (data_json(f, a, o) < 0)
				return -1;
		}
	}
	return ferror(f) ? -1 : 0;
}
