/* fsops_rw N PATH...: N pwrite64, N pread64 and N fsync of one 4 KiB block
 * each on every PATH (created), for exact counts of the fs layer's VFS ops
 * (write_iter, read_iter, fsync). Tests link it statically so that no
 * dynamic loader reads libraries on the file systems under test. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int work(const char *path, long n)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		perror(path);
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

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: fsops_rw N PATH...\n");
		return 2;
	}
	long n = atol(argv[1]);
	for (int i = 2; i < argc; i++)
		if (work(argv[i], n))
			return 1;
	return 0;
}
