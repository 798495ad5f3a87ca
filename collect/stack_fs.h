/* The stackable profiling file system: a FUSE (libfuse3 low-level API)
 * pass-through that forwards every operation to a lower directory and times
 * each one in layer `stack` (collect/stack_stats.h keeps the histograms).
 * One per process. */
#ifndef OSPROF_COLLECT_STACK_FS_H
#define OSPROF_COLLECT_STACK_FS_H

#include <stddef.h>
#include <stdint.h>

struct osp_stack_fs_opts {
	const char *lower;      /* directory whose contents are passed through */
	const char *mountpoint; /* where the profiling file system appears */
	int direct_io;          /* open files with FOPEN_DIRECT_IO: no page cache above */
	int allow_other;        /* other users may enter the mount (permissions checked) */
	/* Called from the loop's thread when the file system stops serving
	 * (unmounted by someone else, or the connection aborted). */
	void (*on_end)(void *arg);
	void *on_end_arg;
};

struct osp_stack_fs;

/* The type of the file system LOWER is on ("ext4", "tmpfs"; "unknown"). */
void osp_stack_fs_type(const char *lower, char *out, size_t len);

/* Mounts and starts serving on worker threads. The caller has blocked the
 * signals it wants to handle itself: the threads inherit its mask. 0, or
 * -1 with "what failed: why" in err (nothing left mounted). */
int osp_stack_fs_start(const struct osp_stack_fs_opts *o, struct osp_stack_fs **out, char *err,
                       size_t errlen);

/* Unmounts (lazily: files still open keep working until closed), lets the
 * threads serve what is still in flight (releases come after the last
 * close) for up to grace_ms, then cuts the connection and frees fs. 1 when
 * every thread has stopped; 0 when some still serve a file held open (and
 * the connection could not be cut): fs is then left to the process's exit.
 * *unreleased: files and directories the kernel never released (releases
 * still queued when the connection ended are dropped, not served). */
int osp_stack_fs_stop(struct osp_stack_fs *fs, unsigned grace_ms, uint64_t *unreleased);

/* The libfuse version this osprof runs with ("3.14.0"). */
const char *osp_stack_fs_libfuse_version(void);

#endif
