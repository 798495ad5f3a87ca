/* The generic steps of a layer whose programs are one bpftool skeleton and
 * whose profiles are one histogram map (block, irq, lock, sched): check,
 * open, configure, choose the tp_btf or raw_tp twin of each program, load,
 * attach, read, destroy. A layer file keeps only what is its own: its
 * skeleton, how a map key names a profile, its options and its `list` text.
 * Its descriptor is
 *
 *   OSP_BPF_SKEL_OPENER(irq)                       -> irq_open()
 *   OSP_BPF_LAYER(irq, NULL, "summary", .tps = "...", .hist = "irq_hist", ...);
 *
 * which defines osp_layer_irq with the generic prepare/attach/collect/
 * destroy and a `list` from the descriptor's list_line and list_more.
 */
#ifndef OSPROF_COLLECT_BPF_LAYER_H
#define OSPROF_COLLECT_BPF_LAYER_H

#include <errno.h>
#include "collect/bpf_common.h"

/* What the generic steps need of a bpftool skeleton. */
struct osp_bpf_skel {
	void *skel; /* the generated NAME_bpf, for the layer's own maps */
	struct bpf_object_skeleton *sk;
	struct bpf_object *obj;
	struct osp_bpf_cfg *cfg; /* .rodata osp_cfg: writable until load */
};

/* Defines `static int NAME_open(struct osp_bpf_skel *k)` for the skeleton
 * NAME_bpf (NAME.skel.h): 0, or a negative errno. */
#define OSP_BPF_SKEL_OPENER(name)                                                                  \
	static int name##_open(struct osp_bpf_skel *k)                                             \
	{                                                                                          \
		struct name##_bpf *o = name##_bpf__open();                                         \
		if (!o)                                                                            \
			return errno ? -errno : -ENOMEM;                                           \
		*k = (struct osp_bpf_skel){o, o->skeleton, o->obj,                                 \
		                           (struct osp_bpf_cfg *)&o->rodata->osp_cfg};             \
		return 0;                                                                          \
	}

struct osp_bpf_layer_state;

struct osp_bpf_layer {
	const char *name;
	/* The tracepoints it attaches to, comma-separated: named by -v and in
	 * errors. */
	const char *tps;
	const char *hist; /* the histogram map (struct osp_hkey -> osp_hval) */
	int (*open)(struct osp_bpf_skel *k);
	/* --by: split by pid, tid, comm (and caller with by_caller); or, when
	 * --by does not apply, why not (said with -v), unless --by is by_own,
	 * a dimension the layer always has. */
	int by_task, by_caller;
	const char *no_by, *by_own;
	/* Optional, between open and load: map sizes, its own st->priv. A
	 * negative errno stops the layer. */
	int (*configure)(struct osp_session *s, struct osp_bpf_layer_state *st);
	/* Names the profile of a map key; ctx is the layer's state. */
	osp_bpf_desc_fn desc;
	/* Optional, before each read of the map. */
	int (*before_read)(struct osp_bpf_layer_state *st);
	void (*free_priv)(void *priv); /* optional: frees st->priv */
	/* `osprof list`: a line whose %s is the attach mode, and (-v) more;
	 * or, where that depends on the machine, a function of its own */
	const char *list_line, *list_more;
	int (*list_own)(FILE *out, int verbose);
	int tp_btf_only; /* no raw_tp twins: the mode is always tp_btf */
};

struct osp_bpf_layer_state {
	const struct osp_bpf_layer *l;
	struct osp_bpf_skel k;
	struct osp_bpf_stats stats;
	/* tp_btf, or raw_tp where tp_btf cannot load and the object has raw_tp
	 * twins of its programs */
	enum osp_attach_mode mode;
	unsigned by; /* KL_BY_*, passed to the programs */
	void *priv;  /* the layer's own state */
	int acquired;
};

/* The osp_layer steps. prepare cleans up after itself when it fails. */
int osp_bpf_layer_prepare(const struct osp_bpf_layer *l, struct osp_session *s, int slot);
int osp_bpf_layer_attach(struct osp_session *s, int slot);
int osp_bpf_layer_collect(struct osp_session *s, int slot, int reset);
void osp_bpf_layer_destroy(struct osp_session *s, int slot);
int osp_bpf_layer_list(const struct osp_bpf_layer *l, FILE *out, int verbose);

/* Defines the layer `osp_layer_NAME` (its --by dimensions by_dims, its
 * one-line summary) from an osp_bpf_layer named NAME opened by NAME_open
 * (OSP_BPF_SKEL_OPENER) whose other fields follow as designators. */
#define OSP_BPF_LAYER(nm, by_dims, summary_line, ...)                                              \
	static const struct osp_bpf_layer nm##_bpf_layer = {                                       \
	    .name = #nm, .open = nm##_open, __VA_ARGS__};                                          \
	static int nm##_prepare(struct osp_session *s, int slot)                                   \
	{                                                                                          \
		return osp_bpf_layer_prepare(&nm##_bpf_layer, s, slot);                            \
	}                                                                                          \
	static int nm##_list(FILE *out, int verbose)                                               \
	{                                                                                          \
		return osp_bpf_layer_list(&nm##_bpf_layer, out, verbose);                          \
	}                                                                                          \
	const struct osp_layer osp_layer_##nm = {.name = #nm,                                      \
	                                         .by = by_dims,                                    \
	                                         .summary = summary_line,                          \
	                                         .needs_root = 1,                                  \
	                                         .list = nm##_list,                                \
	                                         .prepare = nm##_prepare,                          \
	                                         .attach = osp_bpf_layer_attach,                   \
	                                         .collect = osp_bpf_layer_collect,                 \
	                                         .destroy = osp_bpf_layer_destroy}

#endif
