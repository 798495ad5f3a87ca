/* Shared option parsing and session set-up of run, record and top. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/collect_opts.h"
#include <osprof/output.h>
#include <osprof/render.h>
#include "cli/losses.h"

static const char *const by_dims[] = {"pid", "tid", "comm", "fs", "dev", "caller", NULL};
static const char *const split_choices[] = {"preempt", NULL};
static const struct osp_option none[] = {OSP_OPT_END};

int osp_collect_parse(const struct osp_collect_spec *c, int argc, char **argv,
                      struct osp_collect_opts *o, int *next)
{
	memset(o, 0, sizeof(*o));
	o->r = 1;
	struct osp_option targets[] = {
	    OSP_OPT_FLAG('a', "all", &o->all, "the whole system"),
	    OSP_OPT_PIDS('p', "pid", &o->pids, "PID[,PID]",
	                 "these processes (and their future children)"),
	    OSP_OPT_STRING('c', "cgroup", &o->cgroup, "PATH", "processes of this cgroup (v2 path)"),
	    OSP_OPT_STRING(0, "comm", &o->comm, "NAME", "processes with this command name"),
	    OSP_OPT_END,
	};
	struct osp_option opts[] = {
	    OSP_OPT_INCLUDE(c->own ? c->own : none),
	    OSP_OPT_STRING('l', "layers", &o->layers, "LIST",
	                   "layers to profile, comma-separated: user, syscall, fs,\n"
	                   "block, lock, sched, irq, uprobe, rpc (see 'osprof\n"
	                   "list'). Default as root: syscall,fs,block,lock;\n"
	                   "otherwise: user."),
	    OSP_OPT_RESOLUTION(&o->r),
	    OSP_OPT_DURATION('i', "interval", &o->interval_ns, "DUR",
	                     "keep per-slice histograms of this length (e.g. 100ms)"),
	    OSP_OPT_DURATION('d', "duration", &o->duration_ns, "DUR",
	                     "stop after DUR (e.g. 10s, 500ms)"),
	    OSP_OPT_STRING('o', "output", &o->output, "FILE",
	                   "profile set to write (default osprof.osp)"),
	    OSP_OPT_CHOICE(0, "by", &o->by, by_dims, "DIM",
	                   "split profiles by pid, tid, comm, fs, dev or caller"),
	    OSP_OPT_CHOICE(0, "split", &o->split, split_choices, "preempt",
	                   "put operations preempted while in flight apart"),
	    OSP_OPT_STRING(0, "func", &o->funcs, "SYM[,SYM]",
	                   "kernel functions to time (fentry, else kprobe)"),
	    OSP_OPT_STRING(0, "fs", &o->fs_types, "TYPE[,TYPE]",
	                   "fs layer: time the VFS ops of these file systems only\n"
	                   "(default: every one mounted; fentry, else kprobe)"),
	    OSP_OPT_STRING(0, "fs-ops", &o->fs_ops, "all|OP[,OP]",
	                   "fs layer: also time these tracepoint pairs that are\n"
	                   "internal helpers, not VFS operations (extent-cache\n"
	                   "lookups, block mapping, journal commits; 'osprof list\n"
	                   "-v fs' marks them), or all of them"),
	    OSP_OPT_STRING(0, "uprobe", &o->uprobes, "BIN:SYM[,BIN:SYM]",
	                   "user functions to time (uprobes)"),
	    OSP_OPT_STRING(0, "correlate", &o->correlate, "OP:VALUE",
	                   "value histograms per latency peak (with --peaks)"),
	    OSP_OPT_STRING(0, "peaks", &o->peaks, "RANGES",
	                   "bucket ranges as 'osprof peaks' numbers them, e.g.\n"
	                   "8-10,14-18 (or zero, ovf, latencies: 10us-1ms)"),
	    OSP_OPT_COUNT('v', "verbose", &o->verbose,
	                  "print the attach mode chosen for each probe"),
	    OSP_OPT_FLAG('q', "quiet", &o->quiet,
	                 "no progress line (shown only when stderr is a terminal)"),
	    OSP_OPT_FLAG(0, "probe-time", &o->probe_time,
	                 "have the kernel time osprof's eBPF programs and say\n"
	                 "what they cost (probe_ns, probe_runs in the file)"),
	    OSP_OPT_FLAG(0, "allow-loss", &o->allow_loss,
	                 "exit 0 even when events were lost (the loss line is\n"
	                 "still printed and the counts kept in the file)"),
	    OSP_OPT_PERCENT(0, "max-loss", &o->max_loss, "PCT",
	                    "exit 0 when the lost and unpaired events are at most\n"
	                    "PCT % of the calls recorded (e.g. 0.01)"),
	    OSP_OPT_INCLUDE(c->targets ? targets : none),
	    OSP_OPT_END,
	};
	/* in order: the first non-option starts the command to run */
	const struct osp_opts_spec spec = {.cmd = c->cmd, .head = c->head, .in_order = 1};
	int rc = osp_opts_parse(&spec, opts, argc, argv, next);
	if (rc)
		return rc;
	o->output_given = o->output != NULL;
	if (!o->output)
		o->output = "osprof.osp";
	if (o->correlate && !o->peaks)
		return osp_usage_err(c->cmd, "--correlate needs --peaks RANGES");
	if (c->check_output == 1 || (c->check_output == 2 && o->output_given))
		return osp_collect_check_output(c->cmd, o->output);
	return 0;
}

