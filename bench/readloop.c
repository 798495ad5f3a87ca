/* read(fd, buf, 0) loop for bench/syscall_overhead.sh: prints the mean CPU ns
 * per call over N calls (after a warm-up of N/10). Thread CPU time rather
 * than wall time: time spent preempted by other load on the machine does not
 * count, while the probes run on the thread's own CPU time. Usage: readloop N */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	int fd = open("/dev/null", O_RDONLY);
	char buf[1];
	if (fd < 0 || n <= 0)
		return 1;
	for (long i = 0; i < n / 10; i++)
		if (read(fd, buf, 0) < 0)
			return 1;
	double t0 = now_ns();
	for (long i = 0; i < n; i++)
		if (read(fd, buf, 0) < 0)
			return 1;
	printf("ns_per_call %.1f\n", (now_ns() - t0) / n);
	return 0;
}
