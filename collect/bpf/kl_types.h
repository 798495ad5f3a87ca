/* Types shared by the fs, block, lock, sched, irq and uprobe BPF objects and
 * their user-space drivers (collect/layer_*.c). Plain C: included from both.
 * Histogram keys are struct osp_hkey (osp_bpf.h); the comments below say how
 * each layer fills op, aux and dim[]. */
#ifndef OSPROF_KL_TYPES_H
#define OSPROF_KL_TYPES_H

/* osp_cfg.by of these layers: --by pid/tid put the task's tgid/tid in
 * dim[0], --by comm its 16-byte comm in dim[0..1]; --by caller (lock only)
 * the stack id + 1 in dim[0]. */
enum { KL_BY_NONE, KL_BY_PID, KL_BY_TID, KL_BY_COMM, KL_BY_CALLER };

/* Open starts kept per thread (nested fs events or functions). 16: xfs
 * nests its tracepoint pairs deeper than 8 under one write (buffer locks
 * inside deferred operations: 59 of 85 starts were lost at 8 in
 * tests/data/corpus/nesting), and every start beyond is a lost event. */
#define KL_DEPTH 16

/* fs, --func, uprobe: the thread of an event and its pair (the op). */
struct kl_pair_key {
	__u32 tid;
	__u32 id;
};
struct kl_tstack {
	struct {
		__u32 id;   /* pair (or function) of the open start */
		__u32 pseq; /* osp_preempt_seq at the start */
		__u64 ts;
	} e[KL_DEPTH];
	__u32 n;    /* open starts kept */
	__u32 over; /* open starts beyond KL_DEPTH, not kept */
	__u32 tid;  /* owner of a KL_PAIR_SLOTS slot */
	__u32 pad;
};

/* fs/uprobe attach cookie: pair id in the low 31 bits, bit 31 = end side. */
#define KL_COOKIE_END (1u << 31)

/* block: op = KL_BLK_QUEUE/DEVICE/SIZE, aux = KL_BLK_<type>, dim[0] = dev_t
 * (major << 20 | minor, the kernel's encoding). */
enum { KL_BLK_QUEUE, KL_BLK_DEVICE, KL_BLK_SIZE };
enum { KL_BLK_READ, KL_BLK_WRITE, KL_BLK_FLUSH, KL_BLK_DISCARD, KL_BLK_OTHER, KL_BLK_NTYPES };

/* lock: op = the LCB_F_* flags of contention_begin, dim[0] = stack id + 1
 * with --by caller (0: none). */
#define KL_LOCK_STACK_DEPTH 16

/* sched: op = KL_SCHED_RUNQ or KL_SCHED_OFFCPU, aux = KL_OFF_<reason>. */
enum { KL_SCHED_RUNQ, KL_SCHED_OFFCPU };
enum {
	KL_OFF_PREEMPT, /* switched out while runnable */
	KL_OFF_SLEEP,   /* TASK_INTERRUPTIBLE */
	KL_OFF_IO,      /* TASK_UNINTERRUPTIBLE with in_iowait */
	KL_OFF_LOCK,    /* waiting between lock:contention_begin and _end */
	KL_OFF_UNINTR,  /* other TASK_UNINTERRUPTIBLE (D) waits */
	KL_OFF_OTHER,   /* stopped, traced, dead, ... */
	KL_OFF_NREASONS,
};

/* irq: op = KL_IRQ_HARD or KL_IRQ_SOFT, dim[0] = irq number or softirq
 * vector; hard-IRQ names come from the tracepoint via irq_names. */
enum { KL_IRQ_HARD, KL_IRQ_SOFT };
#define KL_IRQ_NAME 32
struct kl_irq_name {
	char name[KL_IRQ_NAME];
};

/* rpc: op = KL_RPC_EXECUTE or KL_RPC_RTT, aux = KL_RPC_CLIENT or
 * KL_RPC_SERVER, dim[0] = the address of the procedure's name string in
 * the kernel (named through rpc_names), dim[1] = program << 32 | version. */
enum { KL_RPC_EXECUTE, KL_RPC_RTT };
enum { KL_RPC_CLIENT, KL_RPC_SERVER };
#define KL_RPC_NAME 24
struct kl_rpc_name {
	char name[KL_RPC_NAME];
};

#endif
