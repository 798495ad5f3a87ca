/* The address space of a target process: its executable mappings from
 * /proc/PID/maps, each with the ELF module it maps and its load bias. */
#ifndef OSPROF_RC_PROCMAPS_H
#define OSPROF_RC_PROCMAPS_H

#include <stdint.h>
#include <sys/types.h>
#include "rootcause/elfsym.h"

struct rc_module {
	struct rc_elf *elf;
	uint64_t start, end; /* executable run-time range */
	uint64_t bias;       /* run-time = vaddr + bias */
};

struct rc_space {
	pid_t pid;
	struct rc_module *mods;
	size_t n;
};

/* (Re)reads /proc/PID/maps; keeps modules already opened. 0 or -errno. */
int rc_space_load(struct rc_space *sp, pid_t pid, char *err, size_t errlen);
void rc_space_free(struct rc_space *sp);
/* Module mapping run-time address addr (re-reads maps once on a miss, for
 * libraries loaded late), NULL if none. */
struct rc_module *rc_space_find(struct rc_space *sp, uint64_t addr);
/* Adds a module by path with a given bias (used before the target runs). */
struct rc_module *rc_space_add(struct rc_space *sp, const char *path, uint64_t bias, char *err,
                               size_t errlen);
/* Reads 8 bytes of the target's memory, 0 or -errno. */
int rc_space_read(const struct rc_space *sp, uint64_t addr, uint64_t *val);

#endif
