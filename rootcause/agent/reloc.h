/* Relocation of the first instructions of a function into a trampoline.
 *
 * Split in two so that no disassembler runs inside the target: osprof
 * decodes the displaced instructions with capstone (rootcause/reloc.c,
 * rc_reloc_plan) into a plan of position-independent recipes; the agent
 * (or a unit test) turns the plan into code for the address where its stub
 * landed (rc_reloc_emit, rootcause/agent/reloc_emit.c: plain arithmetic,
 * no allocation, no libc beyond memcpy). The plan travels in the shared
 * memory of rootcause/agent/darc_shm.h. */
#ifndef OSPROF_RC_RELOC_H
#define OSPROF_RC_RELOC_H

#include <stdint.h>

#define RCR_MAX_INSN 10
#define RCR_MAX_IN   24 /* displaced bytes */
#define RCR_MAX_OUT  96 /* worst case: RCR_MAX_INSN rewritten loops */

enum rcr_kind {
	RCR_COPY,   /* position independent: copied as is */
	RCR_RIPMEM, /* RIP-relative memory operand: disp32 re-aimed */
	RCR_JMP,    /* jmp rel8/rel32 -> jmp rel32 */
	RCR_CALL,   /* call rel32 (pushes the stub's address: see docs) */
	RCR_JCC,    /* jcc rel8/rel32 -> jcc rel32 */
	RCR_LOOP,   /* loop/loope/loopne/jrcxz/jecxz: no rel32 form */
};

struct rcr_insn {
	uint8_t off, len; /* in the original bytes */
	uint8_t kind;
	uint8_t op;       /* JCC: condition 0..15; LOOP: opcode 0xe0..0xe3 */
	uint8_t disp_off; /* RIPMEM: offset of the disp32 in the instruction */
	uint8_t addr32;   /* LOOP: 0x67 prefix (jecxz, loop on ecx) */
	uint8_t pad[2];
	int64_t target; /* branch target or RIP-relative address, relative to the start */
};

struct rcr_plan {
	uint32_t len; /* bytes displaced: whole instructions, >= 5 */
	uint32_t n;
	uint8_t bytes[RCR_MAX_IN];
	struct rcr_insn insn[RCR_MAX_INSN];
};

/* Writes the relocated instructions for a copy running at dst of code
 * that was at src; new_off[i] (if not NULL) receives where instruction i
 * starts in out. Branches to inside the displaced bytes are re-aimed into
 * the copy. Returns the bytes written, or -1 when a target is out of rel32
 * reach of dst or out is too small. */
int rc_reloc_emit(const struct rcr_plan *p, uint64_t src, uint64_t dst, uint8_t *out, int cap,
                  int *new_off);

/* 1 if the agent can put a jump to a trampoline at a call site of these
 * bytes (call/jmp rel32), else it uses a breakpoint. */
static inline int rc_reloc_site_jumps(const uint8_t *insn, unsigned len, int indirect)
{
	return !indirect && len == 5 && (insn[0] == 0xe8 || insn[0] == 0xe9);
}

#endif
