/* Shared by the `osprof trace` subcommands: the filter options and the
 * walk over a trace (trace/walk.c) with the command's messages. */
#ifndef OSPROF_CLI_TRACE_COMMON_H
#define OSPROF_CLI_TRACE_COMMON_H

#include <osprof/trace.h>
#include "cli/options.h"

/* Fills t with the filter options (--pid, --op, --path, --inode,
 * --path-inode, --min-lat, under a heading) writing into f, which is
 * cleared: a table to OSP_OPT_INCLUDE in a subcommand's options. */
#define TRACE_FILTER_NOPTS 8
/* osp_opts_spec: a subcommand that reads one trace */
#define TRACE_ONE_PATH OSP_ARGS(1, 1, "give one trace directory or segment file")
void trace_filter_options(struct osp_option t[TRACE_FILTER_NOPTS], struct osp_trace_filter *f);

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
