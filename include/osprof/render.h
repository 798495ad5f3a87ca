/* Renderings of profile sets and of what the analysis says about them: text,
 * JSON and CSV (`osprof report`, `peaks`, `diff`), SVG plots drawn natively,
 * gnuplot scripts (and PNG through gnuplot), and a self-contained HTML
 * report (docs/views.md). The live terminal view (`osprof top`) lives in
 * cli/ because it needs ncurses and the collection layers. */
#ifndef OSPROF_RENDER_H
#define OSPROF_RENDER_H

#include <stdio.h>
#include <osprof/json.h>
#include <osprof/profile.h>

#define OSP_MAX_PCTS 16

struct osp_report_opts {
	uint64_t unit_div; /* 0 = pick per profile, else 1 (ns), 1000 (us), 1000000 (ms) */
	unsigned npcts;    /* --pct */
	double pcts[OSP_MAX_PCTS];
	size_t top;  /* 0 = all profiles */
	int slices;  /* also print the time slices as a text heat map */
	int no_hist; /* summary table only */
	/* Optional extra lines after the summary table and after each
	 * histogram (osprof report: nesting hints, peaks); NULL for none. */
	void (*after_summary)(FILE *out, const struct osp_set *s, void *ctx);
	void (*after_hist)(FILE *out, const struct osp_profile *p, void *ctx);
	void *ctx;
};

/* Chooses ns/us/ms for a latency histogram so its smallest value reads >= 1. */
uint64_t osp_pick_unit_div(const struct osp_hist *h);
const char *osp_unit_div_name(uint64_t div, enum osp_unit unit);

/* One bcc print_log2_hist-style block: header "     usecs : count    distribution"
 * then "lo -> hi : count |****|" for every bucket from the first to the last
 * non-empty one. `buckets` may be a slice's buckets (nbuckets from h). */
void osp_print_hist(FILE *out, const struct osp_hist *h, const uint64_t *buckets,
                    enum osp_unit unit, uint64_t unit_div);

/* The whole report: header, summary (one section per layer, ranked by total
 * latency, SHARE/CUM of the layer), histograms in the same order. Reorders
 * s's profiles. */
void osp_render_text(FILE *out, struct osp_set *s, const struct osp_report_opts *o);
/* NDJSON: a {"type":"meta"} record with the set's metadata, then one
 * {"type":"profile"} object per profile (README.md lists the fields). */
void osp_render_json(FILE *out, struct osp_set *s, const struct osp_report_opts *o);
/* `report --json --nesting`: one object per relation, measured ones (the
 * parent tables of the file) first, then count matches (evidence "count",
 * guesses) from osp_nesting_hints. */
struct osp_nest_hint;
void osp_render_nesting_json(FILE *out, const struct osp_set *s, const struct osp_nest_hint *h,
                             size_t nh);
/* CSV: a header row (columns named by unit when all rows share one), then
 * one row per profile with one column per bucket; o->slices adds a slice
 * column and one row per time slice. */
void osp_render_csv(FILE *out, struct osp_set *s, const struct osp_report_opts *o);

/* Prometheus exposition (docs/prometheus.md): one histogram family per layer
 * and unit (osprof_syscall_latency_seconds, ...), one series per profile
 * labelled op, its dimensions and host, plus lost/dropped/unpaired and
 * series-overflow counters. */
struct osp_prom_opts {
	size_t max_series; /* export the first N profiles of the set; 0 = all */
	const char *host;  /* host label where a profile has no host dim; NULL: meta */
};
/* Text format 0.0.4 with classic `le` buckets at our exact bucket bounds.
 * 0, or -1 on ENOMEM or a write error. */
int osp_render_prometheus(FILE *out, const struct osp_set *s, const struct osp_prom_opts *o);
/* Length-delimited protobuf MetricFamily messages (what a scraper asking for
 * application/vnd.google.protobuf gets) with NATIVE histograms in seconds at
 * schema 8: each of our buckets in the native bucket holding its top, whose
 * bounds are within 0.27 % of it (docs/prometheus.md). 0, or -1. */
int osp_render_prometheus_pb(FILE *out, const struct osp_set *s, const struct osp_prom_opts *o);
/* Native (schema 8) bucket index of v > 0. */
int osp_prom_native_index(double v);
/* The counters alone (the text renderer ends with them). */
void osp_prom_counters(FILE *out, const struct osp_set *s, const char *host, size_t dropped,
                       uint64_t dropped_calls);
/* Integer ns as an exact decimal number of seconds ("0.000001023"). */
void osp_prom_seconds(char *buf, size_t len, uint64_t ns);

/* Writes the key of p as members of the open object j:
 * "layer":"...","op":"...","dims":{"name":"value",...} */
void osp_json_profile_key(struct osp_json *j, const struct osp_profile *p);

/* ---- graphical views ---------------------------------------------------- */

/* Short value with its unit, as the views label axes: "0", "100ns",
 * "1.5µs", "10ms", "4KiB", "12". */
char *osp_render_value(double v, enum osp_unit u, char *buf, size_t len);

struct osp_plot_opts {
	const char *op;          /* only profiles whose op, layer:op or label match */
	unsigned top;            /* at most this many profiles (0: all) */
	int total_axis;          /* also draw latency per bucket on a right axis */
	int heatmap;             /* -1 never, 0 when sliced, 1 required */
	const struct osp_set *b; /* --diff: overlay of a second set, or NULL */
	const char *name_a;      /* legend names (file names) */
	const char *name_b;
	/* characteristic times that annotate peaks (osp_calib_load_default),
	 * or NULL for none */
	const struct osp_set *calib;
};

/* Each returns 0, or -1 after setting err (e.g. nothing matched --op). */
int osp_render_svg(FILE *out, const struct osp_set *a, const struct osp_plot_opts *o, char *err,
                   size_t errlen);
/* A gnuplot script with its data inline. term is the `set terminal` line to
 * emit (NULL: the script leaves the terminal to the user), output the
 * `set output` file or NULL. */
int osp_render_gnuplot(FILE *out, const struct osp_set *a, const struct osp_plot_opts *o,
                       const char *term, const char *output, char *err, size_t errlen);

/* Folded call stacks, one "frame;frame;... COUNT" per line (flamegraph.pl,
 * `osprof rootcause --folded`); '#' starts a comment line. */
struct osp_folded {
	char *path; /* frames separated by ';', outermost first */
	uint64_t count;
};
struct osp_folded_set {
	size_t n;
	struct osp_folded *e;
};
/* 0, or -1 with "NAME:LINE: what is wrong" in err (out is then empty). */
int osp_folded_read(FILE *f, const char *name, struct osp_folded_set *out, char *err,
                    size_t errlen);
void osp_folded_free(struct osp_folded_set *s);

struct osp_html_opts {
	const char *name_a;      /* file names shown in the report */
	const struct osp_set *b; /* compare with B (diff view), or NULL */
	const char *name_b;
	const struct osp_folded_set *rootcause; /* extra root-cause tree, or NULL */
	const char *rootcause_name;
	unsigned max_heatmaps;       /* time slices of at most this many profiles, those
	                                with the most latency (0: all) */
	const struct osp_set *calib; /* characteristic times for peak notes, or NULL */
};

/* One offline HTML file: grid, graph, heat map, tree, and diff when o->b. */
int osp_render_html(FILE *out, const struct osp_set *a, const struct osp_html_opts *o);

#endif
