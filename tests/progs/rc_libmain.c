/* f0 = rc_libcall calls lib_root in librc_lib.so through the PLT; the slow
 * path is lib_root -> lib_mid -> lib_slow inside the library (in PCT% of
 * calls, SLOW_US long). Usage: rc_libmain [PCT] [SLOW_US] [STOPFILE] */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

void lib_root(int slow, unsigned us);
extern uint64_t rc_lib_tsc_per_us;

/* The local keeps the prologue longer than 5 bytes of plain instructions,
 * which the trampoline backend relocates. */
__attribute__((noinline, noclone)) void rc_libcall(int slow, unsigned us)
{
	volatile int s = slow;
	lib_root(s, us);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	int pct = argc > 1 ? atoi(argv[1]) : 10;
	unsigned us = argc > 2 ? (unsigned)atoi(argv[2]) : 1500;
	const char *stop = argc > 3 ? argv[3] : NULL;
	uint64_t t0 = now_ns(), c0 = __rdtsc();
	while (now_ns() - t0 < 20000000)
		;
	rc_lib_tsc_per_us = (__rdtsc() - c0) * 1000 / (now_ns() - t0);
	srand(1);
	for (long i = 0;; i++) {
		rc_libcall(rand() % 100 < pct, us);
		if (stop && i % 64 == 0 && access(stop, F_OK) == 0)
			break;
	}
	return 0;
}
