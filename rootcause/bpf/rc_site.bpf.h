/* Call sites for the uprobe programs of rootcause.bpf.c and
 * rc_fallback.bpf.c: the ftree's edges (measured parent slot, site id) ->
 * child slot, the sites' run-time descriptions (struct rc_bsite, written by
 * rootcause/uprobe_sites.c), and the run-time target of an indirect one. */
#ifndef OSPROF_RC_BPF_RC_SITE_BPF_H
#define OSPROF_RC_BPF_RC_SITE_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, struct rc_ckey);
	__type(value, __u32);
} children SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, struct rc_bsite);
} sites SEC(".maps");

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
