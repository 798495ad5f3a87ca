/* Run-queue workload: HOGS threads spin for MS milliseconds while the main
 * thread sleeps 1 ms at a time; each wakeup must wait for a busy CPU.
 * Prints the number of sleeps.
 * usage: kl_hog HOGS MS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <osprof/clock.h>

static uint64_t end_ns;
static volatile unsigned long spins;

static void *hog(void *arg)
{
	(void)arg;
	while (osp_now_ns() < end_ns)
		for (int i = 0; i < 1000; i++)
			spins++;
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: kl_hog HOGS MS\n");
		return 2;
	}
	int n = atoi(argv[1]);
	long ms = atol(argv[2]);
	if (n < 0 || n > 64 || ms < 1) {
		fprintf(stderr, "kl_hog: HOGS must be 0..64 and MS >= 1\n");
		return 2;
	}
	end_ns = osp_now_ns() + (uint64_t)ms * 1000000u;
	pthread_t t[64];
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, hog, NULL)) {
			fprintf(stderr, "kl_hog: cannot create thread\n");
			return 1;
		}
	struct timespec one = {0, 1000000};
	long sleeps = 0;
	while (osp_now_ns() < end_ns) {
		nanosleep(&one, NULL);
		sleeps++;
	}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("%ld\n", sleeps);
	return 0;
}
