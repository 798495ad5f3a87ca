/* The run-time target of an indirect call site (struct rc_bsite), for the
 * uprobe programs of rootcause.bpf.c and rc_fallback.bpf.c. */
#ifndef OSPROF_RC_BPF_RC_SITE_BPF_H
#define OSPROF_RC_BPF_RC_SITE_BPF_H

/* Operand of an indirect call: registers come from a copy of pt_regs
 * (variable offsets into ctx are refused by the verifier). */
static __always_inline __u64 reg_val(const __u64 *regs, int i)
{
	if (i < 0 || i >= (int)(sizeof(struct pt_regs) / 8))
		return 0;
	return regs[i & 31];
}

static __always_inline __u64 ind_target(struct pt_regs *ctx, struct rc_bsite *bs)
{
	__u64 regs[sizeof(struct pt_regs) / 8] = {};
	if (bpf_probe_read_kernel(regs, sizeof(regs), ctx))
		return 0;
	__u64 a = 0;
	if (bs->base == -2)
		a = bs->next_ip;
	else if (bs->base >= 0)
		a = reg_val(regs, bs->base);
	if (bs->index >= 0)
		a += reg_val(regs, bs->index) * bs->scale;
	a += bs->disp;
	if (!bs->is_mem)
		return a;
	__u64 v = 0;
	bpf_probe_read_user(&v, sizeof(v), (void *)a);
	return v;
}

#endif
