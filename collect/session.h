/* What every collecting command (run, record, top, serve, trace record,
 * rootcause) shares about its targets: the command osprof starts, held
 * before exec until the collectors have attached, one signal policy and one
 * wait. */
#ifndef OSPROF_COLLECT_SESSION_H
#define OSPROF_COLLECT_SESSION_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include "collect/layer.h"

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
/* The one way a collecting command waits between reads: until a deadline,
 * a readable fd (a ring buffer, the terminal), the exit of the command it
 * started or a stop signal, whichever comes first. SIGINT and SIGTERM are
 * blocked except inside osp_wait, so one that arrives between two waits is
 * not missed. With a command, a stop signal (passed on to it by the policy
 * above) does not end the wait: its exit does, so its end is collected
 * (rootcause's search is the exception: osp_waiter_ends_child). */
struct osp_waiter {
	sigset_t mask;  /* what osp_wait sleeps under */
	pid_t child;    /* > 0: the started command, until it has exited */
	int child_fd;   /* its pidfd, or -1 */
	int status;     /* its exit status (128+N if killed by N), after OSP_WAKE_CHILD */
	int signal;     /* the N that killed it, else 0, after OSP_WAKE_CHILD */
	int fd;         /* >= 0: also wake when readable */
	int ends_child; /* osp_waiter_ends_child */
};
enum osp_wake {
	OSP_WAKE_TIME,  /* the deadline */
	OSP_WAKE_FD,    /* fd is readable */
	OSP_WAKE_CHILD, /* the command exited (reaped; w->status) */
	OSP_WAKE_STOP,  /* a stop signal, and no command to wait for */
};
/* child_pid: the command (0: none); fd: -1 for none. Call after
 * osp_signals_install. */
void osp_waiter_init(struct osp_waiter *w, pid_t child_pid, int fd);
/* until: monotonic ns (osp_now_ns), UINT64_MAX for none. */
enum osp_wake osp_wait(struct osp_waiter *w, uint64_t until);
/* Forgets the command (the policy no longer passes signals on). */
void osp_waiter_done(struct osp_waiter *w);
/* on = 1 for a command that osprof ends itself (rootcause stops its search
 * on a stop signal, then ends the command): the policy does not pass
 * signals on to it, a stop signal ends the wait (OSP_WAKE_STOP) while it
 * runs, and once it has exited it is left a zombie, its /proc files still
 * readable (every wait then says OSP_WAKE_CHILD). on = 0: back to the
 * policy above; the next wait reaps it. */
void osp_waiter_ends_child(struct osp_waiter *w, int on);

/* The layers of a session. Degrade, don't die: a layer that cannot work on
 * this kernel (its own line has said which probe failed and why) is
 * dropped and the others go on; only when none is left is it an error.
 *
 * osp_session_prepare prepares layers[0..*n). A layer whose prepare fails
 * is removed from layers[] (later layers move down one slot) and named in
 * the set's metadata `layers_unavailable`. Returns 0 with *n layers
 * prepared; OSP_EXIT_USAGE when a prepare failed on the user's input;
 * OSP_EXIT_FAIL when none is left. In both error cases *n is the number of
 * layers prepared that osp_session_end must still destroy. cmd names the
 * command in messages. */
int osp_session_prepare(const char *cmd, struct osp_session *s, const struct osp_layer **layers,
                        int *n);
/* Attaches the prepared layers[0..*n) the same way: one that fails is
 * destroyed and removed (with its layer_state slot). Same returns; on
 * error the remaining *n layers are still prepared. */
int osp_session_attach(const char *cmd, struct osp_session *s, const struct osp_layer **layers,
                       int *n);
/* Reads every layer into s->set (reset: start their next interval); a
 * layer that could not read all is named on stderr (unless cmd is NULL:
 * top's screen) and -1 returned. */
int osp_session_collect(const char *cmd, struct osp_session *s, const struct osp_layer **layers,
                        int n, int reset);
/* Destroys the layers and frees s->set: runs on every way out. */
void osp_session_end(struct osp_session *s, const struct osp_layer **layers, int n);

#endif
