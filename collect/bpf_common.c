/* Shared eBPF infrastructure, user-space side (collect/bpf_common.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <osprof/clock.h>
#include "collect/bpf_common.h"
#include "collect/nest.h"
#include "osp_common.skel.h"
#include "osp_floor.skel.h"

#define TRACEFS "/sys/kernel/tracing"

static const char *const mode_names[OSP_ATTACH_NMODES] = {
    "tp_btf", "raw_tp", "tracepoint", "fentry", "kprobe", "uprobe",
};

const char *osp_attach_mode_name(enum osp_attach_mode m)
{
	return (unsigned)m < OSP_ATTACH_NMODES ? mode_names[m] : "?";
}

/* libbpf's own messages are noise for users; keep warnings with -v only. */
static int quiet_print(enum libbpf_print_level lvl, const char *fmt, va_list ap)
{
	if (lvl == LIBBPF_WARN && getenv("OSPROF_LIBBPF_DEBUG"))
		return vfprintf(stderr, fmt, ap);
	return 0;
}

int osp_bpf_check(const char *layer)
{
	libbpf_set_print(quiet_print);
	if (geteuid() != 0) {
		fprintf(stderr,
		        "osprof: the %s layer needs root (CAP_BPF and CAP_PERFMON): run osprof as "
		        "root\n",
		        layer);
		return -EPERM;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
		fprintf(stderr,
		        "osprof: the %s layer needs kernel BTF (/sys/kernel/btf/vmlinux: %s); use "
		        "a kernel built with CONFIG_DEBUG_INFO_BTF=y\n",
		        layer, strerror(errno));
		return -ENOENT;
	}
	return 0;
}

const char *osp_tracefs(void)
{
	if (access(TRACEFS "/events", F_OK) == 0)
		return TRACEFS;
	if (mkdir(TRACEFS, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "osprof: cannot create %s: %s\n", TRACEFS, strerror(errno));
		return NULL;
	}
	if (mount("tracefs", TRACEFS, "tracefs", 0, NULL) != 0) {
		fprintf(stderr, "osprof: cannot mount tracefs at %s: %s\n", TRACEFS,
		        strerror(errno));
		return NULL;
	}
	return TRACEFS;
}

__u32 osp_bpf_pid_slots(void)
{
	unsigned long pid_max = 32768;
	FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
	if (f) {
		if (fscanf(f, "%lu", &pid_max) != 1)
			pid_max = 32768;
		fclose(f);
	}
	if (pid_max > (1ul << 22)) /* PID_MAX_LIMIT on 64-bit */
		pid_max = 1ul << 22;
	__u32 n = 1;
	while (n < pid_max)
		n <<= 1;
	return n;
}

__u32 osp_bpf_hist_entries(__u32 dflt)
{
	/* A small map makes "map full" reachable in a test of loss handling
	 * (tests/sh/cli_losses.sh) without thousands of processes. */
	const char *e = getenv("OSPROF_HIST_ENTRIES");
	unsigned long v = e ? strtoul(e, NULL, 10) : 0;
	return v && v < dflt ? (__u32)v : dflt;
}

__u32 osp_bpf_thread_slots(void)
{
	__u32 n = osp_bpf_pid_slots();
	return n < OSP_BPF_THREAD_SLOTS_MAX ? n : OSP_BPF_THREAD_SLOTS_MAX;
}

void osp_bpf_pick(struct bpf_program *btf, struct bpf_program *raw, enum osp_attach_mode m)
{
	bpf_program__set_autoload(btf, m == OSP_ATTACH_TP_BTF);
	bpf_program__set_autoload(raw, m != OSP_ATTACH_TP_BTF);
}

