/* A bump allocator whose blocks are freed all at once: the profiles of a set
 * live exactly as long as the set. */
#ifndef OSPROF_LIB_ARENA_H
#define OSPROF_LIB_ARENA_H

#include <stddef.h>

struct osp_arena;

/* size bytes, zeroed and 16-byte aligned, from *a (created on first use);
 * NULL on ENOMEM. */
void *osp_arena_alloc(struct osp_arena **a, size_t size);
void osp_arena_free(struct osp_arena *a);

#endif
