/* The generic fs layer: for every file system mounted (or named by --fs),
 * the functions the VFS calls into it — the members of its file_operations,
 * inode_operations, address_space_operations and super_operations (read_iter,
 * write_iter, iterate_shared, lookup, create, unlink, rename, getattr,
 * setattr, fsync, open, release, read_folio, readahead, writepages, statfs,
 * ...) — timed with fentry/fexit, else kprobe/kretprobe, as fs-layer
 * profiles named by the member (op read_iter, dim fs=tmpfs), the same names
 * on every file system.
 *
 * Discovery reads the ops tables themselves, not names: osprof opens the
 * root of one mount of each type and one regular file in it (a bounded
 * read-only walk, else an O_TMPFILE that vanishes on close), a BPF program
 * run on demand reads the f_op, i_op, a_ops and s_op tables of those files,
 * and kernel BTF says which member is at which offset and which argument of
 * its prototype leads to the super_block; /proc/kallsyms names the
 * functions. Details: docs/kernel-layers-fs-block-lock-sched.md. */
#ifndef OSPROF_COLLECT_FSOPS_H
#define OSPROF_COLLECT_FSOPS_H

#include <stdio.h>
#include "collect/layer.h"

struct fsops;

/* Discovers and loads. 0 with *out set, or 0 with *out NULL after one line
 * saying which file systems cannot be seen and why (this kernel lets no
 * mode time their functions, or none is mounted); -errno after one line
 * for a bad --fs (bad_input) or a resource failure.
 * OSPROF_ATTACH=kprobe forces kprobes; OSPROF_FSOPS=off turns it off. */
int fsops_prepare(struct osp_session *s, unsigned by, struct fsops **out);
int fsops_attach(struct osp_session *s, struct fsops *f);
int fsops_collect(struct osp_session *s, struct fsops *f, int reset);
void fsops_free(struct fsops *f);

/* For `osprof list fs`: the file systems mounted, how many functions each
 * registers and the mode they would be timed with here, or why not. */
void fsops_list(FILE *out, int verbose);

#endif
