/* What the two drivers of osprof rootcause (rootcause/func.c, kernel.c) do
 * alike: start and follow the target (rootcause/target.c), profile f0,
 * choose the peak, show progress (rootcause/driver.c). */
#ifndef OSPROF_RC_DRIVER_H
#define OSPROF_RC_DRIVER_H

#include <stdint.h>
#include "rootcause/output.h"
#include "rootcause/rootcause.h"

/* Forks CMD held at a gate; rc_child_release lets it exec. env: extra
 * "K=V" strings (NULL-terminated) or NULL; its output as o->target_fd. */
pid_t rc_child_start(const struct rc_opts *o, char **env, int *gate);
void rc_child_release(int gate);
/* 1 while the target runs (reaps a child of ours). */
int rc_target_alive(pid_t pid, int is_child, int *status);
/* After the probes are gone: waits for the command osprof started (a stop
 * signal sends it SIGTERM once). */
void rc_child_finish(pid_t pid);

/* Phase 1 of both drivers: polls read (which waits up to 50 ms and fills
 * hist[RC_HBUCKETS]) until f0 was called --start-ops times. 0 then; -1
 * after one line when read fails or the target exits, or on a stop signal
 * (hist holds what was seen). */
typedef int (*rc_hist_read_fn)(void *ctx, uint64_t *hist);
int rc_profile_f0(struct rc_opts *o, int is_child, rc_hist_read_fn read, void *ctx, uint64_t *hist);
uint64_t rc_hist_total(const uint64_t *hist);
/* The peak to explain, --peak or rc_auto_peak's: fills in->peak, blo, bhi;
 * -1 after one line when hist has no such peak. */
int rc_choose_peak(const struct rc_opts *o, const uint64_t *hist, struct rc_info *in);
/* The progress line (no-op without o->progress.show); fmt NULL erases it. */
void rc_progress(const struct rc_opts *o, int force, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