int osp_collect_one_target(const char *cmd, struct osp_collect_opts *o)
{
	if ((o->all != 0) + (o->pids.n != 0) + (o->cgroup != NULL) + (o->comm != NULL) > 1)
		return osp_usage_err(cmd, "-a, -p, -c and --comm exclude each other");
	if (!o->pids.n && !o->cgroup && !o->comm)
		o->all = 1;
	return 0;
}

static int splits_by(const struct osp_layer *l, const char *by)
{
	char dims[64], want[32];
	snprintf(dims, sizeof(dims), ",%s,", l->by ? l->by : "");
	snprintf(want, sizeof(want), ",%s,", by);
	return strstr(dims, want) != NULL;
}

/* --by names a dimension at least one of the layers splits by. */
static int check_by(const char *cmd, const char *by, const struct osp_layer **layers, int n)
{
	if (!by)
		return 0;
	char list[256] = "", who[256] = "";
	for (int i = 0; i < n; i++) {
		if (splits_by(layers[i], by))
			return 0;
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
		         layers[i]->name);
	}
	for (int i = 0; osp_layers[i]; i++)
		if (splits_by(osp_layers[i], by))
			snprintf(who + strlen(who), sizeof(who) - strlen(who), "%s%s",
			         *who ? ", " : "", osp_layers[i]->name);
	return osp_usage_err(cmd, "--by %s: none of the layers %s splits by %s (%s %s)", by, list,
	                     by, who, strchr(who, ',') ? "do" : "does");
}

static int add_layers(const char *cmd, const struct osp_collect_opts *o,
                      const struct osp_layer **layers, int *nlayers);

int osp_collect_layers(const char *cmd, const struct osp_collect_opts *o,
                       const struct osp_layer **layers, int *nlayers)
{
	int rc = add_layers(cmd, o, layers, nlayers);
	return rc ? rc : check_by(cmd, o->by, layers, *nlayers);
}

static int add_layers(const char *cmd, const struct osp_collect_opts *o,
                      const struct osp_layer **layers, int *nlayers)
{
	*nlayers = 0;
	if (!o->layers) {
		static const char *const root_defaults[] = {"syscall", "fs", "block", "lock"};
		if (geteuid() == 0)
			for (unsigned i = 0; i < 4; i++) {
				const struct osp_layer *l = osp_layer_find(root_defaults[i]);
				if (l)
					layers[(*nlayers)++] = l;
			}
		if (!*nlayers) {
			const struct osp_layer *l = osp_layer_find("user");
			if (!l)
				return osp_usage_err(cmd, "no collection layer is compiled in");
			layers[(*nlayers)++] = l;
		}
		return 0;
	}
	char *copy = strdup(o->layers), *save, *tok;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct osp_layer *l = osp_layer_find(tok);
		if (!l) {
			char avail[256] = "";
			for (int i = 0; osp_layers[i]; i++)
				snprintf(avail + strlen(avail), sizeof(avail) - strlen(avail),
				         "%s%s", i ? ", " : "", osp_layers[i]->name);
			osp_usage_err(cmd, "-l/--layers: unknown layer '%s' (available: %s)", tok,
			              avail);
			free(copy);
			return OSP_EXIT_USAGE;
		}
		int dup = 0;
		for (int i = 0; i < *nlayers; i++)
			dup |= layers[i] == l;
		if (!dup && *nlayers < OSP_MAX_LAYERS)
			layers[(*nlayers)++] = l;
	}
	free(copy);
	if (!*nlayers)
		return osp_usage_err(cmd, "-l/--layers: no layer given");
	/* Table order: a layer's objects load after those of the layers above
	 * it, whose per-thread state they read (measured nesting). */
	int n = 0;
	for (int i = 0; osp_layers[i]; i++)
		for (int j = n; j < *nlayers; j++)
			if (layers[j] == osp_layers[i]) {
				const struct osp_layer *t = layers[n];
				layers[n] = layers[j];
				layers[j] = t;
				n++;
				break;
			}
	return 0;
}

