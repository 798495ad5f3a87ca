/* Measured nesting, BPF side: the operation in flight at the layers above
 * the current event, read from the per-thread state the syscall and fs
 * objects keep anyway (their maps, shared into this object before load by
 * collect/nest.c), so the layers above pay nothing for it.
 * Include after osp_common.bpf.h (and kl_types.h). Description:
 * docs/bpf-infra.md, "Measured nesting". */
#ifndef OSPROF_NEST_BPF_H
#define OSPROF_NEST_BPF_H

#include "syscall.h"
#include "kl_types.h"

/* The syscall layer's calls in flight (collect/bpf/syscall.bpf.c). */
OSP_ARRAY_MAP(sys_inflight, struct osp_sys_inflight);

#ifdef OSP_NEST_FS_STACKS
/* The fs layer's open starts per thread (collect/bpf/fs.bpf.c). */
OSP_ARRAY_MAP(fs_stacks, struct kl_tstack);
#endif

/* The system call thread tid is in: nr + 1, 0 outside any (a kworker, a
 * page fault taken in user mode), OSP_NEST_NONE when not measured. */
static __always_inline __u32 osp_nest_sys(__u32 tid)
{
	if (!(osp_cfg.nest & OSP_NEST_SYS))
		return OSP_NEST_NONE;
	__u32 slot = tid & osp_cfg.tid_mask;
	struct osp_sys_inflight *e = bpf_map_lookup_elem(&sys_inflight, &slot);
	if (!e || e->tid != tid || !e->start)
		return 0;
	return (e->nr & (OSP_SYS_MAX - 1)) + 1;
}

#ifdef OSP_NEST_FS_STACKS
/* The innermost fs pair thread tid is in: pair + 1, 0 outside any. */
static __always_inline __u32 osp_nest_fs(__u32 tid)
{
	if (!(osp_cfg.nest & OSP_NEST_FS))
		return OSP_NEST_NONE;
	__u32 slot = tid & osp_cfg.tid_mask;
	struct kl_tstack *t = bpf_map_lookup_elem(&fs_stacks, &slot);
	if (!t || t->tid != tid || !t->n)
		return 0;
	return t->e[(t->n - 1) & (KL_DEPTH - 1)].id + 1;
}

/* Both parents of an event of thread tid, coded as osp_hkey.slice of an
 * OSP_BKT_PARENT entry. */
static __always_inline __u32 osp_nest_code(__u32 tid)
{
	return osp_nest_sys(tid) | osp_nest_fs(tid) << 16;
}
#endif

/* Counts one call of key k (as passed to osp_hist_add) under parent code. */
static __always_inline void osp_nest_count(void *map, const struct osp_hkey *k, __u32 code)
{
	static const struct osp_hval zero = {};
	if (code == (OSP_NEST_NONE | OSP_NEST_NONE << 16))
		return;
	struct osp_hkey pk = *k;
	pk.bucket = OSP_BKT_PARENT;
	pk.slice = code;
	struct osp_hval *h = bpf_map_lookup_elem(map, &pk);
	if (!h) {
		bpf_map_update_elem(map, &pk, &zero, BPF_NOEXIST);
		h = bpf_map_lookup_elem(map, &pk);
		if (!h) {
			osp_stat_inc(OSP_STAT_LOST);
			return;
		}
	}
	__sync_fetch_and_add(&h->count, 1);
}

#endif
