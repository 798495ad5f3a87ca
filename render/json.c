/* NDJSON and CSV exports of `osprof report`. */
#include <inttypes.h>
#include <osprof/analysis.h>
#include <osprof/render.h>

/* "dims":{"name":"value",...} */
static void json_dims(struct osp_json *j, const struct osp_dim *d, unsigned n)
{
	osp_json_kobj(j, "dims");
	for (unsigned i = 0; i < n; i++)
		osp_json_kstr(j, d[i].name, d[i].value);
	osp_json_obj_end(j);
}

void osp_json_profile_key(struct osp_json *j, const struct osp_profile *p)
{
	osp_json_kstr(j, "layer", p->layer);
	osp_json_kstr(j, "op", p->op);
	json_dims(j, p->dims, p->ndims);
}

static void json_parent_key(struct osp_json *j, const struct osp_parent *q)
{
	osp_json_kobj(j, "outer");
	osp_json_kstr(j, "layer", q->layer);
	osp_json_kstr(j, "op", q->op); /* null: outside any op of that layer */
	json_dims(j, q->dims, q->ndims);
	osp_json_obj_end(j);
}

/* "calls":N,"inner_calls":M */
static void nesting_calls(struct osp_json *j, uint64_t calls, uint64_t inner_calls)
{
	osp_json_ku64(j, "calls", calls);
	osp_json_ku64(j, "inner_calls", inner_calls);
}

void osp_render_nesting_json(FILE *out, const struct osp_set *s, const struct osp_nest_hint *h,
                             size_t nh)
{
	struct osp_json j;
	osp_json_init(&j, out);
	for (size_t i = 0; i < s->n; i++) {
		const struct osp_profile *p = s->profiles[i];
		for (size_t k = 0; k < p->nparents; k++) {
			const struct osp_parent *q = &p->parents[k];
			osp_json_obj(&j);
			osp_json_kstr(&j, "type", "nesting");
			json_parent_key(&j, q);
			osp_json_kobj(&j, "inner");
			osp_json_profile_key(&j, p);
			osp_json_obj_end(&j);
			nesting_calls(&j, q->count, osp_profile_parent_total(p, q->layer));
			osp_json_kstr(&j, "evidence", "measured");
			osp_json_obj_end(&j);
			osp_json_line(&j);
		}
	}
	for (size_t i = 0; i < nh; i++) {
		osp_json_obj(&j);
		osp_json_kstr(&j, "type", "nesting");
		osp_json_kobj(&j, "outer");
		osp_json_profile_key(&j, h[i].outer);
		osp_json_obj_end(&j);
		osp_json_kobj(&j, "inner");
		osp_json_profile_key(&j, h[i].inner);
		osp_json_obj_end(&j);
		nesting_calls(&j, h[i].inner_count, h[i].inner->hist.count);
		osp_json_karr(&j, "outer_peaks");
		osp_json_u64(&j, h[i].peak_first);
		osp_json_u64(&j, h[i].peak_last);
		osp_json_arr_end(&j);
		osp_json_ku64(&j, "outer_peak_calls", h[i].outer_count);
		osp_json_kstr(&j, "evidence", "count");
		osp_json_obj_end(&j);
		osp_json_line(&j);
	}
}

/* The non-empty buckets: [{"index":I,("b":B,)"lo_ns":..,"hi_ns":..,"count":N},...] */
static void json_buckets(struct osp_json *j, const struct osp_hist *h, const uint64_t *b,
                         int with_b)
{
	osp_json_arr(j);
	for (unsigned i = 0; i < h->nbuckets; i++) {
		if (!b[i])
			continue;
		osp_json_obj(j);
		osp_json_ku64(j, "index", i);
		/* index: the file's bucket index; b: the bucket number that
		 * `osprof peaks` prints and `--peaks` takes (index - 1). */
		if (with_b)
			osp_json_ki64(j, "b", (int)i - 1);
		osp_json_ku64(j, "lo_ns", osp_bucket_lo(i, h->r));
		osp_json_ku64(j, "hi_ns", osp_bucket_hi(i, h->r));
		osp_json_ku64(j, "count", b[i]);
		osp_json_obj_end(j);
	}
	osp_json_arr_end(j);
}

