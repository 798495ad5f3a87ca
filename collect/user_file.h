/* Reader of the preload library's per-process counter files
 * (preload/layout.h, docs/preload.md). */
#ifndef OSPROF_COLLECT_USER_FILE_H
#define OSPROF_COLLECT_USER_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <osprof/profile.h>

#define OSP_LAYER_USER "user"

/* Facts about one process image, from its file header. */
struct osp_pf_info {
	int pid, ppid;
	int exited; /* ran its exit handlers */
	int ended;  /* exited, called _exit, or exec'd; 0: killed by a signal */
	char comm[16];
	char exe[256];
	uint64_t ops; /* operations counted in this file */
};

/* Validates the whole file image in buf (any bytes are safe) and adds its
 * counts to `set` as layer "user", op = the libc symbol. Dimensions follow
 * `by`: "pid" -> pid, comm; "tid" -> pid, tid, comm; "comm" -> comm; anything
 * else merges all processes. Returns 0, or -1 with the reason in err (and
 * nothing added to set). */
int osp_pf_load(const void *buf, size_t len, struct osp_set *set, const char *by,
                struct osp_pf_info *info, char *err, size_t errlen);

#endif
