/* uprobe workload: calls kl_target() exactly N times (and kl_other() N/2
 * times, which must not be counted as kl_target); with SPIN_US, each
 * kl_target call spins that long on the CPU. At the end, kl_recurse()
 * recurses 20 levels deep once (20 nested calls of one function).
 * usage: kl_ufunc N [SPIN_US] */
#include <stdio.h>
#include <stdlib.h>
#include <osprof/clock.h>

volatile unsigned long kl_sink;
static uint64_t spin_ns;

__attribute__((noinline)) void kl_target(unsigned long i)
{
	kl_sink += i;
	if (spin_ns) {
		uint64_t end = osp_now_ns() + spin_ns;
		while (osp_now_ns() < end)
			kl_sink++;
	}
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void kl_other(unsigned long i)
{
	kl_sink ^= i;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) unsigned long kl_recurse(int depth)
{
	unsigned long r = depth > 1 ? kl_recurse(depth - 1) : 0;
	__asm__ volatile("" ::: "memory");
	return r + (unsigned long)depth;
}

int main(int argc, char **argv)
{
	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: kl_ufunc N [SPIN_US]\n");
		return 2;
	}
	long n = atol(argv[1]);
	if (argc == 3)
		spin_ns = (uint64_t)atol(argv[2]) * 1000u;
	for (long i = 0; i < n; i++) {
		kl_target((unsigned long)i);
		if (i % 2)
			kl_other((unsigned long)i);
	}
	kl_sink += kl_recurse(20);
	return 0;
}
