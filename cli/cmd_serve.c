/* osprof serve: a Prometheus exporter. The kernel layers collect as in
 * `record` (the same live source as `top`), every -i the interval is added
 * to the cumulative set and a copy published to the HTTP side. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli/cli.h"
#include "cli/collect_opts.h"
#include "cli/serve_http.h"
#include "collect/session.h"
#include "cli/top_source.h"

static const char usage_head[] =
    "usage: osprof serve [--listen ADDR:PORT] [--max-series N] [OPTIONS]\n"
    "                    [-a | -p PID[,PID] | -c CGROUP | --comm NAME]\n\n"
    "A Prometheus exporter: profiles the live system like `osprof record` (the\n"
    "same layers and filters) and serves every profile at\n"
    "http://ADDR:PORT/metrics as a histogram, cumulative since start: family\n"
    "osprof_LAYER_latency_seconds (osprof_syscall_latency_seconds, ...), labels op,\n"
    "the profile's dimensions (--by: comm, fs, dev, ...) and host, plus counters\n"
    "osprof_lost_events_total, osprof_dropped_events_total,\n"
    "osprof_unpaired_events_total and osprof_series_overflow_total.\n"
    "A scraper that asks for application/vnd.google.protobuf (Prometheus with\n"
    "--enable-feature=native-histograms) gets native histograms (schema 8, each\n"
    "bucket within 0.27 % of ours); any other gets the text format 0.0.4 with\n"
    "classic `le` buckets at our exact bounds. /metrics?format=text or\n"
    "?format=protobuf forces one. docs/prometheus.md has the mapping.\n"
    "Runs until Ctrl-C, SIGTERM or -d DUR; -i DUR is how often the kernel maps\n"
    "are read (default 1s): a scrape sees the data of the last read. With -o\n"
    "FILE the cumulative profile set is also written to FILE when serve stops\n"
    "(what was served, for `osprof report`); without -o nothing is written.\n\n"
    "Bounds: 2 HTTP worker threads, at most 64 connections at once (more are\n"
    "closed at once), a client stalled for 10 s is dropped.\n\n"
    "Exit status: 0 stopped by a signal or -d; 3 the same, but events were lost\n"
    "(one line names each count; --allow-loss: 0); 2 bad option or address; 1\n"
    "profiling or listening cannot start here.\n"
    "\nOptions:\n";

#define DEFAULT_LISTEN     "127.0.0.1:9477"
#define DEFAULT_MAX_SERIES 10000

/* A copy of the cumulative set for the scrapers. */
static struct osp_set *copy_set(const struct osp_set *s)
{
	struct osp_set *c = osp_set_new(s->r);
	char err[128];
	if (c && osp_set_merge(c, s, err, sizeof(err))) {
		osp_set_free(c);
		return NULL;
	}
	return c;
}

/* Adds one interval to the cumulative set, as `record INTERVAL` does. */
static int add_interval(struct top_source *src)
{
	struct osp_set *iv = osp_set_new(src->cum->r);
	char err[256];
	if (!iv)
		return -1;
	int rc = src->poll(src, iv);
	if (osp_set_merge(src->cum, iv, err, sizeof(err))) {
		osp_err("serve: %s", err);
		rc = -1;
	}
	for (size_t m = 0; m < iv->nmeta; m++)
		if (!osp_get_meta(src->cum, iv->meta[m].key))
			osp_set_meta(src->cum, iv->meta[m].key, iv->meta[m].value);
	osp_set_free(iv);
	return rc;
}

int cmd_serve(int argc, char **argv)
{
	const char *listen = NULL;
	size_t max_series = DEFAULT_MAX_SERIES;
	const struct osp_option own[] = {
	    OSP_OPT_STRING(0, "listen", &listen, "ADDR:PORT",
	                   "where to listen (default 127.0.0.1:9477; [::1]:PORT for\n"
	                   "IPv6; port 0 picks a free one). Prints\n"
	                   "\"osprof: serving http://ADDR:PORT/metrics\" once ready."),
	    OSP_OPT_UINT(0, "max-series", &max_series, 0, OSP_OPT_NOMAX, "a count", "N",
	                 "export the first N profiles (in order of appearance,\n"
	                 "so series never flap); later ones are counted in\n"
	                 "osprof_series_overflow_total (profiles) and\n"
	                 "osprof_series_overflow_calls_total (their calls);\n"
	                 "default 10000, 0 = no cap"),
	    OSP_OPT_END,
	};
	const struct osp_collect_spec spec = {"serve", usage_head, 1, own, 2};
	struct osp_collect_opts o;
	int next, rc;
	OSP_PARSE_OR_RETURN(osp_collect_parse(&spec, argc, argv, &o, &next));
	int save = o.output_given;
	if (next < argc) {
		rc = osp_usage_err("serve", "unexpected argument '%s'", argv[next]);
		goto out_opts;
	}
	if ((rc = osp_collect_one_target("serve", &o)))
		goto out_opts;
	uint64_t interval = o.interval_ns ? o.interval_ns : 1000000000ull;
	struct osp_waiter wt;
	osp_signals_install();
	osp_waiter_init(&wt, 0, -1);
	/* a scraper that hangs up mid-response must not kill us */
	signal(SIGPIPE, SIG_IGN);

	char bound[96];
	struct serve_http *http =
	    serve_http_start(listen ? listen : DEFAULT_LISTEN, max_series, bound, sizeof(bound));
	if (!http) {
		rc = listen ? OSP_EXIT_USAGE : OSP_EXIT_FAIL;
		goto out_opts;
	}
	struct top_source src;
	memset(&src, 0, sizeof(src));
	if ((rc = top_source_live(&src, &o, "serve"))) {
		serve_http_stop(http);
		goto out_opts;
	}
	serve_http_publish(http, copy_set(src.cum));
	fprintf(stderr, "osprof: serving http://%s/metrics (%s)\n", bound, src.what);
	uint64_t start = osp_now_ns(), end = o.duration_ns ? start + o.duration_ns : UINT64_MAX;
	for (uint64_t tick = start + interval; !osp_signals_stop(); tick += interval) {
		osp_wait(&wt, tick < end ? tick : end);
		if (add_interval(&src))
			osp_err("serve: collection incomplete");
		struct osp_set *snap = copy_set(src.cum);
		if (snap)
			serve_http_publish(http, snap);
		if (tick >= end)
			break;
		/* a read slower than -i: the next one starts now, no catching up */
		uint64_t now = osp_now_ns();
		if (now > tick + interval)
			tick = now - interval;
	}
	if (osp_signals_stop())
		fprintf(stderr, "osprof: %s: stopping\n", strsignal(osp_signals_stop()));
	serve_http_stop(http);
	osp_set_metaf(src.cum, "duration_ns", "%llu", (unsigned long long)(osp_now_ns() - start));
	rc = osp_collect_finish("serve", src.cum, save ? o.output : NULL, &o, OSP_EXIT_OK);
	src.close(&src);
out_opts:
	free(o.pids.v);
	return rc;
}
