/* Shared by the `osprof trace` subcommands: the filter options and the
 * walk over a trace (trace/walk.c) with the command's messages. */
#ifndef OSPROF_CLI_TRACE_COMMON_H
#define OSPROF_CLI_TRACE_COMMON_H

#include <osprof/trace.h>

/* Long options of the filter, for getopt_long tables (values 1000..1009). */
#define TRACE_FILTER_LONGOPTS                                                                      \
	{"pid", required_argument, NULL, 1000}, {"op", required_argument, NULL, 1001},             \
	    {"inode", required_argument, NULL, 1002}, {"path", required_argument, NULL, 1003},     \
	    {"path-inode", required_argument, NULL, 1004},                                         \
	{                                                                                          \
		"min-lat", required_argument, NULL, 1005                                           \
	}
#define TRACE_FILTER_HELP                                                                          \
	"Filters:\n"                                                                               \
	"  --pid PID          events of process or thread PID\n"                                   \
	"  --op OP[,OP...]    these operations only (names as 'osprof trace dump' prints)\n"       \
	"  --path PATH        events on the file PATH (its device and inode, now)\n"               \
	"  --inode INO        events on inode INO (any device)\n"                                  \
	"  --path-inode P|N   --path P, or --inode N when numeric\n"                               \
	"  --min-lat DUR      events that took at least DUR (e.g. 1ms, 250us; default unit s)\n"

/* Handles option c (from the table above); 0, or 2 after a one-line error. */
int trace_filter_opt(const char *cmd, struct osp_trace_filter *f, int c, const char *arg);

/* osp_trace_walk with the command's messages: a bad path or trace is one
 * line naming `osprof trace CMD` and OSP_EXIT_USAGE; a cut segment is a
 * warning line. Returns 0, fn's non-zero value, or OSP_EXIT_USAGE. */
int trace_walk(const char *cmd, const char *path, const struct osp_trace_filter *f,
               osp_trace_visit_fn fn, void *ctx, struct osp_trace_totals *t);
/* Prints a walk's warning as `osprof trace CMD: warning: ...` (the command
 * named by the last trace_walk or trace_warn_as). */
void trace_warn_as(const char *cmd);
void trace_warn(const char *text);

/* "8:1" style device name of a kernel dev_t into buf. */
char *trace_dev_str(uint32_t dev, char *buf, size_t len);

#endif
