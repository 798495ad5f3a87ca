/* osp_sort: qsort for arrays that may be empty. qsort's base is declared
 * nonnull, and an empty array is often a NULL pointer here (nothing was
 * allocated), which UBSan reports as undefined behaviour. */
#ifndef OSPROF_SORT_H
#define OSPROF_SORT_H
#include <stdlib.h>

static inline void osp_sort(void *base, size_t n, size_t size,
                            int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

#endif