enum osp_attach_mode osp_bpf_tp_mode(void)
{
	static int mode = -1;
	if (mode >= 0)
		return (enum osp_attach_mode)mode;
	const char *env = getenv("OSPROF_ATTACH");
	if (env && !strcmp(env, "raw_tp"))
		return (enum osp_attach_mode)(mode = OSP_ATTACH_RAW_TP);
	/* Probe: does a tp_btf program load here? */
	struct osp_floor_bpf *f = osp_floor_bpf__open();
	mode = OSP_ATTACH_RAW_TP;
	if (f) {
		osp_bpf_pick(f->progs.osp_floor_enter_btf, f->progs.osp_floor_enter_raw,
		             OSP_ATTACH_TP_BTF);
		osp_bpf_pick(f->progs.osp_floor_exit_btf, f->progs.osp_floor_exit_raw,
		             OSP_ATTACH_TP_BTF);
		if (osp_floor_bpf__load(f) == 0)
			mode = OSP_ATTACH_TP_BTF;
		osp_floor_bpf__destroy(f);
	}
	return (enum osp_attach_mode)mode;
}

int osp_btf_has_func(const char *name)
{
	static struct btf *vmlinux;
	if (!vmlinux && !(vmlinux = btf__load_vmlinux_btf()))
		return 0;
	return btf__find_by_name_kind(vmlinux, name, BTF_KIND_FUNC) > 0;
}

