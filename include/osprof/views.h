/* Graphical views of profile sets: SVG plots drawn natively, gnuplot scripts
 * (and PNG through gnuplot), and a self-contained HTML report. The live
 * terminal view (`osprof top`) lives in cli/ because it needs ncurses and the
 * collection layers. See docs/views.md. */
#ifndef OSPROF_VIEWS_H
#define OSPROF_VIEWS_H

#include <stdio.h>
#include <osprof/profile.h>

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
