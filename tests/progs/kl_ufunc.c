/* uprobe workload: calls kl_target() exactly N times (and kl_other() N/2
 * times, which must not be counted as kl_target).
 * usage: kl_ufunc N */
#include <stdio.h>
#include <stdlib.h>

volatile unsigned long kl_sink;

__attribute__((noinline)) void kl_target(unsigned long i)
{
	kl_sink += i;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void kl_other(unsigned long i)
{
	kl_sink ^= i;
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: kl_ufunc N\n");
		return 2;
	}
	long n = atol(argv[1]);
	for (long i = 0; i < n; i++) {
		kl_target((unsigned long)i);
		if (i % 2)
			kl_other((unsigned long)i);
	}
	return 0;
}
