/* Code generation of the relocator (see reloc.h). Runs in the agent's
 * control thread inside the target: no allocation, no locks. */
#include "rootcause/agent/reloc.h"

#include <string.h>

static int out_len(const struct rcr_insn *in)
{
	switch (in->kind) {
	case RCR_JMP:
	case RCR_CALL:
		return 5;
	case RCR_JCC:
		return 6;
	case RCR_LOOP: /* [67] op +2 ; jmp +5 ; jmp rel32 */
		return in->addr32 + 2 + 2 + 5;
	default:
		return in->len;
	}
}

static int rel32(int64_t v, uint8_t *p)
{
	if (v < INT32_MIN || v > INT32_MAX)
		return -1;
	int32_t r = (int32_t)v;
	memcpy(p, &r, 4);
	return 0;
}

int rc_reloc_emit(const struct rcr_plan *p, uint64_t src, uint64_t dst, uint8_t *out, int cap,
                  int *new_off)
{
	int off[RCR_MAX_INSN + 1], n = (int)p->n;
	if (n > RCR_MAX_INSN)
		return -1;
	off[0] = 0;
	for (int i = 0; i < n; i++)
		off[i + 1] = off[i] + out_len(&p->insn[i]);
	if (off[n] > cap)
		return -1;
	for (int i = 0; i < n; i++) {
		const struct rcr_insn *in = &p->insn[i];
		uint8_t *o = out + off[i];
		uint64_t here = dst + (uint64_t)off[i];
		/* Absolute target; a branch into the displaced bytes goes to the
		 * copy of the instruction it aimed at. */
		uint64_t t = src + (uint64_t)in->target;
		if (in->kind != RCR_COPY && in->kind != RCR_RIPMEM && in->target >= 0 &&
		    in->target < (int64_t)p->len)
			for (int k = 0; k < n; k++)
				if (p->insn[k].off == in->target)
					t = dst + (uint64_t)off[k];
		int64_t rel = (int64_t)(t - (here + (uint64_t)out_len(in)));
		switch (in->kind) {
		case RCR_COPY:
			memcpy(o, p->bytes + in->off, in->len);
			break;
		case RCR_RIPMEM:
			memcpy(o, p->bytes + in->off, in->len);
			if (rel32((int64_t)(t - (here + in->len)), o + in->disp_off))
				return -1;
			break;
		case RCR_JMP:
		case RCR_CALL:
			o[0] = in->kind == RCR_JMP ? 0xe9 : 0xe8;
			if (rel32(rel, o + 1))
				return -1;
			break;
		case RCR_JCC:
			o[0] = 0x0f;
			o[1] = (uint8_t)(0x80 | (in->op & 0xf));
			if (rel32(rel, o + 2))
				return -1;
			break;
		case RCR_LOOP: {
			/* The short form stays, aimed at a jmp rel32 right after a
			 * jmp that skips it when the branch is not taken. */
			int k = 0;
			if (in->addr32)
				o[k++] = 0x67;
			o[k++] = in->op;
			o[k++] = 2;
			o[k++] = 0xeb;
			o[k++] = 5;
			o[k++] = 0xe9;
			if (rel32(rel, o + k))
				return -1;
			break;
		}
		default:
			return -1;
		}
		if (new_off)
			new_off[i] = off[i];
	}
	return off[n];
}
