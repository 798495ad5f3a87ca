/* Shared helpers of the osprof commands. */
#ifndef OSPROF_CLI_H
#define OSPROF_CLI_H

#include <stdio.h>
#include <osprof/osprof.h>
#include <osprof/status.h>
#include "cli/options.h"

#define OSP_CMD(name, summary) int cmd_##name(int argc, char **argv);
#include "cli/commands.def"
#undef OSP_CMD

/* Loads a profile set or prints "FILE:LINE: ..." and returns NULL. */
struct osp_set *osp_cli_load(const char *path);
/* -r N for option tables (cli/options.h): N into unsigned *r, or an error
 * naming the flag and OSP_EXIT_USAGE. */
int osp_cli_resolution(const char *cmd, const char *flag, const char *arg, void *r);
#define OSP_OPT_RESOLUTION(r)                                                                      \
	OSP_OPT_CALL('r', "resolution", r, osp_cli_resolution, "N",                                \
	             "buckets per power of two: 1, 2, 4, 8 or 16 (default 1)")

#endif
