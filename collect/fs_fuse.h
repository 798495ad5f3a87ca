/* fs layer, FUSE requests: round trip through the daemon per opcode
 * (fuse_request_send -> fuse_request_end, keyed by the request), profiled as
 * fs:fuse_<opcode> fs=fuse. Used by collect/fs.c. */
#ifndef OSPROF_COLLECT_FS_FUSE_H
#define OSPROF_COLLECT_FS_FUSE_H

#include "collect/layer.h"

struct fs_fuse;

/* 1 if this kernel has the fuse request tracepoints (under tracefs). */
int fs_fuse_present(const char *tracefs);
/* Loads the BPF object (after osp_bpf_common_acquire). by: KL_BY_*.
 * 0 or -errno after one line. */
int fs_fuse_prepare(struct osp_session *s, unsigned by, struct fs_fuse **out);
int fs_fuse_attach(struct osp_session *s, struct fs_fuse *f);
int fs_fuse_collect(struct osp_session *s, struct fs_fuse *f, int reset);
void fs_fuse_free(struct fs_fuse *f);
/* "fuse_read" for FUSE_READ, "fuse_op_N" for opcodes we do not name. */
const char *fs_fuse_op_name(unsigned opcode, char *buf, unsigned len);

#endif
