// SPDX-License-Identifier: GPL-2.0
/* The generic fs layer (collect/fsops.c): one object instance per function a
 * file system registered in its ops tables, through fentry/fexit where the
 * kernel allows, else kprobe/kretprobe. The function's argument that leads
 * to a super_block (arg_idx, of kind arg_kind, both from its BTF prototype)
 * gives the fs type; only types in fsops_types are timed. Instances share
 * the stacks, type and histogram maps (user space reuses the first's fds).
 * fsops_probe reads the ops tables of one open file for discovery. */
#include "vmlinux.h"
#include "osp_common.bpf.h"
#include "kl.bpf.h"
#include "fsops.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 func_id = 0;
const volatile __u32 arg_idx = 0;
const volatile __u32 arg_kind = FSOPS_K_NONE;

KL_PAIR_SLOTS(fsops_stacks);
OSP_HIST_MAP(fsops_hist, OSP_HIST_ENTRIES);

/* struct file_system_type address -> fs index (the profile's fs dim). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);
	__type(value, __u32);
	__uint(max_entries, FSOPS_MAX_FS);
} fsops_types SEC(".maps");

/* ---- discovery ---- */

struct fsops_probe_out probe_out = {};

static __always_inline void copy_tbl(int i, const void *tbl, __u32 size)
{
	__u32 n = size < FSOPS_TBL_BYTES ? size : FSOPS_TBL_BYTES;
	probe_out.addr[i] = (__u64)tbl;
	if (tbl && !bpf_probe_read_kernel(probe_out.tbl[i], n, tbl))
		probe_out.len[i] = n;
}

/* Run by user space (BPF_PROG_TEST_RUN) with args[0] = one of its fds. */
SEC("raw_tp")
int fsops_probe(struct bpf_raw_tracepoint_args *ctx)
{
	long fd = (long)ctx->args[0];
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	struct fdtable *fdt = BPF_CORE_READ(t, files, fdt);
	struct file *f = NULL;
	probe_out.err = -9; /* EBADF */
	if (!fdt || fd < 0 || fd >= BPF_CORE_READ(fdt, max_fds))
		return 0;
	struct file **fds = BPF_CORE_READ(fdt, fd);
	bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]);
	if (!f)
		return 0;
	struct inode *in = BPF_CORE_READ(f, f_inode);
	struct super_block *sb = BPF_CORE_READ(in, i_sb);
	probe_out.s_type = (__u64)BPF_CORE_READ(sb, s_type);
	copy_tbl(FSOPS_T_FILE, BPF_CORE_READ(f, f_op), bpf_core_type_size(struct file_operations));
	copy_tbl(FSOPS_T_INODE, BPF_CORE_READ(in, i_op),
	         bpf_core_type_size(struct inode_operations));
	copy_tbl(FSOPS_T_AOPS, BPF_CORE_READ(in, i_mapping, a_ops),
	         bpf_core_type_size(struct address_space_operations));
	copy_tbl(FSOPS_T_SUPER, BPF_CORE_READ(sb, s_op),
	         bpf_core_type_size(struct super_operations));
	probe_out.err = 0;
	return 0;
}

/* ---- timing ---- */

static __always_inline struct super_block *sb_of(__u64 a)
{
	void *p = (void *)a;
	struct address_space *m = NULL;
	switch (arg_kind) {
	case FSOPS_K_KIOCB:
		return BPF_CORE_READ((struct kiocb *)p, ki_filp, f_inode, i_sb);
	case FSOPS_K_FILE:
		return BPF_CORE_READ((struct file *)p, f_inode, i_sb);
	case FSOPS_K_INODE:
		return BPF_CORE_READ((struct inode *)p, i_sb);
	case FSOPS_K_DENTRY:
		return BPF_CORE_READ((struct dentry *)p, d_sb);
	case FSOPS_K_SB:
		return p;
	case FSOPS_K_PATH:
		return BPF_CORE_READ((struct path *)p, dentry, d_sb);
	case FSOPS_K_MAPPING:
		m = p;
		break;
	case FSOPS_K_FOLIO:
		m = BPF_CORE_READ((struct folio *)p, mapping);
		break;
	case FSOPS_K_PAGE:
		m = BPF_CORE_READ((struct page *)p, mapping);
		break;
	case FSOPS_K_RAC:
		m = BPF_CORE_READ((struct readahead_control *)p, mapping);
		break;
	default:
		return NULL;
	}
	if ((__u64)m & 3) /* PAGE_MAPPING_ANON/MOVABLE: no file */
		return NULL;
	return BPF_CORE_READ(m, host, i_sb);
}

