/* irq layer: hard-IRQ and soft-IRQ handler durations by name, system-wide
 * (interrupts run on behalf of no task, so no target filter applies). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "collect/bpf_layer.h"
#include "collect/bpf/kl_types.h"
#include "collect/kl_util.h"
#include "irq.skel.h"

/* kernel/softirq.c softirq_to_name[] */
static const char *const softirq_names[] = {"hi",       "timer",   "net_tx", "net_rx",  "block",
                                            "irq_poll", "tasklet", "sched",  "hrtimer", "rcu"};

OSP_BPF_SKEL_OPENER(irq)

static int desc(void *ctx, const struct osp_hkey *k, struct osp_bpf_desc *d)
{
	struct irq_bpf *skel = ((struct osp_bpf_layer_state *)ctx)->k.skel;
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
		if (!bpf_map_lookup_elem(bpf_map__fd(skel->maps.irq_names), &irq, &n) &&
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

OSP_BPF_LAYER(
    irq, NULL, "hard-IRQ and soft-IRQ handler durations by name (system-wide)",
    .tps = "irq_handler_entry,irq_handler_exit,softirq_entry,softirq_exit", .hist = "irq_hist",
    .no_by = "interrupts run for no task", .desc = desc,
    .list_line = "irq      hard-IRQ and soft-IRQ handler time by name, system-wide, via %s",
    .list_more = "  hardirq  irq_handler_entry -> irq_handler_exit (name from the action)\n"
                 "  softirq  softirq_entry -> softirq_exit (hi, timer, net_tx, net_rx,\n"
                 "           block, irq_poll, tasklet, sched, hrtimer, rcu)\n");
