/* Call sites of one function, found by disassembling its body (capstone):
 * direct calls, indirect calls through a register or memory, and tail jumps
 * (a jump leaving the function). Addresses are link-time vaddrs. */
#ifndef OSPROF_RC_CALLSITES_H
#define OSPROF_RC_CALLSITES_H

#include <stddef.h>
#include <stdint.h>
#include "rootcause/elfsym.h"

enum rc_site_kind { RC_SITE_CALL = 0, RC_SITE_TAIL = 1 };

struct rc_site {
	uint64_t addr; /* the call/jmp instruction */
	uint8_t len;   /* its length: the return address is addr + len */
	uint8_t tail;  /* tail jump: ends when the function returns */
	uint8_t indirect;
	uint8_t is_mem; /* indirect through memory */
	int8_t base;    /* pt_regs index of the base register, -1 none, -2 rip */
	int8_t index;   /* pt_regs index of the index register, -1 none */
	uint8_t scale;
	int64_t disp;
	uint64_t target; /* direct: callee vaddr */
	char text[48];   /* e.g. "call *%rax", for names of indirect sites */
};

/* Disassembles [sym->addr, sym->addr + sym->size). Returns the number of
 * sites (array in *out, caller frees) or -errno. */
int rc_callsites(const struct rc_elf *e, const struct rc_sym *sym, struct rc_site **out);
/* pt_regs index of a capstone x86 register, -1 if not a 64-bit GPR. */
int rc_ptregs_index(unsigned cs_reg);

#endif
