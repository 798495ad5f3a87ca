/* osprof trace export: Chrome/Perfetto trace-event JSON, heatmap lines
 * (`time latency` for trace2heatmap.pl) and per-thread event trees (system
 * call -> fs event -> block request, nested by time) for the HTML tree view. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>
#include <osprof/output.h>
#include <osprof/render.h>
#include <osprof/sort.h>
#include "cli/cli.h"
#include "cli/trace_cmds.h"
#include "cli/trace_common.h"

static const char usage[] =
    "usage: osprof trace export [--chrome OUT.json] [--heatmap OUT] [--tree OUT.json]\n"
    "                           [FILTERS] DIR|FILE\n\n"
    "Writes the events of a trace in other tools' formats ('-' = stdout).\n\n"
    "Options:\n";

struct thread_name {
	uint32_t tid;
	uint32_t pid;
	char comm[OSP_TRACE_COMM_LEN];
	UT_hash_handle hh;
};

struct export_ctx {
	FILE *chrome, *heat;
	struct osp_json cj; /* on chrome */
	int tree;
	uint64_t origin;
	struct thread_name *threads;
	struct osp_trace_event *evs; /* kept for --tree */
	size_t n, cap;
};

/* Opens path (if given) into *o and returns its stream; 0, or -1 after
 * printing why not. */
static int open_out(const char *path, struct osp_output *o, FILE **f)
{
	char err[512];
	if (!path)
		return 0;
	if (osp_output_open(o, path, err, sizeof(err)) < 0) {
		osp_err("trace export: %s", err);
		return -1;
	}
	*f = o->f;
	return 0;
}

static void json_args(struct osp_json *j, const struct osp_trace_event *ev)
{
	char dev[24];
	osp_json_kstr(j, "dev", trace_dev_str(ev->dev, dev, sizeof(dev)));
	osp_json_ku64(j, "ino", ev->ino);
	osp_json_ku64(j, "off", ev->off);
	osp_json_ku64(j, "size", ev->size);
	osp_json_ki64(j, "ret", ev->ret);
	osp_json_ku64(j, "arg", ev->arg);
}

static const char *op_name(const struct osp_trace_event *ev)
{
	const char *n = osp_trace_op_name(ev->op);
	return n ? n : "unknown";
}

static int visit(void *vctx, const struct osp_trace_event *ev)
{
	struct export_ctx *c = vctx;
	int64_t rel = (int64_t)(ev->ts_ns - c->origin);
	if (c->chrome) {
		struct thread_name *t;
		HASH_FIND(hh, c->threads, &ev->tid, sizeof(ev->tid), t);
		if (!t && (t = calloc(1, sizeof(*t)))) {
			t->tid = ev->tid;
			t->pid = ev->pid;
			HASH_ADD(hh, c->threads, tid, sizeof(t->tid), t);
		}
		/* The last name wins: a thread's first events may come from the
		 * exec that renames it (page-cache fills of a cold binary). */
		if (t)
			memcpy(t->comm, ev->comm, sizeof(t->comm));
		struct osp_json *j = &c->cj;
		osp_json_obj(j);
		osp_json_kstr(j, "name", op_name(ev));
		osp_json_kstr(j, "cat", osp_trace_layer_name(osp_trace_op_layer(ev->op)));
		osp_json_kstr(j, "ph", "X");
		osp_json_kdbl(j, "ts", "%.3f", rel / 1e3);
		osp_json_kdbl(j, "dur", "%.3f", ev->lat_ns / 1e3);
		osp_json_ku64(j, "pid", ev->pid);
		osp_json_ku64(j, "tid", ev->tid);
		osp_json_kobj(j, "args");
		json_args(j, ev);
		osp_json_obj_end(j);
		osp_json_obj_end(j);
	}
	if (c->heat)
		fprintf(c->heat, "%.3f %.3f\n", rel / 1e3, ev->lat_ns / 1e3);
	if (c->tree) {
		if (c->n == c->cap) {
			size_t cap = c->cap ? c->cap * 2 : 4096;
			struct osp_trace_event *n = realloc(c->evs, cap * sizeof(*n));
			if (!n)
				return 1;
			c->evs = n;
			c->cap = cap;
		}
		c->evs[c->n++] = *ev;
	}
	return 0;
}

