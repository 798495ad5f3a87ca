// SPDX-License-Identifier: GPL-2.0
/* osprof rootcause --syscall: where the time of the in-peak calls of one
 * system call goes in the kernel, with what this kernel allows (no kprobes,
 * no fentry): off-CPU kernel stacks at sched_switch plus the waker's stack
 * at sched_waking, on-CPU stacks from cpu-clock samples, preemption and
 * per-IRQ time from tracepoints. Everything is buffered per call and sent
 * to user space only when the call ends in the chosen peak. */
#include "vmlinux.h"
#include "osp_common.bpf.h"
#include "rc_kernel.h"
#include "rc_thread.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile long targ_nr = 0;
const volatile __u64 sample_ns = 100000;

__u64 peak_lo = 0, peak_hi = 0;
__u32 searching = 0;
__u64 hist[RCK_HBUCKETS];
__u64 lost = 0;

struct tstate {
	__u64 start;
	__u64 off_start;
	int off_stack;
	int waker_stack;
	__u32 preempted;
	__u32 active;
	char waker[16];
	__u32 waker_n; /* RCK_WAKER_* */
	__u32 pad;
	__u64 irq_start;
	__u32 irq_n, irq_kind;
	struct rck_entry tmp;
	struct rck_call c;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct tstate);
} threads SEC(".maps");

OSP_ARRAY_MAP(zero, struct tstate);

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 16384);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, 127 * sizeof(__u64));
} stacks SEC(".maps");

/* The interrupt this CPU is in, if any: a wake-up from there belongs to the
 * interrupt, not to the task it interrupted. */
/* Set on entry, cleared on exit (not counted: an entry whose exit program
 * was not attached yet must not leave the CPU "in an IRQ" for good). */
struct irqctx {
	__u32 hard, hard_n;
	__u32 soft, soft_vec;
	char name[16];
};
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct irqctx);
} irqctx SEC(".maps");

static __always_inline struct irqctx *cpu_irq(void)
{
	__u32 k = 0;
	return bpf_map_lookup_elem(&irqctx, &k);
}

/* The target: CMD and every process it forks (exec'd programs of a shell
 * script too), or -p PID and its children, through osp_common's follow map
 * (osp_cfg.filter TREE / PIDS, as `osprof run` / `record -p` follow). */
static __always_inline int followed(__u32 tgid)
{
	return osp_tgid_followed(tgid);
}

static __always_inline void *current_thread(__u32 *tid, int create)
{
	if (!followed(bpf_get_current_pid_tgid() >> 32))
		return NULL;
	return rc_thread(&threads, &zero, 0, tid, create);
}

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} calls SEC(".maps");

struct merge_ctx {
	struct tstate *t;
	int found;
};

static long merge_one(__u32 i, void *arg)
{
	struct merge_ctx *m = arg;
	struct tstate *t = m->t;
	if (i >= RCK_ENTRIES || i >= t->c.n)
		return 1;
	__u64 j = i;
	asm volatile("%0 &= 63" : "+r"(j)); /* keep the bound visible to the verifier */
	struct rck_entry *e = &t->c.e[j];
	if (e->kind == t->tmp.kind && e->stack == t->tmp.stack &&
	    e->waker_stack == t->tmp.waker_stack && e->n == t->tmp.n) {
		e->ns += t->tmp.ns;
		m->found = 1;
		return 1;
	}
	return 0;
}

/* Adds t->tmp (kind, stack, waker stack, n; ns) to the call's entries,
 * merging equal ones; bpf_loop keeps the verifier's work linear. */
static __always_inline void add(struct tstate *t)
{
	struct merge_ctx m = {.t = t};
	bpf_loop(RCK_ENTRIES, merge_one, &m, 0);
	if (m.found)
		return;
	__u32 cnt = t->c.n;
	if (cnt >= RCK_ENTRIES) {
		t->c.dropped++;
		return;
	}
	__u64 j = cnt;
	asm volatile("%0 &= 63" : "+r"(j));
	t->c.e[j] = t->tmp;
	t->c.n = cnt + 1;
}

static __always_inline void record(struct tstate *t, __u32 kind, int stack, int wstack, __u32 n,
                                   __u64 ns)
{
	t->tmp.kind = kind;
	t->tmp.stack = stack;
	t->tmp.waker_stack = wstack;
	t->tmp.n = n;
	t->tmp.ns = ns;
	if (kind == RCK_OFFCPU)
		__builtin_memcpy(t->tmp.waker, t->waker, 16);
	else
		__builtin_memset(t->tmp.waker, 0, 16);
	add(t);
}

