/* fs workload: writes and fsync()s FILE exactly N times.
 * usage: kl_fsync FILE N */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: kl_fsync FILE N\n");
		return 2;
	}
	long n = atol(argv[2]);
	int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	char buf[4096] = {1};
	for (long i = 0; i < n; i++)
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf) || fsync(fd)) {
			perror("kl_fsync");
			return 1;
		}
	return close(fd) ? 1 : 0;
}
