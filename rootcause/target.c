/* The target of a search: the command osprof starts for it, held until the
 * probes are in place (collect/session.c), or a running process. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include "collect/session.h"
#include "rootcause/driver.h"

pid_t rc_child_start(const struct rc_opts *o, char **env, int *gate)
{
	/* Never into osprof's structured output on stdout. */
	struct osp_spawn_opts so = {.who = "rootcause",
	                            .env = env,
	                            .stdout_fd = o->target_fd >= 0 ? o->target_fd : 0,
	                            .stderr_too = o->target_both};
	return osp_spawn(o->cmd, gate, &so);
}

void rc_child_release(int gate)
{
	if (osp_spawn_release(gate))
		perror("osprof rootcause: gate");
}

int rc_target_alive(pid_t pid, int is_child, int *status)
{
	if (is_child) {
		int st;
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid) {
			if (status)
				*status = st;
			return 0;
		}
		return r == 0;
	}
	return kill(pid, 0) == 0 || errno != ESRCH;
}

void rc_child_finish(pid_t pid)
{
	int status;
	if (pid <= 0 || !rc_target_alive(pid, 1, &status))
		return;
	/* The target keeps running without probes; wait for it. */
	if (!osp_signals_stop())
		fprintf(stderr,
		        "osprof rootcause: probes removed; waiting for the command (pid %d) to "
		        "exit\n",
		        (int)pid);
	int killed = 0;
	for (;;) {
		if (osp_signals_stop() && !killed++)
			kill(pid, SIGTERM);
		if (waitpid(pid, &status, 0) >= 0 || errno != EINTR)
			break;
	}
}
