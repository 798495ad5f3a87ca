/* fs layer: the start/end tracepoint pairs of the file systems of this kernel,
 * discovered in tracefs (collect/fs_events.c) and timed per thread by one BPF
 * program attached to every event with a cookie naming the pair and side;
 * plus kernel functions by name with --func (collect/kfunc.c).
 *
 * The program is a raw tracepoint where the kernel takes a cookie for those
 * (6.10+: cheaper to fire, and detaching does not wait for an RCU grace
 * period per event), else a perf-event tracepoint. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "collect/bpf_common.h"
#include "collect/bpf_fast.h"
#include "collect/bpf/kl_types.h"
#include "collect/fs_default.h"
#include "collect/fs_events.h"
#include "collect/fs_fuse.h"
#include "collect/fsops.h"
#include "collect/kfunc.h"
#include "collect/kl_util.h"
#include "collect/nest.h"
#include "collect/bpf/syscall.h"
#include "fs.skel.h"

struct fs_state {
	struct fs_pairs pairs;
	struct fs_bpf *skel;
	struct bpf_link **links; /* perf-event tracepoints */
	size_t nlinks;
	int *rawfds; /* raw tracepoint links */
	size_t nraw;
	int raw_ok;  /* the raw_tp program loaded (the kernel allows cookies) */
	unsigned by; /* KL_BY_* */
	struct kfuncs *kfuncs;
	struct fs_fuse *fuse; /* FUSE request round trips, when fuse is here */
	struct fsops *fsops;  /* the VFS ops of each file system (fsops.h) */
	struct osp_bpf_stats stats;
	struct osp_bpf_fast plain; /* plain profiles (no --by, -i, --split) */
	int acquired;
	int exported;     /* fs_stacks is the nesting parent of block and lock */
	__u32 nest_n;     /* entries of fs_nest (plain parent tables), 0: none */
	__u64 *nest_prev; /* their totals at the previous reset */
};

/* OSPROF_FS_SUBSYS=ext4,jbd2 narrows discovery (fewer probes, e.g. tests). */
static const char *only(void)
{
	const char *e = getenv("OSPROF_FS_SUBSYS");
	return e && *e ? e : NULL;
}

/* FUSE request timing: when the kernel has the fuse tracepoints and
 * OSPROF_FS_SUBSYS (if set) names fuse. */
static int fuse_wanted(const char *tfs)
{
	const char *o = only();
	if (o) {
		char list[512];
		snprintf(list, sizeof(list), ",%s,", o);
		if (!strstr(list, ",fuse,"))
			return 0;
	}
	return fs_fuse_present(tfs);
}

static void fs_destroy(struct osp_session *s, int slot)
{
	struct fs_state *st = s->layer_state[slot];
	if (!st)
		return;
	if (st->exported)
		osp_nest_export_fs(-1, NULL, NULL);
	free(st->nest_prev);
	kl_links_destroy(st->links, st->nlinks);
	for (size_t i = 0; i < st->nraw; i++)
		close(st->rawfds[i]);
	free(st->rawfds);
	fs_bpf__destroy(st->skel);
	osp_bpf_fast_free(&st->plain);
	kfuncs_free(st->kfuncs);
	fs_fuse_free(st->fuse);
	fsops_free(st->fsops);
	fs_pairs_free(&st->pairs);
	if (st->acquired)
		osp_bpf_common_release(s);
	free(st);
	s->layer_state[slot] = NULL;
}

/* Names pair `pair` as a parent of block requests and lock waits. */
static int pair_name(void *ctx, unsigned pair, const char **op, const char **fs)
{
	struct fs_state *st = ctx;
	if (pair >= st->pairs.n)
		return -1;
	*op = st->pairs.v[pair].op;
	*fs = st->pairs.v[pair].subsys;
	return 0;
}

