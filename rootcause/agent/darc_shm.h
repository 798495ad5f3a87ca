/* The shared-memory control channel between osprof rootcause (the
 * trampoline backend, rootcause/be_tramp.c) and the in-process agent
 * (build/libosprof-darc-agent.so, LD_PRELOADed into a command osprof
 * starts). osprof writes commands, ftree edges and the peak; the agent's
 * control thread patches code; the target's threads write the f0 histogram
 * and one record per in-peak f0 call into the event ring. */
#ifndef OSPROF_DARC_SHM_H
#define OSPROF_DARC_SHM_H

#include <stdint.h>
#include "rootcause/bpf/rootcause.h"
#include "rootcause/agent/reloc.h"

#define RCS_MAGIC     0x4f53505244415243ull /* "OSPRDARC" */
#define RCS_NCMD      512
#define RCS_NEV       256
#define RCS_HASH      8192 /* edge table, power of two */
#define RCS_STUB_SITE 48
#define RCS_STUB_F0   160

/* How f0 is hooked and a site probed (a site command's result, >= 0):
 * a jump to a trampoline, or an int3 the agent's SIGTRAP handler turns
 * into the call (any instruction, at the price of a signal per call), or,
 * when osprof offers it (ufb), nothing in the agent: osprof puts uprobes on
 * the site whose times reach the agent through its cells (rootcause.h). */
enum rcs_mode { RCS_JUMP = 0, RCS_BREAK = 1, RCS_UPROBE = 2 };

/* RCS_ADD_BREAK: a site osprof could not put uprobes on. */
enum rcs_op { RCS_ADD_SITE = 1, RCS_DEL_SITE, RCS_ADD_BREAK };

struct rcs_cmd {
	uint32_t op;
	uint32_t site;
	uint64_t addr;   /* run-time address of the call instruction */
	uint64_t target; /* callee; 0 when indirect */
	uint8_t len, tail, indirect, is_mem;
	int8_t base, index; /* indirect: pt_regs indices (rootcause/callsites.h) */
	uint8_t scale, pad;
	int64_t disp;
};

struct rc_shm {
	uint64_t magic;
	int32_t claimed; /* pid of the process whose agent owns this channel */
	uint32_t ready;  /* agent: f0 patched (1) or failed (2) */
	char f0_path[4096];
	uint64_t f0_vaddr; /* link-time address where the patch goes */
	uint32_t f0_mode;  /* enum rcs_mode */
	uint32_t pad0;
	struct rcr_plan f0_plan; /* f0's displaced instructions */
	char error[256];         /* agent's last error */
	/* commands: osprof produces at cmd_head, the agent consumes */
	uint32_t cmd_seq; /* futex word: bumped by osprof per command */
	uint32_t pad1;
	uint64_t cmd_head, cmd_tail;
	struct rcs_cmd cmds[RCS_NCMD];
	int32_t cmd_result[RCS_NCMD]; /* 0 ok, -errno; written before cmd_tail moves */
	/* search */
	uint64_t peak_lo, peak_hi, gen;
	uint32_t searching;
	uint32_t ufb;      /* osprof: the uprobe fallback's cells are in OSPROF_DARC_UFB */
	uint64_t tsc_mult; /* ns = cycles * tsc_mult >> 32; 0 until calibrated */
	uint64_t hist[RC_HBUCKETS];
	uint64_t lost;
	uint64_t edge_key[RCS_HASH]; /* (parent << 32 | site), 0 = empty */
	uint32_t edge_val[RCS_HASH]; /* child slot, UINT32_MAX = removed */
	/* events: target threads produce, osprof consumes */
	uint64_t ev_head, ev_tail;
	uint64_t ev_seq[RCS_NEV]; /* index + 1 once slot is written */
	struct rc_event ev[RCS_NEV];
};

static inline uint32_t rcs_hash(uint64_t key)
{
	key ^= key >> 29;
	key *= 0xbf58476d1ce4e5b9ull;
	key ^= key >> 32;
	return (uint32_t)key & (RCS_HASH - 1);
}

#endif
