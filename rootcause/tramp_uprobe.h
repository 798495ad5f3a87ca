/* The trampoline backend's uprobe fallback (rootcause/bpf/rc_fallback.bpf.c):
 * call sites the agent cannot patch with a jump get uprobes instead of a
 * breakpoint when osprof runs as root; their times reach the agent through
 * an mmapable array it inherits before CMD starts (rootcause/bpf/rootcause.h). */
#ifndef OSPROF_RC_TRAMP_UPROBE_H
#define OSPROF_RC_TRAMP_UPROBE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "rootcause/callsites.h"

struct rc_tfb;

/* The uprobes are attached for every process mapping the binary: only the
 * threads that own a cell (the agent's) count. */
/* Loads the programs and the cells map (its fd left open across exec);
 * NULL with the reason in why when uprobes cannot be had (not root, no
 * BPF): the sites then get breakpoints. */
struct rc_tfb *rc_tfb_new(char *why, size_t len);
/* The cells map's fd, for CMD's environment (OSPROF_DARC_UFB). */
int rc_tfb_fd(const struct rc_tfb *f);
int rc_tfb_add_site(struct rc_tfb *f, uint32_t id, const struct rc_site *s, const char *path,
                    uint64_t off, uint64_t rt);
/* -ENOENT when id has no uprobes. */
int rc_tfb_del_site(struct rc_tfb *f, uint32_t id);
/* The ftree edge (parent, site) -> slot; UINT32_MAX removes it. */
int rc_tfb_edge(struct rc_tfb *f, uint32_t parent, uint32_t site, uint32_t slot);
void rc_tfb_free(struct rc_tfb *f);

#endif
