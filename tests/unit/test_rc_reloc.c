/* The trampoline relocator (rootcause/reloc.c plans, rootcause/agent/
 * reloc_emit.c emits): hand-made prologues of every case are relocated
 * 256 MiB away (and backwards) and the copy, decoded with capstone, must
 * branch and load exactly where the original did. */
#include <capstone/capstone.h>
#include <errno.h>
#include <stdint.h>
#include "rootcause/reloc.h"
#include "tests/unit/check.h"

#define SRC 0x401000ull

struct dec {
	size_t n;
	char text[12][64];
	uint64_t target[12]; /* branch target or RIP-relative address, else 0 */
};

/* Decodes out (at dst) into mnemonics and absolute targets. */
static void decode(const uint8_t *out, int len, uint64_t dst, struct dec *d)
{
	csh cs;
	cs_open(CS_ARCH_X86, CS_MODE_64, &cs);
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	cs_insn *in;
	size_t n = cs_disasm(cs, out, (size_t)len, dst, 0, &in);
	d->n = n;
	for (size_t i = 0; i < n && i < 12; i++) {
		const cs_x86 *x = &in[i].detail->x86;
		snprintf(d->text[i], sizeof(d->text[i]), "%s", in[i].mnemonic);
		d->target[i] = 0;
		for (int o = 0; o < x->op_count; o++) {
			if (x->operands[o].type == X86_OP_IMM && in[i].detail->groups_count)
				d->target[i] = (uint64_t)x->operands[o].imm;
			if (x->operands[o].type == X86_OP_MEM &&
			    x->operands[o].mem.base == X86_REG_RIP)
				d->target[i] =
				    in[i].address + in[i].size + (uint64_t)x->operands[o].mem.disp;
		}
	}
	cs_free(in, n);
	cs_close(&cs);
}

static int relocate(const uint8_t *code, size_t len, uint64_t dst, struct rcr_plan *p, uint8_t *out,
                    struct dec *d)
{
	char why[160] = "";
	if (rc_reloc_plan(code, len, SRC, 5, p, why, sizeof(why))) {
		fprintf(stderr, "plan: %s\n", why);
		return -1;
	}
	int n = rc_reloc_emit(p, SRC, dst, out, RCR_MAX_OUT, NULL);
	if (n > 0)
		decode(out, n, dst, d);
	return n;
}

static const uint64_t dsts[] = {SRC + 0x10000000ull, SRC - 0x300000ull};

/* (a) sub $8,%rsp ; call rel32 */
static void test_call(void)
{
	const uint8_t code[] = {0x48, 0x83, 0xec, 0x08, 0xe8, 0x10, 0x00, 0x00, 0x00, 0x90};
	for (int k = 0; k < 2; k++) {
		struct rcr_plan p;
		uint8_t out[RCR_MAX_OUT];
		struct dec d;
		CHECK(relocate(code, sizeof(code), dsts[k], &p, out, &d) == 9);
		CHECK_EQ_U64(p.len, 9);
		CHECK_EQ_U64(d.n, 2);
		CHECK_STR(d.text[0], "sub");
		CHECK_STR(d.text[1], "call");
		CHECK_EQ_U64(d.target[1], SRC + 9 + 0x10);
	}
}

/* (b) jmp rel8 and jmp rel32 (tail calls) */
static void test_jmp(void)
{
	const uint8_t code[] = {0xeb, 0x20, 0xe9, 0x00, 0x01, 0x00, 0x00};
	struct rcr_plan p;
	uint8_t out[RCR_MAX_OUT];
	struct dec d;
	CHECK(relocate(code, sizeof(code), dsts[0], &p, out, &d) == 10);
	CHECK_EQ_U64(d.n, 2);
	CHECK_STR(d.text[0], "jmp");
	CHECK_EQ_U64(d.target[0], SRC + 2 + 0x20);
	CHECK_EQ_U64(d.target[1], SRC + 7 + 0x100);
}

/* (c) cmp + jcc rel8 (widened), and a jcc rel32 */
static void test_jcc(void)
{
	const uint8_t code[] = {0x83, 0xff, 0x05, 0x7e, 0x30, 0x0f, 0x85, 0x00, 0x02, 0x00, 0x00};
	for (int k = 0; k < 2; k++) {
		struct rcr_plan p;
		uint8_t out[RCR_MAX_OUT];
		struct dec d;
		CHECK(relocate(code, sizeof(code), dsts[k], &p, out, &d) == 3 + 6);
		CHECK_EQ_U64(p.len, 5);
		CHECK_EQ_U64(d.n, 2);
		CHECK_STR(d.text[1], "jle");
		CHECK_EQ_U64(d.target[1], SRC + 5 + 0x30);
		CHECK_EQ_U64(out[3], 0x0f); /* rel32 form */
	}
}

/* (d) RIP-relative load, and a RIP-relative compare with an immediate after
 * the displacement (the displacement counts from the end of the insn). */
static void test_ripmem(void)
{
	const uint8_t code[] = {
	    0x48, 0x8b, 0x05, 0x00, 0x10, 0x00, 0x00, /* mov 0x1000(%rip) */
	    0x83, 0x3d, 0x00, 0x20, 0x00, 0x00, 0x05, /* cmpl $5, 0x2000(%rip) */
	    0xc3};
	struct rcr_plan p;
	uint8_t out[RCR_MAX_OUT];
	struct dec d;
	char why[160];
	CHECK(!rc_reloc_plan(code, sizeof(code), SRC, 8, &p, why, sizeof(why)));
	int n = rc_reloc_emit(&p, SRC, dsts[0], out, sizeof(out), NULL);
	CHECK_EQ_U64(n, 14);
	decode(out, n, dsts[0], &d);
	CHECK_EQ_U64(d.n, 2);
	CHECK_STR(d.text[0], "mov");
	CHECK_EQ_U64(d.target[0], SRC + 7 + 0x1000);
	CHECK_STR(d.text[1], "cmp");
	CHECK_EQ_U64(d.target[1], SRC + 14 + 0x2000);
	CHECK_EQ_U64(out[13], 5);
	/* Out of rel32 reach: refused, not truncated. */
	CHECK(rc_reloc_emit(&p, SRC, SRC + (3ull << 31), out, sizeof(out), NULL) < 0);
}

