/* sched layer: run-queue latency and off-CPU time by reason (see
 * collect/bpf/sched.bpf.c for how the reason is decided). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "collect/bpf_common.h"
#include "collect/bpf/kl_types.h"
#include "collect/kl_util.h"
#include "sched.skel.h"

struct sched_state {
	struct sched_bpf *skel;
	struct osp_bpf_stats stats;
	unsigned by; /* KL_BY_* */
	int acquired;
};

static const char *const reasons[KL_OFF_NREASONS] = {"preempted", "sleep",           "io",
                                                     "lock",      "uninterruptible", "other"};

static void sched_destroy(struct osp_session *s, int slot)
{
	struct sched_state *st = s->layer_state[slot];
	if (!st)
		return;
	sched_bpf__destroy(st->skel);
	if (st->acquired)
		osp_bpf_common_release(s);
	free(st);
	s->layer_state[slot] = NULL;
}

static int sched_prepare_(struct osp_session *s, int slot)
{
	int rc = osp_bpf_check("sched");
	if (rc)
		return rc;
	struct sched_state *st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	s->layer_state[slot] = st;
	if ((rc = osp_bpf_common_acquire(s)))
		return rc;
	st->acquired = 1;
	if (!(st->skel = sched_bpf__open())) {
		rc = -errno;
		fprintf(stderr, "osprof: sched: cannot open the BPF object: %s\n", strerror(errno));
		return rc;
	}
	if ((rc = OSP_BPF_SETUP(st->skel, s)))
		return rc;
	st->by = kl_by_code("sched", s->by, 0, s->verbose);
	((struct osp_bpf_cfg *)&st->skel->rodata->osp_cfg)->by = st->by;
	if ((rc = sched_bpf__load(st->skel))) {
		fprintf(stderr,
		        "osprof: sched: cannot load the BPF object (tp_btf sched_*, task storage): "
		        "%s\n",
		        strerror(-rc));
		return rc;
	}
	return 0;
}

/* A layer whose prepare fails is not destroyed by its caller: clean up here. */
static int sched_prepare(struct osp_session *s, int slot)
{
	int rc = sched_prepare_(s, slot);
	if (rc)
		sched_destroy(s, slot);
	return rc;
}

static int sched_attach(struct osp_session *s, int slot)
{
	struct sched_state *st = s->layer_state[slot];
	int rc = osp_bpf_common_start(s);
	if (rc)
		return rc;
	if ((rc = sched_bpf__attach(st->skel))) {
		fprintf(stderr,
		        "osprof: sched: cannot attach to sched_wakeup/sched_switch (tp_btf): %s\n",
		        strerror(-rc));
		return rc;
	}
	static const char *const tps[] = {"sched_wakeup", "sched_wakeup_new", "sched_switch",
	                                  "contention_begin", "contention_end"};
	for (size_t i = 0; i < sizeof(tps) / sizeof(tps[0]); i++)
		osp_bpf_note_attach(s, "sched", tps[i], OSP_ATTACH_TP_BTF);
	return 0;
}

static int desc(void *ctx, const struct osp_hkey *k, struct osp_bpf_desc *d)
{
	struct sched_state *st = ctx;
	if (k->op == KL_SCHED_RUNQ) {
		d->op = "runq";
	} else if (k->op == KL_SCHED_OFFCPU && k->aux < KL_OFF_NREASONS) {
		d->op = "offcpu";
		d->dims[d->ndims++] = (struct osp_dim){"reason", (char *)reasons[k->aux]};
	} else {
		return 1;
	}
	kl_by_dims(st->by, k, d);
	return 0;
}

static int sched_collect(struct osp_session *s, int slot, int reset)
{
	struct sched_state *st = s->layer_state[slot];
	int rc =
	    osp_bpf_read_hists(s, bpf_map__fd(st->skel->maps.sched_hist), "sched", desc, st, reset);
	if (!rc)
		rc = osp_bpf_read_stats(s, st->skel->obj, &st->stats);
	if (rc)
		fprintf(stderr, "osprof: sched: cannot read the histograms: %s\n", strerror(-rc));
	return rc;
}

static int sched_list(FILE *out, int verbose)
{
	int ok = geteuid() == 0 && access("/sys/kernel/btf/vmlinux", R_OK) == 0;
	fprintf(out, "sched    run-queue latency, off-CPU time by reason via tp_btf%s\n",
	        ok ? "" : " (needs root)");
	if (verbose)
		fprintf(out,
		        "  runq    wakeup (or preemption) -> switch-in\n"
		        "  offcpu  switch-out -> switch-in, reason preempted, sleep, io, lock,\n"
		        "          uninterruptible, other (sched_switch prev_state, in_iowait,\n"
		        "          lock:contention_begin/end)\n");
	return 0;
}

const struct osp_layer osp_layer_sched = {
    .name = "sched",
    .by = "pid,tid,comm",
    .summary = "scheduler: run-queue latency, off-CPU time by reason",
    .needs_root = 1,
    .list = sched_list,
    .prepare = sched_prepare,
    .attach = sched_attach,
    .collect = sched_collect,
    .destroy = sched_destroy,
};
