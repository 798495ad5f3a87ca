/* Starting the profiled command: found like execvp would, forked and held
 * before exec until the collectors have attached to its pid. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli/spawn.h"

/* 0 if CMD can be executed (searching PATH like execvp). */
int osp_find_command(const char *cmd)
{
	if (strchr(cmd, '/'))
		return access(cmd, X_OK);
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	char *copy = strdup(path), *save, *dir;
	int rc = -1;
	for (dir = strtok_r(copy, ":", &save); dir && rc; dir = strtok_r(NULL, ":", &save)) {
		char full[4096];
		struct stat st;
		snprintf(full, sizeof(full), "%s/%s", *dir ? dir : ".", cmd);
		if (!stat(full, &st) && S_ISREG(st.st_mode) && !access(full, X_OK))
			rc = 0;
	}
	free(copy);
	return rc;
}

/* Forks CMD held before exec, so layers can attach to its pid first. */
pid_t osp_spawn_held(char **argv, int *release_fd, const char *who)
{
	int p[2];
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
		execvp(argv[0], argv);
		fprintf(stderr, "osprof %s: %s: %s\n", who, argv[0], strerror(errno));
		_exit(127);
	}
	close(p[0]);
	*release_fd = p[1];
	return pid;
}
