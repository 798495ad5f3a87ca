/* Types shared by rootcause/bpf/rc_kernel.bpf.c and rootcause/kernel.c: the
 * kernel-side attribution of osprof rootcause --syscall. */
#ifndef OSPROF_BPF_RC_KERNEL_H
#define OSPROF_BPF_RC_KERNEL_H

#define RCK_ENTRIES  64 /* power of two: indexes are masked for the verifier */
#define RCK_HBUCKETS 64

/* What the thread was doing for `ns` of its system call. */
#define RCK_OFFCPU  0 /* blocked (sleeping): stack at sched_switch + waker */
#define RCK_PREEMPT 1 /* runnable but preempted */
#define RCK_ONCPU   2 /* a cpu-clock sample while in the call */
#define RCK_IRQ     3 /* hard IRQ n */
#define RCK_SOFTIRQ 4 /* softirq vector n */

/* Off-CPU entries: who woke the thread, in n. A task (0; waker = its comm)
 * only when the wake-up came from task context; from an interrupt, the
 * interrupt, whatever task it landed in: hard IRQ (flag | irq number,
 * waker = the handler's name; x86 system vectors: 256 + vector) or softirq
 * (flag | vector). */
#define RCK_WAKER_HARDIRQ (1u << 30)
#define RCK_WAKER_SOFTIRQ (1u << 29)
#define RCK_WAKER_NUM     0xffffu

struct rck_entry {
	unsigned int kind;
	int stack;       /* kernel stack id (stacks map), -1 none */
	int waker_stack; /* off-CPU: the waker's kernel stack, -1 unknown */
	unsigned int n;  /* IRQ number / softirq vector; off-CPU: RCK_WAKER_* */
	unsigned long long ns;
	char waker[16]; /* waker comm, or the IRQ handler's name */
};

struct rck_call {
	unsigned long long lat;
	unsigned int tid;
	unsigned int n;
	unsigned int dropped; /* entries that did not fit */
	unsigned int pad;
	struct rck_entry e[RCK_ENTRIES];
};

#endif
