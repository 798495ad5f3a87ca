/* Small helpers shared by the fs, block, lock, sched, irq and uprobe drivers. */
#ifndef OSPROF_COLLECT_KL_UTIL_H
#define OSPROF_COLLECT_KL_UTIL_H

#include <stddef.h>

/* For `osprof list`: the BTF tracepoint flavour these layers would use here
 * ("tp_btf" or "raw_tp", probed by a real load as root), or
 * "tp_btf (needs root)" when it cannot be probed. */
const char *kl_tp_mode_name(void);

/* Destroys n links (NULLs allowed) and frees the array. Closing a perf-event
 * tracepoint link waits for an RCU grace period (~80 ms here), so they are
 * closed from several threads at once, which share the grace periods. */
struct bpf_link;
void kl_links_destroy(struct bpf_link **links, size_t n);

/* The KL_BY_* code (collect/bpf/kl_types.h) of --by for a layer whose
 * operations run in a task: pid, tid, comm, and caller where caller_ok.
 * Values the layer cannot split by (fs, dev, or caller elsewhere) give
 * KL_BY_NONE, with a note under -v. */
unsigned kl_by_code(const char *layer, const char *by, int caller_ok, int verbose);

/* Adds the pid=, tid= or comm= dimension of key k for code (no-op for
 * KL_BY_NONE and KL_BY_CALLER). Uses the last 64 bytes of d->buf. */
struct osp_hkey;
struct osp_bpf_desc;
void kl_by_dims(unsigned code, const struct osp_hkey *k, struct osp_bpf_desc *d);

#endif
