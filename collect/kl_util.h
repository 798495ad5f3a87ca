/* Small helpers shared by the fs, block, lock, sched, irq and uprobe drivers. */
#ifndef OSPROF_COLLECT_KL_UTIL_H
#define OSPROF_COLLECT_KL_UTIL_H

/* For `osprof list`: the BTF tracepoint flavour these layers would use here
 * ("tp_btf" or "raw_tp", probed by a real load as root), or
 * "tp_btf (raw_tp fallback)" when it cannot be probed. */
const char *kl_tp_mode_name(void);

#endif
