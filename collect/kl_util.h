/* Small helpers shared by the fs, block, lock, sched, irq and uprobe drivers. */
#ifndef OSPROF_COLLECT_KL_UTIL_H
#define OSPROF_COLLECT_KL_UTIL_H

#include <stddef.h>

/* For `osprof list`: the BTF tracepoint flavour these layers would use here
 * ("tp_btf" or "raw_tp", probed by a real load as root), or
 * "tp_btf (raw_tp fallback)" when it cannot be probed. */
const char *kl_tp_mode_name(void);

/* Destroys n links (NULLs allowed) and frees the array. Closing a perf-event
 * tracepoint link waits for an RCU grace period (~80 ms here), so they are
 * closed from several threads at once, which share the grace periods. */
struct bpf_link;
void kl_links_destroy(struct bpf_link **links, size_t n);

#endif
