/* Programs whose root cause is known by construction, one per MODE, for the
 * osprof rootcause tests. In PCT% of the f0 calls (default 10) the cause
 * makes the call slow by about SLOW_US (default 1500):
 *   recur   f0 rc_recur -> rec x5 (recursion) -> slow_leaf
 *   fnptr   f0 rc_fnptr -> op_slow, called through a function pointer
 *   loop    f0 rc_loop -> owner, whose loop calls step() (SLOW_US / 150 us
 *           each) 5 times, or 150 times in slow calls: the owner, not step,
 *           is the cause
 *   preempt f0 rc_pre -> compute, a fixed amount of CPU work that is slow
 *           only when preempted (run it next to `rc_misc hog` on one CPU)
 *   tail    f0 rc_tail -> tail_mid, which tail-calls (jmp) slow_leaf or
 *           fast_leaf: the tail-called slow_leaf is the cause
 *   hog     spins forever (the CPU hog of the preempt case)
 * Usage: rc_misc MODE [PCT] [SLOW_US] [STOPFILE] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#define NOINL __attribute__((noinline, noclone))

static volatile uint64_t sink;
static uint64_t tsc_per_us;
static unsigned slow_us = 1500;

/* Busy-waits on the TSC without calling anything. */
#define SPIN_US(us)                                                                                \
	do {                                                                                       \
		uint64_t end_ = __rdtsc() + tsc_per_us * (us);                                     \
		while (__rdtsc() < end_)                                                           \
			;                                                                          \
	} while (0)

NOINL void work(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		sink += i;
}

/* recursion */
NOINL void slow_leaf(void)
{
	SPIN_US(slow_us);
}

NOINL void fast_leaf(void)
{
	work(10);
}

NOINL void rec(int depth, int slow)
{
	work(10);
	if (depth == 0) {
		if (slow)
			slow_leaf();
		else
			fast_leaf();
		return;
	}
	rec(depth - 1, slow);
}

NOINL void rc_recur(int slow)
{
	work(10);
	rec(4, slow);
}

/* tail calls: sibling-call optimisation on for this one function */
__attribute__((noinline, noclone, optimize("optimize-sibling-calls"))) void tail_mid(int slow)
{
	work(10);
	if (slow)
		slow_leaf();
	else
		fast_leaf();
}

NOINL void rc_tail(int slow)
{
	work(10);
	tail_mid(slow);
	work(10);
}

/* function pointers */
NOINL void op_a(void)
{
	work(30);
}

NOINL void op_b(void)
{
	work(20);
}

NOINL void op_slow(void)
{
	SPIN_US(slow_us);
}

void (*volatile ops[3])(void) = {op_a, op_b, op_slow};

NOINL void rc_fnptr(int slow)
{
	work(10);
	ops[rand() % 2]();
	ops[slow ? 2 : rand() % 2]();
}

/* a loop whose owner is the cause */
static unsigned step_us = 10;

NOINL void step(void)
{
	SPIN_US(step_us);
}

NOINL void owner(int n)
{
	for (int i = 0; i < n; i++)
		step();
}

NOINL void helper(void)
{
	work(50);
}

NOINL void rc_loop(int slow)
{
	helper();
	owner(slow ? 150 : 5);
	helper();
}

/* preemption: fixed CPU work, slow only when the thread loses the CPU */
NOINL void compute(void)
{
	work(1500000);
}

NOINL void rc_pre(int slow)
{
	(void)slow;
	work(10);
	compute();
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: rc_misc recur|fnptr|loop|tail|preempt|hog [PCT] [SLOW_US] "
		                "[STOPFILE]\n");
		return 2;
	}
	const char *mode = argv[1];
	int pct = argc > 2 ? atoi(argv[2]) : 10;
	if (argc > 3)
		slow_us = (unsigned)atoi(argv[3]);
	step_us = slow_us / 150 ? slow_us / 150 : 1;
	const char *stop = argc > 4 ? argv[4] : NULL;
	uint64_t t0 = now_ns(), c0 = __rdtsc();
	while (now_ns() - t0 < 20000000)
		;
	tsc_per_us = (__rdtsc() - c0) * 1000 / (now_ns() - t0);
	void (*f0)(int);
	if (!strcmp(mode, "recur"))
		f0 = rc_recur;
	else if (!strcmp(mode, "fnptr"))
		f0 = rc_fnptr;
	else if (!strcmp(mode, "loop"))
		f0 = rc_loop;
	else if (!strcmp(mode, "tail"))
		f0 = rc_tail;
	else if (!strcmp(mode, "preempt"))
		f0 = rc_pre;
	else if (!strcmp(mode, "hog")) {
		for (;;)
			if (stop && access(stop, F_OK) == 0)
				return 0;
			else
				work(1000000);
	} else {
		fprintf(stderr, "rc_misc: unknown mode %s\n", mode);
		return 2;
	}
	srand(1);
	for (long i = 0;; i++) {
		f0(rand() % 100 < pct);
		if (stop && i % 64 == 0 && access(stop, F_OK) == 0)
			break;
	}
	return 0;
}
