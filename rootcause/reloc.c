/* Relocation plans (see rootcause/reloc.h): capstone decodes, each
 * instruction that depends on its address becomes a recipe the agent can
 * re-aim without a disassembler. Cases as in production inline hookers
 * (Frida's x86 relocator, funchook): relative jmp/call/jcc are widened to
 * rel32, loop/jrcxz get a rel32 trampoline of their own, RIP-relative
 * operands keep their encoding with a new disp32. */
#include "rootcause/reloc.h"
#include "rootcause/agent/darc_shm.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int is_loop(unsigned id)
{
	return id == X86_INS_LOOP || id == X86_INS_LOOPE || id == X86_INS_LOOPNE ||
	       id == X86_INS_JRCXZ || id == X86_INS_JECXZ || id == X86_INS_JCXZ;
}

static int in_group(const cs_insn *in, int g)
{
	for (int i = 0; i < in->detail->groups_count; i++)
		if (in->detail->groups[i] == g)
			return 1;
	return 0;
}

/* The direct branch target of in, if it has one. */
static int branch_target(const cs_insn *in, uint64_t *t)
{
	const cs_x86 *x = &in->detail->x86;
	if (!(in_group(in, CS_GRP_JUMP) || in_group(in, CS_GRP_CALL) || is_loop(in->id)) ||
	    x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
		return 0;
	*t = (uint64_t)x->operands[0].imm;
	return 1;
}

static int classify(const cs_insn *in, uint64_t start, struct rcr_insn *r, char *why, size_t whylen)
{
	const cs_x86 *x = &in->detail->x86;
	uint64_t t;
	r->kind = RCR_COPY;
	if (in->id == X86_INS_XBEGIN || in->id == X86_INS_INVALID) {
		snprintf(why, whylen, "%s at +%" PRIu64 " cannot be relocated", in->mnemonic,
		         in->address - start);
		return -ENOTSUP;
	}
	if (branch_target(in, &t)) {
		r->target = (int64_t)(t - start);
		if (is_loop(in->id)) {
			r->kind = RCR_LOOP;
			r->op = x->opcode[0];
			r->addr32 = x->prefix[3] == 0x67;
		} else if (in->id == X86_INS_JMP) {
			r->kind = RCR_JMP;
		} else if (in->id == X86_INS_CALL) {
			r->kind = RCR_CALL;
		} else if (x->opcode[0] >= 0x70 && x->opcode[0] <= 0x7f) {
			r->kind = RCR_JCC;
			r->op = x->opcode[0] & 0xf;
		} else if (x->opcode[0] == 0x0f && (x->opcode[1] & 0xf0) == 0x80) {
			r->kind = RCR_JCC;
			r->op = x->opcode[1] & 0xf;
		} else {
			snprintf(why, whylen,
			         "relative branch %s at +%" PRIu64 " has no rel32 form",
			         in->mnemonic, in->address - start);
			return -ENOTSUP;
		}
		return 0;
	}
	for (int o = 0; o < x->op_count; o++) {
		const cs_x86_op *op = &x->operands[o];
		if (op->type != X86_OP_MEM || op->mem.base != X86_REG_RIP)
			continue;
		if (!x->encoding.disp_offset) {
			snprintf(why, whylen, "%s at +%" PRIu64 ": no disp32 found", in->mnemonic,
			         in->address - start);
			return -ENOTSUP;
		}
		r->kind = RCR_RIPMEM;
		r->disp_off = x->encoding.disp_offset;
		r->target = (int64_t)(in->address + in->size + (uint64_t)op->mem.disp - start);
	}
	return 0;
}

int rc_reloc_plan(const uint8_t *code, size_t avail, uint64_t vaddr, uint32_t min_len,
                  struct rcr_plan *p, char *why, size_t whylen)
{
	memset(p, 0, sizeof(*p));
	csh cs;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK) {
		snprintf(why, whylen, "capstone unavailable");
		return -ENOTSUP;
	}
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	cs_insn *in = cs_malloc(cs);
	const uint8_t *c = code;
	size_t left = avail < RCR_MAX_IN ? avail : RCR_MAX_IN;
	uint64_t a = vaddr;
	int rc = 0;
	while (p->len < min_len) {
		if (p->n == RCR_MAX_INSN || !cs_disasm_iter(cs, &c, &left, &a, in)) {
			if (p->n == RCR_MAX_INSN || left)
				snprintf(why, whylen, "undecodable instruction at +%u", p->len);
			else
				snprintf(why, whylen, "shorter than the %u bytes a jump needs",
				         min_len);
			rc = -ENOTSUP;
			break;
		}
		struct rcr_insn *r = &p->insn[p->n];
		r->off = (uint8_t)p->len;
		r->len = (uint8_t)in->size;
		if ((rc = classify(in, vaddr, r, why, whylen)))
			break;
		memcpy(p->bytes + p->len, in->bytes, in->size);
		p->len += in->size;
		p->n++;
	}
	cs_free(in, 1);
	cs_close(&cs);
	return rc;
}

int rc_reloc_entry_check(const uint8_t *fn, size_t size, uint64_t vaddr, uint32_t len, char *why,
                         size_t whylen)
{
	csh cs;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return 0;
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	cs_insn *in = cs_malloc(cs);
	const uint8_t *c = fn;
	size_t left = size;
	uint64_t a = vaddr, t;
	int rc = 0;
	while (left && cs_disasm_iter(cs, &c, &left, &a, in)) {
		if (in->address >= vaddr && in->address < vaddr + len)
			continue; /* relocated with them: re-aimed into the copy */
		if (branch_target(in, &t) && t > vaddr && t < vaddr + len) {
			snprintf(why, whylen,
			         "%s at +%" PRIu64 " branches into the first %u bytes (+%" PRIu64
			         ")",
			         in->mnemonic, in->address - vaddr, len, t - vaddr);
			rc = -EXDEV;
			break;
		}
	}
	cs_free(in, 1);
	cs_close(&cs);
	return rc;
}

int rc_reloc_plan_entry(const uint8_t *code, size_t size, uint64_t vaddr, struct rcr_plan *p,
                        char *why, size_t whylen)
{
	int rc = rc_reloc_plan(code, size, vaddr, 5, p, why, whylen);
	if (!rc)
		rc = rc_reloc_entry_check(code, size, vaddr, p->len, why, whylen);
	if (!rc)
		return RCS_JUMP;
	char first[200];
	snprintf(first, sizeof(first), "%s", why);
	if (rc_reloc_plan(code, size, vaddr, 1, p, why, whylen))
		return -ENOTSUP;
	snprintf(why, whylen, "%s", first);
	return RCS_BREAK;
}
