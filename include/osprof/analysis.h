/* Automated analysis of profiles (OSprof §3.1-3.3): peaks, ranking by total
 * latency, "likely nested" count matches, profile comparison metrics, the
 * three-phase selection of differing profiles, characteristic-time
 * annotation and the forcible-preemption model. Method and thresholds:
 * docs/analysis.md. */
#ifndef OSPROF_ANALYSIS_H
#define OSPROF_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>
#include <osprof/hist.h>
#include <osprof/profile.h>

/* ---- Peaks ------------------------------------------------------------ */

/* A valley between two hills splits them into separate peaks when the lower
 * hill's top count c_top and the valley count c_v satisfy both
 *   c_top >= valley_ratio * c_v                (deep on a log scale), and
 *   c_top - c_v >= valley_z * sqrt(c_top + c_v) (not counting noise).
 * Empty buckets always separate peaks. */
#define OSP_PEAK_VALLEY_RATIO 2.0
#define OSP_PEAK_VALLEY_Z     2.0
/* A hill (or a run between empty buckets) is a peak only with at least
 * min_count calls; smaller ones (a lone 5 ms read among 4,000, a tail of 12
 * interrupted reads) are outliers that come and go between repeats of one
 * workload: they join a neighbouring hill of their run, or, alone between
 * empty buckets, belong to no peak. The largest run is always a peak. A
 * share of the calls would not do: seed 000/002's figures have real peaks of
 * 0.2 % and 1 % of the calls. Chosen on repeated real captures
 * (docs/analysis.md, "Peak stability"). */
#define OSP_PEAK_MIN_COUNT 20

struct osp_peak_opts {
	double valley_ratio;
	double valley_z;
	unsigned min_count; /* 0: every hill is a peak */
};

struct osp_peak {
	unsigned first, last; /* bucket indexes, inclusive */
	unsigned mode;        /* bucket with the largest count */
	uint64_t count;
	double lat;            /* estimated sum of values in the peak (ns) */
	uint64_t lo_ns, hi_ns; /* value range, clipped to the histogram's min/max */
	double mean_ns;
	double share_ops; /* of the histogram's count, 0..1 */
	double share_lat; /* of the histogram's total, 0..1 */
};

/* Finds the peaks of h, left to right, into out[0..max). Returns how many
 * there are (may exceed max: then only max were written). opts may be NULL.
 * At most osp_nbuckets(h->r) / 2 + 1 peaks exist. Calls in outlier hills
 * (see OSP_PEAK_MIN_COUNT) belong to no peak: h->count minus the peaks'
 * counts. */
unsigned osp_find_peaks(const struct osp_hist *h, const struct osp_peak_opts *opts,
                        struct osp_peak *out, unsigned max);

/* Estimated sum of values per bucket: count * geometric bucket middle, scaled
 * so that the estimates add up to h->total exactly. est has nbuckets slots. */
void osp_bucket_estimates(const struct osp_hist *h, double *est);

/* ---- Ranking and nesting hints -------------------------------------- */

struct osp_rank_entry {
	const struct osp_profile *p;
	double share;     /* of the set's total latency, 0..1 */
	double cum_share; /* cumulative over the ranking, 0..1 */
	double share_ops; /* of the ops of the same unit, 0..1 */
};

/* Ranks the profiles whose unit is ns by total latency, largest first (ties:
 * count, then label). *out is malloc'd; returns the number of entries or
 * -ENOMEM. Profiles in other units are left out. */
long osp_rank(const struct osp_set *s, struct osp_rank_entry **out);

/* A peak range [peak_first, peak_last] (1-based) of `outer` whose population
 * equals the count of `inner` within the tolerance: the inner operation is
 * probably called by the outer one in those cases (seed 001 §6.2). */
struct osp_nest_hint {
	const struct osp_profile *outer;
	unsigned peak_first, peak_last; /* 1-based; all peaks = whole op */
	unsigned npeaks;                /* peaks of outer */
	uint64_t outer_count;           /* population of the peak range */
	const struct osp_profile *inner;
	uint64_t inner_count;
};

/* Tolerance: |a - b| <= max(OSP_NEST_ABS_SLACK, tol * max(a, b)). */
#define OSP_NEST_TOL       0.005
#define OSP_NEST_ABS_SLACK 1
#define OSP_NEST_MIN_COUNT 20