/* Thread, then start time, then longest first: a parent before its children. */
static int cmp_tree(const void *a, const void *b)
{
	const struct osp_trace_event *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	if (x->lat_ns != y->lat_ns)
		return x->lat_ns > y->lat_ns ? -1 : 1;
	return (int)osp_trace_op_layer(x->op) - (int)osp_trace_op_layer(y->op);
}

static int contains(const struct osp_trace_event *outer, const struct osp_trace_event *in)
{
	return in->ts_ns >= outer->ts_ns && in->ts_ns + in->lat_ns <= outer->ts_ns + outer->lat_ns;
}

#define TREE_DEPTH 16

/* One thread's events, each inside the one that contains it in time. */
static size_t write_thread(struct osp_json *j, struct export_ctx *c, size_t i)
{
	const struct osp_trace_event *stack[TREE_DEPTH];
	int depth = 0, child_open[TREE_DEPTH];
	size_t last = i;
	while (last + 1 < c->n && c->evs[last + 1].tid == c->evs[i].tid)
		last++;
	osp_json_obj(j);
	osp_json_ku64(j, "pid", c->evs[i].pid);
	osp_json_ku64(j, "tid", c->evs[i].tid);
	/* named after its last event, as in the Chrome export */
	osp_json_kstr(j, "comm", c->evs[last].comm);
	osp_json_karr(j, "events");
	for (; i <= last; i++) {
		const struct osp_trace_event *ev = &c->evs[i];
		/* close the nodes that do not contain this event */
		for (; depth > 0 && !contains(stack[depth - 1], ev); depth--) {
			if (child_open[depth - 1])
				osp_json_arr_end(j);
			osp_json_obj_end(j);
		}
		if (depth > 0 && !child_open[depth - 1]) {
			osp_json_karr(j, "children");
			child_open[depth - 1] = 1;
		}
		osp_json_obj(j);
		osp_json_kstr(j, "layer", osp_trace_layer_name(osp_trace_op_layer(ev->op)));
		osp_json_kstr(j, "op", op_name(ev));
		osp_json_ki64(j, "ts_ns", (int64_t)(ev->ts_ns - c->origin));
		osp_json_ku64(j, "lat_ns", ev->lat_ns);
		json_args(j, ev);
		if (depth < TREE_DEPTH) {
			stack[depth] = ev;
			child_open[depth++] = 0;
		} else {
			osp_json_obj_end(j); /* too deep to nest further: a leaf */
		}
	}
	for (; depth > 0; depth--) {
		if (child_open[depth - 1])
			osp_json_arr_end(j);
		osp_json_obj_end(j);
	}
	osp_json_arr_end(j);
	osp_json_obj_end(j);
	return last + 1;
}

static void write_tree(FILE *f, struct export_ctx *c, const struct osp_trace_host *h)
{
	struct osp_json j;
	osp_sort(c->evs, c->n, sizeof(*c->evs), cmp_tree);
	osp_json_init(&j, f);
	osp_json_obj(&j);
	osp_json_kstr(&j, "format", "osprof-trace-tree");
	osp_json_ku64(&j, "version", 1);
	osp_json_kstr(&j, "host", h->hostname);
	osp_json_ku64(&j, "origin_ns", c->origin);
	osp_json_karr(&j, "threads");
	osp_json_lines(&j);
	for (size_t i = 0; i < c->n;)
		i = write_thread(&j, c, i);
	osp_json_arr_end(&j);
	osp_json_obj_end(&j);
	osp_json_line(&j);
}

/* The thread names (metadata events) and the trace's facts close the
 * Chrome trace. */
