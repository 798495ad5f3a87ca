/* Sleeps in clock_nanosleep: 200 us, and 3 ms on every tenth call, so
 * that the slow peak is a timer wake-up, which comes from the timer
 * interrupt, not from a task (osprof rootcause --syscall tests).
 * Usage: rc_nap [ITERATIONS (0: forever)] [STOPFILE] */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 1000;
	const char *stop = argc > 2 ? argv[2] : NULL;
	for (long i = 0; !iters || i < iters; i++) {
		struct timespec ts = {0, i % 10 == 9 ? 3000000 : 200000};
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
		if (stop && i % 64 == 0 && access(stop, F_OK) == 0)
			break;
	}
	return 0;
}
