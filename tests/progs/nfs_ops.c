/* nfs_ops N FILE: N pwrite64 of 4 KiB, N fsync, N pread64 and N stat of
 * FILE (created), with O_DIRECT so that each read and write goes to the
 * server as its own call rather than through the page cache. For exact
 * counts of the fs layer's ops on NFS (tests/sh/kern_nfs.sh); linked
 * statically so that no dynamic loader reads libraries under test. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: nfs_ops N FILE\n");
		return 2;
	}
	long n = atol(argv[1]);
	int fd = open(argv[2], O_RDWR | O_CREAT | O_DIRECT | O_CLOEXEC, 0644);
	if (fd < 0) {
		perror(argv[2]);
		return 1;
	}
	static char buf[4096] __attribute__((aligned(4096)));
	struct stat st;
	for (long i = 0; i < n; i++)
		if (pwrite(fd, buf, sizeof(buf), i * 4096) != (ssize_t)sizeof(buf))
			return 1;
	for (long i = 0; i < n; i++)
		if (fsync(fd))
			return 1;
	for (long i = 0; i < n; i++)
		if (pread(fd, buf, sizeof(buf), i * 4096) != (ssize_t)sizeof(buf))
			return 1;
	for (long i = 0; i < n; i++)
		if (stat(argv[2], &st))
			return 1;
	return close(fd) ? 1 : 0;
}
