/* Starting the command of `osprof run` and `osprof trace record -- CMD`. */
#ifndef OSPROF_CLI_SPAWN_H
#define OSPROF_CLI_SPAWN_H

#include <sys/types.h>

/* Forks argv held before exec (argv[0] found as execvp would, before the
 * fork; -1 with ENOENT when it is not found): writing one byte to *release_fd lets it exec;
 * closing it unwritten makes it exit 127 without running. `who` names the
 * command in the child's exec error. -1 on failure. */
pid_t osp_spawn_held(char **argv, int *release_fd, const char *who);

#endif