/* Finds nesting hints in s (ns profiles with >= OSP_NEST_MIN_COUNT ops). The
 * outer peak range must be at least as slow on average as the inner op.
 * tol < 0 selects OSP_NEST_TOL. *out is malloc'd; returns count or -ENOMEM. */
long osp_nesting_hints(const struct osp_set *s, double tol, struct osp_nest_hint **out);

/* ---- Comparison metrics (each 0 = same .. 100 = different) --------- */

enum osp_metric {
	OSP_METRIC_TOTOPS = 0,
	OSP_METRIC_TOTLAT,
	OSP_METRIC_CHISQUARE,
	OSP_METRIC_EMD,
	OSP_METRIC_GROUPOPS,
	OSP_METRIC_GROUPLAT,
	OSP_METRIC_INTERSECT,
	OSP_METRIC_JEFFREY,
	OSP_METRIC_COUNT
};

const char *osp_metric_name(enum osp_metric m);
/* Case-insensitive; also accepts "earthmover". 0 or -EINVAL. */
int osp_metric_parse(const char *s, enum osp_metric *m);
/* Score at or above which the metric calls two profiles different. */
double osp_metric_default_threshold(enum osp_metric m);

/* Seed 000 §5.7: |Sa - Sb| / Sa * 100, capped at 100 (100 if Sa == 0 != Sb). */
double osp_score_totops(const struct osp_hist *a, const struct osp_hist *b);
/* Same on the exact total latency (sum of values). */
double osp_score_totlat(const struct osp_hist *a, const struct osp_hist *b);
/* Chi-square two-sample test on bins with a or b non-zero (Numerical Recipes
 * chstwo, which reduces to sum (a-b)^2/(a+b) for equal counts); dof = bins-1.
 * Returns the p-value; score = (1 - p) * 100. chi2/dof may be NULL. */
double osp_chisquare(const struct osp_hist *a, const struct osp_hist *b, double *chi2,
                     unsigned *dof);
/* Survival function of the chi-square distribution: Q(dof/2, x/2). */
double osp_chi2_sf(double x, double dof);
/* Regularised upper incomplete gamma Q(a, x). */
double osp_gamma_q(double a, double x);
/* Earth mover's distance of the normalised histograms in buckets:
 * sum_i |CDFa(i) - CDFb(i)|. */
double osp_emd(const struct osp_hist *a, const struct osp_hist *b);
/* Score of an EMD of d buckets at resolution r: 100 * x / (1 + x) where
 * x = d / r is the distance in octaves (one octave scores 50). */
double osp_emd_score(double d, unsigned r);
/* Histogram intersection of normalised histograms; score = (1 - I) * 100. */
double osp_intersection(const struct osp_hist *a, const struct osp_hist *b);
/* Jeffrey divergence sum p ln(p/m) + q ln(q/m), m = (p+q)/2, in nats
 * (0 .. 2 ln 2); score = J / (2 ln 2) * 100. */
double osp_jeffrey(const struct osp_hist *a, const struct osp_hist *b);

/* Phases 1-2 of the selection and the early exits of GROUPOPS/GROUPLAT. */
struct osp_cmp_opts {
	struct osp_peak_opts peaks;
	double near_equal;     /* totals within this fraction: "similar", 0.05 */
	double very_different; /* totals differ by this factor - 1: 100, 1.0 */
	double peak_min_share; /* a peak with this share of the ops counts when
	                          comparing peaks, 0.02 */
	double peak_lat_share; /* so does one with this share of the latency */
	double peak_lat_ops;   /* and at least this share of the ops (off by
	                          default: 2, 0.01; stall peaks that hold most
	                          of the latency vary between runs) */
	double peak_vanish;    /* a peak's range holding < this fraction of
	                          its share on the other side is gone, 0.25 */
	enum osp_unit unit;    /* of the values, for reasons (OSP_UNIT_NS) */
};
/* v in unit u: "1.31 ms", "128 KiB", "3". */
void osp_format_value(uint64_t v, enum osp_unit u, char *buf, size_t len);
void osp_cmp_opts_default(struct osp_cmp_opts *o);
/* o, or the defaults written into *def when o is NULL. */
const struct osp_cmp_opts *osp_cmp_opts_or(const struct osp_cmp_opts *o, struct osp_cmp_opts *def);