void osp_bpf_note_attach(struct osp_session *s, const char *layer, const char *target,
                         enum osp_attach_mode m)
{
	const char *name = osp_attach_mode_name(m);
	if (s->verbose)
		fprintf(stderr, "osprof: %s: %s via %s\n", layer, target, name);
	if (!s->set)
		return;
	char item[96];
	snprintf(item, sizeof(item), "%s:%s", layer, name);
	const char *cur = osp_get_meta(s->set, "attach_modes");
	if (!cur) {
		osp_set_meta(s->set, "attach_modes", item);
		return;
	}
	size_t n = strlen(item);
	for (const char *p = cur; (p = strstr(p, item)); p += n)
		if ((p == cur || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return;
	osp_set_metaf(s->set, "attach_modes", "%s,%s", cur, item);
}

/* ---- the session's common object ---- */

static struct {
	int refs;
	int started;
	struct osp_common_bpf *skel;
	enum osp_attach_mode mode;
	int cgroup_fd;
	__u64 probe_cost;
	struct bpf_link *links[3];
	int nlinks;
	int stats_fd; /* --probe-time: the kernel times programs while it is open */
} common = {.cgroup_fd = -1, .stats_fd = -1};

__u64 osp_bpf_probe_cost(void)
{
	return common.probe_cost;
}

void osp_bpf_cfg_fill(const struct osp_session *s, struct osp_bpf_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	/* run: root_pid is only known at attach; no target option means TREE. */
	if (s->root_pid > 0 || (!s->all && !s->npids && !s->cgroup && !s->comm))
		cfg->filter = OSP_FILTER_TREE;
	else if (s->npids)
		cfg->filter = OSP_FILTER_PIDS;
	else if (s->cgroup)
		cfg->filter = OSP_FILTER_CGROUP;
	else if (s->comm)
		cfg->filter = OSP_FILTER_COMM;
	else
		cfg->filter = OSP_FILTER_ALL;
	cfg->r = s->r;
	cfg->pid_mask = osp_bpf_pid_slots() - 1;
	cfg->tid_mask = osp_bpf_thread_slots() - 1;
	cfg->self_tgid = (__u32)getpid();
	cfg->start_ns = s->start_ns;
	cfg->slice_ns = s->slice_ns;
	cfg->split_preempt = s->split && !strcmp(s->split, "preempt");
	cfg->nest = osp_nest_flags();
	if (s->comm)
		strncpy(cfg->comm, s->comm, sizeof(cfg->comm) - 1);
}

int osp_bpf_share_maps(struct bpf_object *obj)
{
	static const char *const names[] = {"osp_follow", "osp_pseq", "osp_clock", "osp_cgroup"};
	if (!common.skel) {
		fprintf(stderr, "osprof: internal error: osp_bpf_common_acquire() not called "
		                "before OSP_BPF_SETUP\n");
		return -EINVAL;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct bpf_map *m = bpf_object__find_map_by_name(obj, names[i]);
		struct bpf_map *c = bpf_object__find_map_by_name(common.skel->obj, names[i]);
		if (!m)
			continue;
		int rc = bpf_map__reuse_fd(m, bpf_map__fd(c));
		if (rc) {
			fprintf(stderr, "osprof: cannot share BPF map %s: %s\n", names[i],
			        strerror(-rc));
			return rc;
		}
	}
	return osp_nest_share(obj);
}

static __u64 thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + (__u64)ts.tv_nsec;
}

/* Cost of one empty probe: the same syscall loop timed without and with
 * empty programs on sys_enter and sys_exit, best of several rounds. Thread
 * CPU time, not wall time, so that other load on the machine (which only
 * delays the loop) does not count; the probes run on the thread's CPU time. */
static __u64 calibrate(enum osp_attach_mode mode)
{
	enum { N = 20000, ROUNDS = 5 };
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	struct osp_floor_bpf *f = osp_floor_bpf__open();
	__u64 cost = 0, best[2] = {UINT64_MAX, UINT64_MAX};
	char c;
	if (!f)
		goto out;
	osp_bpf_pick(f->progs.osp_floor_enter_btf, f->progs.osp_floor_enter_raw, mode);
	osp_bpf_pick(f->progs.osp_floor_exit_btf, f->progs.osp_floor_exit_raw, mode);
	if (osp_floor_bpf__load(f))
		goto out;
	for (int with = 0; with < 2; with++) {
		if (with && osp_floor_bpf__attach(f))
			goto out;
		for (int r = 0; r < ROUNDS; r++) {
			__u64 t0 = thread_cpu_ns();
			for (int i = 0; i < N; i++)
				if (read(fd, &c, 0) < 0)
					break;
			__u64 dt = thread_cpu_ns() - t0;
			if (dt < best[with])
				best[with] = dt;
		}
	}
	if (best[1] > best[0])
		cost = (best[1] - best[0]) / (2ull * N);
out:
	osp_floor_bpf__destroy(f);
	close(fd);
	return cost;
}

static void store_common_meta(struct osp_session *s)
{
	if (s->set)
		osp_set_metaf(s->set, "probe_cost_ns", "%llu",
		              (unsigned long long)common.probe_cost);
}

int osp_bpf_common_acquire(struct osp_session *s)
{
	if (common.refs++ > 0)
		return 0;
	int rc = osp_bpf_check("kernel");
	if (rc)
		goto fail;
	if (s->cgroup) {
		common.cgroup_fd = open(s->cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (common.cgroup_fd < 0) {
			rc = -errno;
			fprintf(stderr, "osprof: -c %s: %s\n", s->cgroup, strerror(errno));
			goto fail;
		}
	}
	common.mode = osp_bpf_tp_mode();
	common.skel = osp_common_bpf__open();
	if (!common.skel) {
		rc = -errno;
		fprintf(stderr, "osprof: cannot open the common BPF object: %s\n", strerror(errno));
		goto fail;
	}
	struct osp_common_bpf *k = common.skel;
	osp_bpf_cfg_fill(s, (struct osp_bpf_cfg *)&k->rodata->osp_cfg);
	__u32 slots = osp_bpf_pid_slots();
	bpf_map__set_max_entries(k->maps.osp_follow, slots);
	bpf_map__set_max_entries(k->maps.osp_pseq,
	                         k->rodata->osp_cfg.split_preempt ? osp_bpf_thread_slots() : 1);
	osp_bpf_pick(k->progs.osp_fork_btf, k->progs.osp_fork_raw, common.mode);
	osp_bpf_pick(k->progs.osp_exit_btf, k->progs.osp_exit_raw, common.mode);
	osp_bpf_pick(k->progs.osp_switch_btf, k->progs.osp_switch_raw, common.mode);
	if (!k->rodata->osp_cfg.split_preempt) {
		bpf_program__set_autoload(k->progs.osp_switch_btf, false);
		bpf_program__set_autoload(k->progs.osp_switch_raw, false);
	}
	rc = osp_common_bpf__load(k);
	if (rc) {
		fprintf(stderr, "osprof: cannot load the common BPF object (%s): %s\n",
		        osp_attach_mode_name(common.mode), strerror(-rc));
		goto fail;
	}
	common.probe_cost = calibrate(common.mode);
	store_common_meta(s);
	return 0;
fail:
	osp_bpf_common_release(s);
	return rc < 0 ? rc : -EINVAL;
}

static int follow(struct osp_common_bpf *k, pid_t pid, __u32 flags)
{
	__u32 slot = (__u32)pid & (osp_bpf_pid_slots() - 1), v = (__u32)pid | flags;
	return bpf_map__update_elem(k->maps.osp_follow, &slot, sizeof(slot), &v, sizeof(v), 0);
}

static int attach_one(struct osp_session *s, struct bpf_program *btf, struct bpf_program *raw,
                      const char *target)
{
	struct bpf_program *p = common.mode == OSP_ATTACH_TP_BTF ? btf : raw;
	struct bpf_link *l = bpf_program__attach(p);
	if (!l) {
		int rc = -errno;
		fprintf(stderr, "osprof: cannot attach to %s (%s): %s\n", target,
		        osp_attach_mode_name(common.mode), strerror(errno));
		return rc;
	}
	common.links[common.nlinks++] = l;
	osp_bpf_note_attach(s, "common", target, common.mode);
	return 0;
}

int osp_bpf_common_start(struct osp_session *s)
{
	if (!common.skel)
		return -EINVAL;
	store_common_meta(s);
	if (common.started)
		return 0;
	common.started = 1;
	if (s->probe_time) {
		common.stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (common.stats_fd < 0)
			fprintf(stderr,
			        "osprof: --probe-time: cannot enable BPF run-time statistics: %s; "
			        "going on without\n",
			        strerror(errno));
	}
	struct osp_common_bpf *k = common.skel;
	int filter = k->rodata->osp_cfg.filter, rc;
	/* Slices count from now: the targets are released right after attach. */
	__u32 zero = 0;
	__u64 now = osp_now_ns();
	s->start_ns = now;
	if ((rc = bpf_map__update_elem(k->maps.osp_clock, &zero, sizeof(zero), &now, sizeof(now),
	                               0)))
		goto err;
	if (filter == OSP_FILTER_TREE) {
		if (s->root_pid <= 0) {
			fprintf(stderr, "osprof: internal error: no root pid to follow\n");
			return -EINVAL;
		}
		if ((rc = follow(k, s->root_pid, OSP_FOLLOW_INHERIT)))
			goto err;
	} else if (filter == OSP_FILTER_PIDS) {
		for (size_t i = 0; i < s->npids; i++) {
			if (kill(s->pids[i], 0) != 0 && errno == ESRCH) {
				fprintf(stderr, "osprof: -p: no process %d\n", (int)s->pids[i]);
				return -ESRCH;
			}
			if ((rc = follow(k, s->pids[i], OSP_FOLLOW_INHERIT)))
				goto err;
		}
	} else if (filter == OSP_FILTER_CGROUP) {
		__u32 zero = 0, fd = (__u32)common.cgroup_fd;
		if ((rc = bpf_map__update_elem(k->maps.osp_cgroup, &zero, sizeof(zero), &fd,
		                               sizeof(fd), 0)))
			goto err;
	}
	if (filter == OSP_FILTER_TREE || filter == OSP_FILTER_PIDS) {
		if ((rc = attach_one(s, k->progs.osp_fork_btf, k->progs.osp_fork_raw,
		                     "sched_process_fork")) ||
		    (rc = attach_one(s, k->progs.osp_exit_btf, k->progs.osp_exit_raw,
		                     "sched_process_exit")))
			return rc;
	}
	if (k->rodata->osp_cfg.split_preempt &&
	    (rc = attach_one(s, k->progs.osp_switch_btf, k->progs.osp_switch_raw, "sched_switch")))
		return rc;
	return 0;
err:
	fprintf(stderr, "osprof: cannot set the target filter: %s\n", strerror(-rc));
	return rc;
}

void osp_bpf_common_release(struct osp_session *s)
{
	(void)s;
	if (common.refs <= 0 || --common.refs > 0)
		return;
	while (common.nlinks > 0)
		bpf_link__destroy(common.links[--common.nlinks]);
	osp_common_bpf__destroy(common.skel);
	common.skel = NULL;
	common.started = 0;
	if (common.cgroup_fd >= 0)
		close(common.cgroup_fd);
	common.cgroup_fd = -1;
	if (common.stats_fd >= 0)
		close(common.stats_fd);
	common.stats_fd = -1;
}

/* ---- reading histogram maps ---- */

void osp_bpf_widen_from_buckets(struct osp_set *set, const char *layer)
{
	for (size_t i = 0; i < set->n; i++) {
		struct osp_profile *p = set->profiles[i];
		struct osp_hist *h = &p->hist;
		if (strcmp(p->layer, layer) || !h->count)
			continue;
		if (h->min == UINT64_MAX)
			h->min = osp_bucket_lo((unsigned)osp_hist_first(h), h->r);
		if (h->max == 0 && osp_hist_last(h) > 0)
			h->max = osp_bucket_hi((unsigned)osp_hist_last(h), h->r);
	}
}

int osp_bpf_profile_of(struct osp_session *s, const char *layer, osp_bpf_desc_fn fn, void *ctx,
                       const struct osp_hkey *k, struct osp_profile **p)
{
	struct osp_bpf_desc d;
	memset(&d, 0, sizeof(d));
	d.layer = layer;
	d.unit = OSP_UNIT_NS;
	int e = fn(ctx, k, &d);
	if (e)
		return e;
	if (!d.op)
		return 1;
	if (!(*p = osp_set_get(s->set, d.layer, d.op, d.dims, d.ndims)))
		return -ENOMEM;
	(*p)->unit = d.unit;
	return 0;
}

int osp_bpf_read_hists(struct osp_session *s, int map_fd, const char *layer, osp_bpf_desc_fn fn,
                       void *ctx, int reset)
{
	int ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0)
		return -EINVAL;
	struct osp_hval *vals = calloc((size_t)ncpu, sizeof(*vals));
	struct osp_hkey *keys = NULL, cur, next;
	size_t n = 0, cap = 0;
	int rc = 0;
	if (!vals)
		return -ENOMEM;
	/* Keys first: deleting while walking would restart the walk. */
	void *prev = NULL;
	while (bpf_map_get_next_key(map_fd, prev, &next) == 0) {
		if (n == cap) {
			size_t nc = cap ? 2 * cap : 256;
			struct osp_hkey *g = realloc(keys, nc * sizeof(*g));
			if (!g) {
				rc = -ENOMEM;
				goto out;
			}
			keys = g;
			cap = nc;
		}
		keys[n++] = next;
		cur = next;
		prev = &cur;
	}
	unsigned nb = osp_nbuckets(s->set->r);
	for (size_t i = 0; i < n; i++) {
		const struct osp_hkey *k = &keys[i];
		int e = reset ? bpf_map_lookup_and_delete_elem(map_fd, k, vals)
		              : bpf_map_lookup_elem(map_fd, k, vals);
		if (e)
			continue; /* deleted meanwhile */
		struct osp_profile *p;
		int f = osp_bpf_profile_of(s, layer, fn, ctx, k, &p);
		if (f < 0) {
			rc = f;
			goto out;
		}
		if (f > 0)
			continue;
		__u64 cnt = 0, sum = 0;
		for (int c = 0; c < ncpu; c++) {
			if (k->bucket == OSP_BKT_MINMAX) {
				cnt = vals[c].count > cnt ? vals[c].count : cnt;
				sum = vals[c].sum > sum ? vals[c].sum : sum;
			} else {
				cnt += vals[c].count;
				sum += vals[c].sum;
			}
		}
		if (k->bucket == OSP_BKT_PARENT) {
			if (osp_nest_add(p, k->slice, cnt)) {
				rc = -ENOMEM;
				goto out;
			}
			continue;
		}
		if (k->bucket == OSP_BKT_MINMAX) {
			if (sum && ~sum < p->hist.min)
				p->hist.min = ~sum;
			if (cnt > p->hist.max)
				p->hist.max = cnt;
			continue;
		}
		if (k->bucket >= nb || !cnt)
			continue;
		osp_hist_add_bucket(&p->hist, k->bucket, cnt);
		p->hist.total += sum;
		if (s->set->slice_ns) {
			uint64_t *b = osp_profile_slice(p, k->slice);
			if (!b) {
				rc = -ENOMEM;
				goto out;
			}
			b[k->bucket] += cnt;
		}
	}
	osp_bpf_widen_from_buckets(s->set, layer);
	osp_nest_check(s->set);
out:
	free(keys);
	free(vals);
	return rc;
}

/* The kernel's counters of the object's programs, summed: recursion
 * misses, and run time and runs (nonzero only while statistics are on). */
static void obj_counters(struct bpf_object *obj, __u64 *misses, __u64 *run_ns, __u64 *runs)
{
	*misses = *run_ns = *runs = 0;
	struct bpf_program *p;
	bpf_object__for_each_program(p, obj)
	{
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		memset(&info, 0, sizeof(info));
		int fd = bpf_program__fd(p);
		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len)) {
			*misses += info.recursion_misses;
			*run_ns += info.run_time_ns;
			*runs += info.run_cnt;
		}
	}
}

