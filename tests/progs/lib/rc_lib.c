/* Shared library half of the rc_libmain test program: a call chain inside a
 * PIC library, reached from the executable through the PLT. */
#include <stdint.h>
#include <x86intrin.h>

#define NOINL __attribute__((noinline, noclone))
static volatile uint64_t sink;
uint64_t rc_lib_tsc_per_us = 2000;

NOINL void lib_fast(void)
{
	sink++;
}

NOINL void lib_slow(unsigned us)
{
	uint64_t end = __rdtsc() + rc_lib_tsc_per_us * us;
	while (__rdtsc() < end)
		;
}

NOINL void lib_mid(int slow, unsigned us)
{
	lib_fast();
	if (slow)
		lib_slow(us);
	lib_fast();
}

NOINL void lib_root(int slow, unsigned us)
{
	lib_fast();
	lib_mid(slow, us);
}
