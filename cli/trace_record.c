/* osprof trace record: capture file-system operations into segments. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/options.h"
#include "cli/losses.h"
#include "collect/session.h"
#include "cli/trace_cmds.h"
#include "cli/progress.h"
#include <linux/types.h>
#include "collect/bpf/trace.h"
#include "collect/trace_capture.h"

static const char usage[] =
    "usage: osprof trace record [-a | -p PID[,PID] | -c CGROUP | -- CMD [ARGS]] -w DIR\n"
    "                           [-G SECONDS] [-C MB] [--max-disk MB] [--archive DIR]\n"
    "                           [--zstd] [--layers fs,block] [-d DURATION] [-v] [-q]\n\n"
    "Records every file-system system call of the targets (open, read, write, their\n"
    "positional and vector forms, lseek, fsync, the stat family, getdents, unlink,\n"
    "rename, mkdir, rmdir, truncate, mmap of files, close, ...) with its start time,\n"
    "pid/tid, command, device, inode, file offset, size, flags, return value and\n"
    "latency, into trace segments in DIR (format: docs/trace-format.md). Needs root\n"
    "and kernel BTF. Stops at Ctrl-C/SIGTERM, after -d, or when CMD exits; what was\n"
    "captured is flushed and the open segment closed in every case. With -p,\n"
    "recording also stops when every listed process has exited.\n\n"
    "Targets (one of):\n";

static const char usage_tail[] =
    "\n"
    "When the disk fills, recording goes on and events are dropped and counted;\n"
    "what is already written stays readable. Drops are stored per segment and\n"
    "reported at exit. Read the trace with 'osprof trace dump|stats|profile DIR'.\n\n"
    "Exit status: with -- CMD, CMD's exit status (128+N if killed by signal N);\n"
    "when it is 0 (or without CMD) and events were dropped, 3 after one line\n"
    "naming the count (--allow-loss: 0); 2 bad option, value or -w directory\n"
    "(nothing attached); 1 recording cannot start here.\n";

/* The wait of the recording: CMD (when given), the ring buffer, signals. */
static struct osp_waiter waiter;

static int any_alive(const pid_t *pids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (kill(pids[i], 0) == 0 || errno != ESRCH)
			return 1;
	return 0;
}

static int add_layer(const char *tok, void *layers)
{
	if (!strcmp(tok, "fs"))
		*(unsigned *)layers |= OSP_TRACE_L_FS;
	else if (!strcmp(tok, "block"))
		*(unsigned *)layers |= OSP_TRACE_L_BLOCK;
	else if (strcmp(tok, "syscall"))
		return osp_usage_err("trace record",
		                     "--layers: unknown layer '%s' (syscall, fs, block)", tok);
	return 0;
}

static int parse_layers(const char *cmd, const char *flag, const char *arg, void *layers)
{
	(void)cmd;
	(void)flag;
	return osp_opt_each(arg, add_layer, layers);
}

static void human(uint64_t b, char *buf, size_t len)
{
	if (b >= 10ull << 20)
		snprintf(buf, len, "%.1f MiB", b / 1048576.0);
	else
		snprintf(buf, len, "%.1f KiB", b / 1024.0);
}

/* What the command line asks for. */
struct record_args {
	struct osp_trace_writer_opts wo;
	struct osp_pids pids;
	const char *cgroup;
	char **cmdv; /* -- CMD [ARGS] */
	unsigned layers;
	uint64_t duration, ring_bytes;
	int all, verbose, quiet, allow_loss;
	char target[256]; /* as the segment headers name it */
};

#define MIB (1ull << 20)

static const struct osp_opts_spec spec = {
    .cmd = "trace record", .head = usage, .tail = usage_tail, .in_order = 1, .short_in_errors = 1};