static int fs_prepare_(struct osp_session *s, int slot)
{
	int rc = osp_bpf_check("fs");
	if (rc)
		return rc;
	struct fs_state *st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	s->layer_state[slot] = st;
	const char *tfs = osp_tracefs();
	if (!tfs)
		return -ENOENT;
	if ((rc = osp_bpf_common_acquire(s)))
		return rc;
	st->acquired = 1;
	st->by = kl_by_code("fs", s->by, 0, s->verbose && s->by && strcmp(s->by, "fs"));
	if ((rc = fs_discover(tfs, only(), &st->pairs)))
		return rc;
	size_t all_pairs = st->pairs.n;
	if ((rc = fs_pairs_select(&st->pairs, s->fs_ops, s->verbose))) {
		s->bad_input |= rc == -EINVAL; /* an unknown --fs-ops name: exit 2 */
		return rc;
	}
	/* which pairs: readers of the file know helpers were left out */
	osp_set_metaf(s->set, "fs_ops", "%s (%zu of %zu tracepoint pairs)",
	              s->fs_ops ? s->fs_ops : "vfs", st->pairs.n, all_pairs);
	if (s->funcs &&
	    (rc = kfuncs_prepare(s, s->funcs, (unsigned)st->pairs.n, st->by, &st->kfuncs)))
		return rc;
	if (fuse_wanted(tfs) && (rc = fs_fuse_prepare(s, st->by, &st->fuse)))
		return rc;
	if ((rc = fsops_prepare(s, st->by, &st->fsops)))
		return rc;
	if (st->pairs.n == 0) {
		if (st->kfuncs || st->fuse || st->fsops)
			return 0;
		fprintf(stderr,
		        "osprof: fs: nothing to time: no file-system tracepoint pairs in "
		        "%s/events%s%s, and no VFS ops (see above)\n",
		        tfs, only() ? " for OSPROF_FS_SUBSYS=" : "", only() ? only() : "");
		return -ENOENT;
	}
	/* With the raw_tp program first; a kernel without raw_tp cookies refuses
	 * bpf_get_attach_cookie there, and the object is loaded again without. */
	/* OSPROF_ATTACH=tracepoint forces the fallback (tests use it). */
	const char *force = getenv("OSPROF_ATTACH");
	st->raw_ok = !(force && !strcmp(force, "tracepoint"));
	for (;; st->raw_ok = 0) {
		if (!(st->skel = fs_bpf__open())) {
			rc = -errno;
			fprintf(stderr, "osprof: fs: cannot open the BPF object: %s\n",
			        strerror(errno));
			return rc;
		}
		if ((rc = OSP_BPF_SETUP(st->skel, s)))
			return rc;
		struct osp_bpf_cfg *cfg = (struct osp_bpf_cfg *)&st->skel->rodata->osp_cfg;
		cfg->by = st->by;
		bpf_map__set_max_entries(st->skel->maps.fs_stacks, osp_bpf_thread_slots());
		osp_bpf_fast_free(&st->plain);
		if ((rc = osp_bpf_fast_init(&st->plain, st->skel->maps.fs_fast,
		                            st->skel->maps.fs_minmax, (__u32)st->pairs.n, s->r,
		                            !cfg->by && !cfg->slice_ns && !cfg->split_preempt)))
			return rc;
		/* plain parent tables: one counter per (pair, system call) */
		int plain = !cfg->by && !cfg->slice_ns && !cfg->split_preempt;
		st->nest_n = plain && (cfg->nest & OSP_NEST_SYS)
		                 ? (__u32)st->pairs.n * OSP_NEST_SYS_SLOTS
		                 : 0;
		bpf_map__set_max_entries(st->skel->maps.fs_nest, st->nest_n ? st->nest_n : 1);
		free(st->nest_prev);
		if (st->nest_n && !(st->nest_prev = calloc(st->nest_n, sizeof(__u64))))
			return -ENOMEM;
		bpf_program__set_autoload(st->skel->progs.fs_event_raw, st->raw_ok);
		libbpf_print_fn_t old = st->raw_ok ? libbpf_set_print(NULL) : NULL;
		rc = fs_bpf__load(st->skel);
		if (st->raw_ok)
			libbpf_set_print(old);
		if (!rc) {
			/* block and lock, prepared next, read the fs op in flight */
			osp_nest_export_fs(bpf_map__fd(st->skel->maps.fs_stacks), pair_name, st);
			st->exported = 1;
			return 0;
		}
		fs_bpf__destroy(st->skel);
		st->skel = NULL;
		if (!st->raw_ok) {
			fprintf(stderr, "osprof: fs: cannot load the BPF object: %s\n",
			        strerror(-rc));
			return rc;
		}
	}
}

