/* Prometheus text exposition format 0.0.4: one histogram family per layer
 * and unit, one series per profile, `le` at our own bucket boundaries.
 *
 * Values are integer nanoseconds, so "v <= hi" (hi the largest value of a
 * bucket) is exactly "v falls in this bucket or below": le = hi ns written in
 * seconds as an exact decimal, and the classic buckets line up with ours with
 * no error. Only the buckets from just below the first non-empty one to the
 * last non-empty one are written (+Inf ends every series): a profile spans a
 * few octaves of 63, and 200,000 series of 65 buckets would not render in a
 * second. The one empty bucket below the first keeps histogram_quantile from
 * interpolating down to 0 in the first bucket. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <osprof/render.h>
#include "render/prom_series.h"

static void put_escaped(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', out), fputc(*s, out);
		else if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
}

/* ns as seconds, exact: 1023 -> 0.000001023, 2^30-1 -> 1.073741823. */
void osp_prom_seconds(char *buf, size_t len, uint64_t ns)
{
	int n = snprintf(buf, len, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u, ns % 1000000000u);
	while (n > 1 && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n > 0 && buf[n - 1] == '.')
		buf[--n] = '\0';
}

static void value_str(char *buf, size_t len, uint64_t v, enum osp_unit unit)
{
	if (unit == OSP_UNIT_NS)
		osp_prom_seconds(buf, len, v);
	else
		snprintf(buf, len, "%" PRIu64, v);
}

/* A growing string: the labels of a series, escaped once for all its lines
 * (a large /metrics is mostly labels). */
struct strbuf {
	char *s;
	size_t len, cap;
};

static int sb_put(struct strbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->len + n + 1) * 2;
		char *g = realloc(b->s, cap);
		if (!g)
			return -1;
		b->s = g;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
	return 0;
}

static int label_block(struct strbuf *b, const struct prom_label *l, unsigned n)
{
	int rc = 0;
	b->len = 0;
	for (unsigned i = 0; i < n; i++) {
		if (i)
			rc |= sb_put(b, ",", 1);
		rc |= sb_put(b, l[i].name, strlen(l[i].name));
		rc |= sb_put(b, "=\"", 2);
		for (const char *c = l[i].value; *c; c++) {
			const char *e = *c == '\\'   ? "\\\\"
			                : *c == '"'  ? "\\\""
			                : *c == '\n' ? "\\n"
			                             : NULL;
			rc |= e ? sb_put(b, e, 2) : sb_put(b, c, 1);
		}
		rc |= sb_put(b, "\"", 1);
	}
	return rc;
}

/* Decimal digits of v, written backwards from end; returns where they start. */
static char *u64_str(char *end, uint64_t v)
{
	*--end = '\0';
	do
		*--end = (char)('0' + v % 10);
	while (v /= 10);
	return end;
}

/* FAMILY SUFFIX{LABELS[,le="LE"]} VALUE */
static void put_sample(FILE *out, const char *family, const char *suffix,
                       const struct strbuf *labels, const char *le, const char *value)
{
	fputs_unlocked(family, out);
	fputs_unlocked(suffix, out);
	fputc_unlocked('{', out);
	fwrite_unlocked(labels->s, 1, labels->len, out);
	if (le) {
		fputs_unlocked(labels->len ? ",le=\"" : "le=\"", out);
		fputs_unlocked(le, out);
		fputc_unlocked('"', out);
	}
	fwrite_unlocked("} ", 1, 2, out);
	fputs_unlocked(value, out);
	fputc_unlocked('\n', out);
}

/* The `le` of every bucket of latency profiles at the set's r, formatted
 * once per render instead of once per line. */
struct le_table {
	unsigned r;
	char (*s)[24];
};

static const char *le_of(struct le_table *t, unsigned b, uint64_t hi, enum osp_unit unit, char *buf,
                         size_t len)
{
	if (unit == OSP_UNIT_NS && t->s) {
		if (!t->s[b][0])
			osp_prom_seconds(t->s[b], sizeof(t->s[b]), hi);
		return t->s[b];
	}
	value_str(buf, len, hi, unit);
	return buf;
}

