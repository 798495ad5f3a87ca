/* Shared option parsing and session set-up of run, record and top. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/collect_opts.h"
#include <osprof/output.h>

const char osp_collect_opts_help[] =
    "  -l, --layers LIST     layers to profile, comma-separated: user, syscall, fs,\n"
    "                        block, lock, sched, irq, uprobe, rpc (see 'osprof\n"
    "                        list'). Default as root: syscall,fs,block,lock;\n"
    "                        otherwise: user.\n"
    "  -r, --resolution N    buckets per power of two: 1, 2, 4, 8 or 16 (default 1)\n"
    "  -i, --interval DUR    keep per-slice histograms of this length (e.g. 100ms)\n"
    "  -d, --duration DUR    stop after DUR (e.g. 10s, 500ms)\n"
    "  -o, --output FILE     profile set to write (default osprof.osp)\n"
    "      --by DIM          split profiles by pid, tid, comm, fs, dev or caller\n"
    "      --split preempt   put operations preempted while in flight apart\n"
    "      --func SYM[,SYM]  kernel functions to time (fentry, else kprobe)\n"
    "      --fs TYPE[,TYPE]  fs layer: time the VFS ops of these file systems only\n"
    "                        (default: every one mounted; fentry, else kprobe)\n"
    "      --fs-ops all|OP[,OP]  fs layer: also time these tracepoint pairs that are\n"
    "                        internal helpers, not VFS operations (extent-cache\n"
    "                        lookups, block mapping, journal commits; 'osprof list\n"
    "                        -v fs' marks them), or all of them\n"
    "      --uprobe BIN:SYM[,BIN:SYM]  user functions to time (uprobes)\n"
    "      --correlate OP:VALUE  value histograms per latency peak (with --peaks)\n"
    "      --peaks RANGES    bucket ranges as 'osprof peaks' numbers them, e.g.\n"
    "                        8-10,14-18 (or zero, ovf, latencies: 10us-1ms)\n"
    "  -v, --verbose         print the attach mode chosen for each probe\n"
    "  -q, --quiet           no progress line (shown only when stderr is a terminal)\n"
    "      --allow-loss      exit 0 even when events were lost (the loss line is\n"
    "                        still printed and the counts kept in the file)\n";

static const char targets_help[] =
    "  -a, --all             the whole system\n"
    "  -p, --pid PID[,PID]   these processes (and their future children)\n"
    "  -c, --cgroup PATH     processes of this cgroup (v2 path)\n"
    "      --comm NAME       processes with this command name\n";

enum {
	OPT_BY = 256,
	OPT_SPLIT,
	OPT_FUNC,
	OPT_FS,
	OPT_UPROBE,
	OPT_CORRELATE,
	OPT_PEAKS,
	OPT_COMM,
	OPT_ALLOW_LOSS,
	OPT_FS_OPS
};

static int parse_pids(const char *cmd, const char *arg, struct osp_collect_opts *o)
{
	char *copy = strdup(arg), *save, *tok;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long v = strtol(tok, &end, 10);
		if (*end || v <= 0) {
			free(copy);
			return osp_usage_err(cmd, "-p/--pid: '%s' is not a process id", tok);
		}
		pid_t *grown = realloc(o->pids, (o->npids + 1) * sizeof(*grown));
		if (!grown)
			abort();
		o->pids = grown;
		o->pids[o->npids++] = (pid_t)v;
	}
	free(copy);
	return 0;
}

int osp_collect_parse(const char *cmd, const char *usage_head, int targets, int argc, char **argv,
                      struct osp_collect_opts *o, int *next)
{
	static const struct option longopts[] = {
	    {"layers", required_argument, 0, 'l'},
	    {"resolution", required_argument, 0, 'r'},
	    {"interval", required_argument, 0, 'i'},
	    {"duration", required_argument, 0, 'd'},
	    {"output", required_argument, 0, 'o'},
	    {"by", required_argument, 0, OPT_BY},
	    {"split", required_argument, 0, OPT_SPLIT},
	    {"func", required_argument, 0, OPT_FUNC},
	    {"fs", required_argument, 0, OPT_FS},
	    {"uprobe", required_argument, 0, OPT_UPROBE},
	    {"correlate", required_argument, 0, OPT_CORRELATE},
	    {"peaks", required_argument, 0, OPT_PEAKS},
	    {"verbose", no_argument, 0, 'v'},
	    {"quiet", no_argument, 0, 'q'},
	    {"all", no_argument, 0, 'a'},
	    {"pid", required_argument, 0, 'p'},
	    {"cgroup", required_argument, 0, 'c'},
	    {"comm", required_argument, 0, OPT_COMM},
	    {"allow-loss", no_argument, 0, OPT_ALLOW_LOSS},
	    {"fs-ops", required_argument, 0, OPT_FS_OPS},
	    {"help", no_argument, 0, 'h'},
	    {0, 0, 0, 0},
	};
	static const char *const dims[] = {"pid", "tid", "comm", "fs", "dev", "caller"};
	memset(o, 0, sizeof(*o));
	o->r = 1;
	o->output = "osprof.osp";
	optind = 1;
	opterr = 0;
	int c;
	/* '+': stop at the first non-option, which starts the command to run. */
	while ((c = getopt_long(argc, argv, "+:l:r:i:d:o:vqap:c:h", longopts, NULL)) != -1) {
		int bad_target = !targets && (c == 'a' || c == 'p' || c == 'c' || c == OPT_COMM);
		if (bad_target)
			return osp_usage_err(cmd, "%s is not an option of this command",
			                     argv[optind - 1]);
		switch (c) {
		case 'l':
			o->layers = optarg;
			break;
		case 'r':
			if (osp_cli_resolution(cmd, optarg, &o->r))
				return OSP_EXIT_USAGE;
			break;
		case 'i':
			if (osp_parse_duration(optarg, &o->interval_ns) || !o->interval_ns)
				return osp_usage_err(cmd, "-i/--interval: '%s' is not a duration",
				                     optarg);
			break;
		case 'd':
			if (osp_parse_duration(optarg, &o->duration_ns) || !o->duration_ns)
				return osp_usage_err(cmd, "-d/--duration: '%s' is not a duration",
				                     optarg);
			break;
		case 'o':
			o->output = optarg;
			break;
		case OPT_BY: {
			int ok = 0;
			for (unsigned i = 0; i < sizeof(dims) / sizeof(dims[0]); i++)
				ok |= !strcmp(optarg, dims[i]);
			if (!ok)
				return osp_usage_err(
				    cmd, "--by: '%s' is not one of pid, tid, comm, fs, dev, caller",
				    optarg);
			o->by = optarg;
			break;
		}
		case OPT_SPLIT:
			if (strcmp(optarg, "preempt"))
				return osp_usage_err(cmd, "--split: '%s' is not 'preempt'", optarg);
			o->split = optarg;
			break;
		case OPT_FUNC:
			o->funcs = optarg;
			break;
		case OPT_FS:
			o->fs_types = optarg;
			break;
		case OPT_UPROBE:
			o->uprobes = optarg;
			break;
		case OPT_CORRELATE:
			o->correlate = optarg;
			break;
		case OPT_PEAKS:
			o->peaks = optarg;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'a':
			o->all = 1;
			break;
		case 'p':
			if (parse_pids(cmd, optarg, o))
				return OSP_EXIT_USAGE;
			break;
		case 'c':
			o->cgroup = optarg;
			break;
		case OPT_COMM:
			o->comm = optarg;
			break;
		case OPT_ALLOW_LOSS:
			o->allow_loss = 1;
			break;
		case OPT_FS_OPS:
			o->fs_ops = optarg;
			break;
		case 'h':
			printf("%s\nOptions:\n%s%s", usage_head, osp_collect_opts_help,
			       targets ? targets_help : "");
			return 1;
		case ':':
			return osp_usage_err(cmd, "%s needs an argument", argv[optind - 1]);
		default:
			return osp_usage_err(cmd, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (o->correlate && !o->peaks)
		return osp_usage_err(cmd, "--correlate needs --peaks RANGES");
	*next = optind;
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
	s->pids = o->pids;
	s->npids = o->npids;
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
	if (o->all || o->npids || o->cgroup || o->comm)
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

const char *osp_cli_take_opt(int *argc, char **argv, const char *name)
{
	const char *val = NULL;
	size_t len = strlen(name);
	for (int i = 1; i < *argc; i++) {
		const char *a = argv[i];
		int shift = 0;
		if (!strcmp(a, "--"))
			break;
		if (strncmp(a, "--", 2) || strncmp(a + 2, name, len))
			continue;
		if (!a[2 + len] && i + 1 < *argc) {
			val = argv[i + 1];
			shift = 2;
		} else if (a[2 + len] == '=') {
			val = a + 3 + len;
			shift = 1;
		}
		if (shift) {
			memmove(argv + i, argv + i + shift,
			        (size_t)(*argc - i - shift) * sizeof(*argv));
			*argc -= shift;
			i--;
		}
	}
	return val;
}

int osp_cli_explicit_output(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "-o") || !strncmp(argv[i], "--output", 8) ||
		    (!strncmp(argv[i], "-o", 2) && argv[i][2]))
			return 1;
	return 0;
}