/* A layer whose prepare fails is not destroyed by its caller: clean up here. */
static int fs_prepare(struct osp_session *s, int slot)
{
	int rc = fs_prepare_(s, slot);
	if (rc)
		fs_destroy(s, slot);
	return rc;
}

/* BPF_RAW_TRACEPOINT_OPEN with a cookie (kernel 6.10 uapi; the system's
 * linux/bpf.h and libbpf 1.1 predate it). fd, or -errno. */
static int raw_open(int prog_fd, const char *name, __u64 cookie)
{
	struct {
		__u64 name;
		__u32 prog_fd;
		__u32 pad;
		__u64 cookie;
	} attr = {.name = (__u64)(unsigned long)name, .prog_fd = (__u32)prog_fd, .cookie = cookie};
	int fd = (int)syscall(__NR_bpf, BPF_RAW_TRACEPOINT_OPEN, &attr, sizeof(attr));
	return fd < 0 ? -errno : fd;
}

/* Attaches one event; *raw stays 1 only when it went through raw_tp. */
static int attach_event(struct fs_state *st, const char *subsys, const char *event, __u64 cookie,
                        int *raw)
{
	if (st->raw_ok) {
		int fd = raw_open(bpf_program__fd(st->skel->progs.fs_event_raw), event, cookie);
		if (fd >= 0) {
			st->rawfds[st->nraw++] = fd;
			return 0;
		}
		/* E2BIG/EINVAL: no cookie field in this kernel's raw_tp open;
		 * ENOENT: the event's tracepoint has another name. Either way
		 * the perf-event path serves. */
		if (fd == -E2BIG || fd == -EINVAL)
			st->raw_ok = 0;
	}
	*raw = 0;
	LIBBPF_OPTS(bpf_tracepoint_opts, o, .bpf_cookie = cookie);
	struct bpf_link *l =
	    bpf_program__attach_tracepoint_opts(st->skel->progs.fs_event, subsys, event, &o);
	if (!l) {
		int rc = -errno;
		fprintf(stderr, "osprof: fs: cannot attach to tracepoint %s:%s: %s\n", subsys,
		        event, strerror(errno));
		return rc;
	}
	st->links[st->nlinks++] = l;
	return 0;
}

