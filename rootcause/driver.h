/* What the two drivers of osprof rootcause (rootcause/func.c, kernel.c) do
 * alike: start and follow the target (rootcause/target.c), profile f0,
 * choose the peak, show progress (rootcause/driver.c). */
#ifndef OSPROF_RC_DRIVER_H
#define OSPROF_RC_DRIVER_H

#include <stdint.h>
#include "collect/session.h"
#include "rootcause/output.h"
#include "rootcause/rootcause.h"

/* The target of a run, CMD or -p PID, and the run's one wait: osp_wait
 * (collect/session.h) on the records' fd, CMD's exit and stop signals. */
struct rc_target {
	pid_t pid;
	int is_child; /* CMD, started by osprof */
	int gate;     /* CMD held before exec until rc_target_release, or -1 */
	struct osp_waiter w;
};
/* Starts CMD held at its gate (env: extra "K=V" strings, NULL-terminated,
 * or NULL; its output as o->target_fd) and sets o->pid, or takes -p's
 * o->pid. -1 with errno when CMD cannot be started. */
int rc_target_start(struct rc_target *t, struct rc_opts *o, char **env);
void rc_target_release(struct rc_target *t); /* CMD runs */
enum rc_target_state { RC_RUNNING, RC_EXITED, RC_STOPPED };
/* Waits until `until` (monotonic ns), records readable on fd (-1: none),
 * the target's exit or a stop signal; then says which. A stop signal ends
 * the search, not CMD: rc_target_finish does. */
enum rc_target_state rc_wait(struct rc_target *t, int fd, uint64_t until);
/* After the probes are gone: waits for CMD (sent SIGTERM if the search was
 * stopped; a further stop signal kills it), or lets a CMD never released
 * exit without running. */
void rc_target_finish(struct rc_target *t);

/* Phase 1 of both drivers: calls read (which fills hist[RC_HBUCKETS])
 * every 50 ms until f0 was called --start-ops times. 0 then; -1 after one
 * line when read fails or the target exits, or on a stop signal (hist
 * holds what was seen). */
typedef int (*rc_hist_read_fn)(void *ctx, uint64_t *hist);
int rc_profile_f0(struct rc_opts *o, struct rc_target *t, rc_hist_read_fn read, void *ctx,
                  uint64_t *hist);
uint64_t rc_hist_total(const uint64_t *hist);
/* The peak to explain, --peak or rc_auto_peak's: fills in->peak, blo, bhi;
 * -1 after one line when hist has no such peak. */
int rc_choose_peak(const struct rc_opts *o, const uint64_t *hist, struct rc_info *in);
/* The progress line (no-op without o->progress.show); fmt NULL erases it. */
void rc_progress(const struct rc_opts *o, int force, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