static __always_inline struct tstate *mine(__u32 *tid)
{
	return current_thread(tid, 0);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(rck_enter, struct pt_regs *regs, long id)
{
	if (id != targ_nr)
		return 0;
	struct tstate *t = current_thread(NULL, 1);
	if (!t)
		return 0;
	t->active = 1;
	t->c.n = 0;
	t->c.dropped = 0;
	t->off_start = 0;
	t->irq_start = 0;
	t->start = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(rck_exit, struct pt_regs *regs, long ret)
{
	__u32 tid = 0;
	struct tstate *t = mine(&tid);
	if (!t || !t->active)
		return 0;
	t->active = 0;
	__u64 lat = bpf_ktime_get_ns() - t->start;
	__sync_fetch_and_add(&hist[osp_bpf_msb(lat) & (RCK_HBUCKETS - 1)], 1);
	if (!searching || lat < peak_lo || lat > peak_hi)
		return 0; /* not in the peak: the buffered stacks are dropped */
	t->c.lat = lat;
	t->c.tid = tid;
	if (bpf_ringbuf_output(&calls, &t->c, sizeof(t->c), 0))
		__sync_fetch_and_add(&lost, 1);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(rck_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u64 now = bpf_ktime_get_ns();
	if (followed(prev->tgid)) {
		__u32 tid = prev->pid;
		struct tstate *t = bpf_map_lookup_elem(&threads, &tid);
		if (t && t->active) {
			t->off_start = now;
			t->preempted = preempt || prev->__state == 0;
			/* The current task is prev: its kernel stack is where it blocks. */
			t->off_stack = bpf_get_stackid(ctx, &stacks, 0);
			t->waker_stack = -1;
			t->waker_n = 0;
			__builtin_memset(t->waker, 0, 16);
		}
	}
	if (followed(next->tgid)) {
		__u32 tid = next->pid;
		struct tstate *t = bpf_map_lookup_elem(&threads, &tid);
		if (t && t->active && t->off_start) {
			__u64 d = now - t->off_start;
			if (t->preempted)
				record(t, RCK_PREEMPT, t->off_stack, -1, 0, d);
			else
				record(t, RCK_OFFCPU, t->off_stack, t->waker_stack, t->waker_n, d);
			t->off_start = 0;
		}
	}
	return 0;
}

static __always_inline int on_wakeup(void *ctx, struct task_struct *p)
{
	if (!followed(p->tgid))
		return 0;
	__u32 tid = p->pid;
	struct tstate *t = bpf_map_lookup_elem(&threads, &tid);
	if (!t || !t->active || !t->off_start || t->preempted)
		return 0;
	/* The waker's stack is the asynchronous cause (seed 002 §3.13); the
	 * waker is the current task only in task context. */
	t->waker_stack = bpf_get_stackid(ctx, &stacks, 0);
	struct irqctx *x = cpu_irq();
	if (x && x->hard) {
		t->waker_n = RCK_WAKER_HARDIRQ | (x->hard_n & RCK_WAKER_NUM);
		__builtin_memcpy(t->waker, x->name, 16);
	} else if (x && x->soft) {
		t->waker_n = RCK_WAKER_SOFTIRQ | (x->soft_vec & RCK_WAKER_NUM);
		__builtin_memset(t->waker, 0, 16);
	} else {
		t->waker_n = 0;
		bpf_get_current_comm(t->waker, sizeof(t->waker));
	}
	return 0;
}

/* sched_waking runs in the waker's context; sched_wakeup may run later on
 * the sleeper's CPU (a queued remote wake-up, from the idle task's IPI). */
SEC("tp_btf/sched_waking")
int BPF_PROG(rck_waking, struct task_struct *p)
{
	return on_wakeup(ctx, p);
}

SEC("perf_event")
int rck_sample(struct bpf_perf_event_data *ctx)
{
	__u32 tid = 0;
	struct tstate *t = mine(&tid);
	if (!t || !t->active)
		return 0;
	int st = bpf_get_stackid(ctx, &stacks, 0);
	record(t, RCK_ONCPU, st, -1, 0, sample_ns);
	return 0;
}

static __always_inline void irq_in(__u32 kind, __u32 n)
{
	__u32 tid = 0;
	struct tstate *t = mine(&tid);
	if (!t || !t->active)
		return;
	t->irq_start = bpf_ktime_get_ns();
	t->irq_kind = kind;
	t->irq_n = n;
}

static __always_inline void irq_out(void)
{
	__u32 tid = 0;
	struct tstate *t = mine(&tid);
	if (!t || !t->active || !t->irq_start)
		return;
	record(t, t->irq_kind, -1, -1, t->irq_n, bpf_ktime_get_ns() - t->irq_start);
	t->irq_start = 0;
}

static __always_inline void hard_in(__u32 n, const char *name)
{
	struct irqctx *x = cpu_irq();
	if (!x)
		return;
	x->hard = 1;
	x->hard_n = n;
	if (bpf_probe_read_kernel_str(x->name, sizeof(x->name), name) < 0)
		x->name[0] = 0;
}

static __always_inline void hard_out(void)
{
	struct irqctx *x = cpu_irq();
	if (x)
		x->hard = 0;
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(rck_irq_in, int irq, struct irqaction *action)
{
	hard_in((__u32)irq, BPF_CORE_READ(action, name));
	irq_in(RCK_IRQ, (__u32)irq);
	return 0;
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(rck_irq_out)
{
	hard_out();
	irq_out();
	return 0;
}

/* x86 system vectors without an irq_handler_entry: the local APIC timer
 * (hrtimer wake-ups) and irq_work. */
SEC("tp_btf/local_timer_entry")
int BPF_PROG(rck_timer_in, int vector)
{
	hard_in(256 + (__u32)vector, "local timer");
	return 0;
}

SEC("tp_btf/local_timer_exit")
int BPF_PROG(rck_timer_out)
{
	hard_out();
	return 0;
}

SEC("tp_btf/irq_work_entry")
int BPF_PROG(rck_work_in, int vector)
{
	hard_in(256 + (__u32)vector, "irq_work");
	return 0;
}

SEC("tp_btf/irq_work_exit")
int BPF_PROG(rck_work_out)
{
	hard_out();
	return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(rck_softirq_in, unsigned int vec)
{
	struct irqctx *x = cpu_irq();
	if (x) {
		x->soft = 1;
		x->soft_vec = vec;
	}
	irq_in(RCK_SOFTIRQ, vec);
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(rck_softirq_out)
{
	struct irqctx *x = cpu_irq();
	if (x)
		x->soft = 0;
	irq_out();
	return 0;
}
