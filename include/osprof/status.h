/* Exit statuses and one-line messages of the osprof commands, shared by
 * every room that drives a command (cli/, and the drivers of rootcause/). */
#ifndef OSPROF_STATUS_H
#define OSPROF_STATUS_H

/* 0 ok, 1 runtime failure, 2 bad usage or bad input file, 3 finished with
 * losses (documented in every --help). */
enum { OSP_EXIT_OK = 0, OSP_EXIT_FAIL = 1, OSP_EXIT_USAGE = 2, OSP_EXIT_LOSS = 3 };

/* Prints "osprof: MSG" to stderr. */
void osp_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "osprof CMD: MSG\nTry 'osprof CMD --help'." and returns 2. */
int osp_usage_err(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