/* Result of comparing the significant peaks of two histograms. */
struct osp_peak_cmp {
	int differs;      /* number or position of significant peaks differs */
	char reason[160]; /* "new peak at 256 us-1 ms", ... */
};
void osp_compare_peaks(const struct osp_hist *a, const struct osp_hist *b,
                       const struct osp_cmp_opts *o, struct osp_peak_cmp *out);
/* z statistic of two proportions ka/na and kb/nb (pooled): how many
 * standard errors apart they are. 0 when a side is empty. */
double osp_prop_z(double ka, double na, double kb, double nb);

/* The peak whose population change drives most of a change of total
 * latency (analysis/growth.c; OSP_DIFF_GROWTH_*). */
struct osp_peak_growth {
	unsigned first, last; /* bucket range (file indexes) */
	uint64_t ca, cb;      /* calls in it on each side */
	double lat_a, lat_b;  /* estimated latency in it (ns) */
	double of_change;     /* (lat_b - lat_a) / (total_b - total_a) */
};
/* 1 and *g filled when such a peak exists, else 0. ns histograms. */
int osp_peak_growth(const struct osp_hist *a, const struct osp_hist *b,
                    const struct osp_cmp_opts *o, struct osp_peak_growth *g);

/* GROUPOPS (lat = 0) / GROUPLAT (lat = 1): 0 if totals near-equal, 100 if
 * very different or the peaks differ, else the normalised difference of the
 * per-peak populations (latencies), capped at 100. */
double osp_score_group(const struct osp_hist *a, const struct osp_hist *b, int lat,
                       const struct osp_cmp_opts *o);

struct osp_scores {
	double score[OSP_METRIC_COUNT];
	double chi2, chi2_p;
	unsigned chi2_dof;
	double emd; /* buckets */
};
/* Computes every metric. o may be NULL (defaults). */
void osp_compare_hists(const struct osp_hist *a, const struct osp_hist *b,
                       const struct osp_cmp_opts *o, struct osp_scores *out);

/* ---- Differences between two sets (seed 001 §3.2) --------------------- */

enum osp_verdict {
	OSP_VERDICT_DIFFERS = 0,
	OSP_VERDICT_ONLY_IN_A,
	OSP_VERDICT_ONLY_IN_B,
	OSP_VERDICT_SIMILAR,
	OSP_VERDICT_INSIGNIFICANT,
};
const char *osp_verdict_name(enum osp_verdict v);

struct osp_diff_opts {
	enum osp_metric metric;
	double threshold;     /* < 0: the metric's default */
	double min_share_lat; /* phase 1: insignificant below this share of total */
	double min_share_ops; /* latency AND of ops on both sides (0.01 each) */
	uint64_t min_count;   /* or fewer ops than this on both sides (10) */
	struct osp_cmp_opts cmp;
	int skip_insignificant_scores; /* leave the scores of phase-1 insignificant
	                                  pairs at 0 (a fleet ranking never shows
	                                  them; scoring is most of the cost) */
};
void osp_diff_opts_default(struct osp_diff_opts *o);

/* A difference a sample of this size could show by chance is no difference:
 * every count and peak-population change must be significant at this level
 * (two-sided; Poisson counts / two proportions), so a handful of calls or
 * one outlier never flags alone. z = 3.29 <=> p = 0.001. */
#define OSP_DIFF_Z 3.29
/* A peak whose latency change makes at least this share of the op's
 * total-latency change, when that change is at least OSP_DIFF_GROWTH_TOTAL
 * of the larger total and the peak's population grew or shrank by at least
 * OSP_DIFF_GROWTH_FACTOR (significantly), differs even when the shape metric
 * is small (a preemption peak 328 -> 603 calls holding 62 % of latency). */
#define OSP_DIFF_GROWTH_SHARE  0.5
#define OSP_DIFF_GROWTH_TOTAL  0.25
#define OSP_DIFF_GROWTH_FACTOR 1.5