/* fs index of the call, or -1 when its fs type is not profiled. */
static __always_inline int fs_index(__u64 a)
{
	struct super_block *sb = sb_of(a);
	if (!sb)
		return -1;
	__u64 type = (__u64)BPF_CORE_READ(sb, s_type);
	__u32 *ix = bpf_map_lookup_elem(&fsops_types, &type);
	return ix ? (int)*ix : -1;
}

static __always_inline void on_entry(__u64 a)
{
	__u64 id = bpf_get_current_pid_tgid();
	if (!osp_target_pid(id))
		return;
	int fs = fs_index(a);
	if (fs < 0)
		return;
	__u32 tid = (__u32)id;
	struct kl_tstack *t = kl_slot_stack(&fsops_stacks, tid, 1);
	if (!t) {
		osp_stat_inc(OSP_STAT_LOST);
		return;
	}
	kl_stack_push(t, func_id | (__u32)fs << FSOPS_FS_SHIFT, tid, bpf_ktime_get_ns());
}

/* The innermost open entry of this function, whatever its fs: a kretprobe
 * has no arguments. An exit without one is a call of an fs not profiled
 * (nothing was pushed), so it is not counted as unpaired. */
static __always_inline void on_exit(void)
{
	__u64 id = bpf_get_current_pid_tgid();
	if (!osp_target_pid(id))
		return;
	__u64 now = bpf_ktime_get_ns();
	__u32 tid = (__u32)id;
	struct kl_tstack *t = kl_slot_stack(&fsops_stacks, tid, 0);
	if (!t)
		return;
	__u32 n = t->n, found = KL_DEPTH;
	for (int i = KL_DEPTH - 1; i >= 0; i--)
		if ((__u32)i < n && found == KL_DEPTH &&
		    (t->e[i].id & ((1u << FSOPS_FS_SHIFT) - 1)) == func_id)
			found = (__u32)i;
	if (found == KL_DEPTH)
		return;
	__u32 e = t->e[found & (KL_DEPTH - 1)].id;
	__u64 t0 = t->e[found & (KL_DEPTH - 1)].ts;
	__u32 seq = t->e[found & (KL_DEPTH - 1)].pseq;
	for (int i = 0; i < KL_DEPTH - 1; i++)
		if ((__u32)i >= found && (__u32)i + 1 < n)
			t->e[i] = t->e[i + 1];
	t->n = n - 1;
	struct osp_hkey hk = {.op = func_id, .aux = e >> FSOPS_FS_SHIFT, .slice = osp_slice(now)};
	kl_by_current(&hk, id);
	if (osp_cfg.split_preempt && osp_preempt_seq(tid) != seq)
		hk.flags = OSP_HK_PREEMPTED;
	osp_hist_add(&fsops_hist, &hk, now - t0);
}

/* The argument is fetched by index (not ctx[arg_idx], a variable offset the
 * verifier refuses in the context). */
SEC("fentry")
int BPF_PROG(fo_fentry)
{
	__u64 a = 0;
	bpf_get_func_arg(ctx, arg_idx, &a);
	on_entry(a);
	return 0;
}

SEC("fexit")
int BPF_PROG(fo_fexit)
{
	on_exit();
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(fo_kprobe)
{
	__u64 r[4] = {PT_REGS_PARM1(ctx), PT_REGS_PARM2(ctx), PT_REGS_PARM3(ctx),
	              PT_REGS_PARM4(ctx)};
	on_entry(r[arg_idx & 3]);
	return 0;
}

SEC("kretprobe")
int BPF_KRETPROBE(fo_kretprobe)
{
	on_exit();
	return 0;
}
