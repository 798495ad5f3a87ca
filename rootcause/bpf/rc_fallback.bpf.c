// SPDX-License-Identifier: GPL-2.0
/* The trampoline backend's uprobe fallback (osprof rootcause, rootcause.h):
 * a call site the agent cannot patch with a jump gets a uprobe on the call
 * instruction (rc_fb_enter) and one on its return address (rc_fb_return),
 * the site id as cookie. Only threads of the agent's process that own a cell
 * count; the parent of the call is the innermost timed call, the agent's
 * (read from its memory) or one of ours opened since, and the site counts
 * only when (parent, site) is an ftree edge. The elapsed time goes into the
 * cell, where the agent picks it up at the end of its f0 call. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "rootcause.h"
#include "rc_site.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, RC_FB_CELLS);
	__type(key, __u32);
	__type(value, struct rc_fb_cell);
} cells SEC(".maps");

static __always_inline struct rc_fb_cell *my_cell(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), k = tid & RC_FB_MASK;
	struct rc_fb_cell *c = bpf_map_lookup_elem(&cells, &k);
	return c && c->tid == tid && c->thr ? c : NULL;
}

/* Frame i of the cell. The mask is opaque to the compiler: knowing i's
 * range from the callers' checks, it would drop it, and older verifiers
 * (6.1) cannot bound the index without it. */
_Static_assert(RC_FB_STACK == 8, "frame_at's mask");

static __always_inline struct rc_fb_frame *frame_at(struct rc_fb_cell *c, __u32 i)
{
	__u64 k = i;
	asm volatile("%0 &= 7" : "+r"(k)); /* RC_FB_STACK - 1 */
	return &c->fr[k];
}

static __always_inline void close_top(struct rc_fb_cell *c, __u32 n, __u64 now)
{
	struct rc_fb_frame *f = frame_at(c, n - 1);
	__u32 s = f->slot & (RC_NSLOTS - 1);
	__u64 d = now - f->start;
	if (d > c->lat[s])
		c->lat[s] = d;
	c->touched[(s >> 6) & (RC_NSLOTS / 64 - 1)] |= 1ull << (s & 63);
	c->n = n - 1;
}

/* The innermost timed call of the thread: ours if it began after the
 * agent's innermost, else the agent's; -1 outside f0. */
static __always_inline long parent_slot(struct rc_fb_cell *c, __u32 n, __u32 *agent_sp)
{
	__u32 hdr[2] = {};
	if (bpf_probe_read_user(hdr, sizeof(hdr), (void *)c->thr) || !hdr[0] || !hdr[1] ||
	    hdr[1] > RC_AGENT_DEPTH)
		return -1;
	__u32 sp = hdr[1];
	*agent_sp = sp;
	if (n) {
		struct rc_fb_frame *f = frame_at(c, n - 1);
		if (f->agent_sp == sp)
			return f->slot;
	}
	__u32 slot = 0;
	__u64 at = c->thr + RC_AGENT_STK +
	           (__u64)((sp - 1) & (RC_AGENT_DEPTH - 1)) * RC_AGENT_FRAME + RC_AGENT_SLOT;
	if (bpf_probe_read_user(&slot, sizeof(slot), (void *)at))
		return -1;
	return slot;
}

SEC("uprobe")
int rc_fb_enter(struct pt_regs *ctx)
{
	struct rc_fb_cell *c = my_cell();
	if (!c)
		return 0;
	__u64 ip = PT_REGS_IP(ctx);
	__u32 n = c->n;
	if (n > RC_FB_STACK)
		n = c->n = 0;
	/* Two calls in a row: the previous call's return probe sits on this
	 * very instruction and may not have run yet. Its call is over. */
	if (n && frame_at(c, n - 1)->ret_ip == ip && PT_REGS_SP(ctx) >= frame_at(c, n - 1)->rsp)
		close_top(c, n--, bpf_ktime_get_ns());
	if (n >= RC_FB_STACK)
		return 0;
	__u32 agent_sp = 0;
	long parent = parent_slot(c, n, &agent_sp);
	if (parent < 0)
		return 0;
	struct rc_ckey k = {.parent = (__u32)parent, .site = (__u32)bpf_get_attach_cookie(ctx)};
	__u32 *child = bpf_map_lookup_elem(&children, &k);
	if (!child)
		return 0; /* not on a path of the ftree */
	__u32 s = *child & (RC_NSLOTS - 1);
	struct rc_bsite *bs = bpf_map_lookup_elem(&sites, &k.site);
	struct rc_fb_frame *f = frame_at(c, n);
	f->slot = s;
	f->site = k.site;
	f->agent_sp = agent_sp;
	f->ret_ip = bs ? bs->next_ip : 0;
	f->rsp = PT_REGS_SP(ctx);
	if (bs && (bs->kind & RC_K_IND))
		c->tgt[s] = ind_target(ctx, bs);
	c->n = n + 1;
	f->start = bpf_ktime_get_ns();
	return 0;
}

SEC("uprobe")
int rc_fb_return(struct pt_regs *ctx)
{
	__u64 now = bpf_ktime_get_ns();
	struct rc_fb_cell *c = my_cell();
	if (!c)
		return 0;
	__u32 n = c->n;
	if (n == 0 || n > RC_FB_STACK)
		return 0;
	struct rc_fb_frame *f = frame_at(c, n - 1);
	/* Not a deeper, untimed call of this site (recursion) returning. */
	if (f->site == (__u32)bpf_get_attach_cookie(ctx) && PT_REGS_SP(ctx) >= f->rsp)
		close_top(c, n, now);
	return 0;
}
