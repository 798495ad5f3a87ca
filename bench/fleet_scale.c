/* Fleet scale: H hosts (default 1,000) x P profiles (default 200). Times, in
 * one run, loading the H files, the host-aware merge, `diff --by host` on the
 * merged set and one /metrics render of it (text and protobuf), each next to
 * the time to load the data. Target: merge, diff and render < 1 s each.
 *   fleet_scale [HOSTS] [PROFILES] */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <unistd.h>
#include <osprof/analysis.h>
#include <osprof/clock.h>
#include <osprof/render.h>

static uint64_t rng_state;

/* splitmix64: deterministic, so every run measures the same fleet */
static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Host h: P profiles with a fast peak and, for some, a slow one; every 100th
 * host has its slow peaks 30x slower (the outliers diff must find). */
static struct osp_set *make_host(unsigned h, unsigned np)
{
	struct osp_set *s = osp_set_new(1);
	char host[32], op[32];
	snprintf(host, sizeof(host), "host%04u", h);
	osp_set_meta(s, "host", host);
	for (unsigned i = 0; i < np; i++) {
		snprintf(op, sizeof(op), "op%u", i);
		struct osp_profile *p = osp_set_get(s, i % 2 ? "syscall" : "fs", op, NULL, 0);
		uint64_t base = 200 + (i % 97) * 50;
		unsigned count = 200 + (unsigned)(rnd() % 200);
		for (unsigned k = 0; k < count; k++) {
			uint64_t v = base + rnd() % base;
			if (i % 7 == 0 && k % 10 == 0)
				v *= h % 100 == 7 ? 3000 : 100;
			osp_profile_add(s, p, v, 0);
		}
	}
	return s;
}

/* CPU time of this process: on a shared machine the wall clock also counts
 * the time other processes held the cores (both are printed). */
static uint64_t cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct mark {
	uint64_t wall, cpu;
};

static struct mark now(void)
{
	return (struct mark){osp_now_ns(), cpu_ns()};
}

static void line(const char *what, struct mark a, struct mark b, double load_cpu)
{
	double w = (double)(b.wall - a.wall) / 1e9, c = (double)(b.cpu - a.cpu) / 1e9;
	printf("  %-26s cpu %.3f s  wall %.3f s", what, c, w);
	if (load_cpu > 0)
		printf("  (%.2fx load)", c / load_cpu);
}

/* osprof serve streams /metrics to the socket as it is rendered (a pipe to
 * libmicrohttpd), so the render's cost is the formatting, not a buffer of
 * the whole response: the bench writes to a sink that only counts bytes. */
static ssize_t sink_write(void *cookie, const char *buf, size_t n)
{
	(void)buf;
	*(size_t *)cookie += n;
	return (ssize_t)n;
}

static FILE *counting_sink(size_t *len)
{
	FILE *f = fopencookie(len, "w", (cookie_io_functions_t){NULL, sink_write, NULL, NULL});
	if (!f) {
		perror("fleet_scale: fopencookie");
		exit(1);
	}
	return f;
}

