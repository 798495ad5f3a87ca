/* DARC backend (a): uprobes driven by rootcause/bpf/rootcause.bpf.c. Works on
 * a running process; each timed call costs a uprobe pair (~15 us here). The
 * uprobes are attached by binary for all processes and the BPF side keeps
 * the target's: CMD and what it forks and execs (a wrapper script's
 * program), or -p PID and its children, followed in the kernel
 * (collect/bpf_common.c, as `osprof run` and `record -p` do). */
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "collect/bpf_common.h"
#include "rootcause.skel.h"
#include "rootcause/backend.h"
#include "rootcause/uprobe_sites.h"

struct ub {
	struct rc_backend base;
	struct rootcause_bpf *skel;
	struct osp_session sess;
	int common; /* sess holds osp_common */
	struct ring_buffer *rb;
	struct bpf_link *f0_in, *f0_out;
	struct rc_usites sites;
	rc_event_fn fn;
	void *ctx;
};

static int on_event(void *ctx, void *data, size_t len)
{
	struct ub *u = ctx;
	if (len >= sizeof(struct rc_event) && u->fn)
		u->fn(u->ctx, data);
	return 0;
}

static struct bpf_link *attach(struct bpf_program *p, const char *path, uint64_t off, int ret,
                               uint64_t cookie)
{
	LIBBPF_OPTS(bpf_uprobe_opts, o, .retprobe = ret, .bpf_cookie = cookie);
	return bpf_program__attach_uprobe_opts(p, -1, path, (size_t)off, &o);
}

static int ub_attach_f0(struct rc_backend *b, const char *path, uint64_t off, uint64_t rt)
{
	struct ub *u = (struct ub *)b;
	(void)rt;
	u->f0_in = attach(u->skel->progs.rc_f0_enter, path, off, 0, 0);
	if (!u->f0_in)
		return -errno;
	u->f0_out = attach(u->skel->progs.rc_f0_exit, path, off, 1, 0);
	return u->f0_out ? 0 : -errno;
}

static int ub_add_site(struct rc_backend *b, uint32_t id, const struct rc_site *s, const char *path,
                       uint64_t off, uint64_t rt)
{
	return rc_usites_add(&((struct ub *)b)->sites, id, s, path, off, rt);
}

static int ub_del_site(struct rc_backend *b, uint32_t id)
{
	return rc_usites_del(&((struct ub *)b)->sites, id);
}

static int ub_add_edge(struct rc_backend *b, uint32_t parent, uint32_t site, uint32_t slot)
{
	struct ub *u = (struct ub *)b;
	struct rc_ckey k = {parent, site};
	return bpf_map__update_elem(u->skel->maps.children, &k, sizeof(k), &slot, sizeof(slot),
	                            BPF_ANY)
	           ? -errno
	           : 0;
}

static int ub_del_edge(struct rc_backend *b, uint32_t parent, uint32_t site)
{
	struct ub *u = (struct ub *)b;
	struct rc_ckey k = {parent, site};
	return bpf_map__delete_elem(u->skel->maps.children, &k, sizeof(k), 0) ? -errno : 0;
}

static int ub_set_peak(struct rc_backend *b, uint64_t lo, uint64_t hi, uint64_t gen)
{
	struct ub *u = (struct ub *)b;
	u->skel->bss->peak_lo = lo;
	u->skel->bss->peak_hi = hi;
	__atomic_store_n(&u->skel->bss->gen, gen, __ATOMIC_SEQ_CST);
	u->skel->bss->searching = 1;
	return 0;
}

static int ub_poll(struct rc_backend *b, rc_event_fn fn, void *ctx)
{
	struct ub *u = (struct ub *)b;
	u->fn = fn;
	u->ctx = ctx;
	return ring_buffer__consume(u->rb);
}

static int ub_read_hist(struct rc_backend *b, uint64_t *buckets)
{
	struct ub *u = (struct ub *)b;
	for (int i = 0; i < RC_HBUCKETS; i++)
		buckets[i] = __atomic_load_n(&u->skel->bss->hist[i], __ATOMIC_RELAXED);
	return 0;
}

static pid_t ub_f0_pid(struct rc_backend *b)
{
	return (pid_t)__atomic_load_n(&((struct ub *)b)->skel->bss->f0_tgid, __ATOMIC_RELAXED);
}

static uint64_t ub_lost(struct rc_backend *b)
{
	return ((struct ub *)b)->skel->bss->lost;
}

static void ub_destroy(struct rc_backend *b)
{
	struct ub *u = (struct ub *)b;
	rc_usites_free(&u->sites);
	bpf_link__destroy(u->f0_in);
	bpf_link__destroy(u->f0_out);
	ring_buffer__free(u->rb);
	rootcause_bpf__destroy(u->skel);
	if (u->common)
		osp_bpf_common_release(&u->sess);
	free(u);
}

static const struct rc_backend_ops ub_ops = {.name = "uprobe", RC_BACKEND_OPS(ub)};

struct rc_backend *rc_uprobe_new(pid_t pid, int is_child)
{
	struct ub *u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	u->base.ops = &ub_ops;
	u->base.pid = pid;
	u->sess.r = 1;
	if (is_child)
		u->sess.root_pid = pid;
	else
		u->sess.pids = &u->base.pid, u->sess.npids = 1;
	if (osp_bpf_common_acquire(&u->sess)) {
		free(u);
		return NULL;
	}
	u->common = 1;
	u->skel = rootcause_bpf__open();
	if (u->skel)
		u->sites = (struct rc_usites){.sites = u->skel->maps.sites,
		                              .enter = u->skel->progs.rc_site_enter,
		                              .ret = u->skel->progs.rc_site_return,
		                              .pid = -1};
	if (!u->skel) {
		fprintf(stderr, "osprof rootcause: cannot open the BPF object: %s\n",
		        strerror(errno));
		ub_destroy(&u->base);
		return NULL;
	}
	int err = OSP_BPF_SETUP(u->skel, &u->sess);
	if (!err)
		err = rootcause_bpf__load(u->skel);
	if (!err)
		err = rootcause_bpf__attach(u->skel); /* tracepoints only; uprobes come later */
	if (!err)
		err = osp_bpf_common_start(&u->sess);
	if (err) {
		fprintf(stderr,
		        "osprof rootcause: loading the BPF program failed (%s); uprobes need root "
		        "and a kernel with BTF\n",
		        strerror(-err));
		ub_destroy(&u->base);
		return NULL;
	}
	u->rb = ring_buffer__new(bpf_map__fd(u->skel->maps.events), on_event, u, NULL);
	if (!u->rb) {
		fprintf(stderr, "osprof rootcause: ring buffer: %s\n", strerror(errno));
		ub_destroy(&u->base);
		return NULL;
	}
	u->base.fd = ring_buffer__epoll_fd(u->rb);
	return &u->base;
}
