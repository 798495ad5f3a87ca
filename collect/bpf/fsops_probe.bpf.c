// SPDX-License-Identifier: GPL-2.0
/* Discovery of the generic fs layer (collect/fsops_discover.c): the ops
 * tables of one open file of osprof's own, read on demand. A separate
 * object so that the timing objects (fsops.bpf.c) carry no 2 KiB buffer. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "fsops.h"

char LICENSE[] SEC("license") = "GPL";

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
