/* Reader of the preload library's per-process counter files
 * (preload/layout.h, docs/preload.md). */
#ifndef OSPROF_COLLECT_USER_FILE_H
#define OSPROF_COLLECT_USER_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <osprof/profile.h>
#include "preload/layout.h"

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
 * else merges all processes. Returns 0; OSP_PF_UNSTARTED for the file of a
 * process that ended before it could record anything (its magic is still
 * zero: the preload writes it last and records only after it); or -1 with
 * the reason in err. Nothing is added to set unless 0. */
#define OSP_PF_UNSTARTED 1
int osp_pf_load(const void *buf, size_t len, struct osp_set *set, const char *by,
                struct osp_pf_info *info, char *err, size_t errlen);

/* A file image whose header, layout and op names were validated: slots and
 * records may be read in place (their contents may still be changing when
 * the file is live, but never their place). */
struct osp_pf_view {
	const char *base;
	struct osp_pf_hdr h; /* copy taken at validation */
};
/* 0, OSP_PF_UNSTARTED, or -1 with the reason in err. r is the resolution
 * the caller expects. */
int osp_pf_view_init(struct osp_pf_view *v, const void *buf, size_t len, unsigned r, char *err,
                     size_t errlen);
const struct osp_pf_slot *osp_pf_view_slot(const struct osp_pf_view *v, unsigned slot);
const struct osp_pf_op *osp_pf_view_rec(const struct osp_pf_view *v, unsigned slot, unsigned op);
const char *osp_pf_view_op(const struct osp_pf_view *v, unsigned op);
/* Dimensions of a slot's profiles for --by (see osp_pf_load); pid and tid
 * are 16-byte buffers the dims point into. Returns the number of dims (<= 3). */
unsigned osp_pf_dims(const char *by, const struct osp_pf_hdr *h, const struct osp_pf_slot *s,
                     struct osp_dim *d, char *pid, char *tid);

#endif