struct osp_diff_entry {
	const struct osp_profile *a, *b; /* one may be NULL (only_in_*) */
	enum osp_verdict verdict;
	int phase;                /* 1, 2 or 3: the phase that decided */
	const char *decided_by;   /* the test that decided: "insignificant",
	                             "ops", "near-equal", "peaks", "peak-growth"
	                             or the phase-3 metric's name */
	double decided_value;     /* its value (ops factor, score, ...) */
	double decided_threshold; /* and the threshold it was held against */
	double score;             /* of the chosen metric */
	struct osp_scores scores; /* valid when a and b are both present */
	double share;             /* max latency share (or ops share) on either side */
	char reason[256];
};

struct osp_diff {
	size_t n;
	struct osp_diff_entry *e; /* rank order */
	size_t ndiffer, nonly_a, nonly_b, nsimilar, ninsignificant;
};

/* Compares every profile of a with the same key in b. 0, -EINVAL (different
 * resolutions; message in err) or -ENOMEM. */
int osp_diff_sets(const struct osp_set *a, const struct osp_set *b, const struct osp_diff_opts *o,
                  struct osp_diff *out, char *err, size_t errlen);
void osp_diff_free(struct osp_diff *d);

/* ---- Fleets: hosts unlike the others (analysis/fleet.c) -------------- */

struct osp_host_rank {
	char *host;
	double score;          /* % of latency in profiles that differ (0 = alike) */
	size_t ndiffer, nonly; /* profiles that differ / exist on one side only */
	uint64_t count;        /* the host's calls */
	char top[384];         /* the first-ranked difference, with its reason */
};

struct osp_host_ranking {
	size_t n;
	struct osp_host_rank *hosts; /* score order, largest first */
	size_t nohost;               /* profiles of the set with no host dimension */
};

/* Compares every host of s (profiles with a host dimension, as `osprof
 * merge` writes them) with the mean of the other hosts, using osp_diff_sets,
 * and ranks the hosts by the latency share of their differing profiles.
 * 0, -EINVAL (fewer than two hosts; message in err) or -ENOMEM. */
int osp_diff_hosts(const struct osp_set *s, const struct osp_diff_opts *o,
                   struct osp_host_ranking *out, char *err, size_t errlen);
void osp_host_ranking_free(struct osp_host_ranking *r);

/* ---- Making sets comparable (analysis/transform.c) ----------------- */

/* A copy of s at the coarser resolution r (r must divide s->r): exact, the
 * buckets nest. Time slices are not copied. NULL on ENOMEM or a bad r. */
struct osp_set *osp_set_coarsen(const struct osp_set *s, unsigned r);
/* A copy of s with the named dimensions removed from every key; profiles
 * that become equal are summed (e.g. drop "pid" to compare two runs whose
 * pids differ). Time slices are not copied. NULL on ENOMEM. */
struct osp_set *osp_set_drop_dims(const struct osp_set *s, const char *const *names, unsigned n);

/* ---- Characteristic times (calibration) ------------------------------ */

/* Layer name of calibration profiles in a calibration set. */
#define OSP_CALIB_LAYER "calib"

/* Human label of a calibration op ("O_DIRECT 4 KiB random read"), or NULL. */
const char *osp_calib_label(const char *op);
/* $OSPROF_CALIBRATION, else /var/lib/osprof/calibration-<host>.osp. */
const char *osp_calib_default_path(char *buf, size_t len);
/* Loads the default calibration; NULL when absent or unreadable. */
struct osp_set *osp_calib_load_default(void);
/* The characteristic time of a calibration profile: its median. */
double osp_calib_time(const struct osp_profile *p);

/* Calibration ops whose characteristic time is within a factor sqrt(2) of
 * the peak's mean, or inside its value range when that spans at most two
 * octaves; closest first; up to max labels into names. Returns how many. */
unsigned osp_annotate_peak(const struct osp_set *calib, const struct osp_peak *pk,
                           const char **names, unsigned max);

/* A candidate mechanism for a peak (analysis/labels.c): the calibration
 * item whose time and spread contain the peak's whole range and whose
 * mechanism the profile's layer and op can show. Worded "consistent with". */
struct osp_peak_label {
	const char *item;  /* calibration op, "odirect_read_4k" */
	const char *label; /* "O_DIRECT 4 KiB random read" */
	double calib_ns, calib_lo_ns, calib_hi_ns;
	double dist;    /* octaves from the peak's mean */
	int fs_unknown; /* a file-backed mechanism, but no fs dimension */
	char evidence[288];
};
/* Labels of peak pk of profile p, closest first, at most max. */
unsigned osp_label_peak(const struct osp_set *calib, const struct osp_profile *p,
                        const struct osp_peak *pk, struct osp_peak_label *out, unsigned max);

