/* Which file-system tracepoint pairs the fs layer times by default: the
 * operations the VFS calls into a file system (seed 001's FS layer), found
 * in the ops tables of the mounted file systems (collect/fsops_discover.c).
 * Internal helpers (ext4 extent-status cache lookups, block mapping,
 * journal commits) run far more often than the operations that call them
 * and are opt-in: `--fs-ops all`, or by name. */
#ifndef OSPROF_COLLECT_FS_DEFAULT_H
#define OSPROF_COLLECT_FS_DEFAULT_H

#include "collect/fs_events.h"

enum fs_pair_class {
	FS_PAIR_VFS_OP,  /* its function is in an ops table: default */
	FS_PAIR_HELPER,  /* a helper of a mounted file system, or a journal: opt-in */
	FS_PAIR_UNKNOWN, /* a file system not mounted here: kept (cannot tell) */
};

/* The class of every pair of p (class[i] for p->v[i]); -errno when the ops
 * tables cannot be read (then every pair is FS_PAIR_UNKNOWN). */
int fs_pairs_classify(const struct fs_pairs *p, enum fs_pair_class *cls);
const char *fs_pair_class_name(enum fs_pair_class c);

/* Keeps the pairs to time: fs_ops NULL = the default (VFS ops and unknown),
 * "all", or a comma list of op names added to the default. Unknown names in
 * the list are an error (one line, -EINVAL). Says once on stderr how many
 * helper pairs were left out and how to add them. */
int fs_pairs_select(struct fs_pairs *p, const char *fs_ops, int verbose);

#endif
