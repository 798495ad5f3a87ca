/* Data sources of `osprof top`: where each refresh's histograms come from.
 * The live source drives the collection layers (collect/layer.h); the
 * replay source plays back the time slices of a recorded .osp file, one
 * slice per refresh. The view only sees this interface. */
#ifndef OSPROF_CLI_TOP_SOURCE_H
#define OSPROF_CLI_TOP_SOURCE_H

#include "cli/collect_opts.h"

struct top_source {
	char what[128];      /* shown in the header: "live: syscall, all processes" */
	struct osp_set *cum; /* everything so far; metadata of the session */
	/* Adds what happened since the previous poll into `into` (a fresh set
	 * of the same r). 0, 1 when a replay has nothing left, -1 on error. */
	int (*poll)(struct top_source *src, struct osp_set *into);
	/* How much time the last poll's histograms cover, for rates: a replay
	 * plays one recorded slice per refresh, whatever the refresh interval.
	 * 0 = the wall-clock time between polls (live collection). */
	uint64_t poll_span_ns;
	void (*close)(struct top_source *src);
	void *priv;
};

/* Prepares and attaches the layers of o; 0 or an exit status (after one
 * clear line on stderr naming cmd). `osprof serve` polls the same source. */
int top_source_live(struct top_source *src, struct osp_collect_opts *o, const char *cmd);
/* Loads FILE for replay; 0 or an exit status. */
int top_source_replay(struct top_source *src, const char *file);

#endif