/* The first record: the set's metadata once (host, command, losses, ...),
 * so a consumer of the stream knows where and how it was measured. */
static void json_meta(struct osp_json *j, const struct osp_set *s, size_t n)
{
	osp_json_obj(j);
	osp_json_kstr(j, "type", "meta");
	osp_json_ku64(j, "r", s->r);
	osp_json_ku64(j, "slice_ns", s->slice_ns);
	osp_json_ku64(j, "profiles", n);
	osp_json_ku64(j, "profiles_in_file", s->n);
	osp_json_kobj(j, "meta");
	for (size_t i = 0; i < s->nmeta; i++)
		osp_json_kstr(j, s->meta[i].key, s->meta[i].value);
	osp_json_obj_end(j);
	osp_json_obj_end(j);
	osp_json_line(j);
}

static void json_profile(struct osp_json *j, const struct osp_set *s, const struct osp_profile *p,
                         const struct osp_report_opts *o)
{
	const struct osp_hist *h = &p->hist;
	char key[48];
	osp_json_obj(j);
	osp_json_kstr(j, "type", "profile");
	osp_json_profile_key(j, p);
	osp_json_kstr(j, "unit", osp_unit_name(p->unit));
	osp_json_ku64(j, "r", h->r);
	osp_json_ku64(j, "count", h->count);
	osp_json_ku64(j, "total_ns", h->total);
	osp_json_ku64(j, "min_ns", h->count ? h->min : 0);
	osp_json_ku64(j, "max_ns", h->max);
	for (unsigned k = 0; k < o->npcts; k++) {
		snprintf(key, sizeof(key), "p%g_ns", o->pcts[k]);
		osp_json_ku64(j, key, osp_hist_quantile(h, o->pcts[k] / 100.0));
	}
	osp_json_key(j, "buckets");
	json_buckets(j, h, h->buckets, 1);
	if (p->nslices) {
		osp_json_ku64(j, "slice_ns", s->slice_ns);
		osp_json_karr(j, "slices");
		for (size_t k = 0; k < p->nslices; k++) {
			osp_json_obj(j);
			osp_json_ku64(j, "index", p->slices[k].index);
			osp_json_key(j, "buckets");
			json_buckets(j, h, p->slices[k].buckets, 1);
			osp_json_obj_end(j);
		}
		osp_json_arr_end(j);
	}
	osp_json_obj_end(j);
	osp_json_line(j);
}

void osp_render_json(FILE *out, struct osp_set *s, const struct osp_report_opts *o)
{
	struct osp_json j;
	osp_json_init(&j, out);
	osp_set_sort_by_total(s);
	size_t n = o->top && o->top < s->n ? o->top : s->n;
	json_meta(&j, s, n);
	for (size_t i = 0; i < n; i++)
		json_profile(&j, s, s->profiles[i], o);
}

static void csv_field(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/* Columns are named by unit ("total_ns", "p99_bytes") when every row shown
 * has the same unit; a mixed set gets plain names and the per-row unit
 * column says what each row's numbers are. */
static const char *csv_unit_suffix(struct osp_set *s, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (s->profiles[i]->unit != s->profiles[0]->unit)
			return "";
	if (!n)
		return "_ns";
	switch (s->profiles[0]->unit) {
	case OSP_UNIT_BYTES:
		return "_bytes";
	case OSP_UNIT_COUNT:
		return "_count";
	default:
		return "_ns";
	}
}

static void csv_row(FILE *out, const struct osp_profile *p, const uint64_t *buckets, unsigned nb,
                    const struct osp_report_opts *o, const struct osp_slice *sl)
{
	const struct osp_hist *h = &p->hist;
	char dims[512] = "";
	size_t len = 0;
	for (unsigned d = 0; d < p->ndims && len < sizeof(dims); d++)
		len += (size_t)snprintf(dims + len, sizeof(dims) - len, "%s%s=%s", d ? ";" : "",
		                        p->dims[d].name, p->dims[d].value);
	csv_field(out, p->layer);
	fputc(',', out);
	csv_field(out, p->op);
	fputc(',', out);
	csv_field(out, dims);
	fprintf(out, ",%s", osp_unit_name(p->unit));
	if (o->slices) {
		if (sl)
			fprintf(out, ",%" PRIu64, sl->index);
		else
			fputc(',', out);
	}
	if (sl) {
		/* A slice stores buckets only: its count is their sum; total,
		 * min, max and percentiles are those of the whole run. */
		uint64_t c = 0;
		for (unsigned b = 0; b < nb; b++)
			c += buckets[b];
		fprintf(out, ",%" PRIu64 ",,,", c);
		for (unsigned j = 0; j < o->npcts; j++)
			fputc(',', out);
	} else {
		fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, h->count, h->total,
		        h->count ? h->min : 0, h->max);
		for (unsigned j = 0; j < o->npcts; j++)
			fprintf(out, ",%" PRIu64, osp_hist_quantile(h, o->pcts[j] / 100.0));
	}
	for (unsigned b = 0; b < nb; b++)
		fprintf(out, ",%" PRIu64, buckets[b]);
	fputc('\n', out);
}

