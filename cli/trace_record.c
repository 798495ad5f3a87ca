/* osprof trace record: capture file-system operations into segments. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli/cli.h"
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
    "Targets (one of):\n"
    "  -a, --all            every process on the system (but osprof itself)\n"
    "  -p, --pid PID[,PID]  these processes and all their threads\n"
    "  -c, --cgroup PATH    tasks in this cgroup (v2 path, e.g. /sys/fs/cgroup/x)\n"
    "  -- CMD [ARGS]        run CMD and trace it and everything it forks\n\n"
    "Output:\n"
    "  -w, --write DIR      directory of segments (created when missing)\n"
    "  -G, --rotate-time S  start a new segment every S seconds (or DURATION: 10m)\n"
    "  -C, --rotate-size MB start a new segment before one grows past MB MiB\n"
    "      --max-disk MB    keep DIR under MB MiB: the oldest closed segments are\n"
    "                       deleted (or moved to --archive); never the open one\n"
    "      --archive DIR    move closed segments here (with --max-disk: only when\n"
    "                       the budget needs room)\n"
    "      --zstd           compress each block with zstd as well\n"
    "      --layers L[,L]   also record fs (ext4 sync/write, page-cache fills) and\n"
    "                       block (requests issue -> complete) events\n"
    "      --buffer MB      kernel ring buffer size (power of two, default 32)\n"
    "  -d, --duration DUR   stop after DUR (e.g. 30s, 5m)\n"
    "  -v, --verbose        print attach modes\n"
    "  -q, --quiet          no progress line (elapsed, events/s, drops, bytes\n"
    "                       written; shown only when stderr is a terminal)\n"
    "      --allow-loss     exit 0 even when events were dropped (still counted)\n\n"
    "When the disk fills, recording goes on and events are dropped and counted;\n"
    "what is already written stays readable. Drops are stored per segment and\n"
    "reported at exit. Read the trace with 'osprof trace dump|stats|profile DIR'.\n\n"
    "Exit status: with -- CMD, CMD's exit status (128+N if killed by signal N);\n"
    "when it is 0 (or without CMD) and events were dropped, 3 after one line\n"
    "naming the count (--allow-loss: 0); 2 bad option, value or -w directory\n"
    "(nothing attached); 1 recording cannot start here.\n";

static pid_t child_pid;

static int any_alive(const pid_t *pids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (kill(pids[i], 0) == 0 || errno != ESRCH)
			return 1;
	return 0;
}

static int parse_mb(const char *flag, const char *arg, uint64_t *bytes)
{
	char *end;
	double v = strtod(arg, &end);
	if (*arg == 0 || *end || !(v > 0) || v > 1e9)
		return osp_usage_err("trace record", "%s: '%s' is not a size in MiB (> 0)", flag,
		                     arg);
	*bytes = (uint64_t)llround(v * 1048576.0);
	return 0;
}

static int parse_pids(const char *arg, pid_t **pids, size_t *n)
{
	char *copy = strdup(arg), *save, *tok;
	int rc = 0;
	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long v = strtol(tok, &end, 10);
		if (*end || v <= 0) {
			rc = osp_usage_err("trace record", "-p: '%s' is not a process id", tok);
			break;
		}
		pid_t *np = realloc(*pids, (*n + 1) * sizeof(pid_t));
		if (!np)
			break;
		*pids = np;
		(*pids)[(*n)++] = (pid_t)v;
	}
	free(copy);
	return rc;
}

static int parse_layers(const char *arg, unsigned *layers)
{
	char *copy = strdup(arg), *save, *tok;
	int rc = 0;
	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "fs"))
			*layers |= OSP_TRACE_L_FS;
		else if (!strcmp(tok, "block"))
			*layers |= OSP_TRACE_L_BLOCK;
		else if (strcmp(tok, "syscall"))
			rc =
			    osp_usage_err("trace record",
			                  "--layers: unknown layer '%s' (syscall, fs, block)", tok);
	}
	free(copy);
	return rc;
}

static void human(uint64_t b, char *buf, size_t len)
{
	if (b >= 10ull << 20)
		snprintf(buf, len, "%.1f MiB", b / 1048576.0);
	else
		snprintf(buf, len, "%.1f KiB", b / 1024.0);
}

int trace_cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"all", no_argument, NULL, 'a'},
	    {"pid", required_argument, NULL, 'p'},
	    {"cgroup", required_argument, NULL, 'c'},
	    {"write", required_argument, NULL, 'w'},
	    {"rotate-time", required_argument, NULL, 'G'},
	    {"rotate-size", required_argument, NULL, 'C'},
	    {"duration", required_argument, NULL, 'd'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {"max-disk", required_argument, NULL, 1},
	    {"archive", required_argument, NULL, 2},
	    {"zstd", no_argument, NULL, 3},
	    {"layers", required_argument, NULL, 4},
	    {"buffer", required_argument, NULL, 5},
	    {"allow-loss", no_argument, NULL, 6},
	    {NULL, 0, NULL, 0},
	};
	struct osp_trace_writer_opts wo = {0};
	struct osp_session s;
	memset(&s, 0, sizeof(s));
	unsigned layers = 0;
	uint64_t duration = 0, rb = 0;
	int c, rc, ntargets = 0, quiet = 0, allow_loss = 0;
	const char *pid_arg = NULL;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:ap:c:w:G:C:d:vqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			s.all = 1;
			ntargets++;
			break;
		case 'p':
			pid_arg = optarg;
			if ((rc = parse_pids(optarg, &s.pids, &s.npids)))
				return rc;
			ntargets++;
			break;
		case 'c':
			s.cgroup = optarg;
			ntargets++;
			break;
		case 'w':
			wo.dir = optarg;
			break;
		case 'G':
			if (osp_parse_duration(optarg, &wo.rotate_ns) || !wo.rotate_ns)
				return osp_usage_err("trace record", "-G: '%s' is not a duration",
				                     optarg);
			break;
		case 'C':
			if ((rc = parse_mb("-C", optarg, &wo.rotate_bytes)))
				return rc;
			break;
		case 'd':
			if (osp_parse_duration(optarg, &duration) || !duration)
				return osp_usage_err("trace record", "-d: '%s' is not a duration",
				                     optarg);
			break;
		case 'q':
			quiet = 1;
			break;
		case 6:
			allow_loss = 1;
			break;
		case 'v':
			s.verbose = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			return OSP_EXIT_OK;
		case 1:
			if ((rc = parse_mb("--max-disk", optarg, &wo.max_disk)))
				return rc;
			break;
		case 2:
			wo.archive = optarg;
			break;
		case 3:
			wo.zstd = 1;
			break;
		case 4:
			if ((rc = parse_layers(optarg, &layers)))
				return rc;
			break;
		case 5:
			if ((rc = parse_mb("--buffer", optarg, &rb)))
				return rc;
			if (rb & (rb - 1))
				return osp_usage_err("trace record",
				                     "--buffer: %s MiB is not a power of two",
				                     optarg);
			break;
		case ':':
			return osp_usage_err("trace record", "option %s needs a value",
			                     argv[optind - 1]);
		default:
			return osp_usage_err("trace record", "unknown option '%s'",
			                     argv[optind - 1]);
		}
	}
	char **cmdv = optind < argc ? argv + optind : NULL;
	if (cmdv)
		ntargets++;
	if (ntargets != 1)
		return osp_usage_err("trace record",
		                     "give exactly one target: -a, -p PID, -c CGROUP or -- CMD");
	if (!wo.dir)
		return osp_usage_err("trace record", "-w DIR is required");
	if (wo.max_disk && wo.rotate_bytes && wo.rotate_bytes * 2 > wo.max_disk)
		return osp_usage_err(
		    "trace record",
		    "-C must be at most half of --max-disk, so that a closed segment "
		    "can make room for the open one");

	char target[256] = "-a";
	if (s.npids)
		snprintf(target, sizeof(target), "-p %s", pid_arg);
	if (s.cgroup)
		snprintf(target, sizeof(target), "-c %s", s.cgroup);
	if (cmdv) {
		size_t n = (size_t)snprintf(target, sizeof(target), "--");
		for (char **a = cmdv; *a && n < sizeof(target); a++)
			n += (size_t)snprintf(target + n, sizeof(target) - n, " %s", *a);
	}
	wo.target = target;

	char err[600];
	struct osp_trace_writer *w = osp_trace_writer_open(&wo, err, sizeof(err));
	if (!w) {
		fprintf(stderr, "osprof trace record: -w %s\n", err);
		return OSP_EXIT_USAGE;
	}
	s.set = osp_set_new(1);
	s.r = 1;
	int status = OSP_EXIT_FAIL, release_fd = -1;
	struct osp_trace_capture *cap = NULL;
	if (!s.set)
		goto out;
	osp_signals_install();
	/* The held child exists before the programs load, so the filter knows
	 * its pid from the start. */
	if (cmdv) {
		child_pid =
		    osp_spawn(cmdv, &release_fd, &(struct osp_spawn_opts){.who = "trace record"});
		if (child_pid < 0) {
			osp_err("trace record: cannot start %s: %s", cmdv[0], strerror(errno));
			goto out;
		}
		s.root_pid = child_pid;
		osp_signals_child(child_pid);
	}
	if (osp_trace_capture_open(&cap, &s, layers, (size_t)rb) < 0 ||
	    osp_trace_capture_attach(cap, &s) < 0) {
		if (release_fd >= 0) {
			close(release_fd); /* the held child exits without running */
			waitpid(child_pid, NULL, 0);
			child_pid = 0;
		}
		goto out;
	}
	/* tp_btf or raw_tp, as the load found: said in every segment header */
	osp_trace_writer_set_attach(w, osp_get_meta(s.set, "attach_modes"));
	uint64_t start = osp_now_ns();
	if (cmdv) {
		if (osp_spawn_release(release_fd)) {
			osp_err("trace record: cannot release %s: %s", cmdv[0], strerror(errno));
			goto out;
		}
	} else {
		fprintf(stderr, "osprof trace: recording %s into %s; Ctrl-C to stop\n", target,
		        wo.dir);
	}
	status = OSP_EXIT_OK;
	struct osp_progress pg;
	osp_progress_init(&pg, "trace record", quiet);
	for (;;) {
		struct osp_trace_writer_stats ps;
		osp_trace_writer_get_stats(w, &ps);
		osp_progress_counts(&pg, !pg.last_ns, ps.events, ps.dropped, ps.disk_bytes);
		long k = osp_trace_capture_poll(cap, w, 100);
		if (k < 0) {
			osp_err("trace record: reading the ring buffer: %s", strerror((int)-k));
			status = OSP_EXIT_FAIL;
			break;
		}
		osp_trace_writer_tick(w);
		/* A command osprof started was passed the signal: recording
		 * goes on until it has exited. */
		if ((osp_signals_stop() && child_pid <= 0) ||
		    (duration && osp_now_ns() - start >= duration))
			break;
		if (s.npids && !any_alive(s.pids, s.npids)) {
			fprintf(stderr, "osprof trace: every -p process has exited\n");
			break;
		}
		if (child_pid > 0) {
			int st;
			pid_t p = waitpid(child_pid, &st, WNOHANG);
			if (p == child_pid) {
				status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
				child_pid = 0;
				osp_signals_child(0);
				break;
			}
		}
	}
	/* Detach first so that draining the buffer empties it for good. */
	osp_trace_capture_detach(cap);
	while (osp_trace_capture_poll(cap, w, 0) > 0)
		;
	{
		struct osp_trace_writer_stats ps;
		osp_trace_writer_get_stats(w, &ps);
		osp_progress_counts(&pg, 1, ps.events, ps.dropped, ps.disk_bytes);
		osp_progress_end(&pg);
	}
	if (child_pid > 0) {
		int st;
		while (waitpid(child_pid, &st, 0) < 0 && errno == EINTR)
			;
		osp_signals_child(0);
		status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	}
