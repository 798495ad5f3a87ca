/* A one-line progress display on stderr for long commands (run, trace
 * record, rootcause), as perf and dd show it: only when stderr is a terminal
 * and not with -q, so scripts and logs never see it. */
#ifndef OSPROF_CLI_PROGRESS_H
#define OSPROF_CLI_PROGRESS_H

#include <stdint.h>

struct osp_progress {
	int on;
	const char *cmd;   /* "run", "trace record", ... */
	uint64_t start_ns; /* CLOCK_MONOTONIC */
	uint64_t last_ns;  /* of the last line drawn */
	uint64_t last_events, rate_ns;
	double rate; /* events/s over the last update */
};

/* Shows progress only if !quiet and stderr is a terminal. */
void osp_progress_init(struct osp_progress *p, const char *cmd, int quiet);
/* Redraws "osprof CMD: 3.2s elapsed, MSG" in place, at most 4 times a
 * second unless force (the first and the last line are always drawn). */
void osp_progress_show(struct osp_progress *p, int force, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The usual counters: events (and events/s), drops, bytes written; a
 * counter passed as UINT64_MAX is left out. */
void osp_progress_counts(struct osp_progress *p, int force, uint64_t events, uint64_t drops,
                         uint64_t bytes);
/* Erases the line, so the command's own final output starts clean. */
void osp_progress_end(struct osp_progress *p);

#endif
