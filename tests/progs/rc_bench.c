/* Hot-function microbenchmark for bench/rootcause_cost.sh: f0 = rc_hot calls
 * leaf() once. One in ten of the first 2000 calls also spins 50 us: that
 * makes a second peak to search, which later calls never reach, so f0 and
 * its call site stay instrumented without any in-peak record being made.
 * Prints "batch I NS" = mean ns per f0 call of each batch.
 * Usage: rc_bench BATCHES CALLS_PER_BATCH */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

#define NOINL __attribute__((noinline, noclone))
static volatile uint64_t sink;

NOINL void leaf(void)
{
	sink++;
}

NOINL void rc_hot(int slow)
{
	leaf();
	if (slow) {
		uint64_t end = __rdtsc() + 50ull * 2000;
		while (__rdtsc() < end)
			;
	}
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long batches = argc > 1 ? atol(argv[1]) : 20, calls = argc > 2 ? atol(argv[2]) : 100000;
	/* The clock the trampolines read twice per timed call. */
	uint64_t t0 = now_ns();
	for (int i = 0; i < 1000000; i++)
		sink += __rdtsc();
	printf("rdtsc %.1f\n", (double)(now_ns() - t0) / 1e6);
	for (long i = 0; i < 2000; i++)
		rc_hot(i % 10 == 9);
	for (long b = 0; b < batches; b++) {
		uint64_t t0 = now_ns();
		for (long i = 0; i < calls; i++)
			rc_hot(0);
		printf("batch %ld %.1f\n", b, (double)(now_ns() - t0) / (double)calls);
		fflush(stdout);
	}
	return 0;
}