int osp_collect_session(struct osp_session *s, const struct osp_collect_opts *o,
                        const struct osp_layer **layers, int nlayers)
{
	memset(s, 0, sizeof(*s));
	s->set = osp_set_new(o->r);
	if (!s->set)
		return -ENOMEM;
	osp_set_stamp_host(s->set);
	s->r = o->r;
	s->slice_ns = o->interval_ns;
	s->set->slice_ns = o->interval_ns;
	s->start_ns = osp_now_ns();
	s->by = o->by;
	s->split = o->split;
	s->verbose = o->verbose;
	s->probe_time = o->probe_time;
	s->pids = o->pids.v;
	s->npids = o->pids.n;
	s->cgroup = o->cgroup;
	s->comm = o->comm;
	s->all = o->all;
	s->funcs = o->funcs;
	s->fs_types = o->fs_types;
	s->fs_ops = o->fs_ops;
	s->uprobes = o->uprobes;
	s->correlate = o->correlate;
	s->peaks = o->peaks;
	char names[256] = "";
	for (int i = 0; i < nlayers; i++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", i ? "," : "",
		         layers[i]->name);
	osp_set_meta(s->set, "layers", names);
	osp_set_metaf(s->set, "resolution", "%u", o->r);
	/* Tells analysis that a missing state=preempted profile means none
	 * was preempted (osp_preempt_evidence), not "not measured". */
	if (o->split)
		osp_set_meta(s->set, "split", o->split);
	if (o->all || o->pids.n || o->cgroup || o->comm)
		osp_set_meta(s->set, "live_attach", "1");
	return 0;
}

int osp_collect_check_output(const char *cmd, const char *output)
{
	char err[512];
	if (output && osp_output_check(output, err, sizeof(err)) < 0)
		return osp_usage_err(cmd, "-o %s", err);
	return 0;
}

int osp_collect_save(const char *cmd, const struct osp_set *set, const char *output, int status)
{
	char err[512];
	if (osp_set_save(set, output, err, sizeof(err))) {
		osp_err("%s: %s", cmd, err);
		return OSP_EXIT_FAIL;
	}
	fprintf(stderr, "osprof: %zu profiles written to %s\n", set->n, output);
	return status;
}

/* "osprof: probes ran 1808612 times for 459.12 ms (254 ns a run; block
 * 459.12 ms)", from the metadata of --probe-time. */
static void say_probe_time(const struct osp_set *set)
{
	uint64_t runs = osp_meta_u64(set, "probe_runs"), ns = osp_meta_u64(set, "probe_ns");
	if (!runs)
		return;
	char v[32];
	fprintf(stderr, "osprof: probes ran %" PRIu64 " times for %s (%" PRIu64 " ns a run", runs,
	        osp_render_value((double)ns, OSP_UNIT_NS, v, sizeof(v)), ns / runs);
	const char *sep = "; ";
	for (size_t i = 0; i < set->nmeta; i++)
		if (!strncmp(set->meta[i].key, "probe_ns.", 9)) {
			double layer_ns = strtod(set->meta[i].value, NULL);
			fprintf(stderr, "%s%s %s", sep, set->meta[i].key + 9,
			        osp_render_value(layer_ns, OSP_UNIT_NS, v, sizeof(v)));
			sep = ", ";
		}
	fprintf(stderr, "); the kernel's timing of each run included\n");
}

int osp_collect_finish(const char *cmd, const struct osp_set *set, const char *output,
                       const struct osp_collect_opts *o, int status)
{
	if (output)
		status = osp_collect_save(cmd, set, output, status);
	say_probe_time(set);
	struct osp_losses lost;
	osp_losses_read(set, &lost);
	return osp_losses_finish(cmd, &lost, o->allow_loss, o->max_loss, status);
}
