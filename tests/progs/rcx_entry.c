/* Functions whose first instructions a plain prologue copy cannot run
 * elsewhere (osprof rootcause trampoline tests, tests/sh/rootcause_entry.sh).
 * Built at -O2 and -O2 -fcf-protection (mk/rootcause.mk); written in
 * top-level asm so that each case is what the function starts with (after
 * endbr64 when __CET__: case (e)):
 *   rcx_f0_call  (a) a call           rcx_a  (a) a call, then a tail call
 *   rcx_f0_jmp   (b) a tail jump      rcx_b  (b) only a tail jump
 *   rcx_f0_jcc   (c) cmp + jcc        rcx_c  (c) cmp + jcc
 *   rcx_f0_rip   (d) RIP-relative     rcx_d  (d) a RIP-relative load
 *   rcx_f0_back  a loop back into its first bytes, and rcx_a called
 *                through a register: both need the breakpoint fallback
 * Every f0 calls rcx_fast, then rcx_a; in PCT% of the calls the chain
 * rcx_a -> rcx_b -> rcx_c -> rcx_d reaches rcx_spin, which busy-waits
 * SLOW_US. The tail jumps are rel32 ({disp32}): a rel8 jump is too short
 * for a trampoline and gets the breakpoint fallback (docs/rootcause.md).
 * Usage: rcx_entry call|jmp|jcc|rip|back ITERATIONS(0: forever) PCT SLOW_US [STOPFILE].
 * With RCX_CHATTY set it prints a line per call on stdout and on stderr
 * (tests/sh/rootcause_streams.sh). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#ifdef __CET__
#define ENDBR "endbr64\n"
#else
#define ENDBR ""
#endif

/* rcx_f0_back's label inside its first 5 bytes, with or without endbr64 */
#ifdef __CET__
#define BACK_A "3:"
#define BACK_B ""
#else
#define BACK_A ""
#define BACK_B "3:"
#endif

#define FN(name)  ".globl " #name "\n.type " #name ",@function\n.p2align 4\n" #name ":\n" ENDBR
#define END(name) ".size " #name ", .-" #name "\n"

int rcx_count;
static uint64_t tsc_per_us;
static unsigned slow_us = 2000;
static volatile uint64_t sink;

void rcx_a(int go);
void rcx_f0_call(int go);
void rcx_f0_jmp(int go);
void rcx_f0_jcc(int go);
void rcx_f0_rip(int go);
void rcx_f0_back(int go);

__attribute__((noinline)) void rcx_nop(void)
{
	__asm__ volatile("");
}

__attribute__((noinline)) void rcx_fast(int go)
{
	for (int i = 0; i < 20; i++)
		sink += (uint64_t)(i + go);
}

__attribute__((noinline)) void rcx_spin(void)
{
	uint64_t end = __rdtsc() + tsc_per_us * slow_us;
	while (__rdtsc() < end)
		;
}

/* The common body of the f0 variants: rcx_fast(0), then rcx_a(go). */
#define F0_BODY                                                                                    \
	"push %rbx\n"                                                                              \
	"mov %edi, %ebx\n"                                                                         \
	"xor %edi, %edi\n"                                                                         \
	"call rcx_fast\n"                                                                          \
	"mov %ebx, %edi\n"                                                                         \
	"call rcx_a\n"                                                                             \
	"pop %rbx\n"                                                                               \
	"ret\n"

__asm__(".text\n"
        /* (a) */
        FN(rcx_f0_call) "call rcx_nop\n" F0_BODY END(rcx_f0_call)
        /* (b) */
        FN(rcx_f0_jmp) "{disp32} jmp rcx_f0_call\n" END(rcx_f0_jmp)
        /* (c): go is never -1 */
        FN(rcx_f0_jcc) "cmp $-1, %edi\n"
                       "je 1f\n" F0_BODY "1: ret\n" END(rcx_f0_jcc)
        /* (d) */
        FN(rcx_f0_rip) "mov rcx_count(%rip), %eax\n"
                       "add $1, %eax\n"
                       "mov %eax, rcx_count(%rip)\n" F0_BODY END(rcx_f0_rip)
        /* a branch into the first 5 bytes; an indirect call */
        FN(rcx_f0_back) BACK_A "push %rbx\n" BACK_B "mov %edi, %ebx\n"
                               "xor %edi, %edi\n"
                               "call rcx_fast\n"
                               "mov %ebx, %edi\n"
                               "lea rcx_a(%rip), %rax\n"
                               "call *%rax\n"
                               "cmp $-5, %ebx\n"
                               "je 3b\n" /* never taken */
                               "pop %rbx\n"
                               "ret\n" END(rcx_f0_back)
        /* the chain */
        FN(rcx_a) "call rcx_nop\n"
                  "{disp32} jmp rcx_b\n" END(rcx_a) FN(rcx_b) "{disp32} jmp rcx_c\n" END(rcx_b)
                      FN(rcx_c) "cmp $0, %edi\n"
                                "je 1f\n"
                                "sub $8, %rsp\n"
                                "call rcx_d\n"
                                "add $8, %rsp\n"
                                "1: ret\n" END(rcx_c) FN(rcx_d) "mov rcx_count(%rip), %eax\n"
                                                                "test %edi, %edi\n"
                                                                "je 1f\n"
                                                                "sub $8, %rsp\n"
                                                                "call rcx_spin\n"
                                                                "add $8, %rsp\n"
                                                                "1: ret\n" END(rcx_d));

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*fn)(int);
	} f0s[] = {{"call", rcx_f0_call},
	           {"jmp", rcx_f0_jmp},
	           {"jcc", rcx_f0_jcc},
	           {"rip", rcx_f0_rip},
	           {"back", rcx_f0_back}};
	if (argc < 5) {
		fprintf(stderr,
		        "usage: rcx_entry call|jmp|jcc|rip|back ITER PCT SLOW_US [STOPFILE]\n");
		return 2;
	}
	void (*f0)(int) = NULL;
	for (size_t i = 0; i < sizeof(f0s) / sizeof(f0s[0]); i++)
		if (!strcmp(argv[1], f0s[i].name))
			f0 = f0s[i].fn;
	if (!f0)
		return 2;
	long iters = atol(argv[2]);
	int pct = atoi(argv[3]);
	slow_us = (unsigned)atoi(argv[4]);
	const char *stop = argc > 5 ? argv[5] : NULL;
	srand(1);
	int chatty = getenv("RCX_CHATTY") != NULL;
	uint64_t t0 = now_ns(), c0 = __rdtsc();
	while (now_ns() - t0 < 20000000)
		;
	tsc_per_us = (__rdtsc() - c0) / 20000;
	for (long i = 0; !iters || i < iters; i++) {
		f0(rand() % 100 < pct);
		if (chatty) {
			printf("rcx stdout %ld\n", i);
			fprintf(stderr, "rcx stderr %ld\n", i);
		}
		if (stop && i % 64 == 0 && access(stop, F_OK) == 0)
			break;
	}
	return 0;
}
