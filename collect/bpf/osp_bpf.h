/* Types shared by every osprof BPF object and its user-space driver.
 * Included from BPF code (after vmlinux.h) and from C (after linux/types.h).
 * API description: docs/bpf-infra.md. */
#ifndef OSPROF_COLLECT_BPF_OSP_BPF_H
#define OSPROF_COLLECT_BPF_OSP_BPF_H

/* Target filter modes (osp_bpf_cfg.filter). */
enum osp_filter_mode {
	OSP_FILTER_ALL = 0,    /* every task except osprof itself */
	OSP_FILTER_TREE = 1,   /* root pid and everything it forks (run) */
	OSP_FILTER_PIDS = 2,   /* the listed processes and their threads (-p) */
	OSP_FILTER_CGROUP = 3, /* tasks in a cgroup or below it (-c) */
	OSP_FILTER_COMM = 4,   /* tasks whose comm equals osp_bpf_cfg.comm (--comm) */
};

/* Values of the osp_follow array (slot tgid & pid_mask holds tgid | flag);
 * user space seeds TREE and PIDS targets with OSP_FOLLOW_INHERIT. */
#define OSP_FOLLOW_INHERIT (1u << 31) /* children of this process are followed too */
#define OSP_FOLLOW_TGID    0x7fffffffu

/* Configuration every object carries in .rodata as `osp_cfg`; set by
 * osp_bpf_cfg_fill() before load, so the verifier prunes unused branches. */
struct osp_bpf_cfg {
	__u32 filter;        /* enum osp_filter_mode */
	__u32 r;             /* resolution: 1, 2, 4, 8 or 16 */
	__u32 pid_mask;      /* osp_follow has pid_mask + 1 slots */
	__u32 tid_mask;      /* per-thread state arrays have tid_mask + 1 slots */
	__u32 nest;          /* OSP_NEST_SYS | OSP_NEST_FS: parents measured (nest.bpf.h) */
	__u32 self_tgid;     /* osprof's own process, never profiled */
	__u64 start_ns;      /* bpf_ktime_get_ns() origin of slice indices */
	__u64 slice_ns;      /* 0: no time slices */
	__u32 split_preempt; /* --split preempt */
	__u32 by;            /* layer-specific --by code */
	char comm[16];       /* OSP_FILTER_COMM */
};

/* Key of a histogram map (per-CPU hash): one entry per non-empty bucket.
 * bucket == OSP_BKT_MINMAX holds the extremes of (op, slice, dim) instead:
 * value.count = max, value.sum = ~min (both maintained as maxima, so a
 * zero-filled new entry is neutral). */
#define OSP_BKT_MINMAX 0xffffu
struct osp_hkey {
	__u32 op;     /* layer-defined operation id */
	__u16 bucket; /* osp_bucket_index(value, r) or OSP_BKT_MINMAX */
	__u16 flags;  /* layer-defined, e.g. OSP_HK_PREEMPTED */
	__u32 slice;  /* (t - start_ns) / slice_ns; 0 when not sliced */
	__u32 aux;    /* layer-defined small dimension (peak number, ...) */
	__u64 dim[2]; /* layer-defined dimensions (pid, dev, fs id, ...) */
};
#define OSP_HK_PREEMPTED 1u /* the operation was involuntarily preempted */

/* Measured nesting (collect/bpf/nest.bpf.h, docs/bpf-infra.md): an entry with
 * bucket OSP_BKT_PARENT counts the calls of (op, flags, aux, dim) that ran
 * inside the parent coded in `slice`: low 16 bits the system call in flight
 * (nr + 1; 0 = none), high 16 bits the fs pair in flight (pair + 1; 0 =
 * none); OSP_NEST_NONE where that layer is not measured. */
#define OSP_BKT_PARENT 0xfffeu
#define OSP_NEST_NONE  0xffffu
#define OSP_NEST_SYS   1u /* osp_cfg.nest: the syscall layer's in-flight calls are shared */
#define OSP_NEST_FS    2u /* osp_cfg.nest: the fs layer's open starts are shared */

struct osp_hval {
	__u64 count; /* samples in the bucket */
	__u64 sum;   /* sum of their values */
};

/* Per-CPU counters every object keeps in its `osp_stats` array. */
enum osp_stat {
	OSP_STAT_LOST = 0,     /* sample dropped: a map was full */
	OSP_STAT_UNPAIRED = 1, /* an exit/end seen without its entry/start */
	OSP_STAT_MAX = 4,
};

#endif