void osp_render_csv(FILE *out, struct osp_set *s, const struct osp_report_opts *o)
{
	osp_set_sort_by_total(s);
	size_t n = o->top && o->top < s->n ? o->top : s->n;
	unsigned nb = osp_nbuckets(s->r);
	const char *u = csv_unit_suffix(s, n);
	fprintf(out, "layer,op,dims,unit%s,count,total%s,min%s,max%s", o->slices ? ",slice" : "", u,
	        u, u);
	for (unsigned j = 0; j < o->npcts; j++)
		fprintf(out, ",p%g%s", o->pcts[j], u);
	for (unsigned i = 0; i < nb; i++)
		fprintf(out, ",b%u_ge_%" PRIu64, i, osp_bucket_lo(i, s->r));
	fputc('\n', out);
	for (size_t i = 0; i < n; i++) {
		const struct osp_profile *p = s->profiles[i];
		csv_row(out, p, p->hist.buckets, nb, o, NULL);
		/* --slices: one more row per time slice (slice = its index). */
		for (size_t j = 0; o->slices && j < p->nslices; j++)
			csv_row(out, p, p->slices[j].buckets, nb, o, &p->slices[j]);
	}
}

/* osprof netfs --json */

static void netfs_json_hist(struct osp_json *j, const char *name, const struct osp_hist *h)
{
	osp_json_kobj(j, name);
	osp_json_ku64(j, "count", h->count);
	osp_json_ku64(j, "total_ns", h->total);
	osp_json_key(j, "buckets");
	json_buckets(j, h, h->buckets, 0);
	osp_json_obj_end(j);
}

void osp_print_netfs_json(FILE *out, const struct osp_netfs_class *c, int n)
{
	struct osp_json j;
	osp_json_init(&j, out);
	for (int i = 0; i < n; i++) {
		osp_json_obj(&j);
		osp_json_kstr(&j, "type", "netfs");
		osp_json_kstr(&j, "class", c[i].name);
		osp_json_kstr(&j, "server_layer", c[i].server_layer);
		osp_json_kdbl(&j, "rpcs_per_op", "%.4f", c[i].rpcs_per_op);
		osp_json_kdbl(&j, "server_share", "%.4f", c[i].server_share);
		osp_json_kdbl(&j, "remainder_mean_ns", "%.0f", c[i].remainder_ns);
		if (c[i].nfs)
			osp_json_ku64(&j, "client_rpcs", c[i].client_rpcs);
		netfs_json_hist(&j, "client", &c[i].client);
		netfs_json_hist(&j, "server", &c[i].server);
		netfs_json_hist(&j, "remainder_estimate", &c[i].remainder);
		osp_json_karr(&j, "network_peaks");
		for (unsigned k = 0; k < c[i].net_peaks; k++) {
			osp_json_obj(&j);
			osp_json_ku64(&j, "lo_ns", c[i].net_peak_lo[k]);
			osp_json_ku64(&j, "hi_ns", c[i].net_peak_hi[k]);
			osp_json_obj_end(&j);
		}
		osp_json_arr_end(&j);
		osp_json_obj_end(&j);
		osp_json_line(&j);
	}
}
