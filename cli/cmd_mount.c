/* osprof mount: the stackable profiling file system (layer `stack`). */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/options.h"
#include "cli/collect_opts.h"
#include "cli/losses.h"
#include "collect/user_elf.h"
#include "collect/stack_fs.h"
#include "collect/stack_stats.h"

static const char usage_head[] =
    "usage: osprof mount [OPTIONS] LOWER MOUNTPOINT [-- CMD [ARGS...]]\n\n"
    "Mounts a pass-through FUSE file system on MOUNTPOINT that forwards every\n"
    "operation to the directory LOWER and times each one in layer 'stack',\n"
    "named as the VFS names it (lookup, getattr, open, read, write, readdir,\n"
    "create, unlink, rename, fsync, setattr, statfs, flush, release, ...), with\n"
    "dimension fs = the type of LOWER's file system. It needs /dev/fuse and\n"
    "root or fusermount3, and nothing else from the kernel.\n\n"
    "With -- CMD it mounts, runs CMD in MOUNTPOINT (or in -C DIR), unmounts when\n"
    "CMD exits and writes the profile set. Without CMD it serves until the file\n"
    "system is unmounted (fusermount3 -u MOUNTPOINT) or osprof gets SIGINT or\n"
    "SIGTERM, then unmounts and writes. Read the result with 'osprof report'.\n"
    "Options come before LOWER.\n\n"
    "Options:\n";

static const char usage_tail[] =
    "\n"
    "Exit status: with CMD, CMD's exit status (128+N if it was killed by signal N, 127 if it\n"
    "was not found); without: 0. 3 when that would be 0 but samples were lost\n"
    "(--allow-loss: 0). Before mounting: 2 for a bad option, directory or output\n"
    "path; 1 when the file system cannot be mounted here. 1 also when FILE\n"
    "cannot be written.\n";

struct mount_opts {
	const char *output, *cwd;
	unsigned r;
	uint64_t slice_ns;
	enum osp_stack_by by;
	int corr_size, corr_offset, direct_io, passthrough, allow_other, allow_loss;
};

static int add_correlate(const char *tok, void *ctx)
{
	struct mount_opts *o = ctx;
	if (!strcmp(tok, "size"))
		o->corr_size = 1;
	else if (!strcmp(tok, "offset"))
		o->corr_offset = 1;
	else
		return osp_usage_err("mount", "--correlate: '%s' is not size or offset", tok);
	return 0;
}

static int parse_correlate(const char *cmd, const char *flag, const char *arg, void *ctx)
{
	struct mount_opts *o = ctx;
	int rc = osp_opt_each(arg, add_correlate, o);
	if (!rc && !o->corr_size && !o->corr_offset)
		rc = osp_usage_err(cmd, "%s: expected size, offset or size,offset", flag);
	return rc;
}

static const char *const by_choices[] = {"pid", "comm", NULL};

static const struct osp_opts_spec spec = {
    .cmd = "mount", .head = usage_head, .tail = usage_tail, .in_order = 1};

/* 0, OSP_OPTS_HELP after --help, or 2 after an error naming the flag. */
static int parse(int argc, char **argv, struct mount_opts *o, int *next)
{
	const char *by = NULL;
	memset(o, 0, sizeof(*o));
	o->output = "osprof.osp";
	o->r = 1;
	struct osp_option opts[] = {
	    OSP_OPT_STRING('o', "output", &o->output, "FILE",
	                   "profile set to write (default osprof.osp); checked\n"
	                   "before anything is mounted"),
	    OSP_OPT_RESOLUTION(&o->r),
	    OSP_OPT_DURATION('i', "interval", &o->slice_ns, "DUR",
	                     "keep per-slice histograms of this length (e.g. 100ms)"),
	    OSP_OPT_CHOICE(0, "by", &by, by_choices, "pid|comm",
	                   "split profiles by the calling process or its name\n"
	                   "(from the FUSE request)"),
	    OSP_OPT_CALL(0, "correlate", o, parse_correlate, "LIST",
	                 "split read, write and copy_file_range by size (the\n"
	                 "request size's power of two: size=4096 holds\n"
	                 "4096..8191 bytes) and/or offset (offset=seq when a\n"
	                 "request starts where the last one of its open file\n"
	                 "ended, or at 0 as its first, else rand), e.g.\n"
	                 "--correlate size,offset"),
	    OSP_OPT_FLAG(0, "direct-io", &o->direct_io,
	                 "open files with direct I/O: no page cache in the\n"
	                 "mount, one read or write request per call"),
	    OSP_OPT_FLAG(0, "passthrough", &o->passthrough,
	                 "let the kernel pass file data straight to LOWER\n"
	                 "(FUSE passthrough: libfuse 3.16 and Linux 6.9)"),
	    OSP_OPT_FLAG(0, "allow-other", &o->allow_other,
	                 "let other users in (the kernel checks permissions)"),
	    OSP_OPT_STRING('C', "cwd", &o->cwd, "DIR",
	                   "CMD's working directory (default MOUNTPOINT)"),
	    OSP_OPT_FLAG(0, "allow-loss", &o->allow_loss, "exit 0 even when samples were lost"),
	    OSP_OPT_END,
	};
	/* in order: options come before LOWER, and CMD's own after -- */
	int rc = osp_opts_parse(&spec, opts, argc, argv, next);
	if (!rc && by)
		o->by = !strcmp(by, "pid") ? OSP_STACK_BY_PID : OSP_STACK_BY_COMM;
	return rc;
}

