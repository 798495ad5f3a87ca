// SPDX-License-Identifier: GPL-2.0
/* DARC user-space search (osprof rootcause, uprobe backend).
 *
 * f0 gets a uprobe/uretprobe pair; each instrumented call site gets a uprobe
 * on the call instruction and one on the instruction after it, with the site
 * id as attach cookie. Per thread we keep a stack of timed calls: the slot on
 * top is DARC's current_fnode, so a site only counts when (top slot, site) is
 * an edge of the ftree (the children map). That single rule gives call-path
 * filtering and recursion handling (seed 002 §3.8, §3.11). At f0's return
 * the per-slot maxima of one call are sent to user space only if f0's latency
 * lies in the chosen peak.
 *
 * The probes are attached by binary for every process; the target is CMD
 * and the processes it forks and execs (a wrapper script's program), or -p
 * PID and its children: osp_common's follow map, as `osprof run` follows. */
#include "vmlinux.h"
#include "osp_common.bpf.h"
#include "rootcause.h"
#include "rc_thread.bpf.h"
#include "rc_site.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* Written by user space while running. */
__u64 peak_lo = 0, peak_hi = 0;
__u64 gen = 0;
__u32 searching = 0;
__u64 hist[RC_HBUCKETS];
__u64 lost = 0;
__u32 f0_tgid = 0; /* the first process seen calling f0: its address space is searched */

OSP_ARRAY_MAP(zero, struct rc_thread);

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct rc_thread);
} threads SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} events SEC(".maps");

struct irqstate {
	__u64 start;
	__u32 tid;
	__u32 slot;
	__u32 n;
};
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct irqstate);
} irqs SEC(".maps");

static __always_inline struct rc_thread *cur_thread(__u32 *tidp, int create)
{
	if (!osp_target())
		return NULL;
	return rc_thread(&threads, &zero, 0, tidp, create);
}

static __always_inline __u32 top_slot(struct rc_thread *t)
{
	__u32 sp = t->sp;
	if (sp == 0 || sp > RC_STACK)
		return 0;
	return t->stk[(sp - 1) & (RC_STACK - 1)].slot & (RC_NSLOTS - 1);
}

static __always_inline void close_frame(struct rc_thread *t, struct rc_frame *f, __u64 now)
{
	__u32 s = f->slot & (RC_NSLOTS - 1);
	__u64 d = now - f->start;
	if (d > t->lat[s])
		t->lat[s] = d;
}

SEC("uprobe")
int rc_f0_enter(struct pt_regs *ctx)
{
	struct rc_thread *t = cur_thread(0, 1);
	if (!t)
		return 0;
	if (!f0_tgid)
		f0_tgid = bpf_get_current_pid_tgid() >> 32;
	if (t->f0_depth++ == 0) {
		t->sp = 0;
		t->gen = gen;
		t->f0_start = bpf_ktime_get_ns();
	}
	return 0;
}

SEC("uretprobe")
int rc_f0_exit(struct pt_regs *ctx)
{
	__u64 now = bpf_ktime_get_ns();
	struct rc_thread *t = cur_thread(0, 0);
	if (!t || !t->f0_depth)
		return 0;
	if (--t->f0_depth)
		return 0;
	__u64 lat = now - t->f0_start;
	/* Frames still open are tail calls of f0 (they end with it). */
	for (int i = 0; i < RC_STACK; i++) {
		__u32 sp = t->sp;
		if (sp == 0 || sp > RC_STACK)
			break;
		close_frame(t, &t->stk[(sp - 1) & (RC_STACK - 1)], now);
		t->sp = sp - 1;
	}
	__sync_fetch_and_add(&hist[osp_bpf_msb(lat) & (RC_HBUCKETS - 1)], 1);
	if (searching && lat >= peak_lo && lat <= peak_hi && t->gen == gen) {
		struct rc_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
		if (e) {
			e->f0_lat = lat;
			e->gen = t->gen;
			e->tid = (__u32)bpf_get_current_pid_tgid();
			e->pad = 0;
			bpf_probe_read_kernel(e->lat, sizeof(e->lat), t->lat);
			bpf_probe_read_kernel(e->tgt, sizeof(e->tgt), t->tgt);
			bpf_probe_read_kernel(e->pre, sizeof(e->pre), t->pre);
			bpf_probe_read_kernel(e->irq, sizeof(e->irq), t->irq);
			bpf_probe_read_kernel(e->irqn, sizeof(e->irqn), t->irqn);
			bpf_ringbuf_submit(e, 0);
		} else {
			__sync_fetch_and_add(&lost, 1);
		}
	}
	__u32 k = 0;
	struct rc_thread *z = bpf_map_lookup_elem(&zero, &k);
	if (z) {
		bpf_probe_read_kernel(t->lat, sizeof(t->lat), z->lat);
		bpf_probe_read_kernel(t->tgt, sizeof(t->tgt), z->tgt);
		bpf_probe_read_kernel(t->pre, sizeof(t->pre), z->pre);
		bpf_probe_read_kernel(t->irq, sizeof(t->irq), z->irq);
	}
	return 0;
}