/* 0, OSP_OPTS_HELP or OSP_EXIT_USAGE after the message. */
static int parse_args(int argc, char **argv, struct record_args *a)
{
	static const char mib[] = "a size in MiB (> 0)";
	memset(a, 0, sizeof(*a));
	struct osp_option opts[] = {
	    OSP_OPT_FLAG('a', "all", &a->all, "every process on the system (but osprof itself)"),
	    OSP_OPT_PIDS('p', "pid", &a->pids, "PID[,PID]",
	                 "these processes and all their threads"),
	    OSP_OPT_STRING('c', "cgroup", &a->cgroup, "PATH",
	                   "tasks in this cgroup (v2 path, e.g. /sys/fs/cgroup/x)"),
	    OSP_OPT_GROUP("  -- CMD [ARGS]         run CMD and trace it and everything it forks\n\n"
	                  "Output:"),
	    OSP_OPT_STRING('w', "write", &a->wo.dir, "DIR",
	                   "directory of segments (created when missing)"),
	    OSP_OPT_DURATION('G', "rotate-time", &a->wo.rotate_ns, "S",
	                     "start a new segment every S seconds (or DURATION: 10m)"),
	    OSP_OPT_SIZE('C', "rotate-size", &a->wo.rotate_bytes, MIB, mib, "MB",
	                 "start a new segment before one grows past MB MiB\n"
	                 "(or a size with K, M or G: 512K, 2G)"),
	    OSP_OPT_SIZE(0, "max-disk", &a->wo.max_disk, MIB, mib, "MB",
	                 "keep DIR under MB MiB: the oldest closed segments are\n"
	                 "deleted (or moved to --archive); never the open one"),
	    OSP_OPT_STRING(0, "archive", &a->wo.archive, "DIR",
	                   "move closed segments here (with --max-disk: only when\n"
	                   "the budget needs room)"),
	    OSP_OPT_FLAG(0, "zstd", &a->wo.zstd, "compress each block with zstd as well"),
	    OSP_OPT_CALL(0, "layers", &a->layers, parse_layers, "L[,L]",
	                 "also record fs (ext4 sync/write, page-cache fills) and\n"
	                 "block (requests issue -> complete) events"),
	    OSP_OPT_SIZE(0, "buffer", &a->ring_bytes, MIB, mib, "MB",
	                 "kernel ring buffer size (power of two, default 32)"),
	    OSP_OPT_DURATION('d', "duration", &a->duration, "DUR", "stop after DUR (e.g. 30s, 5m)"),
	    OSP_OPT_FLAG('v', "verbose", &a->verbose, "print attach modes"),
	    OSP_OPT_FLAG('q', "quiet", &a->quiet,
	                 "no progress line (elapsed, events/s, drops, bytes\n"
	                 "written; shown only when stderr is a terminal)"),
	    OSP_OPT_FLAG(0, "allow-loss", &a->allow_loss,
	                 "exit 0 even when events were dropped (still counted)"),
	    OSP_OPT_END,
	};
	/* in order: the first non-option starts CMD */
	int next, rc = osp_opts_parse(&spec, opts, argc, argv, &next);
	if (rc)
		return rc;
	a->cmdv = next < argc ? argv + next : NULL;
	if ((a->all != 0) + (a->pids.n != 0) + (a->cgroup != NULL) + (a->cmdv != NULL) != 1)
		return osp_usage_err("trace record",
		                     "give exactly one target: -a, -p PID, -c CGROUP or -- CMD");
	if (!a->wo.dir)
		return osp_usage_err("trace record", "-w DIR is required");
	if (a->ring_bytes & (a->ring_bytes - 1))
		return osp_usage_err("trace record", "--buffer: %llu MiB is not a power of two",
		                     (unsigned long long)(a->ring_bytes / MIB));
	if (a->wo.max_disk && a->wo.rotate_bytes && a->wo.rotate_bytes * 2 > a->wo.max_disk)
		return osp_usage_err("trace record",
		                     "-C must be at most half of --max-disk, so that a closed "
		                     "segment can make room for the open one");
	return 0;
}

/* "-a", "-p 1,2", "-c PATH" or "-- CMD ARGS" into a->target. */
static void describe_target(struct record_args *a)
{
	size_t n = (size_t)snprintf(a->target, sizeof(a->target), "%s", a->cmdv ? "--" : "-a");
	if (a->pids.n)
		n = (size_t)snprintf(a->target, sizeof(a->target), "-p");
	for (size_t i = 0; i < a->pids.n && n < sizeof(a->target); i++)
		n += (size_t)snprintf(a->target + n, sizeof(a->target) - n, "%s%d", i ? "," : " ",
		                      (int)a->pids.v[i]);
	if (a->cgroup)
		snprintf(a->target, sizeof(a->target), "-c %s", a->cgroup);
	for (char **c = a->cmdv; c && *c && n < sizeof(a->target); c++)
		n += (size_t)snprintf(a->target + n, sizeof(a->target) - n, " %s", *c);
	a->wo.target = a->target;
}

/* Reads the ring buffer into the writer until a signal, -d, the -p
 * processes or CMD end it; then drains it. Returns CMD's status, or 0. */
static int record_loop(struct osp_trace_capture *cap, struct osp_trace_writer *w,
                       const struct osp_session *s, const struct record_args *a)
{
	int status = OSP_EXIT_OK;
	uint64_t start = osp_now_ns(), end = a->duration ? start + a->duration : UINT64_MAX;
	struct osp_progress pg;
	struct osp_trace_writer_stats ps;
	osp_progress_init(&pg, "trace record", a->quiet);
	waiter.fd = osp_trace_capture_fd(cap);
	for (;;) {
		osp_trace_writer_get_stats(w, &ps);
		osp_progress_counts(&pg, !pg.last_ns, ps.events, ps.dropped, ps.disk_bytes);
		uint64_t tick = osp_now_ns() + 100000000ull;
		enum osp_wake wk = osp_wait(&waiter, tick < end ? tick : end);
		long k = osp_trace_capture_poll(cap, w, 0);
		if (k < 0) {
			osp_err("trace record: reading the ring buffer: %s", strerror((int)-k));
			status = OSP_EXIT_FAIL;
			break;
		}
		osp_trace_writer_tick(w);
		if (wk == OSP_WAKE_CHILD) {
			status = waiter.status;
			break;
		}
		if (wk == OSP_WAKE_STOP || osp_now_ns() >= end)
			break;
		if (s->npids && !any_alive(s->pids, s->npids)) {
			fprintf(stderr, "osprof trace: every -p process has exited\n");
			break;
		}
	}
	/* Detach first so that draining the buffer empties it for good. */
	osp_trace_capture_detach(cap);
	while (osp_trace_capture_poll(cap, w, 1) > 0)
		;
	osp_trace_writer_get_stats(w, &ps);
	osp_progress_counts(&pg, 1, ps.events, ps.dropped, ps.disk_bytes);
	osp_progress_end(&pg);
	waiter.fd = -1;
	while (waiter.child > 0) /* -d ended it: CMD's status is still its own */
		if (osp_wait(&waiter, UINT64_MAX) == OSP_WAKE_CHILD)
			status = waiter.status;
	return status;
}