/* LOWER and MOUNTPOINT are directories, and the mount point is not inside
 * LOWER (the pass-through would then walk into itself). */
static int check_dirs(const char *lower, const char *mnt, char *lower_real, char *mnt_real)
{
	const char *const what[2] = {"LOWER", "MOUNTPOINT"}, *const path[2] = {lower, mnt};
	for (int i = 0; i < 2; i++) {
		struct stat st;
		int bad = stat(path[i], &st);
		if (bad || !S_ISDIR(st.st_mode))
			return osp_usage_err("mount", "%s %s: %s", what[i], path[i],
			                     bad ? strerror(errno) : "not a directory");
	}
	if (!realpath(lower, lower_real) || !realpath(mnt, mnt_real))
		return osp_usage_err("mount", "%s: %s", lower, strerror(errno));
	size_t n = strlen(lower_real);
	if (!strcmp(lower_real, "/") ||
	    (!strncmp(mnt_real, lower_real, n) && (mnt_real[n] == '/' || mnt_real[n] == '\0')))
		return osp_usage_err("mount", "MOUNTPOINT %s is inside LOWER %s", mnt, lower);
	return 0;
}

static void on_fs_end(void *arg)
{
	(void)arg;
	kill(getpid(), SIGUSR1);
}

static int exit_status(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Forks CMD in dir with the signal mask and umask osprof started with. */
static pid_t spawn_in(char **cmdv, const char *dir, const sigset_t *mask, mode_t old_umask)
{
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	sigprocmask(SIG_SETMASK, mask, NULL);
	umask(old_umask);
	if (chdir(dir)) {
		fprintf(stderr, "osprof mount: %s: %s\n", dir, strerror(errno));
		_exit(127);
	}
	execvp(cmdv[0], cmdv);
	fprintf(stderr, "osprof mount: %s: %s\n", cmdv[0], strerror(errno));
	_exit(127);
}

/* Waits for the end: CMD's exit, the file system's end, or a signal. */
static int wait_end(pid_t child, const sigset_t *set)
{
	int status = 0, fs_ended = 0;
	for (;;) {
		siginfo_t si;
		int sig = sigwaitinfo(set, &si);
		if (sig < 0)
			continue;
		if (sig == SIGCHLD && child > 0) {
			int st;
			if (waitpid(child, &st, WNOHANG) == child)
				return exit_status(st);
		} else if (sig == SIGUSR1) {
			fs_ended = 1;
			if (child <= 0)
				return status;
		} else if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
			if (child <= 0)
				return status;
			/* A terminal's ^C reaches CMD by itself; a signal sent to
			 * osprof alone is passed on so CMD ends and we write. */
			if (si.si_code == SI_USER || si.si_code == SI_QUEUE)
				kill(child, sig);
		}
		(void)fs_ended;
	}
}

static int write_profile(const struct mount_opts *o, struct osp_set *set, int status)
{
	char err[512];
	if (osp_stack_stats_merge(set, err, sizeof(err))) {
		osp_err("mount: %s", err);
		return OSP_EXIT_FAIL;
	}
	if (osp_set_save(set, o->output, err, sizeof(err))) {
		osp_err("mount: %s", err);
		return OSP_EXIT_FAIL;
	}
	fprintf(stderr, "osprof: %zu profiles written to %s\n", set->n, o->output);
	struct osp_losses lost;
	osp_losses_read(set, &lost);
	return osp_losses_finish("mount", &lost, o->allow_loss, 0, status);
}

static struct osp_set *new_set(const struct mount_opts *o, const char *lower, const char *mnt,
                               const char *fstype, char **cmdv)
{
	struct osp_set *set = osp_set_new(o->r);
	if (!set)
		return NULL;
	osp_set_stamp_host(set);
	set->slice_ns = o->slice_ns;
	osp_set_meta(set, "layers", "stack");
	osp_set_metaf(set, "resolution", "%u", o->r);
	osp_set_meta(set, "stack_lower", lower);
	osp_set_meta(set, "stack_mountpoint", mnt);
	osp_set_meta(set, "stack_fs", fstype);
	osp_set_meta(set, "stack_direct_io", o->direct_io ? "1" : "0");
	char cmdline[1024] = "";
	for (char **a = cmdv; a && *a; a++)
		snprintf(cmdline + strlen(cmdline), sizeof(cmdline) - strlen(cmdline), "%s%s",
		         a == cmdv ? "" : " ", *a);
	if (*cmdline)
		osp_set_meta(set, "command", cmdline);
	return set;
}

