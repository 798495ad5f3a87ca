/* Call-site discovery with capstone (seed 002 §4.2: calls and tail calls). */
#include "rootcause/callsites.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rc_ptregs_index(unsigned r)
{
	/* struct pt_regs order on x86-64: r15 r14 r13 r12 bp bx r11 r10 r9 r8
	 * ax cx dx si di orig_ax ip cs flags sp ss */
	switch (r) {
	case X86_REG_R15:
		return 0;
	case X86_REG_R14:
		return 1;
	case X86_REG_R13:
		return 2;
	case X86_REG_R12:
		return 3;
	case X86_REG_RBP:
		return 4;
	case X86_REG_RBX:
		return 5;
	case X86_REG_R11:
		return 6;
	case X86_REG_R10:
		return 7;
	case X86_REG_R9:
		return 8;
	case X86_REG_R8:
		return 9;
	case X86_REG_RAX:
		return 10;
	case X86_REG_RCX:
		return 11;
	case X86_REG_RDX:
		return 12;
	case X86_REG_RSI:
		return 13;
	case X86_REG_RDI:
		return 14;
	case X86_REG_RSP:
		return 19;
	default:
		return -1;
	}
}

/* An indirect jump is taken for a tail call when the frame was just torn
 * down (pop/leave before it, or nothing pushed at all); otherwise it is most
 * likely a switch through a jump table, which stays inside the function. */
static int epilogue_before(unsigned prev_id)
{
	return prev_id == X86_INS_POP || prev_id == X86_INS_LEAVE || prev_id == X86_INS_ADD;
}

static int fill_operand(struct rc_site *s, const cs_x86_op *op)
{
	if (op->type == X86_OP_REG) {
		s->base = (int8_t)rc_ptregs_index(op->reg);
		s->index = -1;
		return s->base >= 0 ? 0 : -1;
	}
	if (op->type != X86_OP_MEM || op->mem.segment != X86_REG_INVALID)
		return -1;
	s->is_mem = 1;
	if (op->mem.base == X86_REG_RIP)
		s->base = -2;
	else if (op->mem.base == X86_REG_INVALID)
		s->base = -1;
	else if ((s->base = (int8_t)rc_ptregs_index(op->mem.base)) < 0)
		return -1;
	if (op->mem.index == X86_REG_INVALID)
		s->index = -1;
	else if ((s->index = (int8_t)rc_ptregs_index(op->mem.index)) < 0)
		return -1;
	s->scale = (uint8_t)op->mem.scale;
	s->disp = op->mem.disp;
	return 0;
}

int rc_callsites(const struct rc_elf *e, const struct rc_sym *sym, struct rc_site **out)
{
	*out = NULL;
	if (!sym->size)
		return 0;
	const uint8_t *code = rc_elf_bytes(e, sym->addr, sym->size);
	if (!code)
		return -ENOENT;
	csh cs;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return -EINVAL;
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	cs_insn *insn = cs_malloc(cs);
	size_t n = 0, cap = 0, left = sym->size;
	struct rc_site *v = NULL;
	uint64_t addr = sym->addr, end = sym->addr + sym->size;
	unsigned prev = X86_INS_INVALID;
	int rc = 0;
	while (left && cs_disasm_iter(cs, &code, &left, &addr, insn)) {
		unsigned id = insn->id, pid = prev;
		prev = id;
		if (id != X86_INS_CALL && id != X86_INS_JMP)
			continue;
		const cs_x86 *x = &insn->detail->x86;
		if (x->op_count != 1)
			continue;
		struct rc_site s = {
		    .addr = insn->address, .len = (uint8_t)insn->size, .base = -1, .index = -1};
		snprintf(s.text, sizeof(s.text), "%.10s %.36s", insn->mnemonic, insn->op_str);
		const cs_x86_op *op = &x->operands[0];
		if (op->type == X86_OP_IMM) {
			s.target = (uint64_t)op->imm;
			if (id == X86_INS_JMP) {
				if (s.target >= sym->addr && s.target < end)
					continue; /* a branch inside the function */
				const struct rc_sym *t = rc_elf_at(e, s.target);
				if (t && t != sym && strstr(t->name, ".cold"))
					continue; /* split-off cold part, not a call */
				s.tail = 1;
			}
		} else {
			if (id == X86_INS_JMP && !epilogue_before(pid) &&
			    !(op->type == X86_OP_MEM && op->mem.index == X86_REG_INVALID))
				continue;
			if (fill_operand(&s, op))
				continue;
			s.indirect = 1;
			s.tail = id == X86_INS_JMP;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			struct rc_site *p = realloc(v, cap * sizeof(*p));
			if (!p) {
				rc = -ENOMEM;
				break;
			}
			v = p;
		}
		v[n++] = s;
	}
	cs_free(insn, 1);
	cs_close(&cs);
	if (rc) {
		free(v);
		return rc;
	}
	*out = v;
	return (int)n;
}
