/* Chunks double from 16 KiB to 4 MiB, so a set of a few profiles costs
 * little, and chunks of 2 MiB and more are mapped with transparent huge
 * pages: a merged fleet holds ~180 MB of histograms, and on a virtual
 * machine the first touch of each 4 KiB page (a fault each) was most of the
 * merge's time. Smaller chunks come from malloc, which reuses the memory of
 * sets freed before (a diff or a merge loads and frees many). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "lib/arena.h"

#define CHUNK_MIN  (16u << 10)
#define CHUNK_MAX  (4u << 20)
#define CHUNK_HUGE (2u << 20)
#define ALIGN(n)   (((n) + 15) & ~(size_t)15)

struct osp_arena {
	struct osp_arena *prev; /* chunks, newest first; this header starts each */
	size_t size, used;
};

static struct osp_arena *chunk_new(size_t size)
{
	struct osp_arena *c;
	if (size >= CHUNK_HUGE) {
		c = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (c == MAP_FAILED)
			return NULL;
		madvise(c, size, MADV_HUGEPAGE); /* a hint: fine if refused */
	} else if (!(c = malloc(size))) {
		return NULL;
	}
	c->size = size;
	c->used = ALIGN(sizeof(*c));
	return c;
}

static void chunk_free(struct osp_arena *c)
{
	if (c->size >= CHUNK_HUGE)
		munmap(c, c->size);
	else
		free(c);
}

void *osp_arena_alloc(struct osp_arena **a, size_t size)
{
	size = ALIGN(size);
	struct osp_arena *c = *a;
	if (!c || c->used + size > c->size) {
		size_t want = c ? c->size * 2 : CHUNK_MIN;
		if (want > CHUNK_MAX)
			want = CHUNK_MAX;
		if (want < ALIGN(sizeof(*c)) + size)
			want =
			    ALIGN(sizeof(*c)) + size; /* an oversized block: a chunk of its own */
		struct osp_arena *n = chunk_new(want);
		if (!n)
			return NULL;
		n->prev = c;
		*a = c = n;
	}
	void *p = (char *)c + c->used;
	c->used += size;
	return memset(p, 0, size);
}

void osp_arena_free(struct osp_arena *a)
{
	while (a) {
		struct osp_arena *prev = a->prev;
		chunk_free(a);
		a = prev;
	}
}
