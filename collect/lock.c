/* lock layer: lock:contention_begin..end wait time per lock type; with
 * --by caller, per contending kernel function: the first frame of the
 * waiter's kernel stack that is not lock machinery, from /proc/kallsyms. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "collect/bpf_layer.h"
#include "collect/bpf/kl_types.h"
#include "collect/kl_util.h"
#include "collect/ksyms.h"
#include "lock.skel.h"

/* include/trace/events/lock.h */
#define LCB_F_SPIN   (1U << 0)
#define LCB_F_READ   (1U << 1)
#define LCB_F_WRITE  (1U << 2)
#define LCB_F_RT     (1U << 3)
#define LCB_F_PERCPU (1U << 4)
#define LCB_F_MUTEX  (1U << 5)

/* The names perf lock contention uses for the same flags. */
static const char *type_name(unsigned flags)
{
	static const struct {
		unsigned flags;
		const char *name;
	} t[] = {
	    {LCB_F_SPIN, "spinlock"},
	    {LCB_F_SPIN | LCB_F_READ, "rwlock:R"},
	    {LCB_F_SPIN | LCB_F_WRITE, "rwlock:W"},
	    {LCB_F_READ, "rwsem:R"},
	    {LCB_F_WRITE, "rwsem:W"},
	    {LCB_F_RT, "rtmutex"},
	    {LCB_F_RT | LCB_F_READ, "rwlock-rt:R"},
	    {LCB_F_RT | LCB_F_WRITE, "rwlock-rt:W"},
	    {LCB_F_PERCPU | LCB_F_READ, "pcpu-sem:R"},
	    {LCB_F_PERCPU | LCB_F_WRITE, "pcpu-sem:W"},
	    {LCB_F_MUTEX, "mutex"},
	    {LCB_F_MUTEX | LCB_F_SPIN, "mutex"},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].flags == flags)
			return t[i].name;
	return NULL;
}

/* Frames that belong to the locking and tracing machinery, not the caller. */
static int lock_internal(const char *sym)
{
	static const char *const prefix[] = {
	    "bpf_",           "__bpf_",       "trace_",
	    "__traceiter_",   "perf_",        "__mutex_",
	    "mutex_",         "__ww_mutex",   "ww_mutex_",
	    "__down",         "down_",        "down",
	    "__up",           "rwsem_",       "__rwsem",
	    "_raw_",          "do_raw_",      "queued_",
	    "native_queued_", "__pv_queued_", "pv_",
	    "osq_",           "percpu_down_", "__percpu_down",
	    "percpu_rwsem_",  "rt_mutex",     "__rt_mutex",
	    "rtlock_",        "rt_spin_",     "lock_contended",
	    "schedule",       "__schedule",   "preempt_schedule",
	    "io_schedule",    "spin_",        "__spin_",
	    "rwbase_",        "rt_read_",     "rt_write_",
	};
	for (size_t i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (!strncmp(sym, prefix[i], strlen(prefix[i])))
			return 1;
	return 0;
}

OSP_BPF_SKEL_OPENER(lock)

static int configure(struct osp_session *s, struct osp_bpf_layer_state *st)
{
	struct lock_bpf *skel = st->k.skel;
	(void)s;
	bpf_map__set_max_entries(skel->maps.lock_waits, osp_bpf_thread_slots());
	if (st->by != KL_BY_CALLER)
		bpf_map__set_max_entries(skel->maps.lock_stacks, 1);
	return 0;
}

/* The contending function of stack `id`, or "[unknown]". */
static const char *caller(const struct osp_bpf_layer_state *st, __u64 id)
{
	__u64 ips[KL_LOCK_STACK_DEPTH];
	__u32 key = (__u32)id;
	const struct lock_bpf *skel = st->k.skel;
	if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.lock_stacks), &key, ips))
		return "[unknown]";
	for (int i = 0; i < KL_LOCK_STACK_DEPTH && ips[i]; i++) {
		const char *sym = ksyms_find(st->priv, ips[i]);
		if (sym && !lock_internal(sym))
			return sym;
	}
	return "[unknown]";
}

static int desc(void *ctx, const struct osp_hkey *k, struct osp_bpf_desc *d)
{
	const struct osp_bpf_layer_state *st = ctx;
	const char *t = type_name(k->op);
	if (t)
		d->op = t;
	else {
		snprintf(d->buf, 32, "flags_0x%x", k->op);
		d->op = d->buf;
	}
	if (st->by == KL_BY_CALLER) {
		const char *c = k->dim[0] ? caller(st, k->dim[0] - 1) : "[no stack]";
		snprintf(d->buf + 32, sizeof(d->buf) - 32, "%s", c);
		d->dims[d->ndims++] = (struct osp_dim){"caller", d->buf + 32};
	}
	kl_by_dims(st->by, k, d);
	return 0;
}

/* Symbols are read at the first read, not at prepare: the stacks start in
 * our own BPF programs, whose bpf_prog_* symbols exist only once loaded. */
static int load_ksyms(struct osp_bpf_layer_state *st)
{
	if (st->by != KL_BY_CALLER || st->priv)
		return 0;
	return (st->priv = ksyms_load()) ? 0 : -ENOENT;
}

static void free_ksyms(void *ksyms)
{
	ksyms_free(ksyms);
}

OSP_BPF_LAYER(lock, "pid,tid,comm,caller",
              "kernel lock contention wait time per lock type (--by caller)",
              .tps = "contention_begin,contention_end", .hist = "lock_hist", .by_task = 1,
              .by_caller = 1, .configure = configure, .desc = desc, .before_read = load_ksyms,
              .free_priv = free_ksyms,
              .list_line = "lock     contention wait per lock type (--by caller) via %s",
              .list_more = "  lock:contention_begin -> lock:contention_end; types spinlock,\n"
                           "  rwlock:R/W, rwsem:R/W, rtmutex, pcpu-sem:R/W, mutex; callers from\n"
                           "  bpf_get_stackid + /proc/kallsyms, lock-internal frames skipped\n");
