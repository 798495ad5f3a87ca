/* fs-event workload for bench/fs_layer_overhead.sh: N buffered 4 KiB writes
 * cycling over the first 4 MiB of FILE (each one an ext4_da_write_begin/end
 * pair and extent lookups on ext4), then prints the mean ns per write.
 * usage: kl_writes FILE N */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <osprof/clock.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: kl_writes FILE N\n");
		return 2;
	}
	long n = atol(argv[2]);
	int fd = open(argv[1], O_WRONLY | O_CREAT, 0644);
	if (fd < 0 || n < 1) {
		perror(argv[1]);
		return 1;
	}
	/* page-aligned and touched: a first-touch fault in the middle of the
	 * copy makes the kernel split a write into extra write_begin/end pairs */
	static char buf[4096] __attribute__((aligned(4096)));
	memset(buf, 1, sizeof(buf));
	uint64_t t0 = osp_now_ns();
	for (long i = 0; i < n; i++)
		if (pwrite(fd, buf, sizeof(buf), (off_t)(i % 1024) * 4096) !=
		    (ssize_t)sizeof(buf)) {
			perror("kl_writes: pwrite");
			return 1;
		}
	printf("%.1f\n", (double)(osp_now_ns() - t0) / (double)n);
	return close(fd) ? 1 : 0;
}
