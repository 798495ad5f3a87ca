// SPDX-License-Identifier: GPL-2.0
/* irq layer: hard-IRQ handler (irq_handler_entry..exit) and soft-IRQ
 * (softirq_entry..exit) durations by name. Interrupts run on behalf of no
 * task, so this layer is always system-wide. Handlers of one kind do not nest
 * on a CPU, so one start per CPU and kind suffices. */
#include "vmlinux.h"
#include "osp_common.bpf.h"
#include "kl_types.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} irq_start SEC(".maps");

/* irq number -> handler name, as the tracepoint gives it */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct kl_irq_name);
} irq_names SEC(".maps");

OSP_HIST_MAP(irq_hist, 4096);

static __always_inline void start(__u32 kind)
{
	__u64 *t = bpf_map_lookup_elem(&irq_start, &kind);
	if (t)
		*t = bpf_ktime_get_ns();
}

static __always_inline void end(__u32 kind, __u32 num)
{
	__u64 *t = bpf_map_lookup_elem(&irq_start, &kind);
	if (!t || !*t) {
		osp_stat_inc(OSP_STAT_UNPAIRED);
		return;
	}
	__u64 now = bpf_ktime_get_ns(), delta = now - *t;
	*t = 0;
	struct osp_hkey k = {.op = kind, .slice = osp_slice(now), .dim = {num}};
	osp_hist_add(&irq_hist, &k, delta);
}

static __always_inline int irq_entry(void *ctx, int irq, struct irqaction *action)
{
	__u32 num = irq;
	if (!bpf_map_lookup_elem(&irq_names, &num)) {
		struct kl_irq_name n = {};
		bpf_probe_read_kernel_str(n.name, sizeof(n.name), BPF_CORE_READ(action, name));
		bpf_map_update_elem(&irq_names, &num, &n, BPF_NOEXIST);
	}
	start(KL_IRQ_HARD);
	return 0;
}

OSP_TP_TWINS(irq_handler_entry, irq_entry, int irq, struct irqaction *action)
{
	return irq_entry(ctx, irq, action);
}

static __always_inline int irq_exit(void *ctx, int irq, struct irqaction *action, int ret)
{
	end(KL_IRQ_HARD, irq);
	return 0;
}

OSP_TP_TWINS(irq_handler_exit, irq_exit, int irq, struct irqaction *action, int ret)
{
	return irq_exit(ctx, irq, action, ret);
}

static __always_inline int softirq_entry(void *ctx, unsigned int vec)
{
	start(KL_IRQ_SOFT);
	return 0;
}

OSP_TP_TWINS(softirq_entry, softirq_entry, unsigned int vec)
{
	return softirq_entry(ctx, vec);
}

static __always_inline int softirq_exit(void *ctx, unsigned int vec)
{
	end(KL_IRQ_SOFT, vec);
	return 0;
}

OSP_TP_TWINS(softirq_exit, softirq_exit, unsigned int vec)
{
	return softirq_exit(ctx, vec);
}
