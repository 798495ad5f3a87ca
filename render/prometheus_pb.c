/* Prometheus protobuf exposition (length-delimited io.prometheus.client
 * MetricFamily messages) with NATIVE histograms, for scrapers that ask for it.
 *
 * Native buckets are in seconds at schema 8: bucket i is (b^(i-1), b^i] with
 * b = 2^(1/256). Our buckets are in integer ns and lower-inclusive; their
 * bounds in seconds are no powers of b (1 ns = 2^-29.897 s), so they cannot
 * line up. Each of our buckets goes whole into the native bucket that holds
 * its largest value hi (in seconds): everything counted there is <= hi <= b^i,
 * and b^(i-1) < hi, so a native bucket's bounds are those of our bucket's top
 * to within a factor b: +-0.27 % (schema 7 would be 0.54 %, 6 would be 1.1 %).
 * Our buckets are at least 2^(1/16) wide, so no two share a native bucket
 * above 16 ns (below, sub-octaves hold no integer and stay empty).
 *
 * A MetricFamily is written as its header message followed by each series'
 * Metric as field 4, built and packed one at a time, so memory stays one
 * series' worth whatever the number of series. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <protobuf-c/protobuf-c.h>
#include "metrics.pb-c.h"
#include <osprof/render.h>
#include "render/prom_series.h"

#define NATIVE_SCHEMA 8

typedef Io__Prometheus__Client__MetricFamily PbFamily;
typedef Io__Prometheus__Client__Metric PbMetric;
typedef Io__Prometheus__Client__Histogram PbHist;
typedef Io__Prometheus__Client__LabelPair PbLabel;
typedef Io__Prometheus__Client__BucketSpan PbSpan;
typedef Io__Prometheus__Client__Counter PbCounter;

struct file_buf {
	ProtobufCBuffer base;
	FILE *f;
};

static void file_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	fwrite(data, 1, len, ((struct file_buf *)b)->f);
}

static void put_varint(FILE *f, uint64_t v)
{
	for (; v >= 0x80; v >>= 7)
		fputc((int)(v & 0x7f) | 0x80, f);
	fputc((int)v, f);
}

static size_t varint_len(uint64_t v)
{
	size_t n = 1;
	for (; v >= 0x80; v >>= 7)
		n++;
	return n;
}

/* Native bucket holding v seconds (v > 0) at NATIVE_SCHEMA. */
int osp_prom_native_index(double v)
{
	return (int)ceil(log2(v) * (1 << NATIVE_SCHEMA));
}

/* One series as a Metric, in scratch space reused from series to series. */
struct scratch {
	PbMetric m;
	PbHist h;
	PbLabel lab[PROM_LABEL_MAX];
	PbLabel *labp[PROM_LABEL_MAX];
	struct prom_label pl[PROM_LABEL_MAX];
	unsigned cap; /* spans/deltas room */
	PbSpan *span;
	PbSpan **spanp;
	int64_t *delta;
};

static int scratch_room(struct scratch *sc, unsigned n)
{
	if (n <= sc->cap)
		return 0;
	PbSpan *s = realloc(sc->span, n * sizeof(*s));
	if (s)
		sc->span = s;
	PbSpan **sp = realloc(sc->spanp, n * sizeof(*sp));
	if (sp)
		sc->spanp = sp;
	int64_t *d = realloc(sc->delta, n * sizeof(*d));
	if (d)
		sc->delta = d;
	if (!s || !sp || !d)
		return -1;
	sc->cap = n;
	return 0;
}

static void set_labels(struct scratch *sc, const struct prom_plan *pl, const struct osp_profile *p)
{
	unsigned n = prom_labels(pl, p, sc->pl);
	for (unsigned i = 0; i < n; i++) {
		io__prometheus__client__label_pair__init(&sc->lab[i]);
		sc->lab[i].name = sc->pl[i].name;
		sc->lab[i].value = (char *)sc->pl[i].value;
		sc->labp[i] = &sc->lab[i];
	}
	sc->m.n_label = n;
	sc->m.label = sc->labp;
}

static double unit_scale(const struct osp_profile *p)
{
	return p->unit == OSP_UNIT_NS ? 1e-9 : 1.0;
}

/* Fills sc->m with p's native histogram; -1 on ENOMEM. */
static int build_hist(struct scratch *sc, const struct prom_plan *pl, const struct osp_profile *p)
{
	const struct osp_hist *h = &p->hist;
	io__prometheus__client__metric__init(&sc->m);
	io__prometheus__client__histogram__init(&sc->h);
	set_labels(sc, pl, p);
	if (scratch_room(sc, h->nbuckets))
		return -1;
	double scale = unit_scale(p);
	PbHist *x = &sc->h;
	x->has_sample_count = x->has_sample_sum = x->has_schema = 1;
	x->has_zero_threshold = x->has_zero_count = 1;
	x->sample_count = h->count;
	x->sample_sum = (double)h->total * scale;
	x->schema = NATIVE_SCHEMA;
	/* the zero bucket holds our value 0; a threshold above 0 also marks
	 * the histogram native for the scraper even while it is empty */
	x->zero_threshold = ldexp(1, -128);
	x->zero_count = h->buckets[0];
	unsigned nspan = 0, ndelta = 0;
	int prev_idx = 0;
	uint64_t prev_count = 0, run = 0;
	for (unsigned b = 1; b < h->nbuckets; b++) {
		uint64_t c = h->buckets[b];
		if (!c)
			continue;
		int idx = osp_prom_native_index((double)osp_bucket_hi(b, h->r) * scale);
		if (ndelta && idx == prev_idx) {
			/* the same native bucket as the previous (tiny values) */
			sc->delta[ndelta - 1] += (int64_t)c;
			prev_count += c;
			continue;
		}
		if (!ndelta || idx != prev_idx + 1) {
			io__prometheus__client__bucket_span__init(&sc->span[nspan]);
			sc->span[nspan].has_offset = sc->span[nspan].has_length = 1;
			sc->span[nspan].offset = ndelta ? idx - prev_idx - 1 : idx;
			sc->spanp[nspan] = &sc->span[nspan];
			nspan++;
			run = 0;
		}
		sc->span[nspan - 1].length = (uint32_t)++run;
		sc->delta[ndelta++] = (int64_t)c - (int64_t)prev_count;
		prev_count = c;
		prev_idx = idx;
	}
	x->n_positive_span = nspan;
	x->positive_span = sc->spanp;
	x->n_positive_delta = ndelta;
	x->positive_delta = sc->delta;
	sc->m.histogram = x;
	return 0;
}

