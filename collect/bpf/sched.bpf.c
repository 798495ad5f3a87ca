// SPDX-License-Identifier: GPL-2.0
/* sched layer: run-queue latency (wakeup, or preemption, to switch-in) and
 * off-CPU time (switch-out to switch-in) by reason. The reason is read at
 * switch-out: preempted (still runnable), io (D with in_iowait), lock (inside
 * lock:contention_begin..end, tracked here), other D waits, sleep (S). */
#include "vmlinux.h"
#include "osp_common.bpf.h"
#include "kl_types.h"

char LICENSE[] SEC("license") = "GPL";

#define TASK_RUNNING         0
#define TASK_INTERRUPTIBLE   0x1
#define TASK_UNINTERRUPTIBLE 0x2

struct tstate {
	__u64 runq_ns; /* became runnable (wakeup or preempted); 0: not queued */
	__u64 off_ns;  /* switched out; 0: on CPU or unknown */
	__u32 reason;
	__u32 in_lock;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct tstate);
} sched_tasks SEC(".maps");

OSP_HIST_MAP(sched_hist, OSP_HIST_ENTRIES);

static __always_inline int task_ok(struct task_struct *p)
{
	__u64 pid_tgid = (__u64)BPF_CORE_READ(p, tgid) << 32 | BPF_CORE_READ(p, pid);
	if (osp_cfg.filter == OSP_FILTER_COMM) {
		char c[16];
		BPF_CORE_READ_STR_INTO(&c, p, comm);
		for (int i = 0; i < 16; i++) {
			if (c[i] != osp_cfg.comm[i])
				return 0;
			if (!c[i])
				break;
		}
		return 1;
	}
	/* the cgroup filter can only test the current task */
	if (osp_cfg.filter == OSP_FILTER_CGROUP)
		return p == bpf_get_current_task_btf() && osp_target_pid(pid_tgid);
	return osp_target_pid(pid_tgid);
}

/* --by pid|tid|comm of task p (switched in: not the current task). */
static __always_inline void by_task(struct osp_hkey *k, struct task_struct *p)
{
	if (osp_cfg.by == KL_BY_PID)
		k->dim[0] = BPF_CORE_READ(p, tgid);
	else if (osp_cfg.by == KL_BY_TID)
		k->dim[0] = BPF_CORE_READ(p, pid);
	else if (osp_cfg.by == KL_BY_COMM)
		bpf_probe_read_kernel_str(&k->dim, sizeof(k->dim), &p->comm);
}

static __always_inline struct tstate *tstate(struct task_struct *p)
{
	return bpf_task_storage_get(&sched_tasks, p, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
}

static __always_inline void wakeup(struct task_struct *p)
{
	if (!task_ok(p))
		return;
	struct tstate *s = tstate(p);
	if (s)
		s->runq_ns = bpf_ktime_get_ns();
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(sched_wakeup, struct task_struct *p)
{
	wakeup(p);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(sched_wakeup_new, struct task_struct *p)
{
	wakeup(p);
	return 0;
}

static __always_inline __u32 off_reason(struct task_struct *p, struct tstate *s, unsigned int state)
{
	if (state == TASK_RUNNING)
		return KL_OFF_PREEMPT;
	if (s->in_lock)
		return KL_OFF_LOCK;
	if (state & TASK_UNINTERRUPTIBLE)
		return BPF_CORE_READ_BITFIELD_PROBED(p, in_iowait) ? KL_OFF_IO : KL_OFF_UNINTR;
	if (state & TASK_INTERRUPTIBLE)
		return KL_OFF_SLEEP;
	return KL_OFF_OTHER;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
             unsigned int prev_state)
{
	__u64 now = bpf_ktime_get_ns();
	if (task_ok(prev) && BPF_CORE_READ(prev, pid)) {
		struct tstate *s = tstate(prev);
		if (s) {
			s->off_ns = now;
			s->reason = off_reason(prev, s, prev_state);
			s->runq_ns = prev_state == TASK_RUNNING ? now : 0;
		}
	}
	if (!task_ok(next) || !BPF_CORE_READ(next, pid))
		return 0;
	struct tstate *s = bpf_task_storage_get(&sched_tasks, next, 0, 0);
	if (!s)
		return 0;
	struct osp_hkey k = {.slice = osp_slice(now)};
	by_task(&k, next);
	if (s->runq_ns) {
		k.op = KL_SCHED_RUNQ;
		osp_hist_add(&sched_hist, &k, now - s->runq_ns);
		s->runq_ns = 0;
	}
	if (s->off_ns) {
		k.op = KL_SCHED_OFFCPU;
		k.aux = s->reason;
		osp_hist_add(&sched_hist, &k, now - s->off_ns);
		s->off_ns = 0;
	}
	return 0;
}

/* Marks lock waits so a switch-out inside one is attributed to "lock". */
SEC("tp_btf/contention_begin")
int BPF_PROG(sched_lock_begin, void *lock, unsigned int flags)
{
	struct task_struct *t = bpf_get_current_task_btf();
	if (!task_ok(t))
		return 0;
	struct tstate *s = tstate(t);
	if (s)
		s->in_lock = 1;
	return 0;
}

SEC("tp_btf/contention_end")
int BPF_PROG(sched_lock_end, void *lock, int ret)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct tstate *s = bpf_task_storage_get(&sched_tasks, t, 0, 0);
	if (s)
		s->in_lock = 0;
	return 0;
}
