// SPDX-License-Identifier: GPL-2.0
/* syscall layer: latency of every system call from sys_enter to sys_exit,
 * aggregated in the kernel. The plain profile (no --by, -i, --split,
 * --correlate) takes a fast path: one inlined array slot per thread for the
 * start time and one per-CPU array update per call. Everything else goes
 * through the per-CPU hash of osp_common.bpf.h. */
#include "vmlinux.h"
#include "osp_common.bpf.h"
#include "syscall.h"

char LICENSE[] SEC("license") = "GPL";

const volatile struct osp_sys_opts sys_opts = {};

/* In-flight calls, one slot per thread: slot tid & tid_mask (sized by user
 * space, osp_bpf_thread_slots()); the slot holds its owner's tid. */
OSP_ARRAY_MAP(sys_inflight, struct osp_sys_inflight);

OSP_FAST_MAPS(sys_fast, sys_minmax);

OSP_HIST_MAP(sys_hists, OSP_HIST_ENTRIES);

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);
	__type(value, struct osp_sys_fsname);
	__uint(max_entries, 256);
} sys_fsnames SEC(".maps");

static __always_inline int fast(void)
{
	return osp_plain() && !sys_opts.corr;
}

static __always_inline struct file *fd_file(struct task_struct *task, long fd)
{
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file **fds;
	struct file *f = NULL;
	if (!fdt || fd < 0 || fd >= BPF_CORE_READ(fdt, max_fds))
		return NULL;
	fds = BPF_CORE_READ(fdt, fd);
	bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]);
	return f;
}

/* Entry work of the slow path: --by dims, preemption counter, correlation. */
static __always_inline void slow_enter(struct osp_sys_inflight *e, struct pt_regs *regs, __u32 nr,
                                       __u64 pid_tgid)
{
	e->dim[0] = e->dim[1] = 0;
	e->corr = 0;
	e->pseq = osp_preempt_seq((__u32)pid_tgid);
	switch (osp_cfg.by) {
	case OSP_SYS_BY_PID:
		e->dim[0] = pid_tgid >> 32;
		break;
	case OSP_SYS_BY_TID:
		e->dim[0] = (__u32)pid_tgid;
		break;
	case OSP_SYS_BY_COMM:
		bpf_get_current_comm(e->dim, sizeof(e->dim));
		break;
	}
	__u8 fa = sys_opts.flags[nr & (OSP_SYS_MAX - 1)] & (OSP_SYSF_FD1 | OSP_SYSF_FD2);
	int want_file = fa && (osp_cfg.by == OSP_SYS_BY_FS || (sys_opts.corr == OSP_CORR_OFFSET ||
	                                                       sys_opts.corr == OSP_CORR_PAST_EOF));
	if (sys_opts.corr == OSP_CORR_REQ_BYTES)
		e->corr = PT_REGS_PARM3_CORE_SYSCALL(regs);
	if (!want_file)
		return;
	long fd = fa == OSP_SYSF_FD1 ? PT_REGS_PARM1_CORE_SYSCALL(regs)
	                             : PT_REGS_PARM2_CORE_SYSCALL(regs);
	struct file *f = fd_file((struct task_struct *)bpf_get_current_task(), fd);
	if (!f)
		return;
	if (nr == sys_opts.corr_nr) {
		__s64 pos = sys_opts.flags[nr & (OSP_SYS_MAX - 1)] & OSP_SYSF_POS4
		                ? (__s64)PT_REGS_PARM4_CORE_SYSCALL(regs)
		                : BPF_CORE_READ(f, f_pos);
		if (sys_opts.corr == OSP_CORR_OFFSET)
			e->corr = pos;
		else if (sys_opts.corr == OSP_CORR_PAST_EOF)
			e->corr = pos >= BPF_CORE_READ(f, f_inode, i_size);
	}
	if (osp_cfg.by != OSP_SYS_BY_FS)
		return;
	struct super_block *sb = BPF_CORE_READ(f, f_inode, i_sb);
	__u64 type = (__u64)BPF_CORE_READ(sb, s_type);
	e->dim[0] = type;
	e->dim[1] = BPF_CORE_READ(sb, s_dev);
	if (type && !bpf_map_lookup_elem(&sys_fsnames, &type)) {
		struct osp_sys_fsname n = {};
		const char *name = BPF_CORE_READ(sb, s_type, name);
		bpf_probe_read_kernel_str(n.name, sizeof(n.name), name);
		bpf_map_update_elem(&sys_fsnames, &type, &n, BPF_NOEXIST);
	}
}

