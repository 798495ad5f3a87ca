/* sched layer: run-queue latency and off-CPU time by reason (see
 * collect/bpf/sched.bpf.c for how the reason is decided). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "collect/bpf_layer.h"
#include "collect/bpf/kl_types.h"
#include "collect/kl_util.h"
#include "sched.skel.h"

static const char *const reasons[KL_OFF_NREASONS] = {"preempted", "sleep",           "io",
                                                     "lock",      "uninterruptible", "other"};

OSP_BPF_SKEL_OPENER(sched)

static int desc(void *ctx, const struct osp_hkey *k, struct osp_bpf_desc *d)
{
	const struct osp_bpf_layer_state *st = ctx;
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

OSP_BPF_LAYER(sched, "pid,tid,comm", "scheduler: run-queue latency, off-CPU time by reason",
              .tps = "sched_wakeup,sched_wakeup_new,sched_switch,contention_begin,contention_end",
              .hist = "sched_hist", .by_task = 1, .desc = desc,
              .list_line = "sched    run-queue latency, off-CPU time by reason via %s",
              .list_more = "  runq    wakeup (or preemption) -> switch-in\n"
                           "  offcpu  switch-out -> switch-in, reason preempted, sleep, io, lock,\n"
                           "          uninterruptible, other (sched_switch prev_state, in_iowait,\n"
                           "          lock:contention_begin/end)\n",
              .tp_btf_only = 1);