out:;
	struct osp_trace_writer_stats ws;
	int wrc = osp_trace_writer_close(w, &ws);
	osp_trace_capture_close(cap, &s);
	if (status != OSP_EXIT_FAIL || ws.events) {
		char disk[32];
		human(ws.disk_bytes, disk, sizeof(disk));
		double ratio =
		    ws.disk_bytes ? (double)ws.events * OSP_TRACE_RAW_SIZE / ws.disk_bytes : 0;
		fprintf(stderr,
		        "osprof trace: %" PRIu64 " events in %" PRIu64
		        " segment%s (%s, %.1fx smaller "
		        "than raw records) in %s; %" PRIu64 " dropped\n",
		        ws.events, ws.segments, ws.segments == 1 ? "" : "s", disk, ratio, wo.dir,
		        ws.dropped);
		if (ws.deleted || ws.archived)
			fprintf(stderr,
			        "osprof trace: %" PRIu64 " old segments deleted, %" PRIu64
			        " moved to the archive\n",
			        ws.deleted, ws.archived);
		if (wrc)
			fprintf(stderr,
			        "osprof trace: warning: writing segments failed (%s); the "
			        "events affected were dropped and counted\n",
			        strerror(-wrc));
	}
	struct osp_losses lost = {.dropped_events = ws.dropped};
	status = osp_losses_finish("trace record", &lost, allow_loss, status);
	osp_set_free(s.set);
	free(s.pids);
	return status;
}
