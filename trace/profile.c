/* The profile set of a trace (include/osprof/trace.h): layer "syscall" with
 * op = the system call's name, so it counts what the live syscall layer
 * counts for the same run; fs and block events go to layers "fs"/"block". */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <osprof/profile.h>
#include <osprof/trace.h>

struct prof_ctx {
	struct osp_set *set;
	struct osp_profile *cache[OSP_TOP_NR];
	uint64_t origin;
	const char *by;
};

static int add_event(void *vctx, const struct osp_trace_event *ev)
{
	struct prof_ctx *c = vctx;
	const char *op = osp_trace_op_name(ev->op);
	char opbuf[24];
	if (!op) {
		snprintf(opbuf, sizeof(opbuf), "op%u", ev->op);
		op = opbuf;
	}
	struct osp_profile *p = NULL;
	if (!c->by && ev->op < OSP_TOP_NR)
		p = c->cache[ev->op];
	if (!p) {
		char val[32];
		struct osp_dim d = {(char *)c->by, val};
		if (c->by && !strcmp(c->by, "pid"))
			snprintf(val, sizeof(val), "%u", ev->pid);
		else if (c->by)
			snprintf(val, sizeof(val), "%s", ev->comm[0] ? ev->comm : "?");
		p = osp_set_get(c->set, osp_trace_layer_name(osp_trace_op_layer(ev->op)), op,
		                c->by ? &d : NULL, c->by ? 1 : 0);
		if (!p)
			return 1;
		if (!c->by && ev->op < OSP_TOP_NR)
			c->cache[ev->op] = p;
	}
	osp_profile_add(c->set, p, ev->lat_ns, ev->ts_ns > c->origin ? ev->ts_ns - c->origin : 0);
	return 0;
}

static void stamp(struct osp_set *s, const char *path, const struct osp_trace_totals *t)
{
	osp_set_meta(s, "host", t->host.hostname);
	osp_set_meta(s, "kernel", t->host.kernel);
	osp_set_metaf(s, "cpus", "%u", t->host.cpus);
	osp_set_metaf(s, "start_wall_ns", "%" PRIu64, t->host.start_wall_ns);
	osp_set_meta(s, "unit", "ns");
	osp_set_meta(s, "clock", "CLOCK_MONOTONIC");
	osp_set_meta(s, "source", "trace");
	osp_set_meta(s, "trace", path);
	osp_set_meta(s, "command", t->host.target);
	osp_set_metaf(s, "duration_ns", "%" PRIu64,
	              t->last_end > t->first_ts ? t->last_end - t->first_ts : 0);
	osp_meta_add_u64(s, "lost_events", t->dropped);
}

struct osp_set *osp_trace_profile(const char *path, const struct osp_trace_filter *f, unsigned r,
                                  uint64_t slice_ns, const char *by, osp_trace_warn_fn warn,
                                  struct osp_trace_totals *t, char *err, size_t errlen)
{
	/* A first pass finds the time origin of the slices. */
	if (osp_trace_walk(path, NULL, NULL, NULL, NULL, t, err, errlen))
		return NULL;
	struct prof_ctx ctx = {.set = osp_set_new(r), .origin = t->first_ts, .by = by};
	if (!ctx.set) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ctx.set->slice_ns = slice_ns;
	int rc = osp_trace_walk(path, f, add_event, &ctx, warn, t, err, errlen);
	if (rc) {
		if (rc > 0)
			snprintf(err, errlen, "out of memory");
		osp_set_free(ctx.set);
		return NULL;
	}
	stamp(ctx.set, path, t);
	return ctx.set;
}
