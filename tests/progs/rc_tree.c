/* A call tree of depth 6 and fanout 4 whose slow path is known by
 * construction (osprof rootcause tests). Each f0 call (rc_root) walks one
 * root-to-leaf path through functions lK_J (level K, child J), calling all
 * four children at every level (the three others return at once). In
 * PCT% of calls the walk takes the path 2,1,3,0,2,1 and its leaf l6_1 spins
 * for SLOW_US; every other call takes a random path and stays fast.
 * Usage: rc_tree [ITERATIONS (0: forever)] [PCT] [SLOW_US] [STOPFILE]: also
 * stops once STOPFILE exists. Prints nothing. */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#define NOINL __attribute__((noinline, noclone))

static const int target[7] = {0, 2, 1, 3, 0, 2, 1};
static unsigned slow_us = 2000;
static volatile uint64_t sink;
static uint64_t tsc_per_us;

NOINL static void work(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		sink += i;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static unsigned next_child(int go, int level)
{
	return go == 2 ? (unsigned)target[level] : (unsigned)rand() % 4;
}

/* Busy-waits us microseconds of wall time on the TSC: no call, so the
 * spinning function stays a leaf. */
static inline void spin_us(unsigned us)
{
	uint64_t end = __rdtsc() + tsc_per_us * us;
	while (__rdtsc() < end)
		;
}

/* Leaves: l6_J spins when reached on the slow path. */
#define LEAF(J)                                                                                    \
	NOINL void l6_##J(int go)                                                                  \
	{                                                                                          \
		work(20);                                                                          \
		if (go == 2 && J == 1)                                                             \
			spin_us(slow_us);                                                          \
	}
LEAF(0)
LEAF(1)
LEAF(2)
LEAF(3)

#define INNER(K, J, NEXT)                                                                          \
	NOINL void l##K##_##J(int go)                                                              \
	{                                                                                          \
		work(20);                                                                          \
		if (!go)                                                                           \
			return;                                                                    \
		unsigned c = next_child(go == 2 && J == target[K] ? 2 : 1, K + 1);                 \
		int g = go == 2 && J == target[K] ? 2 : 1;                                         \
		NEXT##_0(c == 0 ? g : 0);                                                          \
		NEXT##_1(c == 1 ? g : 0);                                                          \
		NEXT##_2(c == 2 ? g : 0);                                                          \
		NEXT##_3(c == 3 ? g : 0);                                                          \
	}
#define LEVEL(K, NEXT) INNER(K, 0, NEXT) INNER(K, 1, NEXT) INNER(K, 2, NEXT) INNER(K, 3, NEXT)
LEVEL(5, l6)
LEVEL(4, l5)
LEVEL(3, l4)
LEVEL(2, l3)
LEVEL(1, l2)

NOINL void rc_root(int slow)
{
	work(20);
	int g = slow ? 2 : 1;
	unsigned c = next_child(g, 1);
	l1_0(c == 0 ? g : 0);
	l1_1(c == 1 ? g : 0);
	l1_2(c == 2 ? g : 0);
	l1_3(c == 3 ? g : 0);
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 3000;
	int pct = argc > 2 ? atoi(argv[2]) : 10;
	if (argc > 3)
		slow_us = (unsigned)atoi(argv[3]);
	uint64_t t0 = now_ns(), c0 = __rdtsc();
	while (now_ns() - t0 < 20000000)
		;
	tsc_per_us = (__rdtsc() - c0) * 1000 / (now_ns() - t0);
	srand(1);
	const char *stop = argc > 4 ? argv[4] : NULL;
	for (long i = 0; i < iters || iters == 0; i++) {
		rc_root(rand() % 100 < pct);
		if (stop && i % 64 == 0 && access(stop, F_OK) == 0)
			break;
	}
	return 0;
}
