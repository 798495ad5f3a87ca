/* Memory per op profile, measured (heap growth per profile added to a set,
 * with keys, dimensions and index) and computed (a preload counter record,
 * an instrument histogram), at every resolution. Target at r = 1: <= 1 KiB.
 *   profile_memory [PROFILES] */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <osprof/profile.h>
#include "preload/layout.h"

static size_t heap_used(void)
{
	struct mallinfo2 mi = mallinfo2();
	return mi.uordblks + mi.hblkhd;
}

/* Heap bytes per profile added to a set (the set's own fixed cost left out),
 * keyed like the user layer's output: op name, plus pid and comm dimensions
 * as with --by pid. */
static double set_bytes_per_profile(unsigned r, unsigned n, int with_dims)
{
	struct osp_set *s = osp_set_new(r);
	if (!s)
		return -1;
	/* The first profile sets up the index: count from the second one. */
	osp_set_get(s, "user", "warmup", NULL, 0);
	size_t before = heap_used();
	for (unsigned i = 0; i < n; i++) {
		char op[32], pid[16];
		/* With dims: 128 ops per pid; without: every op distinct. */
		snprintf(op, sizeof(op), "op_%u", with_dims ? i % 128 : i);
		snprintf(pid, sizeof(pid), "%u", 1000 + i / 128);
		struct osp_dim d[2] = {{"pid", pid}, {"comm", "postmark"}};
		struct osp_profile *p = osp_set_get(s, "user", op, d, with_dims ? 2 : 0);
		if (!p)
			return -1;
		osp_hist_add(&p->hist, 1000 + i);
	}
	double per = (double)(heap_used() - before) / n;
	osp_set_free(s);
	return per;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 100000;
	if (n < 128) {
		fprintf(stderr, "usage: profile_memory [PROFILES >= 128]\n");
		return 2;
	}
	printf("bytes per op profile (%u profiles per set)\n", n);
	printf("%4s %9s %15s %15s %15s %15s\n", "r", "buckets", "set (no dims)", "set (pid,comm)",
	       "preload record", "raw histogram");
	double r1 = 0, r1dims = 0;
	for (unsigned r = 1; r <= 16; r *= 2) {
		double plain = set_bytes_per_profile(r, n, 0);
		double dims = set_bytes_per_profile(r, n, 1);
		unsigned nb = osp_nbuckets(r);
		size_t rec = (3 + (size_t)nb) * 8; /* struct osp_pf_op */
		size_t raw = sizeof(struct osp_hist) + nb * sizeof(uint64_t);
		printf("%4u %9u %15.0f %15.0f %15zu %15zu\n", r, nb, plain, dims, rec, raw);
		if (r == 1) {
			r1 = plain;
			r1dims = dims;
		}
	}
	printf("r=1, target <= 1024 bytes per op profile:\n");
	printf("  (layer, op) profile in a set:      %5.0f B  x%.2f of target  %s\n", r1, r1 / 1024,
	       r1 <= 1024 ? "met" : "NOT met");
	printf("  same with pid and comm dimensions: %5.0f B  x%.2f of target  %s\n", r1dims,
	       r1dims / 1024, r1dims <= 1024 ? "met" : "NOT met");
	printf("  preload counter record:            %5u B  x%.2f of target  %s\n",
	       (3 + osp_nbuckets(1)) * 8, (3 + osp_nbuckets(1)) * 8 / 1024.0,
	       (3 + osp_nbuckets(1)) * 8 <= 1024 ? "met" : "NOT met");
	return 0;
}
