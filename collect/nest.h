/* Measured nesting, user side: the syscall and fs layers export the maps in
 * which they keep each thread's operation in flight; the objects of the
 * layers below (fs, block, lock) reuse them before load and count, per
 * profile, the calls that ran inside each parent (collect/bpf/nest.bpf.h).
 * Layers are prepared in table order (syscall, fs, block, lock), so the
 * exporting layers are loaded first. Description: docs/bpf-infra.md. */
#ifndef OSPROF_COLLECT_NEST_H
#define OSPROF_COLLECT_NEST_H

#include <linux/types.h>
#include <bpf/libbpf.h>
#include <osprof/profile.h>

/* Names fs pair `pair` for a parent entry: op and its fs dimension. */
typedef int (*osp_nest_fs_name_fn)(void *ctx, unsigned pair, const char **op, const char **fs);

/* The syscall layer's in-flight map (fd -1: withdrawn, at destroy). */
void osp_nest_export_sys(int fd);
/* The fs layer's per-thread stacks of open starts and how to name a pair. */
void osp_nest_export_fs(int fd, osp_nest_fs_name_fn name, void *ctx);

/* OSP_NEST_SYS | OSP_NEST_FS: the parents exported so far (osp_cfg.nest). */
__u32 osp_nest_flags(void);

/* Makes obj's maps sys_inflight / fs_stacks, where present, the exported
 * ones (bpf_map__reuse_fd); called by osp_bpf_share_maps. 0 or -errno. */
int osp_nest_share(struct bpf_object *obj);

/* Adds n calls of p under parent code (osp_hkey.slice of an OSP_BKT_PARENT
 * entry) to p's parent tables. 0 or -ENOMEM. */
int osp_nest_add(struct osp_profile *p, __u32 code, __u64 n);

/* Adds the calls of op under each system call, from a plain parent table
 * (counts[OSP_NEST_SYS_SLOTS]: outside, then nr + 1). */
int osp_nest_add_sys_table(struct osp_profile *p, const __u64 *counts);

/* Drops parent tables that account for more calls than their profile holds
 * (a sample that raced with a live read): they would be false. Sorts the
 * others: syscall before fs, largest count first, outside last. */
void osp_nest_check(struct osp_set *set);

#endif
