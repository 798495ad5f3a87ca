/* NDJSON and CSV exports of `osprof report`. */
#include <inttypes.h>
#include <osprof/analysis.h>
#include <osprof/render.h>

/* Control characters, DEL and the C1 controls (UTF-8 C2 80..C2 9F) as
 * \uXXXX: JSON output never carries a raw control sequence, so the
 * terminal-safe stdout (cli/term_safe.c) passes it through unchanged. */
void osp_json_string(FILE *out, const char *s)
{
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\')
			fprintf(out, "\\%c", *c);
		else if (*c < 0x20 || *c == 0x7f)
			fprintf(out, "\\u%04x", *c);
		else if (*c == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f)
			fprintf(out, "\\u%04x", *++c);
		else
			fputc(*c, out);
	}
}

/* "dims":{"name":"value",...} */
static void json_dims(FILE *out, const struct osp_dim *d, unsigned n)
{
	fputs("\"dims\":{", out);
	for (unsigned i = 0; i < n; i++) {
		fputs(i ? ",\"" : "\"", out);
		osp_json_string(out, d[i].name);
		fputs("\":\"", out);
		osp_json_string(out, d[i].value);
		fputc('"', out);
	}
	fputc('}', out);
}

void osp_json_profile_key(FILE *out, const struct osp_profile *p)
{
	fputs("\"layer\":\"", out);
	osp_json_string(out, p->layer);
	fputs("\",\"op\":\"", out);
	osp_json_string(out, p->op);
	fputs("\",", out);
	json_dims(out, p->dims, p->ndims);
}

static void json_parent_key(FILE *out, const struct osp_parent *q)
{
	fputs("{\"layer\":\"", out);
	osp_json_string(out, q->layer);
	if (q->op) {
		fputs("\",\"op\":\"", out);
		osp_json_string(out, q->op);
		fputs("\",", out);
	} else {
		fputs("\",\"op\":null,", out); /* outside any op of that layer */
	}
	json_dims(out, q->dims, q->ndims);
	fputc('}', out);
}

void osp_render_nesting_json(FILE *out, const struct osp_set *s, const struct osp_nest_hint *h,
                             size_t nh)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct osp_profile *p = s->profiles[i];
		for (size_t k = 0; k < p->nparents; k++) {
			const struct osp_parent *q = &p->parents[k];
			fputs("{\"type\":\"nesting\",\"outer\":", out);
			json_parent_key(out, q);
			fputs(",\"inner\":{", out);
			osp_json_profile_key(out, p);
			fprintf(out,
			        "},\"calls\":%" PRIu64 ",\"inner_calls\":%" PRIu64
			        ",\"evidence\":\"measured\"}\n",
			        q->count, osp_profile_parent_total(p, q->layer));
		}
	}
	for (size_t i = 0; i < nh; i++) {
		fputs("{\"type\":\"nesting\",\"outer\":{", out);
		osp_json_profile_key(out, h[i].outer);
		fputs("},\"inner\":{", out);
		osp_json_profile_key(out, h[i].inner);
		fprintf(out,
		        "},\"calls\":%" PRIu64 ",\"inner_calls\":%" PRIu64
		        ",\"outer_peaks\":[%u,%u],\"outer_peak_calls\":%" PRIu64
		        ",\"evidence\":\"count\"}\n",
		        h[i].inner_count, h[i].inner->hist.count, h[i].peak_first, h[i].peak_last,
		        h[i].outer_count);
	}
}

static void json_buckets(FILE *out, const struct osp_hist *h, const uint64_t *b)
{
	int first = 1;
	fputc('[', out);
	for (unsigned i = 0; i < h->nbuckets; i++) {
		if (!b[i])
			continue;
		/* index: the file's bucket index; b: the bucket number that
		 * `osprof peaks` prints and `--peaks` takes (index - 1). */
		fprintf(out,
		        "%s{\"index\":%u,\"b\":%d,\"lo_ns\":%" PRIu64 ",\"hi_ns\":%" PRIu64
		        ",\"count\":%" PRIu64 "}",
		        first ? "" : ",", i, (int)i - 1, osp_bucket_lo(i, h->r),
		        osp_bucket_hi(i, h->r), b[i]);
		first = 0;
	}
	fputc(']', out);
}

/* The first record: the set's metadata once (host, command, losses, ...),
 * so a consumer of the stream knows where and how it was measured. */