int main(int argc, char **argv)
{
	unsigned nh = argc > 1 ? (unsigned)atoi(argv[1]) : 1000;
	unsigned np = argc > 2 ? (unsigned)atoi(argv[2]) : 200;
	char dir[] = "/tmp/osprof-fleet.XXXXXX", path[512], err[512];
	if (nh < 2 || !np || !mkdtemp(dir)) {
		fprintf(stderr, "usage: fleet_scale [HOSTS >= 2] [PROFILES]\n");
		return 2;
	}
	for (unsigned h = 0; h < nh; h++) {
		struct osp_set *s = make_host(h, np);
		snprintf(path, sizeof(path), "%s/h%04u.osp", dir, h);
		if (osp_set_save(s, path, err, sizeof(err))) {
			fprintf(stderr, "fleet_scale: %s\n", err);
			return 1;
		}
		osp_set_free(s);
	}
	struct osp_set **sets = calloc(nh, sizeof(*sets));
	struct mark t0 = now();
	for (unsigned h = 0; h < nh; h++) {
		snprintf(path, sizeof(path), "%s/h%04u.osp", dir, h);
		if (osp_set_load(path, &sets[h], err, sizeof(err))) {
			fprintf(stderr, "fleet_scale: %s\n", err);
			return 1;
		}
	}
	struct mark t1 = now();
	struct osp_set *fleet = osp_set_new(1);
	for (unsigned h = 0; h < nh; h++)
		if (osp_set_merge_check(sets[0], sets[h], err, sizeof(err)) ||
		    osp_set_merge_dim(fleet, sets[h], "host", osp_get_meta(sets[h], "host"), err,
		                      sizeof(err))) {
			fprintf(stderr, "fleet_scale: merge: %s\n", err);
			return 1;
		}
	struct mark t2 = now();
	struct osp_diff_opts o;
	osp_diff_opts_default(&o);
	struct osp_host_ranking hr;
	if (osp_diff_hosts(fleet, &o, &hr, err, sizeof(err))) {
		fprintf(stderr, "fleet_scale: diff: %s\n", err);
		return 1;
	}
	struct mark t3 = now();
	size_t tlen = 0, plen = 0;
	struct osp_prom_opts po = {0, NULL};
	FILE *f = counting_sink(&tlen);
	osp_render_prometheus(f, fleet, &po);
	fclose(f);
	struct mark t4 = now();
	f = counting_sink(&plen);
	osp_render_prometheus_pb(f, fleet, &po);
	fclose(f);
	struct mark t5 = now();
	double load = (double)(t1.cpu - t0.cpu) / 1e9;
	printf("fleet_scale: %u hosts x %u profiles = %zu series\n", nh, np, fleet->n);
	line("load the files", t0, t1, 0);
	printf("\n");
	line("merge (host dimension)", t1, t2, load);
	printf("\n");
	line("diff --by host", t2, t3, load);
	printf("\n");
	line("/metrics render, text", t3, t4, load);
	printf(", %.1f MB\n", (double)tlen / 1e6);
	line("/metrics render, protobuf", t4, t5, load);
	printf(", %.1f MB\n", (double)plen / 1e6);
	/* As `osprof merge` runs: each file loaded, added and freed, so the
	 * memory of one input is reused by the next; its cost is what it adds
	 * to loading and freeing the same files. */
	struct mark s0 = now();
	for (unsigned h = 0; h < nh; h++) {
		struct osp_set *x;
		snprintf(path, sizeof(path), "%s/h%04u.osp", dir, h);
		if (osp_set_load(path, &x, err, sizeof(err)))
			return 1;
		osp_set_free(x);
	}
	struct mark s1 = now();
	struct osp_set *fleet2 = osp_set_new(1);
	for (unsigned h = 0; h < nh; h++) {
		struct osp_set *x;
		snprintf(path, sizeof(path), "%s/h%04u.osp", dir, h);
		if (osp_set_load(path, &x, err, sizeof(err)) ||
		    osp_set_merge_dim(fleet2, x, "host", osp_get_meta(x, "host"), err, sizeof(err)))
			return 1;
		osp_set_free(x);
	}
	struct mark s2 = now();
	osp_set_free(fleet2);
	double l2 = (double)(s1.cpu - s0.cpu) / 1e9, m2 = (double)(s2.cpu - s1.cpu) / 1e9 - l2;
	printf("  merge as `osprof merge` runs (load, add, free each file): load+free cpu %.3f s, "
	       "load+add+free cpu %.3f s: merge cpu %.3f s (%.2fx load)\n",
	       l2, l2 + m2, m2, m2 / l2);
	unsigned found = 0;
	for (size_t i = 0; i < hr.n && i < nh / 100; i++)
		found += !strcmp(hr.hosts[i].host + strlen(hr.hosts[i].host) - 2, "07");
	printf("  outliers (every 100th host) ranked first: %u of %u\n", found, nh / 100);
	osp_host_ranking_free(&hr);
	osp_set_free(fleet);
	for (unsigned h = 0; h < nh; h++) {
		osp_set_free(sets[h]);
		snprintf(path, sizeof(path), "%s/h%04u.osp", dir, h);
		unlink(path);
	}
	free(sets);
	rmdir(dir);
	return 0;
}
