/* read(fd, buf, 0) in a loop: the cheapest system call an interposer times,
 * so its added cost per call stands out. Prints ns per call.
 *   read_loop CALLS
 * The machine may be shared: the loop runs in 20 batches timed with the
 * process CPU clock (time spent waiting for a CPU does not count) and the
 * fastest batch is reported, which is the cost with the least interference. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define BATCHES 20

static double cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 5000000;
	int fd = open("/dev/zero", O_RDONLY);
	char buf[1];
	if (fd < 0 || n < BATCHES) {
		fprintf(stderr, "usage: read_loop CALLS (>= %d; needs /dev/zero)\n", BATCHES);
		return 2;
	}
	for (int i = 0; i < 1000; i++) /* warm up: resolve, claim a slot */
		if (read(fd, buf, 0) != 0)
			return 1;
	long per = n / BATCHES;
	double best = 1e300;
	for (int b = 0; b < BATCHES; b++) {
		double t0 = cpu_ns();
		for (long i = 0; i < per; i++)
			if (read(fd, buf, 0) != 0)
				return 1;
		double t = (cpu_ns() - t0) / (double)per;
		if (t < best)
			best = t;
	}
	printf("%.2f\n", best);
	return 0;
}
