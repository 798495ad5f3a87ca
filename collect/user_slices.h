/* Time slices (-i) for the user layer, by sampling: the counter files are
 * shared mappings, so a thread of osprof reads every process's cumulative
 * buckets at each slice boundary, and the difference from the previous
 * reading is that slice's histogram. The interposers pay nothing for it. */
#ifndef OSPROF_COLLECT_USER_SLICES_H
#define OSPROF_COLLECT_USER_SLICES_H

#include <stdint.h>
#include <osprof/profile.h>

struct osp_user_slices;

/* Starts sampling dir every slice_ns from now. NULL on failure (errno). */
struct osp_user_slices *osp_user_slices_start(const char *dir, unsigned r, uint64_t slice_ns,
                                              const char *by);
/* Takes the last reading (the current, partial slice), stops the thread and
 * adds every slice to the matching profiles of dst (creating them if
 * needed; dst NULL discards them). Frees sl. 0, or -ENOMEM. */
int osp_user_slices_stop(struct osp_user_slices *sl, struct osp_set *dst);

#endif