/* The closing lines: events, segments, size, drops, rotation. */
static void print_summary(const struct osp_trace_writer_stats *ws, int wrc, const char *dir)
{
	char disk[32];
	human(ws->disk_bytes, disk, sizeof(disk));
	double ratio =
	    ws->disk_bytes ? (double)ws->events * OSP_TRACE_RAW_SIZE / ws->disk_bytes : 0;
	fprintf(stderr,
	        "osprof trace: %" PRIu64 " events in %" PRIu64 " segment%s (%s, %.1fx smaller "
	        "than raw records) in %s; %" PRIu64 " dropped\n",
	        ws->events, ws->segments, ws->segments == 1 ? "" : "s", disk, ratio, dir,
	        ws->dropped);
	if (ws->deleted || ws->archived)
		fprintf(stderr,
		        "osprof trace: %" PRIu64 " old segments deleted, %" PRIu64
		        " moved to the archive\n",
		        ws->deleted, ws->archived);
	if (wrc)
		fprintf(stderr,
		        "osprof trace: warning: writing segments failed (%s); the "
		        "events affected were dropped and counted\n",
		        strerror(-wrc));
}

/* Starts CMD held (so the filter knows its pid before the programs load),
 * loads and attaches the capture, releases CMD. 0 or -1 after a message. */
static int start_capture(struct osp_session *s, const struct record_args *a,
                         struct osp_trace_capture **cap, struct osp_trace_writer *w)
{
	int release_fd = -1;
	pid_t child = 0;
	if (a->cmdv) {
		child = osp_spawn(a->cmdv, &release_fd,
		                  &(struct osp_spawn_opts){.who = "trace record"});
		if (child < 0) {
			osp_err("trace record: cannot start %s: %s", a->cmdv[0], strerror(errno));
			return -1;
		}
		s->root_pid = child;
	}
	osp_waiter_init(&waiter, child, -1);
	if (osp_trace_capture_open(cap, s, a->layers, (size_t)a->ring_bytes) < 0 ||
	    osp_trace_capture_attach(*cap, s) < 0) {
		if (release_fd >= 0) {
			close(release_fd); /* the held child exits without running */
			while (osp_wait(&waiter, UINT64_MAX) != OSP_WAKE_CHILD)
				;
		}
		return -1;
	}
	/* tp_btf or raw_tp, as the load found: said in every segment header */
	osp_trace_writer_set_attach(w, osp_get_meta(s->set, "attach_modes"));
	if (!a->cmdv) {
		fprintf(stderr, "osprof trace: recording %s into %s; Ctrl-C to stop\n", a->target,
		        a->wo.dir);
	} else if (osp_spawn_release(release_fd)) {
		osp_err("trace record: cannot release %s: %s", a->cmdv[0], strerror(errno));
		return -1;
	}
	return 0;
}

int trace_cmd_record(int argc, char **argv)
{
	struct record_args a;
	int rc = parse_args(argc, argv, &a);
	if (rc) {
		free(a.pids.v);
		return osp_opts_exit(rc);
	}
	describe_target(&a);
	char err[600];
	struct osp_trace_writer *w = osp_trace_writer_open(&a.wo, err, sizeof(err));
	if (!w) {
		fprintf(stderr, "osprof trace record: -w %s\n", err);
		free(a.pids.v);
		return OSP_EXIT_USAGE;
	}
	struct osp_session s;
	memset(&s, 0, sizeof(s));
	s.all = a.all;
	s.pids = a.pids.v;
	s.npids = a.pids.n;
	s.cgroup = a.cgroup;
	s.verbose = a.verbose;
	s.set = osp_set_new(1);
	s.r = 1;
	int status = OSP_EXIT_FAIL;
	struct osp_trace_capture *cap = NULL;
	if (s.set) {
		osp_signals_install();
		if (!start_capture(&s, &a, &cap, w))
			status = record_loop(cap, w, &s, &a);
	}
	struct osp_trace_writer_stats ws;
	int wrc = osp_trace_writer_close(w, &ws);
	osp_trace_capture_close(cap, &s);
	if (status != OSP_EXIT_FAIL || ws.events)
		print_summary(&ws, wrc, a.wo.dir);
	struct osp_losses lost = {.dropped_events = ws.dropped};
	status = osp_losses_finish("trace record", &lost, a.allow_loss, 0, status);
	osp_set_free(s.set);
	free(a.pids.v);
	return status;
}