static int put_series(FILE *out, const struct prom_plan *pl, const struct prom_series *se,
                      struct strbuf *labels, struct le_table *let)
{
	const struct osp_profile *p = se->p;
	const struct osp_hist *h = &p->hist;
	struct prom_label l[PROM_LABEL_MAX];
	char le[48], num[24];
	if (label_block(labels, l, prom_labels(pl, p, l)))
		return -1;
	int first = osp_hist_first(h), last = osp_hist_last(h);
	unsigned overflow = h->nbuckets - 1;
	uint64_t cum = 0, prev_hi = UINT64_MAX;
	if (first >= 0) {
		unsigned from = first > 0 ? (unsigned)first - 1 : 0;
		unsigned to = (unsigned)last < overflow ? (unsigned)last : overflow - 1;
		for (unsigned b = from; b <= to; b++) {
			cum += h->buckets[b];
			uint64_t hi = osp_bucket_hi(b, h->r);
			/* sub-octaves with no integer in them repeat the bound below */
			if (hi == prev_hi)
				continue;
			prev_hi = hi;
			put_sample(out, se->family, "_bucket", labels,
			           le_of(let, b, hi, p->unit, le, sizeof(le)),
			           u64_str(num + sizeof(num), cum));
		}
	}
	put_sample(out, se->family, "_bucket", labels, "+Inf",
	           u64_str(num + sizeof(num), h->count));
	value_str(le, sizeof(le), h->total, p->unit);
	put_sample(out, se->family, "_sum", labels, NULL, le);
	put_sample(out, se->family, "_count", labels, NULL, u64_str(num + sizeof(num), h->count));
	return 0;
}

static void put_counter(FILE *out, const char *name, const char *help, const char *host, uint64_t v)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s counter\n%s", name, help, name, name);
	if (host && *host) {
		fputs("{host=\"", out);
		put_escaped(out, host);
		fputs("\"}", out);
	}
	fprintf(out, " %" PRIu64 "\n", v);
}

void osp_prom_counters(FILE *out, const struct osp_set *s, const char *host, size_t dropped,
                       uint64_t dropped_calls)
{
	put_counter(out, "osprof_lost_events_total",
	            "events lost in collection (a BPF map or buffer was full)", host,
	            osp_meta_u64(s, "lost_events"));
	put_counter(out, "osprof_dropped_events_total", "events dropped by the collectors", host,
	            osp_meta_u64(s, "dropped_events"));
	put_counter(out, "osprof_unpaired_events_total",
	            "ends without a start (calls in flight at attach), not a loss", host,
	            osp_meta_u64(s, "unpaired_events"));
	put_counter(out, "osprof_series_overflow_total",
	            "profiles not exported: over the --max-series cap", host, dropped);
	put_counter(out, "osprof_series_overflow_calls_total",
	            "calls of the profiles over the --max-series cap", host, dropped_calls);
}

int osp_render_prometheus(FILE *out, const struct osp_set *s, const struct osp_prom_opts *o)
{
	struct prom_plan pl;
	struct strbuf labels = {NULL, 0, 0};
	struct le_table let = {s->r, calloc(osp_nbuckets(s->r), sizeof(*let.s))};
	int rc = 0;
	if (prom_plan_build(&pl, s, o)) {
		free(let.s);
		return -1;
	}
	for (size_t i = 0; i < pl.n && !rc; i++) {
		const struct prom_series *se = &pl.series[i];
		if (!i || strcmp(se->family, pl.series[i - 1].family))
			fprintf(out, "# HELP %s %s\n# TYPE %s histogram\n", se->family,
			        prom_family_help(se->p), se->family);
		rc = put_series(out, &pl, se, &labels, &let);
	}
	osp_prom_counters(out, s, pl.host, pl.dropped, pl.dropped_calls);
	prom_plan_free(&pl);
	free(labels.s);
	free(let.s);
	return rc || ferror(out) ? -1 : 0;
}