/* (e) endbr64 followed by a call, and by a jcc */
static void test_endbr(void)
{
	const uint8_t code[] = {0xf3, 0x0f, 0x1e, 0xfa, 0xe8, 0x00, 0x01, 0x00, 0x00};
	struct rcr_plan p;
	uint8_t out[RCR_MAX_OUT];
	struct dec d;
	CHECK(relocate(code, sizeof(code), dsts[1], &p, out, &d) == 9);
	CHECK_STR(d.text[0], "endbr64");
	CHECK_STR(d.text[1], "call");
	CHECK_EQ_U64(d.target[1], SRC + 9 + 0x100);
	const uint8_t code2[] = {0xf3, 0x0f, 0x1e, 0xfa, 0x74, 0x10};
	CHECK(relocate(code2, sizeof(code2), dsts[0], &p, out, &d) == 10);
	CHECK_EQ_U64(d.n, 2);
	CHECK_STR(d.text[1], "je");
	CHECK_EQ_U64(d.target[1], SRC + 6 + 0x10);
}

/* loop and jrcxz/jecxz have no rel32 form: short branch over a jmp rel32 */
static void test_loop(void)
{
	const uint8_t code[] = {0xe2, 0x10, 0x67, 0xe3, 0x20, 0xe3, 0x30};
	struct rcr_plan p;
	uint8_t out[RCR_MAX_OUT];
	struct dec d;
	char why[160];
	CHECK(!rc_reloc_plan(code, sizeof(code), SRC, 7, &p, why, sizeof(why)));
	int n = rc_reloc_emit(&p, SRC, dsts[0], out, sizeof(out), NULL);
	CHECK_EQ_U64(n, 9 + 10 + 9);
	decode(out, n, dsts[0], &d);
	CHECK_EQ_U64(d.n, 9);
	CHECK_STR(d.text[0], "loop");
	CHECK_EQ_U64(d.target[0], dsts[0] + 4); /* the jmp rel32 */
	CHECK_STR(d.text[1], "jmp");
	CHECK_EQ_U64(d.target[1], dsts[0] + 9); /* not taken: next relocated insn */
	CHECK_STR(d.text[2], "jmp");
	CHECK_EQ_U64(d.target[2], SRC + 2 + 0x10);
	CHECK_STR(d.text[3], "jecxz");
	CHECK_EQ_U64(d.target[5], SRC + 5 + 0x20);
	CHECK_STR(d.text[6], "jrcxz");
	CHECK_EQ_U64(d.target[8], SRC + 7 + 0x30);
}

/* A branch among the displaced bytes lands in the copy, not the original. */
static void test_internal(void)
{
	const uint8_t code[] = {0x85, 0xff, 0x74, 0x00, 0x90, 0x31, 0xc0};
	struct rcr_plan p;
	uint8_t out[RCR_MAX_OUT];
	struct dec d;
	CHECK(relocate(code, sizeof(code), dsts[0], &p, out, &d) == 2 + 6 + 1);
	CHECK_STR(d.text[1], "je");
	CHECK_EQ_U64(d.target[1], dsts[0] + 8); /* the copied nop, after je rel32 */
}

/* Refusals: a function shorter than a jump, a branch from the body into the
 * displaced bytes, xbegin. */
static void test_refuse(void)
{
	struct rcr_plan p;
	char why[160] = "";
	const uint8_t ret[] = {0x31, 0xc0, 0xc3};
	CHECK(rc_reloc_plan(ret, sizeof(ret), SRC, 5, &p, why, sizeof(why)) == -ENOTSUP);
	CHECK(strstr(why, "shorter") != NULL);
	/* push %rbp; mov %rsp,%rbp; ...; jmp back to +1 */
	const uint8_t fn[] = {0x55, 0x48, 0x89, 0xe5, 0x90, 0x90, 0xeb, 0xf9};
	CHECK(!rc_reloc_plan(fn, sizeof(fn), SRC, 5, &p, why, sizeof(why)));
	CHECK_EQ_U64(p.len, 5);
	CHECK(rc_reloc_entry_check(fn, sizeof(fn), SRC, p.len, why, sizeof(why)) == -EXDEV);
	CHECK(strstr(why, "+6") != NULL);
	/* to the start itself is fine: the patched jump is there */
	const uint8_t fn2[] = {0x55, 0x48, 0x89, 0xe5, 0x90, 0x90, 0xeb, 0xf8};
	CHECK(!rc_reloc_entry_check(fn2, sizeof(fn2), SRC, 5, why, sizeof(why)));
	const uint8_t xb[] = {0xc7, 0xf8, 0x00, 0x00, 0x00, 0x00};
	CHECK(rc_reloc_plan(xb, sizeof(xb), SRC, 5, &p, why, sizeof(why)) == -ENOTSUP);
}

int main(void)
{
	RUN(test_call);
	RUN(test_jmp);
	RUN(test_jcc);
	RUN(test_ripmem);
	RUN(test_endbr);
	RUN(test_loop);
	RUN(test_internal);
	RUN(test_refuse);
	CHECK_EXIT();
}