/* ---- Forcible preemption (seed 000 §3.3) ----------------------------- */

/* Eq. 3.5: probability that a request is forcibly preempted while profiled. */
double osp_preempt_prob(double t_cpu, double t_period, double yield, double quantum);

/* Eq. 3.6 for a process that never yields (Y = 0) with P runnable processes:
 * bucket b loses n_b * t_b / Q requests to the bucket of t_b + (P-1)Q.
 * n: bucket counts without preemption (the caller may pass a measured
 * profile, ignoring its preempted peak); moved_in[b] / moved_out[b] get the
 * predicted flows (nbuckets each; either may be NULL). Returns the total
 * predicted number of preempted requests. */
double osp_preempt_predict(const uint64_t *n, unsigned r, uint64_t quantum_ns, unsigned nprocs,
                           double *moved_in, double *moved_out);

/* Precision of the prediction (seed 000: bucket means are +-33 %). */
#define OSP_PREEMPT_PRECISION 0.33

/* Total requests Eq. 3.6 predicts preemption moves, with the buckets of h
 * below Q/2 as the non-preempted counts (as osp_preempt_peaks). */
double osp_preempt_total(const struct osp_hist *h, uint64_t quantum_ns, unsigned nprocs);

/* Where a preemption verdict comes from. */
enum osp_preempt_evidence {
	OSP_PREEMPT_EV_MODEL = 0, /* Eq. 3.6 alone: "could be explained (model)" */
	OSP_PREEMPT_EV_SPLIT,     /* --split preempt: state=preempted calls */
	OSP_PREEMPT_EV_OFFCPU,    /* sched:offcpu reason=preempted switch-outs */
};

struct osp_preempt_peak {
	double predicted; /* requests preemption moves into the peak (model) */
	int model_fits;   /* the peak's count is within the predicted range */
	/* Filled by osp_preempt_evidence(): */
	enum osp_preempt_evidence evidence;
	uint64_t measured; /* preempted calls in the peak's buckets (split), or
	                      preempted switch-outs as long as the peak (offcpu) */
	uint64_t calls;    /* calls in the peak's buckets, preempted included */
	int explained;     /* measured: preemption explains the peak */
};
/* Flags the peaks of h whose counts preemption with quantum Q and nprocs
 * could explain (model_fits). Buckets at or above Q/2 are treated as
 * already-preempted requests and left out of the source counts. res has
 * npeaks entries. */
void osp_preempt_peaks(const struct osp_hist *h, const struct osp_peak *pk, unsigned npeaks,
                       uint64_t quantum_ns, unsigned nprocs, struct osp_preempt_peak *res);

/* A peak is preemption's when at least this share of its calls was measured
 * preempted in flight (--split preempt), or when the model fits and there were
 * at least this many preempted switch-outs of its length per call (sched). */
#define OSP_PREEMPT_MEASURED_SHARE 0.5

/* Replaces the model's guess by measurement where s holds it: p's sibling
 * with dimension state=preempted (`--split preempt`; when p is that sibling
 * every peak is measured preempted), else the sched layer's
 * `offcpu reason=preempted` switch-outs whose off-CPU time falls in the
 * peak's range (half its low end .. its high end: the op's own time adds to
 * the off-CPU time). Peaks without either keep evidence MODEL. */
void osp_preempt_evidence(const struct osp_set *s, const struct osp_profile *p,
                          const struct osp_peak *pk, unsigned npeaks, struct osp_preempt_peak *res);

/* ---- Rendering (text and JSON; render/analysis_text.c) --------------- */

/* What `peaks --preemption` adds: quantum, runnable processes, and where Q
 * came from ("--quantum", "calibration", "default"). */
struct osp_preempt_view {
	uint64_t quantum_ns;
	unsigned nprocs;
	const char *source;
	const struct osp_set *set; /* the profile's set: measured evidence
	                              (osp_preempt_evidence); may be NULL */
};

