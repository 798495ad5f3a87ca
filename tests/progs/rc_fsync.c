/* Writes 4 KiB and fsyncs it, over and over: a system call whose latency is
 * an I/O wait by construction (osprof rootcause --syscall fsync tests).
 * Usage: rc_fsync FILE [ITERATIONS (0: forever)] [STOPFILE] */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: rc_fsync FILE [ITERATIONS] [STOPFILE]\n");
		return 2;
	}
	long iters = argc > 2 ? atol(argv[2]) : 0;
	const char *stop = argc > 3 ? argv[3] : NULL;
	int fd = open(argv[1], O_CREAT | O_WRONLY | O_TRUNC, 0600);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	char buf[4096];
	memset(buf, 'x', sizeof(buf));
	for (long i = 0; i < iters || iters == 0; i++) {
		if (pwrite(fd, buf, sizeof(buf), (i % 256) * 4096) != (ssize_t)sizeof(buf) ||
		    fsync(fd)) {
			perror("write/fsync");
			return 1;
		}
		if (stop && access(stop, F_OK) == 0)
			break;
	}
	close(fd);
	return 0;
}
