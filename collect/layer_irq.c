/* irq layer: hard-IRQ and soft-IRQ handler durations by name, system-wide
 * (interrupts run on behalf of no task, so no target filter applies). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "collect/bpf_common.h"
#include "collect/bpf/kl_types.h"
#include "collect/kl_util.h"
#include "irq.skel.h"

struct irq_state {
	struct irq_bpf *skel;
	struct osp_bpf_stats stats;
	enum osp_attach_mode mode; /* tp_btf, or raw_tp where tp_btf fails */
	int acquired;
};

/* kernel/softirq.c softirq_to_name[] */
static const char *const softirq_names[] = {"hi",       "timer",   "net_tx", "net_rx",  "block",
                                            "irq_poll", "tasklet", "sched",  "hrtimer", "rcu"};

static void irq_destroy(struct osp_session *s, int slot)
{
	struct irq_state *st = s->layer_state[slot];
	if (!st)
		return;
	irq_bpf__destroy(st->skel);
	if (st->acquired)
		osp_bpf_common_release(s);
	free(st);
	s->layer_state[slot] = NULL;
}

static int irq_prepare_(struct osp_session *s, int slot)
{
	int rc = osp_bpf_check("irq");
	if (rc)
		return rc;
	if (s->by && s->verbose)
		fprintf(
		    stderr,
		    "osprof: irq: --by %s does not apply (interrupts run for no task); not split\n",
		    s->by);
	struct irq_state *st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	s->layer_state[slot] = st;
	if ((rc = osp_bpf_common_acquire(s)))
		return rc;
	st->acquired = 1;
	if (!(st->skel = irq_bpf__open())) {
		rc = -errno;
		fprintf(stderr, "osprof: irq: cannot open the BPF object: %s\n", strerror(errno));
		return rc;
	}
	if ((rc = OSP_BPF_SETUP(st->skel, s)))
		return rc;
	st->mode = osp_bpf_tp_mode();
	osp_bpf_pick(st->skel->progs.irq_entry_btf, st->skel->progs.irq_entry_raw, st->mode);
	osp_bpf_pick(st->skel->progs.irq_exit_btf, st->skel->progs.irq_exit_raw, st->mode);
	osp_bpf_pick(st->skel->progs.softirq_entry_btf, st->skel->progs.softirq_entry_raw,
	             st->mode);
	osp_bpf_pick(st->skel->progs.softirq_exit_btf, st->skel->progs.softirq_exit_raw, st->mode);
	if ((rc = irq_bpf__load(st->skel))) {
		fprintf(stderr,
		        "osprof: irq: cannot load the BPF object (%s irq_handler_*, "
		        "softirq_*): %s\n",
		        osp_attach_mode_name(st->mode), strerror(-rc));
		return rc;
	}
	return 0;
}

/* A layer whose prepare fails is not destroyed by its caller: clean up here. */
static int irq_prepare(struct osp_session *s, int slot)
{
	int rc = irq_prepare_(s, slot);
	if (rc)
		irq_destroy(s, slot);
	return rc;
}

static int irq_attach(struct osp_session *s, int slot)
{
	struct irq_state *st = s->layer_state[slot];
	int rc = osp_bpf_common_start(s);
	if (rc)
		return rc;
	if ((rc = irq_bpf__attach(st->skel))) {
		fprintf(stderr, "osprof: irq: cannot attach to irq_handler_*/softirq_* (%s): %s\n",
		        osp_attach_mode_name(st->mode), strerror(-rc));
		return rc;
	}
	static const char *const tps[] = {"irq_handler_entry", "irq_handler_exit", "softirq_entry",
	                                  "softirq_exit"};
	for (size_t i = 0; i < sizeof(tps) / sizeof(tps[0]); i++)
		osp_bpf_note_attach(s, "irq", tps[i], st->mode);
	return 0;
}

static int desc(void *ctx, const struct osp_hkey *k, struct osp_bpf_desc *d)
{
	struct irq_state *st = ctx;
	if (k->op == KL_IRQ_SOFT) {
		d->op = "softirq";
		if (k->dim[0] < sizeof(softirq_names) / sizeof(softirq_names[0]))
			snprintf(d->buf, sizeof(d->buf), "%s", softirq_names[k->dim[0]]);
		else
			snprintf(d->buf, sizeof(d->buf), "vec%llu", (unsigned long long)k->dim[0]);
	} else if (k->op == KL_IRQ_HARD) {
		struct kl_irq_name n;
		__u32 irq = (__u32)k->dim[0];
		d->op = "hardirq";
		if (!bpf_map_lookup_elem(bpf_map__fd(st->skel->maps.irq_names), &irq, &n) &&
		    n.name[0]) {
			n.name[sizeof(n.name) - 1] = 0;
			/* names may hold spaces or control bytes: keep them printable */
			for (char *c = n.name; *c; c++)
				if ((unsigned char)*c < ' ')
					*c = '?';
			snprintf(d->buf, sizeof(d->buf), "%s", n.name);
		} else {
			snprintf(d->buf, sizeof(d->buf), "irq%u", irq);
		}
		snprintf(d->buf + 256, 256, "%u", irq);
		d->dims[d->ndims++] = (struct osp_dim){"irq", d->buf + 256};
	} else {
		return 1;
	}
	d->dims[d->ndims++] = (struct osp_dim){"name", d->buf};
	return 0;
}

static int irq_collect(struct osp_session *s, int slot, int reset)
{
	struct irq_state *st = s->layer_state[slot];
	int rc =
	    osp_bpf_read_hists(s, bpf_map__fd(st->skel->maps.irq_hist), "irq", desc, st, reset);
	if (!rc)
		rc = osp_bpf_read_stats(s, st->skel->obj, &st->stats);
	if (rc)
		fprintf(stderr, "osprof: irq: cannot read the histograms: %s\n", strerror(-rc));
	return rc;
}

static int irq_list(FILE *out, int verbose)
{
	fprintf(out, "irq      hard-IRQ and soft-IRQ handler time by name, system-wide, via %s\n",
	        kl_tp_mode_name());
	if (verbose)
		fprintf(out,
		        "  hardirq  irq_handler_entry -> irq_handler_exit (name from the action)\n"
		        "  softirq  softirq_entry -> softirq_exit (hi, timer, net_tx, net_rx,\n"
		        "           block, irq_poll, tasklet, sched, hrtimer, rcu)\n");
	return 0;
}

const struct osp_layer osp_layer_irq = {
    .name = "irq",
    .summary = "hard-IRQ and soft-IRQ handler durations by name (system-wide)",
    .needs_root = 1,
    .list = irq_list,
    .prepare = irq_prepare,
    .attach = irq_attach,
    .collect = irq_collect,
    .destroy = irq_destroy,
};
