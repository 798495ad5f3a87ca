/* Uprobes on DARC call sites: one on the call instruction and, unless it is
 * a tail jump, one on the instruction after it, the site id as cookie and
 * the site's run-time description in a `sites` map (struct rc_bsite). Used
 * by the uprobe backend and by the trampoline backend's uprobe fallback. */
#ifndef OSPROF_RC_UPROBE_SITES_H
#define OSPROF_RC_UPROBE_SITES_H

#include <bpf/libbpf.h>
#include <stdint.h>
#include <sys/types.h>
#include "rootcause/callsites.h"

struct rc_usites {
	struct bpf_map *sites;
	struct bpf_program *enter, *ret;
	pid_t pid; /* -1: every process mapping the binary */
	struct rc_usite_links *links;
	size_t n;
};

/* Attaches f's enter/return programs at site id (file offset off of path;
 * rt: run-time address of the instruction). 0 or -errno. */
int rc_usites_add(struct rc_usites *u, uint32_t id, const struct rc_site *s, const char *path,
                  uint64_t off, uint64_t rt);
/* 0, or -ENOENT when id has no uprobes. */
int rc_usites_del(struct rc_usites *u, uint32_t id);
void rc_usites_free(struct rc_usites *u);

#endif
