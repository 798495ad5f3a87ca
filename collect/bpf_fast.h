/* Plain profiles read from the per-CPU arrays of OSP_FAST_MAPS
 * (collect/bpf/osp_common.bpf.h): op * nbuckets + bucket, and per-op
 * min/max. Shared by the layers whose plain profile is hot (syscall, fs). */
#ifndef OSPROF_COLLECT_BPF_FAST_H
#define OSPROF_COLLECT_BPF_FAST_H

#include "collect/bpf_common.h"

struct osp_bpf_fast {
	struct bpf_map *hist, *minmax;
	__u32 nops, nb;
	struct osp_hval *prev; /* totals at the previous reset: nops * nb */
};

/* Sizes the two maps before load: nops operations when on, else one unused
 * entry each. 0 or -ENOMEM. */
int osp_bpf_fast_init(struct osp_bpf_fast *f, struct bpf_map *hist, struct bpf_map *minmax,
                      __u32 nops, unsigned r, int on);

/* Adds what the maps gained since the previous reset to s->set. fn names the
 * profile of op k->op (k has no dims, flags or slice). With reset, the next
 * read starts from here and min/max restart. */
int osp_bpf_fast_read(struct osp_session *s, struct osp_bpf_fast *f, const char *layer,
                      osp_bpf_desc_fn fn, void *ctx, int reset);

void osp_bpf_fast_free(struct osp_bpf_fast *f);

#endif
