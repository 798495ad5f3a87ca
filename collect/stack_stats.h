/* Latency histograms of the stackable profiling file system (layer `stack`):
 * one profile set per FUSE worker thread, so the hot path takes no lock;
 * the sets are added together when the profile is written. */
#ifndef OSPROF_COLLECT_STACK_STATS_H
#define OSPROF_COLLECT_STACK_STATS_H

#include <stdint.h>
#include <sys/types.h>
#include <osprof/profile.h>

/* Operations as the VFS names them (osp_stack_op_names spells them). */
enum osp_stack_op {
	OSP_STACK_LOOKUP,
	OSP_STACK_FORGET,
	OSP_STACK_GETATTR,
	OSP_STACK_SETATTR,
	OSP_STACK_READLINK,
	OSP_STACK_MKNOD,
	OSP_STACK_MKDIR,
	OSP_STACK_UNLINK,
	OSP_STACK_RMDIR,
	OSP_STACK_SYMLINK,
	OSP_STACK_RENAME,
	OSP_STACK_LINK,
	OSP_STACK_OPEN,
	OSP_STACK_READ,
	OSP_STACK_WRITE,
	OSP_STACK_FLUSH,
	OSP_STACK_RELEASE,
	OSP_STACK_FSYNC,
	OSP_STACK_OPENDIR,
	OSP_STACK_READDIR,
	OSP_STACK_RELEASEDIR,
	OSP_STACK_FSYNCDIR,
	OSP_STACK_STATFS,
	OSP_STACK_SETXATTR,
	OSP_STACK_GETXATTR,
	OSP_STACK_LISTXATTR,
	OSP_STACK_REMOVEXATTR,
	OSP_STACK_ACCESS,
	OSP_STACK_CREATE,
	OSP_STACK_FALLOCATE,
	OSP_STACK_LLSEEK,
	OSP_STACK_COPY_FILE_RANGE,
	OSP_STACK_NOPS
};

extern const char *const osp_stack_op_names[OSP_STACK_NOPS];

enum osp_stack_by { OSP_STACK_BY_NONE = 0, OSP_STACK_BY_PID, OSP_STACK_BY_COMM };

struct osp_stack_stats_cfg {
	unsigned r;
	uint64_t slice_ns; /* 0: no slices */
	uint64_t start_ns; /* CLOCK_MONOTONIC origin of the slices */
	enum osp_stack_by by;
	int corr_size;   /* read/write/... split by request size class (size=4096) */
	int corr_offset; /* read/write split by offset class (offset=seq|rand) */
	const char *fs;  /* LOWER's file system type, the `fs` dimension */
};

/* What one operation adds to its key besides op and fs. */
struct osp_stack_sample {
	pid_t tid;      /* the caller's thread (FUSE request context); 0: none */
	int64_t size;   /* request size in bytes; -1: none */
	int offset_seq; /* -1: none, 0: random, 1: sequential */
};

/* Only one stats object may exist per process (thread slots are global). */
int osp_stack_stats_init(const struct osp_stack_stats_cfg *cfg);
/* Records one operation that took t1 - t0 ns, into the calling thread's set. */
void osp_stack_stats_add(enum osp_stack_op op, uint64_t t0, uint64_t t1,
                         const struct osp_stack_sample *smp);
/* Adds every thread's profiles to dst (same r); lost samples (no memory) go
 * to lost_events. 0 or -errno with err filled. */
int osp_stack_stats_merge(struct osp_set *dst, char *err, size_t errlen);
void osp_stack_stats_free(void);

#endif
