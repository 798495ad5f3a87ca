/* Shared helpers of the osprof commands. */
#ifndef OSPROF_CLI_H
#define OSPROF_CLI_H

#include <stdio.h>
#include <osprof/osprof.h>

#define OSP_CMD(name, summary) int cmd_##name(int argc, char **argv);
#include "cli/commands.def"
#undef OSP_CMD

/* Exit statuses: 0 ok, 1 runtime failure, 2 bad usage or bad input file. */
enum { OSP_EXIT_OK = 0, OSP_EXIT_FAIL = 1, OSP_EXIT_USAGE = 2 };

/* Prints "osprof: MSG" to stderr. */
void osp_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "osprof CMD: MSG\nTry 'osprof CMD --help'." and returns 2. */
int osp_usage_err(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Loads a profile set or prints "FILE:LINE: ..." and returns NULL. */
struct osp_set *osp_cli_load(const char *path);
/* Parses -r N; 0 ok, else prints an error naming the flag and returns 2. */
int osp_cli_resolution(const char *cmd, const char *arg, unsigned *r);

#endif