static __always_inline void on_enter(struct pt_regs *regs, long id)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	if (!osp_target_pid(pid_tgid))
		return;
	if ((__u64)id >= OSP_SYS_MAX)
		return;
	__u32 slot = (__u32)pid_tgid & osp_cfg.tid_mask;
	struct osp_sys_inflight *e = bpf_map_lookup_elem(&sys_inflight, &slot);
	if (!e)
		return;
	e->tid = (__u32)pid_tgid;
	e->nr = (__u32)id;
	/* exit and exit_group never return: not timed, but in flight until the
	 * thread is gone, so the fs events of its teardown have this parent
	 * (the other layers read this slot: collect/bpf/nest.bpf.h). */
	if (sys_opts.flags[id & (OSP_SYS_MAX - 1)] & OSP_SYSF_NORETURN) {
		e->start = OSP_SYS_SKIP;
		return;
	}
	if (!fast())
		slow_enter(e, regs, (__u32)id, pid_tgid);
	e->start = bpf_ktime_get_ns(); /* last: entry work is not part of the call */
}

static __always_inline void add_corr(struct osp_sys_inflight *e, __u32 nr, __u32 bucket, long ret,
                                     __u32 slice)
{
	__u32 peak = 0;
	for (__u32 i = 0; i < OSP_SYS_PEAKS; i++)
		if (i < sys_opts.npeaks && bucket >= sys_opts.peak_lo[i] &&
		    bucket <= sys_opts.peak_hi[i]) {
			peak = i + 1;
			break;
		}
	if (!peak)
		return;
	__u64 v = e->corr;
	if (sys_opts.corr == OSP_CORR_RET_BYTES)
		v = ret >= 0 ? ret : 0;
	else if (sys_opts.corr == OSP_CORR_ERRNO)
		v = ret < 0 ? -ret : 0;
	struct osp_hkey k = {.op = OSP_SYS_CORR_OP | nr, .slice = slice, .aux = peak};
	osp_hist_add(&sys_hists, &k, v);
}

static __always_inline void on_exit(struct pt_regs *regs, long ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid, slot = tid & osp_cfg.tid_mask;
	struct osp_sys_inflight *e = bpf_map_lookup_elem(&sys_inflight, &slot);
	if (!e)
		return;
	/* The clock is read only for our own calls: every other thread of the
	 * system also runs this program, and the clock read is its dearest
	 * part. The two inlined loads before it add a few ns to the latency. */
	__u64 start = e->start;
	if (!start || e->tid != tid) {
		if (!osp_target_pid(pid_tgid))
			return;
#if defined(__TARGET_ARCH_x86)
		/* A new child's first return from fork/clone has no entry. */
		__u64 nr = BPF_CORE_READ(regs, orig_ax);
		if (ret == 0 && (sys_opts.flags[nr & (OSP_SYS_MAX - 1)] & OSP_SYSF_FORK))
			return;
#endif
		osp_stat_inc(OSP_STAT_UNPAIRED);
		return;
	}
	e->start = 0;
	if (start == OSP_SYS_SKIP)
		return;
	__u64 now = bpf_ktime_get_ns();
	__u32 nr = e->nr & (OSP_SYS_MAX - 1);
	__u64 d = now - start;
	if (fast()) {
		osp_fast_add(&sys_fast, &sys_minmax, nr, d);
		return;
	}
	__u32 slice = osp_slice(now);
	struct osp_hkey k = {.op = nr, .slice = slice, .dim = {e->dim[0], e->dim[1]}};
	if (osp_cfg.split_preempt && osp_preempt_seq(tid) != e->pseq)
		k.flags = OSP_HK_PREEMPTED;
	osp_hist_add(&sys_hists, &k, d);
	if (sys_opts.corr && nr == sys_opts.corr_nr)
		add_corr(e, nr, osp_bucket(d), ret, slice);
}

OSP_TP_TWINS(sys_enter, sys_enter, struct pt_regs *regs, long id)
{
	on_enter(regs, id);
	return 0;
}

OSP_TP_TWINS(sys_exit, sys_exit, struct pt_regs *regs, long ret)
{
	on_exit(regs, ret);
	return 0;
}
