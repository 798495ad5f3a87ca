/* Kernel symbols from /proc/kallsyms: address -> function name. */
#ifndef OSPROF_COLLECT_KSYMS_H
#define OSPROF_COLLECT_KSYMS_H

#include <stdint.h>
#include <stdio.h>

struct ksyms;

/* NULL after printing one line (unreadable file, no memory). */
struct ksyms *ksyms_load(void);
/* Reads lines "ADDR TYPE NAME [MODULE]" from f (name: for messages); any
 * other line is skipped. NULL after one line when no function is found. */
struct ksyms *ksyms_read(FILE *f, const char *name);
void ksyms_free(struct ksyms *k);
/* The function containing addr, or NULL. */
const char *ksyms_find(const struct ksyms *k, uint64_t addr);

#endif
