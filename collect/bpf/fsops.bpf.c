// SPDX-License-Identifier: GPL-2.0
/* The generic fs layer (collect/fsops.c): up to FSOPS_SLOTS functions a file
 * system registered in its ops tables per object, each in a slot of its own
 * program pair, through fentry/fexit where the kernel allows, else
 * kprobe/kretprobe. One object serves many functions because every load
 * parses the kernel's BTF, which dominates the cost of a load. A slot's
 * function id and the argument that leads to a super_block (index and kind,
 * from the prototype's BTF) are constants in .rodata, so the verifier keeps
 * one branch per program. Only fs types in fsops_types are timed. Objects
 * share the stacks, type and histogram maps (user space reuses the first's
 * fds). */
#include "vmlinux.h"
#include "osp_common.bpf.h"
#include "kl.bpf.h"
#include "fsops.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 slot_func[FSOPS_SLOTS] = {};
const volatile __u32 slot_arg[FSOPS_SLOTS] = {};
const volatile __u32 slot_kind[FSOPS_SLOTS] = {};

KL_PAIR_SLOTS(fsops_stacks);
OSP_HIST_MAP(fsops_hist, OSP_HIST_ENTRIES);

/* struct file_system_type address -> fs index (the profile's fs dim). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);
	__type(value, __u32);
	__uint(max_entries, FSOPS_MAX_FS);
} fsops_types SEC(".maps");

/* ---- timing ---- */

static __always_inline struct super_block *sb_of(__u32 arg_kind, __u64 a)
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
static __always_inline int fs_index(__u32 kind, __u64 a)
{
	struct super_block *sb = sb_of(kind, a);
	if (!sb)
		return -1;
	__u64 type = (__u64)BPF_CORE_READ(sb, s_type);
	__u32 *ix = bpf_map_lookup_elem(&fsops_types, &type);
	return ix ? (int)*ix : -1;
}

static __always_inline void on_entry(__u32 slot, __u64 a)
{
	__u32 func_id = slot_func[slot];
	__u64 id = bpf_get_current_pid_tgid();
	if (!osp_target_pid(id))
		return;
	int fs = fs_index(slot_kind[slot], a);
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
static __always_inline void on_exit(__u32 slot)
{
	__u32 func_id = slot_func[slot];
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

/* One program pair per slot and mode; the argument is fetched by index (not
 * ctx[i], a variable offset the verifier refuses in the context). */
#define FSOPS_SLOT(n)                                                                              \
	SEC("fentry")                                                                              \
	int BPF_PROG(fo_fentry_##n)                                                                \
	{                                                                                          \
		__u64 a = 0;                                                                       \
		bpf_get_func_arg(ctx, slot_arg[n], &a);                                            \
		on_entry(n, a);                                                                    \
		return 0;                                                                          \
	}                                                                                          \
	SEC("fexit")                                                                               \
	int BPF_PROG(fo_fexit_##n)                                                                 \
	{                                                                                          \
		on_exit(n);                                                                        \
		return 0;                                                                          \
	}                                                                                          \
	SEC("kprobe")                                                                              \
	int BPF_KPROBE(fo_kprobe_##n)                                                              \
	{                                                                                          \
		__u64 r[4] = {PT_REGS_PARM1(ctx), PT_REGS_PARM2(ctx), PT_REGS_PARM3(ctx),          \
		              PT_REGS_PARM4(ctx)};                                                 \
		on_entry(n, r[slot_arg[n] & 3]);                                                   \
		return 0;                                                                          \
	}                                                                                          \
	SEC("kretprobe")                                                                           \
	int BPF_KRETPROBE(fo_kretprobe_##n)                                                        \
	{                                                                                          \
		on_exit(n);                                                                        \
		return 0;                                                                          \
	}

FSOPS_SLOT(0)
FSOPS_SLOT(1)
FSOPS_SLOT(2)
FSOPS_SLOT(3)
FSOPS_SLOT(4)
FSOPS_SLOT(5)
FSOPS_SLOT(6)
FSOPS_SLOT(7)
FSOPS_SLOT(8)
FSOPS_SLOT(9)
FSOPS_SLOT(10)
FSOPS_SLOT(11)
FSOPS_SLOT(12)
FSOPS_SLOT(13)
FSOPS_SLOT(14)
FSOPS_SLOT(15)