static int fs_attach(struct osp_session *s, int slot)
{
	struct fs_state *st = s->layer_state[slot];
	int rc = osp_bpf_common_start(s);
	if (rc)
		return rc;
	if (st->pairs.n) {
		st->links = calloc(2 * st->pairs.n, sizeof(*st->links));
		st->rawfds = calloc(2 * st->pairs.n, sizeof(*st->rawfds));
		if (!st->links || !st->rawfds)
			return -ENOMEM;
	}
	int *raw = malloc((st->pairs.n + 1) * sizeof(*raw));
	if (!raw)
		return -ENOMEM;
	/* Ends first: a start seen before its end's probe exists would be
	 * left open forever. */
	for (size_t i = 0; i < st->pairs.n && !rc; i++) {
		raw[i] = 1;
		rc = attach_event(st, st->pairs.v[i].subsys, st->pairs.v[i].end, i | KL_COOKIE_END,
		                  &raw[i]);
	}
	for (size_t i = 0; i < st->pairs.n && !rc; i++)
		rc = attach_event(st, st->pairs.v[i].subsys, st->pairs.v[i].start, i, &raw[i]);
	for (size_t i = 0; i < st->pairs.n && !rc; i++) {
		char t[256];
		snprintf(t, sizeof(t), "%s:%s..%s", st->pairs.v[i].subsys, st->pairs.v[i].start,
		         st->pairs.v[i].end);
		osp_bpf_note_attach(s, "fs", t, raw[i] ? OSP_ATTACH_RAW_TP : OSP_ATTACH_TRACEPOINT);
	}
	free(raw);
	if (rc)
		return rc;
	if (s->verbose && st->pairs.n)
		fprintf(stderr,
		        "osprof: fs: %zu tracepoint pairs, one program, cookies name the pair and "
		        "side\n",
		        st->pairs.n);
	if (st->fuse && (rc = fs_fuse_attach(s, st->fuse)))
		return rc;
	if (st->fsops && (rc = fsops_attach(s, st->fsops)))
		return rc;
	return st->kfuncs ? kfuncs_attach(s, st->kfuncs) : 0;
}

static int desc(void *ctx, const struct osp_hkey *k, struct osp_bpf_desc *d)
{
	struct fs_state *st = ctx;
	if (k->op >= st->pairs.n)
		return 1;
	d->op = st->pairs.v[k->op].op;
	d->dims[d->ndims++] = (struct osp_dim){"fs", (char *)st->pairs.v[k->op].subsys};
	if (k->flags & OSP_HK_PREEMPTED)
		d->dims[d->ndims++] = (struct osp_dim){"state", "preempted"};
	kl_by_dims(st->by, k, d);
	return 0;
}

/* The plain parent tables (fs_nest): per pair, its calls under each system
 * call since the previous reset, added to the pair's profile. */
static int nest_collect(struct osp_session *s, struct fs_state *st, int reset)
{
	int ncpu = libbpf_num_possible_cpus(), fd = bpf_map__fd(st->skel->maps.fs_nest), rc = 0;
	if (ncpu <= 0)
		return -EINVAL;
	__u64 *v = calloc((size_t)ncpu, sizeof(*v)), tab[OSP_NEST_SYS_SLOTS];
	if (!v)
		return -ENOMEM;
	for (__u32 pair = 0; pair < st->pairs.n && !rc; pair++) {
		__u64 any = 0;
		for (__u32 c = 0; c < OSP_NEST_SYS_SLOTS; c++) {
			__u32 i = pair * OSP_NEST_SYS_SLOTS + c;
			__u64 sum = 0;
			if (!bpf_map_lookup_elem(fd, &i, v))
				for (int k = 0; k < ncpu; k++)
					sum += v[k];
			tab[c] = sum - st->nest_prev[i];
			if (reset)
				st->nest_prev[i] = sum;
			any |= tab[c];
		}
		struct osp_hkey k = {.op = pair};
		struct osp_profile *p;
		if (!any || osp_bpf_profile_of(s, "fs", desc, st, &k, &p))
			continue;
		rc = osp_nest_add_sys_table(p, tab);
	}
	free(v);
	return rc;
}

static int fs_collect(struct osp_session *s, int slot, int reset)
{
	struct fs_state *st = s->layer_state[slot];
	int rc = 0;
	if (st->skel) {
		/* Parents first: a call ending between the two reads then adds to
		 * the count only, never a parent to a call not counted. */
		if (st->nest_n)
			rc = nest_collect(s, st, reset);
		if (!rc)
			rc = st->plain.nops
			         ? osp_bpf_fast_read(s, &st->plain, "fs", desc, st, reset)
			         : osp_bpf_read_hists(s, bpf_map__fd(st->skel->maps.fs_hist), "fs",
			                              desc, st, reset);
		osp_nest_check(s->set);
		if (!rc)
			rc = osp_bpf_read_stats(s, st->skel->obj, &st->stats);
	}
	if (!rc && st->fuse)
		rc = fs_fuse_collect(s, st->fuse, reset);
	if (!rc && st->kfuncs)
		rc = kfuncs_collect(s, st->kfuncs, reset);
	if (!rc && st->fsops)
		rc = fsops_collect(s, st->fsops, reset);
	if (rc)
		fprintf(stderr, "osprof: fs: cannot read the histograms: %s\n", strerror(-rc));
	return rc;
}

