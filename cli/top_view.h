/* The screen of `osprof top` (ncurses): a table of profiles ranked by total
 * latency with counts and rates, and a bcc-style histogram of the selected
 * one. Pure presentation and key handling; data comes from top_source. */
#ifndef OSPROF_CLI_TOP_VIEW_H
#define OSPROF_CLI_TOP_VIEW_H

#include <osprof/profile.h>

struct top_view {
	struct osp_set *cum;  /* everything since the start (or the last zero) */
	struct osp_set *last; /* the last interval; may be NULL */
	double last_secs;     /* length of the last interval */
	const char *what;     /* source description */
	const char *out_path; /* where 'w' writes */
	uint64_t interval_ns;
	unsigned ticks;
	int paused, interval_mode, finished;
	char layer[32];    /* filter: "" = all layers */
	char sel_key[512]; /* label of the selected profile (kept across refreshes) */
	int sel, scroll;
	char status[256];
};

enum top_action { TOP_NONE, TOP_QUIT, TOP_REDRAW, TOP_ZERO };

void top_view_draw(struct top_view *v);
/* Handles one key; may write the profile set ('w'). */
enum top_action top_view_key(struct top_view *v, int key);

#endif
