/* The view model shared by the graphical views (svg, gnuplot, html, top):
 * per-profile statistics, selection and ordering, axis helpers, and the
 * analysis annotations (peaks, characteristic times, diff ranking), which
 * come through render/annot.c so their source can change in one place. */
#ifndef OSPROF_RENDER_VMODEL_H
#define OSPROF_RENDER_VMODEL_H

#include <stddef.h>
#include <osprof/profile.h>

#define OSP_VM_MAX_PEAKS 8
#define OSP_VM_MAX_NOTES 8

struct osp_vm_peak {
	unsigned lo, hi, mode; /* bucket indexes: range and fullest bucket */
	uint64_t count;
	double mean;      /* estimated from bucket middles */
	double share_ops; /* of the profile's count */
	double share_lat; /* of the profile's estimated latency */
	char note[64];    /* "consistent with" the closest candidate mechanism, or "" */
};

/* A characteristic time drawn as a vertical line (e.g. "context switch"). */
struct osp_vm_note {
	double value;
	char label[48];
};

/* Total latency per layer: layers nest (a read system call contains its
 * file-system and block work), so shares are taken within a layer, as
 * `osprof report` does. */
#define OSP_VM_MAX_LAYERS 32
struct osp_vm_totals {
	unsigned n;
	const char *layer[OSP_VM_MAX_LAYERS];
	uint64_t total[OSP_VM_MAX_LAYERS];
};
void osp_vm_totals(const struct osp_set *s, struct osp_vm_totals *t);

struct osp_vm_stats {
	uint64_t count, total, mean, p50, p99;
	double share; /* of its layer's total latency */
	unsigned npeaks;
	struct osp_vm_peak peaks[OSP_VM_MAX_PEAKS];
};

struct osp_vm_diff {
	const struct osp_profile *a, *b; /* either may be NULL (op only on one side) */
	double score;                    /* larger: more different */
	const char *verdict;             /* differs, only_in_a, only_in_b, similar, ... */
	char reason[256];
};

/* t may be NULL: share stays 0. */
void osp_vm_stats(const struct osp_profile *p, const struct osp_vm_totals *t,
                  struct osp_vm_stats *st);

/* annot.c: where analysis results enter the views. The characteristic
 * times come from the calibration set ($OSPROF_CALIBRATION or the per-host
 * default), loaded on first use unless set here (NULL: none). */
void osp_vm_set_calibration(const struct osp_set *calib);
unsigned osp_vm_peaks(const struct osp_profile *p, struct osp_vm_peak *out, unsigned max);
unsigned osp_vm_notes(const struct osp_set *s, const struct osp_profile *p, struct osp_vm_note *out,
                      unsigned max);
/* Ranked differences between a and b, most different first; *out is
 * malloc'ed. Returns the count or -1 on ENOMEM. */
long osp_vm_diff(const struct osp_set *a, const struct osp_set *b, struct osp_vm_diff **out);

/* Profiles matching op (NULL: all), sorted by total latency (largest first),
 * at most top (0: all). *out is malloc'ed; returns the count or -1. The set
 * itself is not reordered. */
long osp_vm_select(const struct osp_set *s, const char *op, unsigned top,
                   const struct osp_profile ***out);
int osp_vm_matches(const struct osp_profile *p, const char *op);
/* The same for an A/B view: A's profiles, then those only in B (sorted
 * alike), up to top in all. Each B-only entry is an empty profile with B's
 * key, held in *extra (free it with osp_set_free after *out). */
long osp_vm_select_ab(const struct osp_set *a, const struct osp_set *b, const char *op,
                      unsigned top, const struct osp_profile ***out, struct osp_set **extra);
/* osp_vm_select_ab for a plot's options, whose calibration it also sets
 * (osp_vm_set_calibration): -1 with err set when memory runs out or --op
 * matches nothing (then *out and *extra are freed). */
struct osp_plot_opts;
long osp_vm_select_plot(const struct osp_set *a, const struct osp_plot_opts *o,
                        const struct osp_profile ***out, struct osp_set **extra, char *err,
                        size_t errlen);
/* The buckets every panel of a plot shows (one range, so that panels can
 * be compared by eye): the non-empty ones of v[0..n) and of their twins in
 * b (1..10r when none is), padded by one bucket each side. */
void osp_vm_plot_range(const struct osp_set *a, const struct osp_set *b,
                       const struct osp_profile *const *v, long n, int *blo, int *bhi);
/* Frees what osp_vm_select_plot gave; 0, or -1 with err set when writing
 * the plot to f failed. */
int osp_vm_plot_done(FILE *f, const struct osp_profile **v, struct osp_set *extra, char *err,
                     size_t errlen);
/* The profile of b with the same key as p, or NULL. */
const struct osp_profile *osp_vm_twin(const struct osp_set *b, const struct osp_profile *p);

/* Continuous bucket coordinate of value v at resolution r: bucket idx spans
 * [idx, idx + 1), so value v sits at 1 + r*log2(v). */
double osp_vm_xpos(double v, unsigned r);
/* Widens [*first, *last] to the non-empty buckets of h (start with first >
 * last for "none yet"). */
void osp_vm_range(const struct osp_hist *h, int *first, int *last);
/* Largest count over slices of p, over its buckets. */
uint64_t osp_vm_slice_max(const struct osp_profile *p);
/* Label placement (svg, gnuplot): label i spans [lo[i], hi[i]] along x;
 * each gets the lowest lane (text row) in which it overlaps no label placed
 * before it, so labels of close peaks stack instead of printing over each
 * other. Returns the number of lanes used. */
unsigned osp_vm_lanes(const double *lo, const double *hi, unsigned n, unsigned *lane);
/* Estimated width of a label of len characters at an 11 px sans-serif font. */
#define OSP_VM_CHAR_W 6.5

#endif
