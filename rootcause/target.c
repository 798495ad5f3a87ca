/* The target of a search: the command osprof starts for it, held until the
 * probes are in place (collect/session.c), or a running process; and the
 * one wait of both drivers, osp_wait. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include "rootcause/driver.h"

int rc_target_start(struct rc_target *t, struct rc_opts *o, char **env)
{
	t->is_child = o->cmd != NULL;
	t->gate = -1;
	if (t->is_child) {
		/* Never into osprof's structured output on stdout. */
		struct osp_spawn_opts so = {.who = "rootcause",
		                            .env = env,
		                            .stdout_fd = o->target_fd >= 0 ? o->target_fd : 0,
		                            .stderr_too = o->target_both};
		o->pid = osp_spawn(o->cmd, &t->gate, &so);
		if (o->pid < 0)
			return -1;
	}
	t->pid = o->pid;
	/* After the fork: the waiter blocks the stop signals, and CMD must not
	 * inherit that. */
	osp_waiter_init(&t->w, t->is_child ? t->pid : 0, -1);
	osp_waiter_ends_child(&t->w, 1);
	return 0;
}

void rc_target_release(struct rc_target *t)
{
	if (t->gate >= 0 && osp_spawn_release(t->gate))
		perror("osprof rootcause: gate");
	t->gate = -1;
}

enum rc_target_state rc_wait(struct rc_target *t, int fd, uint64_t until)
{
	t->w.fd = fd;
	switch (osp_wait(&t->w, until)) {
	case OSP_WAKE_CHILD:
		return RC_EXITED;
	case OSP_WAKE_STOP:
		return RC_STOPPED;
	default:
		/* -p: not our child, so no pidfd wakes us; looked at each wake */
		return t->is_child || kill(t->pid, 0) == 0 || errno != ESRCH ? RC_RUNNING
		                                                             : RC_EXITED;
	}
}

void rc_target_finish(struct rc_target *t)
{
	if (t->gate >= 0) /* never released: it exits without running */
		close(t->gate);
	t->gate = -1;
	t->w.fd = -1;
	if (t->w.child <= 0)
		return;
	int running = osp_wait(&t->w, 0) != OSP_WAKE_CHILD;
	/* From here the policy holds: a further stop signal kills it. */
	osp_waiter_ends_child(&t->w, 0);
	if (running && osp_signals_stop())
		kill(t->pid, SIGTERM); /* the search was stopped: so is the command */
	else if (running)              /* it keeps running without probes */
		fprintf(stderr,
		        "osprof rootcause: probes removed; waiting for the command (pid %d) to "
		        "exit\n",
		        (int)t->pid);
	while (osp_wait(&t->w, UINT64_MAX) != OSP_WAKE_CHILD)
		;
}
