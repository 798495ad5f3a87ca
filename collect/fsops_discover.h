/* Discovery of the generic fs layer (collect/fsops.h): which file systems
 * are mounted and which functions their ops tables hold. */
#ifndef OSPROF_COLLECT_FSOPS_DISCOVER_H
#define OSPROF_COLLECT_FSOPS_DISCOVER_H

#include <stddef.h>
#include <linux/types.h>
#include "collect/bpf/fsops.h"

struct fsops_fn {
	char name[128];         /* kernel function, e.g. shmem_file_read_iter */
	char op[32];            /* the ops member it fills, e.g. read_iter */
	unsigned arg_idx, kind; /* the argument leading to the super_block */
};

struct fsops_fs {
	char type[32];  /* as in /proc/filesystems: tmpfs, ext4, overlay */
	char mnt[256];  /* the mount it was read from */
	__u64 s_type;   /* its struct file_system_type */
	int read_files; /* a regular file was found (else only dir/super ops) */
};

struct fsops_found {
	struct fsops_fs fs[FSOPS_MAX_FS];
	size_t nfs;
	struct fsops_fn *fn;
	size_t nfn;
	char unseen[256]; /* types named by --fs that are not mounted, or unreadable */
	int narrow;       /* OSPROF_FSOPS_OPS applies */
};

/* Discovers the mounted file systems of `types` (comma list; NULL: every
 * mounted one that is not a kernel pseudo file system) and their ops
 * functions (with `narrow`, only the members OSPROF_FSOPS_OPS names). 0, or
 * -errno after printing one line. */
int fsops_discover(const char *types, int narrow, struct fsops_found *out);
void fsops_found_free(struct fsops_found *f);

#endif