int cmd_mount(int argc, char **argv)
{
	struct mount_opts o;
	int next = 0, rc = parse(argc, argv, &o, &next);
	if (rc)
		return osp_opts_exit(rc);
	if (argc - next < 2)
		return osp_usage_err("mount", "expected LOWER MOUNTPOINT");
	const char *lower = argv[next], *mnt = argv[next + 1];
	char **cmdv = NULL;
	if (argc - next > 2) {
		if (strcmp(argv[next + 2], "--") || argc - next < 4)
			return osp_usage_err("mount",
			                     "after LOWER MOUNTPOINT expected -- CMD [ARGS]");
		cmdv = argv + next + 3;
	}
	char lower_real[PATH_MAX], mnt_real[PATH_MAX];
	if ((rc = check_dirs(lower, mnt, lower_real, mnt_real)))
		return rc;
	if ((rc = osp_collect_check_output("mount", o.output)))
		return rc;
	if (o.cwd && !cmdv)
		return osp_usage_err("mount", "-C/--cwd needs -- CMD");
	char found[4096];
	if (cmdv && osp_elf_resolve(cmdv[0], found, sizeof(found))) {
		fprintf(stderr, "osprof mount: %s: command not found\n", cmdv[0]);
		return 127;
	}
	if (o.passthrough) {
		osp_err("mount: --passthrough: this osprof was built with libfuse %s, which has "
		        "no FUSE passthrough (it needs libfuse 3.16 and Linux 6.9)",
		        osp_stack_fs_libfuse_version());
		return OSP_EXIT_FAIL;
	}
	char fstype[64];
	osp_stack_fs_type(lower_real, fstype, sizeof(fstype));
	struct osp_set *set = new_set(&o, lower_real, mnt_real, fstype, cmdv);
	if (!set)
		return OSP_EXIT_FAIL;
	uint64_t start = osp_now_ns();
	struct osp_stack_stats_cfg cfg = {o.r,         o.slice_ns,    start, o.by,
	                                  o.corr_size, o.corr_offset, fstype};
	if (osp_stack_stats_init(&cfg)) {
		osp_set_free(set);
		return OSP_EXIT_FAIL;
	}
	/* Every thread started from here on inherits this mask: the signals
	 * are taken by sigwaitinfo below, never by a serving thread. */
	sigset_t set_sigs, old_mask;
	sigemptyset(&set_sigs);
	sigaddset(&set_sigs, SIGINT);
	sigaddset(&set_sigs, SIGTERM);
	sigaddset(&set_sigs, SIGHUP);
	sigaddset(&set_sigs, SIGCHLD);
	sigaddset(&set_sigs, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set_sigs, &old_mask);
	/* The pass-through creates files with the modes the kernel already
	 * masked with the caller's umask: its own must not mask them again. */
	mode_t old_umask = umask(0);
	struct osp_stack_fs_opts fo = {lower_real,    mnt_real,  o.direct_io,
	                               o.allow_other, on_fs_end, NULL};
	struct osp_stack_fs *fs;
	char err[512];
	int status = OSP_EXIT_FAIL, stopped = 1;
	if (osp_stack_fs_start(&fo, &fs, err, sizeof(err))) {
		osp_err("mount: %s", err);
		goto out;
	}
	pid_t child = 0;
	if (cmdv) {
		child = spawn_in(cmdv, o.cwd ? o.cwd : mnt_real, &old_mask, old_umask);
		if (child < 0)
			osp_err("mount: cannot start %s: %s", cmdv[0], strerror(errno));
	}
	status = child < 0 ? OSP_EXIT_FAIL : wait_end(child, &set_sigs);
	uint64_t unreleased;
	stopped = osp_stack_fs_stop(fs, 2000, &unreleased);
	if (unreleased)
		osp_set_metaf(set, "stack_unreleased", "%llu", (unsigned long long)unreleased);
	umask(old_umask); /* the profile is written with the user's */
	osp_set_metaf(set, "duration_ns", "%llu", (unsigned long long)(osp_now_ns() - start));
	status = write_profile(&o, set, status);
out:;
	/* The end notice of a file system that stopped after CMD exited is
	 * still pending: taken here, it cannot kill us once unblocked. */
	sigset_t usr1;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	struct timespec zero = {0, 0};
	while (sigtimedwait(&usr1, NULL, &zero) > 0)
		;
	umask(old_umask);
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	/* Threads still serving a file someone holds open keep their sets
	 * until the process exits. */
	if (stopped)
		osp_stack_stats_free();
	osp_set_free(set);
	return status;
}
