/* Starting the command of `osprof run` and `osprof trace record -- CMD`. */
#ifndef OSPROF_CLI_SPAWN_H
#define OSPROF_CLI_SPAWN_H

#include <sys/types.h>

/* 0 if CMD can be executed (searching PATH like execvp), else -1. */
int osp_find_command(const char *cmd);
/* Forks argv held before exec: writing one byte to *release_fd lets it exec;
 * closing it unwritten makes it exit 127 without running. `who` names the
 * command in the child's exec error. -1 on failure. */
pid_t osp_spawn_held(char **argv, int *release_fd, const char *who);

#endif
