/* ospgen: writes synthetic .osp profile sets through the core API, for the
 * view tests (plot, html, top). Distributions are bimodal (a cached and an
 * uncached peak) and deterministic for a given seed, so tests can compare
 * what a view shows with what was generated.
 *
 * usage: ospgen -o FILE [-n PROFILES] [-r R] [-s SLICES] [-S SEED]
 *               [--single] [--empty-profile] [--shift F]
 *   -n 0           a set without profiles
 *   -s SLICES      time-sliced (100 ms slices) with a burst every 5th slice
 *   --single       every sample has the same value (one bucket)
 *   --empty-profile  adds one profile without samples
 *   --shift F      multiplies the slow peak's latency by F (for A/B diffs)
 *   --rootcause    adds root-cause results: profiles with a "path" dimension
 *   --host NAME    the host it claims to be measured on (metadata host)
 *   --start NS     its start_wall_ns (slices of two files line up when equal) */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <osprof/osprof.h>
#include "tests/progs/xorshift.h"

static uint64_t rng_state = 88172645463325252ull;

/* Roughly log-normal around mid: mid * 2^(u - 0.5) with u uniform in [0,1). */
static uint64_t around(uint64_t mid)
{
	double u = (double)(xorshift64(&rng_state) >> 11) / (double)(1ull << 53);
	double v = (double)mid * (0.7 + 0.6 * u);
	return v < 1 ? 1 : (uint64_t)v;
}

static const char *const layers[] = {"syscall", "fs", "block", "user"};
static const char *const ops[][4] = {
    {"read", "write", "openat", "fsync"},
    {"ext4_file_read_iter", "ext4_file_write_iter", "ext4_sync_file", "ext4_lookup"},
    {"rq_issue", "rq_complete", "rq_insert", "bio_queue"},
    {"fread", "fwrite", "open", "close"},
};

int main(int argc, char **argv)
{
	const char *out = NULL, *host = NULL, *start = NULL;
	long n = 8, slices = 0, single = 0, empty_profile = 0, rootcause = 0;
	unsigned r = 1;
	double shift = 1.0;
	static const struct option lo[] = {{"single", no_argument, NULL, 1},
	                                   {"empty-profile", no_argument, NULL, 2},
	                                   {"shift", required_argument, NULL, 3},
	                                   {"rootcause", no_argument, NULL, 4},
	                                   {"host", required_argument, NULL, 5},
	                                   {"start", required_argument, NULL, 6},
	                                   {NULL, 0, NULL, 0}};
	int c;
	while ((c = getopt_long(argc, argv, "o:n:r:s:S:", lo, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'n':
			n = atol(optarg);
			break;
		case 'r':
			r = (unsigned)atoi(optarg);
			break;
		case 's':
			slices = atol(optarg);
			break;
		case 'S':
			rng_state = strtoull(optarg, NULL, 0) | 1;
			break;
		case 1:
			single = 1;
			break;
		case 2:
			empty_profile = 1;
			break;
		case 3:
			shift = atof(optarg);
			break;
		case 4:
			rootcause = 1;
			break;
		case 5:
			host = optarg;
			break;
		case 6:
			start = optarg;
			break;
		default:
			return 2;
		}
	}
	if (!out || n < 0 || slices < 0 || !osp_resolution_valid(r)) {
		fprintf(stderr, "usage: ospgen -o FILE [-n N] [-r R] [-s SLICES] [-S SEED] "
		                "[--single] [--empty-profile] [--shift F]\n");
		return 2;
	}
	struct osp_set *s = osp_set_new(r);
	if (!s)
		return 1;
	osp_set_meta(s, "command", "ospgen");
	if (host)
		osp_set_meta(s, "host", host);
	if (start)
		osp_set_meta(s, "start_wall_ns", start);
	if (slices)
		s->slice_ns = 100000000ull;
	for (long i = 0; i < n; i++) {
		unsigned l = (unsigned)(i % 4), o = (unsigned)(i / 4 % 4);
		char pid[24];
		snprintf(pid, sizeof(pid), "%ld", 1000 + i / 16);
		struct osp_dim dims[2] = {{"comm", "gen"}, {"pid", pid}};
		struct osp_profile *p = osp_set_get(s, layers[l], ops[l][o], dims, n > 16 ? 2 : 0);
		if (!p)
			return 1;
		/* Fast peak near 2^(8+l) ns, slow near 2^(18+l) ns; the slow share
		 * and the counts vary per profile so sorting is meaningful. */
		long cnt = 50 + (long)(xorshift64(&rng_state) % 400);
		uint64_t fast = 1ull << (8 + l),
		         slow = (uint64_t)((double)(1ull << (18 + l)) * shift);
		for (long k = 0; k < cnt; k++) {
			uint64_t t = slices ? (uint64_t)(k % slices) * s->slice_ns : 0;
			int burst = slices && (k % slices) % 5 == 0;
			uint64_t v = single                  ? 4096
			             : (burst || k % 7 == 0) ? around(slow)
			                                     : around(fast);
			osp_profile_add(s, p, v, t);
		}
	}
	if (empty_profile && !osp_set_get(s, "syscall", "idle", NULL, 0))
		return 1;
	static const char *const paths[] = {
	    "vfs_read;ext4_file_read_iter;filemap_read",
	    "vfs_read;ext4_file_read_iter;filemap_read;submit_bio",
	    "vfs_read;ext4_file_read_iter;down_read",
	};
	for (unsigned i = 0; rootcause && i < 3; i++) {
		struct osp_dim d = {"path", (char *)paths[i]};
		struct osp_profile *p = osp_set_get(s, "rootcause", "read", &d, 1);
		if (!p)
			return 1;
		for (unsigned k = 0; k < 20 * (i + 1); k++)
			osp_profile_add(s, p, around(1000u << (4 * i)), 0);
	}
	char err[256];
	if (osp_set_save(s, out, err, sizeof(err)) < 0) {
		fprintf(stderr, "ospgen: %s\n", err);
		return 1;
	}
	osp_set_free(s);
	return 0;
}
