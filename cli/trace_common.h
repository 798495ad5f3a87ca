/* Shared by the `osprof trace` subcommands: event filters and a walk over
 * every event of a trace (a segment file or a directory of them). */
#ifndef OSPROF_CLI_TRACE_COMMON_H
#define OSPROF_CLI_TRACE_COMMON_H

#include <osprof/trace.h>

struct trace_filter {
	int has_pid;
	uint32_t pid; /* matches pid or tid */
	int has_ops;
	unsigned char ops[OSP_TOP_NR]; /* 1 = wanted */
	int has_ino, has_dev;
	uint64_t ino;
	uint32_t dev;
	uint64_t min_lat;
};

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
int trace_filter_opt(const char *cmd, struct trace_filter *f, int c, const char *arg);
int trace_filter_match(const struct trace_filter *f, const struct osp_trace_event *ev);

/* Summary of a walk. */
struct trace_totals {
	uint64_t events, matched, dropped, blocks, raw_bytes, disk_bytes;
	uint64_t segments, truncated, zstd_blocks;
	uint64_t first_ts, last_end;
	struct osp_trace_host host; /* of the first segment */
};

/* Calls fn for each event that matches f (f may be NULL), in file order.
 * Warnings about cut or corrupt segments go to stderr. Returns 0, the
 * non-zero value fn returned, or 2 after a one-line error (bad path or not a
 * trace). */
typedef int (*trace_visit_fn)(void *ctx, const struct osp_trace_event *ev);
int trace_walk(const char *cmd, const char *path, const struct trace_filter *f, trace_visit_fn fn,
               void *ctx, struct trace_totals *t);

/* "8:1" style device name of a kernel dev_t into buf. */
char *trace_dev_str(uint32_t dev, char *buf, size_t len);

#endif
