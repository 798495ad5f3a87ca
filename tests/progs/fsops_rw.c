/* fsops_rw PATH N: N pwrite64, N pread64 and N fsync of one 4 KiB block
 * each on PATH (created), for exact counts of the fs layer's VFS ops
 * (write_iter, read_iter, fsync). Tests link it statically so that no
 * dynamic loader reads libraries on the file system under test. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: fsops_rw PATH N\n");
		return 2;
	}
	long n = atol(argv[2]);
	int fd = open(argv[1], O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	static char buf[4096];
	for (long i = 0; i < n; i++)
		if (pwrite(fd, buf, sizeof(buf), i * 4096) != (ssize_t)sizeof(buf))
			return 1;
	for (long i = 0; i < n; i++)
		if (pread(fd, buf, sizeof(buf), i * 4096) != (ssize_t)sizeof(buf))
			return 1;
	for (long i = 0; i < n; i++)
		if (fsync(fd))
			return 1;
	return close(fd) ? 1 : 0;
}