/* For list: does a raw_tp program using bpf_get_attach_cookie load here?
 * (Kernels that allow it, 6.10+, also take the cookie at attach.) */
static int raw_cookies_here(void)
{
	const char *force = getenv("OSPROF_ATTACH");
	if (force && !strcmp(force, "tracepoint"))
		return 0;
	struct fs_bpf *k = fs_bpf__open();
	if (!k)
		return 0;
	bpf_program__set_autoload(k->progs.fs_event, false);
	/* private, minimal copies of the shared maps: nothing is attached */
	bpf_map__set_max_entries(k->maps.osp_follow, 1);
	bpf_map__set_max_entries(k->maps.osp_pseq, 1);
	libbpf_print_fn_t old = libbpf_set_print(NULL);
	int ok = fs_bpf__load(k) == 0;
	libbpf_set_print(old);
	fs_bpf__destroy(k);
	return ok;
}

static int fs_list(FILE *out, int verbose)
{
	if (geteuid() != 0) {
		fprintf(
		    out,
		    "fs       file-system tracepoint pairs via raw_tp or tracepoint (needs root "
		    "to read tracefs); --func via fentry, else kprobe\n");
		return 0;
	}
	const char *tfs = osp_tracefs();
	struct fs_pairs p;
	if (!tfs || fs_discover(tfs, only(), &p))
		return -ENOENT;
	char subsys[256] = "";
	for (size_t i = 0; i < p.n; i++) {
		size_t k = 0, first = 1;
		for (size_t j = 0; j < i && first; j++)
			first = strcmp(p.v[j].subsys, p.v[i].subsys) != 0;
		if (!first)
			continue;
		for (size_t j = 0; j < p.n; j++)
			k += !strcmp(p.v[j].subsys, p.v[i].subsys);
		snprintf(subsys + strlen(subsys), sizeof(subsys) - strlen(subsys), "%s%s %zu",
		         *subsys ? ", " : "", p.v[i].subsys, k);
	}
	fprintf(out, "fs       %zu tracepoint pairs (%s) via %s, cookie per pair\n", p.n, subsys,
	        raw_cookies_here() ? "raw_tp" : "tracepoint");
	enum fs_pair_class *cls = verbose ? malloc((p.n + 1) * sizeof(*cls)) : NULL;
	int classified = cls && geteuid() == 0 && fs_pairs_classify(&p, cls) == 0;
	for (size_t i = 0; verbose && i < p.n; i++)
		fprintf(out, "  %-32s %s:%s .. %s  [%s]\n", p.v[i].op, p.v[i].subsys, p.v[i].start,
		        p.v[i].end,
		        classified ? fs_pair_class_name(cls[i]) : "default unless a helper");
	free(cls);
	fs_pairs_free(&p);
	if (fuse_wanted(tfs))
		fprintf(out,
		        "  fuse     request round trip per opcode (fuse_request_send -> "
		        "fuse_request_end, keyed by request) via %s\n",
		        kl_tp_mode_name());
	kfuncs_list(out);
	fsops_list(out, verbose);
	return 0;
}

const struct osp_layer osp_layer_fs = {
    .name = "fs",
    .by = "pid,tid,comm",
    .summary = "file-system tracepoint pairs (ext4, jbd2, xfs, ...), the VFS ops of every "
               "file system (fentry/kprobe) and --func kernel functions",
    .needs_root = 1,
    OSP_LAYER_STEPS(fs),
};
