/* Types shared by collect/bpf/syscall.bpf.c and collect/syscall.c. */
#ifndef OSPROF_COLLECT_BPF_SYSCALL_H
#define OSPROF_COLLECT_BPF_SYSCALL_H

#define OSP_SYS_MAX     512        /* syscall numbers below this are profiled */
#define OSP_SYS_PEAKS   8          /* --peaks ranges */
#define OSP_SYS_CORR_OP (1u << 16) /* op of a correlation histogram: this | nr */
/* Parent codes of one op in a plain parent table: outside any call, nr + 1. */
#define OSP_NEST_SYS_SLOTS (OSP_SYS_MAX + 1)

/* --by codes (osp_cfg.by). */
enum osp_sys_by {
	OSP_SYS_BY_NONE = 0,
	OSP_SYS_BY_PID,
	OSP_SYS_BY_TID,
	OSP_SYS_BY_COMM,
	OSP_SYS_BY_FS
};

/* --correlate values. */
enum osp_sys_corr {
	OSP_CORR_NONE = 0,
	OSP_CORR_REQ_BYTES, /* requested bytes: the count argument */
	OSP_CORR_RET_BYTES, /* returned bytes: the return value when >= 0 */
	OSP_CORR_OFFSET,    /* file offset at entry: f_pos, or the pread/pwrite argument */
	OSP_CORR_PAST_EOF,  /* 1 if that offset >= i_size at entry, else 0 */
	OSP_CORR_ERRNO,     /* -return value when < 0, else 0 */
};

/* Per-syscall flags, from the name table (collect/syscall.c). */
#define OSP_SYSF_FD1      1  /* first argument is a file descriptor */
#define OSP_SYSF_FD2      2  /* second argument is (sendfile: the input) */
#define OSP_SYSF_NORETURN 4  /* exit, exit_group: no sys_exit follows */
#define OSP_SYSF_FORK     8  /* fork, vfork, clone, clone3: the child returns without entry */
#define OSP_SYSF_POS4     16 /* file offset in the 4th argument (pread64, preadv, ...) */

/* Options of the syscall object (its .rodata, besides osp_cfg). */
struct osp_sys_opts {
	__u32 corr_nr; /* syscall number correlated, with corr != NONE */
	__u32 corr;    /* enum osp_sys_corr */
	__u32 npeaks;
	__u32 peak_lo[OSP_SYS_PEAKS], peak_hi[OSP_SYS_PEAKS]; /* latency bucket ranges */
	__u8 flags[OSP_SYS_MAX];                              /* OSP_SYSF_* per syscall number */
};

/* In-flight call of a thread (array slot tid & tid_mask). start ==
 * OSP_SYS_SKIP: ignore the next exit (run's held child is blocked in the
 * read that releases it when profiling starts). */
#define OSP_SYS_SKIP (~0ull)
struct osp_sys_inflight {
	__u64 start;
	__u32 tid;
	__u32 nr;
	__u32 pseq;
	__u32 pad;
	__u64 dim[2];
	__u64 corr; /* correlated value known at entry */
};

/* Name of a file-system type seen by --by fs (key: struct file_system_type *). */
struct osp_sys_fsname {
	char name[16];
};

#endif
