/* fs-event workload for bench/fs_layer_overhead.sh: N buffered 4 KiB writes
 * cycling over the first 4 MiB of FILE (each one an ext4_da_write_begin/end
 * pair and extent lookups on ext4), then prints the mean CPU time (user +
 * system, ns) per write: on a shared machine far steadier than wall time,
 * and BPF programs run in the task's system time.
 * usage: kl_writes FILE N */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <osprof/clock.h>

static uint64_t cpu_ns(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000u +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000u;
}

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
	uint64_t t0 = cpu_ns();
	for (long i = 0; i < n; i++)
		if (pwrite(fd, buf, sizeof(buf), (off_t)(i % 1024) * 4096) !=
		    (ssize_t)sizeof(buf)) {
			perror("kl_writes: pwrite");
			return 1;
		}
	printf("%.1f\n", (double)(cpu_ns() - t0) / (double)n);
	return close(fd) ? 1 : 0;
}
