/* Shared helpers of the osprof commands. */
#ifndef OSPROF_CLI_H
#define OSPROF_CLI_H

#include <stdio.h>
#include <osprof/osprof.h>
#include <osprof/status.h>

#define OSP_CMD(name, summary) int cmd_##name(int argc, char **argv);
#include "cli/commands.def"
#undef OSP_CMD

/* Loads a profile set or prints "FILE:LINE: ..." and returns NULL. */
struct osp_set *osp_cli_load(const char *path);
/* Parses -r N; 0 ok, else prints an error naming the flag and returns 2. */
int osp_cli_resolution(const char *cmd, const char *arg, unsigned *r);

#endif