static void put_family(FILE *out, const char *name, const char *help,
                       Io__Prometheus__Client__MetricType type, size_t body)
{
	PbFamily f = IO__PROMETHEUS__CLIENT__METRIC_FAMILY__INIT;
	f.name = (char *)name;
	f.help = (char *)help;
	f.has_type = 1;
	f.type = type;
	size_t head = io__prometheus__client__metric_family__get_packed_size(&f);
	put_varint(out, head + body);
	struct file_buf fb = {{file_append}, out};
	io__prometheus__client__metric_family__pack_to_buffer(&f, &fb.base);
}

static void put_metric(FILE *out, const PbMetric *m, size_t len)
{
	struct file_buf fb = {{file_append}, out};
	fputc(4 << 3 | 2, out); /* MetricFamily.metric, length-delimited */
	put_varint(out, len);
	io__prometheus__client__metric__pack_to_buffer(m, &fb.base);
}

static int put_hist_family(FILE *out, const struct prom_plan *pl, size_t from, size_t to,
                           struct scratch *sc)
{
	size_t body = 0;
	for (size_t i = from; i < to; i++) {
		if (build_hist(sc, pl, pl->series[i].p))
			return -1;
		size_t len = io__prometheus__client__metric__get_packed_size(&sc->m);
		body += 1 + varint_len(len) + len;
	}
	put_family(out, pl->series[from].family, prom_family_help(pl->series[from].p),
	           IO__PROMETHEUS__CLIENT__METRIC_TYPE__HISTOGRAM, body);
	for (size_t i = from; i < to; i++) {
		if (build_hist(sc, pl, pl->series[i].p))
			return -1;
		put_metric(out, &sc->m, io__prometheus__client__metric__get_packed_size(&sc->m));
	}
	return 0;
}

static void put_counter(FILE *out, const char *name, const char *help, const char *host, uint64_t v)
{
	PbMetric m = IO__PROMETHEUS__CLIENT__METRIC__INIT;
	PbCounter c = IO__PROMETHEUS__CLIENT__COUNTER__INIT;
	PbLabel l = IO__PROMETHEUS__CLIENT__LABEL_PAIR__INIT, *lp = &l;
	c.has_value = 1;
	c.value = (double)v;
	m.counter = &c;
	if (host && *host) {
		l.name = "host";
		l.value = (char *)host;
		m.n_label = 1;
		m.label = &lp;
	}
	size_t len = io__prometheus__client__metric__get_packed_size(&m);
	put_family(out, name, help, IO__PROMETHEUS__CLIENT__METRIC_TYPE__COUNTER,
	           1 + varint_len(len) + len);
	put_metric(out, &m, len);
}

int osp_render_prometheus_pb(FILE *out, const struct osp_set *s, const struct osp_prom_opts *o)
{
	struct prom_plan pl;
	struct scratch sc;
	memset(&sc, 0, sizeof(sc));
	if (prom_plan_build(&pl, s, o))
		return -1;
	int rc = 0;
	for (size_t i = 0, j; i < pl.n && !rc; i = j) {
		for (j = i + 1; j < pl.n && !strcmp(pl.series[j].family, pl.series[i].family); j++)
			;
		rc = put_hist_family(out, &pl, i, j, &sc);
	}
	if (!rc) {
		put_counter(out, "osprof_lost_events_total",
		            "events lost in collection (a BPF map or buffer was full)", pl.host,
		            osp_meta_u64(s, "lost_events"));
		put_counter(out, "osprof_dropped_events_total", "events dropped by the collectors",
		            pl.host, osp_meta_u64(s, "dropped_events"));
		put_counter(out, "osprof_unpaired_events_total",
		            "ends without a start (calls in flight at attach), not a loss", pl.host,
		            osp_meta_u64(s, "unpaired_events"));
		put_counter(out, "osprof_series_overflow_total",
		            "profiles not exported: over the --max-series cap", pl.host,
		            pl.dropped);
		put_counter(out, "osprof_series_overflow_calls_total",
		            "calls of the profiles over the --max-series cap", pl.host,
		            pl.dropped_calls);
	}
	free(sc.span);
	free(sc.spanp);
	free(sc.delta);
	prom_plan_free(&pl);
	return rc || ferror(out) ? -1 : 0;
}
