/* What every collecting command (run, record, top, trace record) shares
 * about its targets: the command osprof starts, held before exec until the
 * collectors have attached, and one signal policy. */
#ifndef OSPROF_COLLECT_SESSION_H
#define OSPROF_COLLECT_SESSION_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

struct osp_spawn_opts {
	const char *who;  /* names osprof's command in the child's exec error */
	char *const *env; /* NAME=VALUE strings added to its environment, or NULL */
	/* > 0: the command's stdout (and stderr with stderr_too); 0 inherits */
	int stdout_fd, stderr_too;
};
/* Forks argv held before exec (argv[0] found as execvp would, before the
 * fork; -1 with ENOENT when it is not found). osp_spawn_release lets it
 * exec; closing *release_fd instead makes it exit 127 without running. -1
 * on failure. */
pid_t osp_spawn(char **argv, int *release_fd, const struct osp_spawn_opts *o);
int osp_spawn_release(int release_fd); /* 0, or -1 with errno */

/* The signal policy. SIGINT and SIGTERM ask osprof to stop; what it
 * collected is then read out and written, never lost.
 *   - A command osprof started (osp_signals_child) gets the signal too:
 *     SIGTERM always, SIGINT when it was sent to osprof by a process (the
 *     terminal's Ctrl-C reaches the command's process group by itself).
 *     osprof keeps collecting until the command has exited, so its end is
 *     profiled and its exit status known.
 *   - A second signal kills that command (SIGKILL).
 *   - Live targets (-a, -p, -c, --comm) stop at once.
 * osp_signals_install sets the handlers (without SA_RESTART: a blocking
 * wait returns EINTR). */
void osp_signals_install(void);
void osp_signals_child(pid_t child); /* 0: none (any more) */
/* The first stop signal received, or 0. */
int osp_signals_stop(void);
/* For loops that sleep between reads (record, serve): SIGINT and SIGTERM
 * blocked except while sleeping, so one that arrives just before a sleep
 * is not missed; *wait_mask is the mask to sleep under. */
void osp_signals_block(sigset_t *wait_mask);
/* Sleeps until the monotonic time `until` (ns) or a stop signal; 1 if
 * stopped. */
int osp_signals_sleep_until(uint64_t until, const sigset_t *wait_mask);

#endif