__u64 osp_bpf_obj_misses(struct bpf_object *obj)
{
	__u64 misses, run_ns, runs;
	obj_counters(obj, &misses, &run_ns, &runs);
	return misses;
}

/* Adds n to KEY and to KEY.LAYER (the object's name without "_bpf"), so
 * that the end-of-run line can say which layer lost (or spent) what. */
static void add_count(struct osp_session *s, struct bpf_object *obj, const char *key, __u64 n)
{
	if (!s->set)
		return;
	osp_meta_add_u64(s->set, key, n);
	if (!n)
		return;
	const char *name = bpf_object__name(obj);
	size_t len = strlen(name);
	if (len > 4 && !strcmp(name + len - 4, "_bpf"))
		len -= 4;
	char k[64];
	snprintf(k, sizeof(k), "%s.%.*s", key, (int)len, name);
	osp_meta_add_u64(s->set, k, n);
}

int osp_bpf_read_stats(struct osp_session *s, struct bpf_object *obj, struct osp_bpf_stats *prev)
{
	int ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0)
		return -EINVAL;
	__u64 misses, run_ns, runs;
	obj_counters(obj, &misses, &run_ns, &runs);
	__u64 dm = prev && misses >= prev->misses ? misses - prev->misses : misses;
	__u64 dns = prev && run_ns >= prev->run_ns ? run_ns - prev->run_ns : run_ns;
	__u64 druns = prev && runs >= prev->runs ? runs - prev->runs : runs;
	if (prev) {
		prev->misses = misses;
		prev->run_ns = run_ns;
		prev->runs = runs;
	}
	add_count(s, obj, "lost_events", dm);
	if (druns) {
		add_count(s, obj, "probe_runs", druns);
		add_count(s, obj, "probe_ns", dns);
	}
	struct bpf_map *m = bpf_object__find_map_by_name(obj, "osp_stats");
	int stats_fd = m ? bpf_map__fd(m) : -1;
	__u64 *v = calloc((size_t)ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	static const char *const names[OSP_STAT_MAX] = {"lost_events", "unpaired_events"};
	for (__u32 i = 0; i < OSP_STAT_MAX; i++) {
		if (!names[i] || bpf_map_lookup_elem(stats_fd, &i, v))
			continue;
		__u64 sum = 0;
		for (int c = 0; c < ncpu; c++)
			sum += v[c];
		__u64 d = prev && sum >= prev->v[i] ? sum - prev->v[i] : sum;
		if (prev)
			prev->v[i] = sum;
		add_count(s, obj, names[i], d);
	}
	free(v);
	return 0;
}
