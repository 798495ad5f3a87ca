/* Starting the profiled command: found like execvp would, forked and held
 * before exec until the collectors have attached to its pid. The PATH search
 * happens here, before the fork: done by execvp in the child it would run
 * under the probes, and every failed execve of the search would be
 * profiled as the command's own. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cli/spawn.h"
#include "collect/user_elf.h"

/* Forks CMD held before exec, so layers can attach to its pid first. */
pid_t osp_spawn_held(char **argv, int *release_fd, const char *who)
{
	char path[4096];
	int p[2];
	if (osp_elf_resolve(argv[0], path, sizeof(path))) {
		errno = ENOENT;
		return -1;
	}
	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char go;
		close(p[1]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		/* EOF without a byte means osprof died: do not run unprofiled. */
		if (read(p[0], &go, 1) != 1)
			_exit(127);
		execv(path, argv);
		if (errno == ENOEXEC) /* a script without #!: execvp hands it to sh */
			execvp(argv[0], argv);
		fprintf(stderr, "osprof %s: %s: %s\n", who, argv[0], strerror(errno));
		_exit(127);
	}
	close(p[0]);
	*release_fd = p[1];
	return pid;
}
