/* User-space side of the eBPF infrastructure shared by every kernel layer:
 * privilege/BTF checks, tracefs, the session-wide common object (target
 * filter that follows forks in the kernel, preemption counters), map sharing
 * between objects, reading per-CPU histogram maps into the osp_set, attach
 * mode records, loss accounting and probe-cost calibration.
 * Full description and a worked example: docs/bpf-infra.md. */
#ifndef OSPROF_COLLECT_BPF_COMMON_H
#define OSPROF_COLLECT_BPF_COMMON_H

#include <linux/types.h>
#include <bpf/libbpf.h>
#include "collect/layer.h"
#include "collect/bpf/osp_bpf.h"

/* Root and kernel BTF, each with one clear line naming the layer:
 * returns 0, -EPERM or -ENOENT. */
int osp_bpf_check(const char *layer);

/* Mounts tracefs at /sys/kernel/tracing when it is not there yet. Returns
 * the tracefs directory, or NULL after printing one line. */
const char *osp_tracefs(void);

/* How a program was attached (recorded per layer; printed with -v). */
enum osp_attach_mode {
	OSP_ATTACH_TP_BTF = 0,
	OSP_ATTACH_RAW_TP,
	OSP_ATTACH_TRACEPOINT,
	OSP_ATTACH_FENTRY,
	OSP_ATTACH_KPROBE,
	OSP_ATTACH_UPROBE,
	OSP_ATTACH_NMODES,
};
const char *osp_attach_mode_name(enum osp_attach_mode m);

/* The flavour of BTF-aware tracepoints this kernel accepts: OSP_ATTACH_TP_BTF,
 * or OSP_ATTACH_RAW_TP when tp_btf fails to load (or OSPROF_ATTACH=raw_tp is
 * set in the environment, which tests use to exercise the fallback). */
enum osp_attach_mode osp_bpf_tp_mode(void);

/* 1 if the kernel's BTF (vmlinux) has a function of that name (a kfunc a
 * program may call, a function fentry may attach to), else 0. */
int osp_btf_has_func(const char *name);

/* Records that `layer` attached `target` with mode m: the set's metadata
 * attach_modes gets LAYER:MODE (comma list, no duplicates) and, with -v,
 * "osprof: LAYER: TARGET via MODE" goes to stderr. */
void osp_bpf_note_attach(struct osp_session *s, const char *layer, const char *target,
                         enum osp_attach_mode m);

/* The session's common object. acquire() (in a layer's prepare) loads it on
 * first use, sizes and shares the follow map, calibrates the probe cost;
 * start() (in a layer's attach, root_pid known) sets s->start_ns and the
 * slice origin to now, seeds the filter and attaches
 * fork/exit tracking and, with --split preempt, the sched_switch counter;
 * release() (in destroy) frees it with its last user. 0 or -errno. */
int osp_bpf_common_acquire(struct osp_session *s);
int osp_bpf_common_start(struct osp_session *s);
void osp_bpf_common_release(struct osp_session *s);

/* Fills the osp_cfg every object carries in .rodata from the session. Use
 * OSP_BPF_SETUP(skel, s) between open and load: it fills skel's osp_cfg and
 * makes the object use the common maps (osp_follow, osp_pseq, osp_clock,
 * osp_cgroup). */
void osp_bpf_cfg_fill(const struct osp_session *s, struct osp_bpf_cfg *cfg);
int osp_bpf_share_maps(struct bpf_object *obj);
#define OSP_BPF_SETUP(skel, s)                                                                     \
	(osp_bpf_cfg_fill((s), (struct osp_bpf_cfg *)&(skel)->rodata->osp_cfg),                    \
	 osp_bpf_share_maps((skel)->obj))

/* Selects the tp_btf or raw_tp twin of a program pair before load. */
void osp_bpf_pick(struct bpf_program *btf, struct bpf_program *raw, enum osp_attach_mode m);

/* Describes the profile of a histogram-map key: op name, dims, unit. Return
 * 0 to add the entry, 1 to skip it, negative errno to stop. dims strings may
 * point into buf. */
struct osp_bpf_desc {
	const char *layer; /* preset to the layer passed to osp_bpf_read_hists */
	const char *op;
	unsigned ndims;
	struct osp_dim dims[OSP_MAX_DIMS];
	enum osp_unit unit; /* preset to OSP_UNIT_NS */
	char buf[512];      /* storage for dim values */
};
typedef int (*osp_bpf_desc_fn)(void *ctx, const struct osp_hkey *k, struct osp_bpf_desc *d);

/* The profile of key k named by fn: 0 with *p set, 1 when fn skips the key,
 * or a negative errno. */
int osp_bpf_profile_of(struct osp_session *s, const char *layer, osp_bpf_desc_fn fn, void *ctx,
                       const struct osp_hkey *k, struct osp_profile **p);

/* Reads a per-CPU histogram map (struct osp_hkey -> struct osp_hval) into
 * s->set, summing CPUs (counts exact). Keys with slice numbers go to the
 * profile's slices when s->slice_ns is set. With reset, entries are read and
 * deleted one by one (lookup-and-delete), so events that race with the
 * read land in the next interval instead of being lost. */
int osp_bpf_read_hists(struct osp_session *s, int map_fd, const char *layer, osp_bpf_desc_fn fn,
                       void *ctx, int reset);

/* Adds an object's osp_stats and its programs' recursion misses (runs the
 * kernel skipped because the program was already running on that CPU),
 * since the previous call with the same prev (all of them with prev NULL),
 * to the set's lost_events / unpaired_events metadata. */
struct osp_bpf_stats {
	__u64 v[OSP_STAT_MAX];
	__u64 misses;
	__u64 run_ns, runs;
};
/* Runs of the object's programs the kernel skipped because the program was
 * already running on that CPU (their events are not counted). */
__u64 osp_bpf_obj_misses(struct bpf_object *obj);

/* Profiles of layer with counts but no sample min/max (a full min/max map)
 * take the bounds of their first and last non-empty buckets. */
void osp_bpf_widen_from_buckets(struct osp_set *set, const char *layer);

/* Adds the object's losses (lost_events, unpaired_events) and, while the
 * kernel times programs, their run time (probe_ns, probe_runs), in total and
 * per layer, to s->set's metadata: all since prev (then updated), or since
 * the load when prev is NULL. */
int osp_bpf_read_stats(struct osp_session *s, struct bpf_object *obj, struct osp_bpf_stats *prev);

/* Per-probe cost measured at acquire (ns per probe firing), 0 if unknown. */
__u64 osp_bpf_probe_cost(void);

/* Slots of the follow/per-thread arrays: next power of two >= pid_max. */
__u32 osp_bpf_pid_slots(void);

/* Slots of the per-thread state arrays (in-flight calls, open starts, slot
 * tid & tid_mask, each holding its owner's tid): osp_bpf_pid_slots() up to
 * OSP_BPF_THREAD_SLOTS_MAX. Debian's systemd sets pid_max to 4194304, where
 * a slot per possible tid would pin hundreds of MB of kernel memory. Two live
 * threads whose tids are equal modulo the size can take each other's slot;
 * the call or operation that loses it is counted in unpaired_events. */
#define OSP_BPF_THREAD_SLOTS_MAX (1u << 17)
/* Entries of a keyed histogram map: dflt, or less with OSPROF_HIST_ENTRIES. */
__u32 osp_bpf_hist_entries(__u32 dflt);
__u32 osp_bpf_thread_slots(void);

#endif
