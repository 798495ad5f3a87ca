/* Speed of `osprof diff` on two sets of N profiles (default 10,000): the time
 * to compare them (osp_diff_sets, EMD, all metrics scored) next to the time
 * to just load the two files, in the same run. Target: diff < 1 s.
 *   diff_speed [N] [R] */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <osprof/analysis.h>
#include <osprof/clock.h>
#include "tests/progs/xorshift.h"

static uint64_t rng = 88172645463325252ull;

/* Profile i: one or two peaks (a fast path and, for some, a slow one); in
 * the second set every 50th profile grows a new slow peak. */
static struct osp_set *make(unsigned n, unsigned r, int changed)
{
	struct osp_set *s = osp_set_new(r);
	char op[32], pid[16];
	for (unsigned i = 0; i < n; i++) {
		snprintf(op, sizeof(op), "op%u", i % 500);
		snprintf(pid, sizeof(pid), "%u", 1000 + i / 500);
		struct osp_dim d = {"pid", pid};
		struct osp_profile *p = osp_set_get(s, "syscall", op, &d, 1);
		uint64_t base = 200 + (i % 97) * 50;
		unsigned count = 200 + (unsigned)(xorshift64(&rng) % 800);
		for (unsigned k = 0; k < count; k++) {
			uint64_t v = base + xorshift64(&rng) % base;
			if (i % 7 == 0 && k % 10 == 0)
				v *= 100;
			if (changed && i % 50 == 0 && k % 4 == 0)
				v *= 1000;
			osp_profile_add(s, p, v, 0);
		}
	}
	return s;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 10000;
	unsigned r = argc > 2 ? (unsigned)atoi(argv[2]) : 1;
	char fa[] = "/tmp/osprof-diffspeed-a.XXXXXX", fb[] = "/tmp/osprof-diffspeed-b.XXXXXX";
	char err[512];
	int da = mkstemp(fa), db = mkstemp(fb);
	if (da < 0 || db < 0 || !osp_resolution_valid(r) || !n) {
		fprintf(stderr, "usage: diff_speed [N] [R]\n");
		return 2;
	}
	close(da);
	close(db);
	struct osp_set *a = make(n, r, 0), *b = make(n, r, 1);
	if (osp_set_save(a, fa, err, sizeof(err)) || osp_set_save(b, fb, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	osp_set_free(a);
	osp_set_free(b);

	uint64_t t0 = osp_now_ns();
	if (osp_set_load(fa, &a, err, sizeof(err)) || osp_set_load(fb, &b, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	uint64_t t_load = osp_now_ns() - t0;
	printf("diff_speed: 2 sets x %u profiles, r=%u\n", n, r);
	printf("  %-44s %8.1f ms\n", "load both files", (double)t_load / 1e6);
	/* Default options (most of 10,000 profiles are insignificant), then
	 * with phase 1's share filter off so every pair goes through peaks and
	 * metrics. */
	for (int all = 0; all < 2; all++) {
		struct osp_diff_opts o;
		struct osp_diff d;
		osp_diff_opts_default(&o);
		if (all)
			o.min_share_lat = o.min_share_ops = 0;
		t0 = osp_now_ns();
		if (osp_diff_sets(a, b, &o, &d, err, sizeof(err))) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		uint64_t t_diff = osp_now_ns() - t0;
		printf("  %-44s %8.1f ms  (%.2f x load; target < 1000 ms: %s)\n",
		       all ? "diff, --min-share 0 (every pair in 3 phases)"
		           : "diff, default options",
		       (double)t_diff / 1e6, (double)t_diff / (double)t_load,
		       t_diff < 1000000000ull ? "met" : "NOT met");
		printf("    verdicts: %zu differ, %zu similar, %zu insignificant, %zu only in A, "
		       "%zu only in B\n",
		       d.ndiffer, d.nsimilar, d.ninsignificant, d.nonly_a, d.nonly_b);
		osp_diff_free(&d);
	}
	osp_set_free(a);
	osp_set_free(b);
	unlink(fa);
	unlink(fb);
	return 0;
}
