/* Lock contention by construction: two threads take turns holding one
 * pthread mutex for HOLD_US of busy work, so each waits in futex(2) for the
 * other (osprof rootcause --syscall futex tests).
 * Usage: rc_lock [HOLD_US] [SECONDS (0: forever)] [STOPFILE] */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static unsigned hold_us = 500;
static volatile int done;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *worker(void *arg)
{
	(void)arg;
	while (!done) {
		pthread_mutex_lock(&mu);
		uint64_t end = now_ns() + hold_us * 1000ull;
		while (now_ns() < end)
			;
		pthread_mutex_unlock(&mu);
		/* A short gap lets the other thread in. */
		for (volatile int i = 0; i < 1000; i++)
			;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		hold_us = (unsigned)atoi(argv[1]);
	long secs = argc > 2 ? atol(argv[2]) : 0;
	const char *stop = argc > 3 ? argv[3] : NULL;
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	uint64_t end = now_ns() + (uint64_t)secs * 1000000000ull;
	while (!done) {
		usleep(20000);
		if ((secs && now_ns() > end) || (stop && access(stop, F_OK) == 0))
			done = 1;
	}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