static void json_meta(FILE *out, const struct osp_set *s, size_t n)
{
	fprintf(out,
	        "{\"type\":\"meta\",\"r\":%u,\"slice_ns\":%" PRIu64
	        ",\"profiles\":%zu,\"profiles_in_file\":%zu,\"meta\":{",
	        s->r, s->slice_ns, n, s->n);
	for (size_t i = 0; i < s->nmeta; i++) {
		fputs(i ? ",\"" : "\"", out);
		osp_json_string(out, s->meta[i].key);
		fputs("\":\"", out);
		osp_json_string(out, s->meta[i].value);
		fputc('"', out);
	}
	fputs("}}\n", out);
}

void osp_render_json(FILE *out, struct osp_set *s, const struct osp_report_opts *o)
{
	osp_set_sort_by_total(s);
	size_t n = o->top && o->top < s->n ? o->top : s->n;
	json_meta(out, s, n);
	for (size_t i = 0; i < n; i++) {
		const struct osp_profile *p = s->profiles[i];
		const struct osp_hist *h = &p->hist;
		fputs("{\"type\":\"profile\",", out);
		osp_json_profile_key(out, p);
		fprintf(out,
		        ",\"unit\":\"%s\",\"r\":%u,\"count\":%" PRIu64 ",\"total_ns\":%" PRIu64
		        ",\"min_ns\":%" PRIu64 ",\"max_ns\":%" PRIu64,
		        osp_unit_name(p->unit), h->r, h->count, h->total, h->count ? h->min : 0,
		        h->max);
		for (unsigned j = 0; j < o->npcts; j++)
			fprintf(out, ",\"p%g_ns\":%" PRIu64, o->pcts[j],
			        osp_hist_quantile(h, o->pcts[j] / 100.0));
		fputs(",\"buckets\":", out);
		json_buckets(out, h, h->buckets);
		if (p->nslices) {
			fprintf(out, ",\"slice_ns\":%" PRIu64 ",\"slices\":[", s->slice_ns);
			for (size_t j = 0; j < p->nslices; j++) {
				fprintf(out, "%s{\"index\":%" PRIu64 ",\"buckets\":", j ? "," : "",
				        p->slices[j].index);
				json_buckets(out, h, p->slices[j].buckets);
				fputc('}', out);
			}
			fputc(']', out);
		}
		fputs("}\n", out);
	}
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

static void netfs_json_hist(FILE *out, const char *name, const struct osp_hist *h)
{
	fprintf(out, ",\"%s\":{\"count\":%llu,\"total_ns\":%llu,\"buckets\":[", name,
	        (unsigned long long)h->count, (unsigned long long)h->total);
	int first = 1;
	for (unsigned b = 0; b < h->nbuckets; b++)
		if (h->buckets[b]) {
			fprintf(out,
			        "%s{\"index\":%u,\"lo_ns\":%llu,\"hi_ns\":%llu,\"count\":%llu}",
			        first ? "" : ",", b, (unsigned long long)osp_bucket_lo(b, h->r),
			        (unsigned long long)osp_bucket_hi(b, h->r),
			        (unsigned long long)h->buckets[b]);
			first = 0;
		}
	fprintf(out, "]}");
}

void osp_print_netfs_json(FILE *out, const struct osp_netfs_class *c, int n)
{
	for (int i = 0; i < n; i++) {
		fprintf(out, "{\"type\":\"netfs\",\"class\":\"");
		osp_json_string(out, c[i].name);
		fprintf(out,
		        "\",\"server_layer\":\"%s\",\"rpcs_per_op\":%.4f,\"server_share\":%.4f,"
		        "\"remainder_mean_ns\":%.0f",
		        c[i].server_layer, c[i].rpcs_per_op, c[i].server_share, c[i].remainder_ns);
		if (c[i].nfs)
			fprintf(out, ",\"client_rpcs\":%llu", (unsigned long long)c[i].client_rpcs);
		netfs_json_hist(out, "client", &c[i].client);
		netfs_json_hist(out, "server", &c[i].server);
		netfs_json_hist(out, "remainder_estimate", &c[i].remainder);
		fprintf(out, ",\"network_peaks\":[");
		for (unsigned k = 0; k < c[i].net_peaks; k++)
			fprintf(out, "%s{\"lo_ns\":%llu,\"hi_ns\":%llu}", k ? "," : "",
			        (unsigned long long)c[i].net_peak_lo[k],
			        (unsigned long long)c[i].net_peak_hi[k]);
		fprintf(out, "]}\n");
	}
}
