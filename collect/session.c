/* The command a collecting command starts, and the signal policy they share
 * (collect/session.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <osprof/clock.h>
#include "collect/session.h"
#include "collect/user_elf.h"

/* Forks CMD held before exec, so layers can attach to its pid first. The
 * PATH search happens here, before the fork: done by execvp in the child it
 * would run under the probes, and every failed execve of the search would
 * be profiled as the command's own. */
pid_t osp_spawn(char **argv, int *release_fd, const struct osp_spawn_opts *o)
{
	char path[4096];
	int p[2];
	if (osp_elf_resolve(argv[0], path, sizeof(path))) {
		errno = ENOENT;
		return -1;
	}
	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char go;
		close(p[1]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		/* EOF without a byte means osprof died: do not run unprofiled. */
		if (read(p[0], &go, 1) != 1)
			_exit(127);
		for (char *const *e = o->env; e && *e; e++)
			putenv(*e);
		if (o->stdout_fd > 0 &&
		    (dup2(o->stdout_fd, 1) < 0 || (o->stderr_too && dup2(o->stdout_fd, 2) < 0)))
			_exit(127);
		execv(path, argv);
		if (errno == ENOEXEC) /* a script without #!: execvp hands it to sh */
			execvp(argv[0], argv);
		fprintf(stderr, "osprof %s: %s: %s\n", o->who, argv[0], strerror(errno));
		_exit(127);
	}
	close(p[0]);
	*release_fd = p[1];
	return pid;
}

int osp_spawn_release(int release_fd)
{
	int rc = write(release_fd, "g", 1) == 1 ? 0 : -1;
	close(release_fd);
	return rc;
}

static volatile sig_atomic_t stop_sig;
static volatile pid_t child;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	int again = stop_sig != 0;
	if (!again)
		stop_sig = sig;
	if (child <= 0)
		return;
	if (again)
		kill(child, SIGKILL);
	else if (sig == SIGTERM || si->si_code <= 0) /* kill(2), not the terminal */
		kill(child, sig);
}

void osp_signals_install(void)
{
	struct sigaction sa = {.sa_sigaction = on_signal, .sa_flags = SA_SIGINFO};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

void osp_signals_child(pid_t pid)
{
	child = pid;
}

int osp_signals_stop(void)
{
	return stop_sig;
}

/* SIGINT and SIGTERM blocked; *wait_mask lets them in. */
static void signals_block(sigset_t *wait_mask)
{
	sigset_t block;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, wait_mask);
	sigdelset(wait_mask, SIGINT);
	sigdelset(wait_mask, SIGTERM);
}

void osp_waiter_init(struct osp_waiter *w, pid_t child_pid, int fd)
{
	signals_block(&w->mask);
	w->child = child_pid;
	w->child_fd = child_pid > 0 ? (int)syscall(SYS_pidfd_open, child_pid, 0) : -1;
	w->status = 0;
	w->signal = 0;
	w->fd = fd;
	w->ends_child = 0;
	osp_signals_child(child_pid);
}

/* Reaps the command if it has exited (waits for it without WNOHANG in
 * flags); 1 then. One that osprof ends itself is left a zombie. */
static int reap(struct osp_waiter *w, int flags)
{
	siginfo_t si = {.si_pid = 0};
	int keep = w->ends_child ? WNOWAIT : 0;
	if (waitid(P_PID, (id_t)w->child, &si, WEXITED | flags | keep) < 0) {
		if (errno == EINTR)
			return 0;
		w->status = 1; /* not ours to wait for: forgotten */
		keep = 0;
	} else if (si.si_pid == 0) {
		return 0; /* WNOHANG: still running */
	} else {
		w->signal = si.si_code == CLD_EXITED ? 0 : si.si_status;
		w->status = w->signal ? 128 + w->signal : si.si_status;
	}
	if (!keep)
		osp_waiter_done(w);
	return 1;
}

enum osp_wake osp_wait(struct osp_waiter *w, uint64_t until)
{
	for (;;) {
		if (w->child > 0 && reap(w, WNOHANG))
			return OSP_WAKE_CHILD;
		if (stop_sig && (w->child <= 0 || w->ends_child))
			return OSP_WAKE_STOP;
		uint64_t now = osp_now_ns(), d = now < until ? until - now : 0;
		/* without a pidfd the command's exit is noticed within 250 ms */
		if (w->child > 0 && w->child_fd < 0 && d > 250000000ull)
			d = 250000000ull;
		struct timespec ts = {(time_t)(d / 1000000000ull), (long)(d % 1000000000ull)};
		struct pollfd pf[2];
		nfds_t n = 0;
		if (w->fd >= 0)
			pf[n++] = (struct pollfd){.fd = w->fd, .events = POLLIN};
		if (w->child > 0 && w->child_fd >= 0)
			pf[n++] = (struct pollfd){.fd = w->child_fd, .events = POLLIN};
		/* Even when late (d = 0) the signals are let in once: a command
		 * whose every interval overruns would otherwise never see one. */
		int rc = ppoll(pf, n, &ts, &w->mask);
		if (rc < 0 && errno != EINTR) /* cannot poll: block on the command, or end */
			return w->child > 0 && reap(w, 0) ? OSP_WAKE_CHILD : OSP_WAKE_STOP;
		if (w->fd >= 0 && rc > 0 && (pf[0].revents & (POLLIN | POLLERR | POLLHUP)))
			return OSP_WAKE_FD;
		if (rc == 0 && osp_now_ns() >= until)
			return OSP_WAKE_TIME;
	}
}

void osp_waiter_done(struct osp_waiter *w)
{
	if (w->child_fd >= 0)
		close(w->child_fd);
	w->child_fd = -1;
	w->child = 0;
	osp_signals_child(0);
}

void osp_waiter_ends_child(struct osp_waiter *w, int on)
{
	w->ends_child = on;
	osp_signals_child(on ? 0 : w->child);
}