SEC("uprobe")
int rc_site_enter(struct pt_regs *ctx)
{
	struct rc_thread *t = cur_thread(0, 0);
	if (!t || !t->f0_depth)
		return 0;
	__u64 ip = PT_REGS_IP(ctx);
	/* Two calls in a row: the previous call's return probe sits on this
	 * very instruction and may not have run yet. Its call is over. */
	__u32 sp = t->sp;
	if (sp > 0 && sp <= RC_STACK) {
		struct rc_frame *prev = &t->stk[(sp - 1) & (RC_STACK - 1)];
		if (!prev->tail && prev->ret_ip == ip && PT_REGS_SP(ctx) >= prev->rsp) {
			close_frame(t, prev, bpf_ktime_get_ns());
			t->sp = --sp;
		}
	}
	if (sp >= RC_STACK)
		return 0;
	struct rc_ckey k = {.parent = top_slot(t), .site = (__u32)bpf_get_attach_cookie(ctx)};
	__u32 *child = bpf_map_lookup_elem(&children, &k);
	if (!child)
		return 0; /* not on a path of the ftree: call-path filter */
	__u32 s = *child & (RC_NSLOTS - 1);
	struct rc_bsite *bs = bpf_map_lookup_elem(&sites, &k.site);
	__u64 idx = sp;
	asm volatile("%0 &= 31" : "+r"(idx)); /* RC_STACK - 1, visible to the verifier */
	struct rc_frame *f = &t->stk[idx];
	f->site = k.site;
	f->slot = s;
	f->tail = bs && (bs->kind & RC_K_TAIL);
	f->ret_ip = bs ? bs->next_ip : 0;
	f->rsp = PT_REGS_SP(ctx);
	if (bs && (bs->kind & RC_K_IND))
		t->tgt[s] = ind_target(ctx, bs);
	t->sp = sp + 1;
	f->start = bpf_ktime_get_ns();
	return 0;
}

SEC("uprobe")
int rc_site_return(struct pt_regs *ctx)
{
	__u64 now = bpf_ktime_get_ns();
	struct rc_thread *t = cur_thread(0, 0);
	if (!t || !t->f0_depth)
		return 0;
	__u32 site = (__u32)bpf_get_attach_cookie(ctx);
	for (int i = 0; i < RC_STACK; i++) {
		__u32 sp = t->sp;
		if (sp == 0 || sp > RC_STACK)
			return 0;
		struct rc_frame *f = &t->stk[(sp - 1) & (RC_STACK - 1)];
		if (f->site == site) {
			if (PT_REGS_SP(ctx) < f->rsp)
				return 0; /* a deeper, untimed call of this site returned */
			close_frame(t, f, now);
			t->sp = sp - 1;
			return 0;
		}
		if (!f->tail)
			return 0; /* not our call: a jump landed after the call */
		close_frame(t, f, now);
		t->sp = sp - 1;
	}
	return 0;
}

/* Preemption: off-CPU time of a runnable thread, charged to the innermost
 * timed node (seed 002 §3.12). */
SEC("tp_btf/sched_switch")
int BPF_PROG(rc_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u64 now = bpf_ktime_get_ns();
	/* Involuntary: preempted in the kernel, or still runnable (a user-mode
	 * thread whose slice ran out switches with preempt == false). */
	int runnable = preempt || prev->__state == 0;
	if (runnable && osp_tgid_followed(prev->tgid)) {
		__u32 tid = prev->pid;
		struct rc_thread *t = bpf_map_lookup_elem(&threads, &tid);
		if (t && t->f0_depth) {
			t->off_start = now;
			t->off_slot = top_slot(t);
		}
	}
	if (osp_tgid_followed(next->tgid)) {
		__u32 tid = next->pid;
		struct rc_thread *t = bpf_map_lookup_elem(&threads, &tid);
		if (t && t->off_start) {
			t->pre[t->off_slot & (RC_NSLOTS - 1)] += now - t->off_start;
			t->off_start = 0;
		}
	}
	return 0;
}

static __always_inline void irq_begin(__u32 n)
{
	__u32 tid = 0;
	struct rc_thread *t = cur_thread(&tid, 0);
	__u32 k = 0;
	struct irqstate *st = bpf_map_lookup_elem(&irqs, &k);
	if (!st)
		return;
	if (!t || !t->f0_depth) {
		st->start = 0;
		return;
	}
	st->start = bpf_ktime_get_ns();
	st->tid = tid;
	st->slot = top_slot(t);
	st->n = n;
}

static __always_inline void irq_end(void)
{
	__u32 k = 0;
	struct irqstate *st = bpf_map_lookup_elem(&irqs, &k);
	if (!st || !st->start)
		return;
	__u32 tid = st->tid;
	struct rc_thread *t = bpf_map_lookup_elem(&threads, &tid);
	if (t) {
		__u32 s = st->slot & (RC_NSLOTS - 1);
		t->irq[s] += bpf_ktime_get_ns() - st->start;
		t->irqn[s] = st->n;
	}
	st->start = 0;
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(rc_irq_entry, int irq)
{
	irq_begin((__u32)irq);
	return 0;
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(rc_irq_exit)
{
	irq_end();
	return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(rc_softirq_entry, unsigned int vec)
{
	irq_begin(1000 + vec);
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(rc_softirq_exit)
{
	irq_end();
	return 0;
}
