/* Kernel symbols from /proc/kallsyms: address -> function name. */
#ifndef OSPROF_COLLECT_KSYMS_H
#define OSPROF_COLLECT_KSYMS_H

#include <stdint.h>

struct ksyms;

/* NULL after printing one line (unreadable file, no memory). */
struct ksyms *ksyms_load(void);
void ksyms_free(struct ksyms *k);
/* The function containing addr, or NULL. */
const char *ksyms_find(const struct ksyms *k, uint64_t addr);

#endif