static void chrome_end(struct export_ctx *c, const struct osp_trace_totals *t)
{
	struct osp_json *j = &c->cj;
	struct thread_name *th, *tmp;
	HASH_ITER(hh, c->threads, th, tmp)
	{
		osp_json_obj(j);
		osp_json_kstr(j, "name", "thread_name");
		osp_json_kstr(j, "ph", "M");
		osp_json_ku64(j, "pid", th->pid);
		osp_json_ku64(j, "tid", th->tid);
		osp_json_kobj(j, "args");
		osp_json_kstr(j, "name", th->comm);
		osp_json_obj_end(j);
		osp_json_obj_end(j);
	}
	osp_json_raw(j, "\n");
	osp_json_arr_end(j);
	osp_json_kobj(j, "otherData");
	osp_json_kstr(j, "host", t->host.hostname);
	osp_json_kstr(j, "kernel", t->host.kernel);
	osp_json_ku64(j, "dropped_events", t->dropped);
	osp_json_obj_end(j);
	osp_json_obj_end(j);
	osp_json_line(j);
}

static const struct osp_opts_spec spec = {.cmd = "trace export", .head = usage, TRACE_ONE_PATH};

int trace_cmd_export(int argc, char **argv)
{
	struct osp_trace_filter f;
	struct osp_option filters[TRACE_FILTER_NOPTS];
	trace_filter_options(filters, &f);
	const char *chrome = NULL, *heat = NULL, *tree = NULL;
	struct osp_option opts[] = {
	    OSP_OPT_STRING(0, "chrome", &chrome, "FILE",
	                   "Chrome trace-event JSON (complete 'X' events, µs): open in\n"
	                   "https://ui.perfetto.dev or chrome://tracing; one track per\n"
	                   "thread, named after its command"),
	    OSP_OPT_STRING(0, "heatmap", &heat, "FILE",
	                   "one 'TIME LATENCY' line per event, both in microseconds,\n"
	                   "time since the first event: trace2heatmap.pl --unitstime=us\n"
	                   "--unitslatency=us FILE > heatmap.svg"),
	    OSP_OPT_STRING(0, "tree", &tree, "FILE",
	                   "JSON: per thread, its events nested by time (a system call\n"
	                   "containing the fs events and block requests it caused), for\n"
	                   "the HTML tree view; docs/trace.md describes the fields"),
	    OSP_OPT_GROUP(""),
	    OSP_OPT_INCLUDE(filters),
	    OSP_OPT_END,
	};
	int optind, rc;
	OSP_PARSE_OR_RETURN(osp_opts_parse(&spec, opts, argc, argv, &optind));
	if (!chrome && !heat && !tree)
		return osp_usage_err("trace export", "give --chrome, --heatmap and/or --tree");
	const char *path = argv[optind];
	struct osp_trace_totals t;
	if ((rc = trace_walk("export", path, NULL, NULL, NULL, &t)))
		return rc;
	struct export_ctx ctx = {.origin = t.first_ts, .tree = tree != NULL};
	FILE *tf = NULL;
	struct osp_output outs[3] = {0};
	rc = OSP_EXIT_FAIL;
	if (open_out(chrome, &outs[0], &ctx.chrome) || open_out(heat, &outs[1], &ctx.heat) ||
	    open_out(tree, &outs[2], &tf))
		goto out;
	if (ctx.chrome) {
		osp_json_init(&ctx.cj, ctx.chrome);
		osp_json_obj(&ctx.cj);
		osp_json_kstr(&ctx.cj, "displayTimeUnit", "ns");
		osp_json_karr(&ctx.cj, "traceEvents");
		osp_json_lines(&ctx.cj);
		osp_json_raw(&ctx.cj, "\n");
	}
	rc = trace_walk("export", path, &f, visit, &ctx, &t);
	if (rc)
		goto out;
	if (ctx.chrome)
		chrome_end(&ctx, &t);
	if (tf)
		write_tree(tf, &ctx, &t.host);
	rc = OSP_EXIT_OK;
out:
	/* All or nothing: a failed export leaves no partial file behind. */
	for (int i = 0; i < 3; i++) {
		char err[512];
		if (!outs[i].f)
			continue;
		if (rc != OSP_EXIT_OK) {
			osp_output_abort(&outs[i]);
		} else if (osp_output_commit(&outs[i], err, sizeof(err)) < 0) {
			osp_err("trace export: %s", err);
			rc = OSP_EXIT_FAIL;
		}
	}
	struct thread_name *th, *tmp;
	HASH_ITER(hh, ctx.threads, th, tmp)
	{
		HASH_DEL(ctx.threads, th);
		free(th);
	}
	free(ctx.evs);
	return rc;
}