/* The peaks of one profile as a table: number, buckets b (= floor(r log2 v)),
 * latency range, count, mean, shares, characteristic times matched in calib
 * (may be NULL) and, if pv, the preemption prediction. */
void osp_print_peaks(FILE *out, const struct osp_profile *p, const struct osp_set *calib,
                     const struct osp_preempt_view *pv);
/* Only the table (no title line): what `osprof report` prints under each
 * histogram. Prints nothing for a profile without peaks. */
void osp_print_peak_table(FILE *out, const struct osp_profile *p, const struct osp_set *calib,
                          const struct osp_preempt_view *pv);
/* The same as one JSON object on one line (NDJSON). */
void osp_print_peaks_json(FILE *out, const struct osp_profile *p, const struct osp_set *calib,
                          const struct osp_preempt_view *pv);
/* "likely nested" hints, one line each. Prints nothing when n == 0. */
void osp_print_nest_hints(FILE *out, const struct osp_nest_hint *h, size_t n);
/* The measured nesting of s (profiles' parent tables): for each op, how many
 * of its calls ran inside each operation of the layer above; nothing when
 * nothing was measured. */
void osp_print_nesting_measured(FILE *out, const struct osp_set *s);

/* Network file systems seen from both ends (osprof netfs): each client
 * operation's latency split into the server's time for the RPCs it issued
 * and the remainder -- network, protocol and client queueing. Client
 * profiles come from layer `stack` (osprof mount over the client's mount)
 * or from the fs layer's FUSE round trips (fuse_OP); server profiles from
 * the user and syscall layers of the server process (analysis/netfs.c).
 * For NFS: client ops from the fs layer on nfs/nfs4, server time from the
 * rpc layer's server side (nfsd), grouped by NFS procedure. */
/* One class of RPCs: the client ops that issue them and the server calls
 * that serve them (e.g. read: client read; server read, pread64). */
struct osp_netfs_class {
	const char *name;
	struct osp_hist client, server; /* summed over the class's profiles */
	const char *server_layer;       /* where the server time came from */
	/* Quantile coupling of the two distributions (client quantile minus
	 * RPCs-per-op times the server quantile at the same rank, at 1 % steps,
	 * clamped at 0): an estimate of the remainder's distribution, with
	 * client.count calls. */
	struct osp_hist remainder;
	double rpcs_per_op;  /* server calls per client call */
	double server_share; /* of the client's total latency, 0..1 (may exceed 1) */
	double remainder_ns; /* mean per client call */
	unsigned net_peaks;  /* client peaks no server peak overlaps */
	uint64_t net_peak_lo[8], net_peak_hi[8];
	/* NFS: client ops from the fs layer on nfs/nfs4, server time from the
	 * rpc layer's side=server calls; client_rpcs counts the client's own
	 * calls of the class (rpc side=client), 0 when not profiled. When the
	 * client profiled its RPCs, rpcs_per_op is client_rpcs per op and the
	 * server's share counts the server's mean once per such call (the
	 * server also serves other processes and clients). */
	int nfs;
	uint64_t client_rpcs;
};

struct osp_netfs_opts {
	/* Server layer to take every class from ("user", "syscall"); NULL:
	 * per class -- read and write from syscall profiles split --by fs
	 * (file systems only: the request channel's sockets and pipes are
	 * left out), everything else from user when present. */
	const char *server_layer;
	/* One set holding both ends: profiles with dim host=client_host and
	 * host=server_host; NULL when client and server are separate sets. */
	const char *client_host, *server_host;
};

/* Fills out[0..max) with the classes that have client calls, largest client
 * total first; returns their number, or -1 with err filled (resolutions
 * differ, no client profile). Free with osp_netfs_free. */
int osp_netfs_split(const struct osp_set *client, const struct osp_set *server,
                    const struct osp_netfs_opts *o, struct osp_netfs_class *out, unsigned max,
                    char *err, size_t errlen);
void osp_netfs_free(struct osp_netfs_class *c, unsigned n);

/* `osprof netfs`: the table of classes and their three distributions. */
void osp_print_netfs(FILE *out, const char *client, const char *server,
                     const struct osp_netfs_class *c, int n);
/* `osprof netfs --json`: one object per class. */
void osp_print_netfs_json(FILE *out, const struct osp_netfs_class *c, int n);

#endif
