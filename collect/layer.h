/* A collection layer: something that turns operations of a process tree or
 * of the live system into histograms of one osp_set. `osprof run`, `record`,
 * `top` and `list` drive every layer through this table (collect/layers.c).
 *
 * Order of calls for `osprof run`:
 *   prepare (before fork; may set env for the child, load BPF objects)
 *   -> the child is forked and held before exec ->
 *   attach (s->root_pid is known) -> child released, runs, exits ->
 *   collect (read everything out into s->set) -> destroy.
 * For `record`, root_pid is 0 and targets come from pids/cgroup/comm/all;
 * collect may be called repeatedly (INTERVAL) with reset between. */
#ifndef OSPROF_COLLECT_LAYER_H
#define OSPROF_COLLECT_LAYER_H

#include <stdio.h>
#include <sys/types.h>
#include <osprof/profile.h>

#define OSP_MAX_LAYERS 16

struct osp_session {
	struct osp_set *set; /* where collect() adds profiles */
	unsigned r;
	uint64_t slice_ns; /* -i; 0 = no slices */
	uint64_t start_ns; /* CLOCK_MONOTONIC at start */
	const char *by;    /* --by: pid, tid, comm, fs, dev, caller; NULL */
	const char *split; /* --split: "preempt" or NULL */
	int verbose;       /* -v: print attach modes chosen */
	int probe_time;    /* --probe-time: the kernel times the programs */
	int bad_input;     /* set by a prepare that failed on the user's input: exit 2 */
	/* targets */
	pid_t root_pid;    /* run: the child; follow its descendants */
	char *const *argv; /* run: CMD and its arguments (set before prepare) */
	pid_t *pids;       /* record -p */
	size_t npids;
	const char *cgroup; /* record -c (path under /sys/fs/cgroup) */
	const char *comm;   /* record --comm */
	int all;            /* record -a */
	/* layer-specific options, NULL when not given */
	const char *funcs;                 /* --func SYM[,SYM] */
	const char *fs_types;              /* --fs TYPE[,TYPE]: generic fs layer */
	const char *fs_ops;                /* --fs-ops all|OP[,OP]: fs helper pairs too */
	const char *uprobes;               /* --uprobe BIN:SYM[,...] */
	const char *correlate;             /* --correlate OP:VALUE */
	const char *peaks;                 /* --peaks RANGES */
	void *layer_state[OSP_MAX_LAYERS]; /* per-layer private state */
};

struct osp_layer {
	const char *name;
	const char *summary; /* one line for `osprof list` and --help */
	int needs_root;
	const char *by; /* the --by dimensions it splits by, comma-separated; NULL: none */
	/* Prints what can be profiled here and the attach mode each would use. */
	int (*list)(FILE *out, int verbose);
	/* Each returns 0 or a negative errno after printing one clear line. A
	 * prepare that fails cleans up after itself: destroy is called only for
	 * layers whose prepare succeeded. */
	int (*prepare)(struct osp_session *s, int slot);
	int (*attach)(struct osp_session *s, int slot);
	int (*collect)(struct osp_session *s, int slot, int reset);
	void (*destroy)(struct osp_session *s, int slot);
};

/* The five steps of a layer whose functions are named P_list, P_prepare,
 * P_attach, P_collect and P_destroy. */
#define OSP_LAYER_STEPS(P)                                                                         \
	.list = P##_list, .prepare = P##_prepare, .attach = P##_attach, .collect = P##_collect,    \
	.destroy = P##_destroy

/* All layers compiled in; NULL-terminated. */
extern const struct osp_layer *const osp_layers[];
const struct osp_layer *osp_layer_find(const char *name);

#endif
