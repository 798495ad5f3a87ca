/* Types shared by rootcause/bpf/rootcause.bpf.c and the uprobe backend of
 * `osprof rootcause` (rootcause/be_uprobe.c), and by the trampoline
 * backend's uprobe fallback (rootcause/bpf/rc_fallback.bpf.c,
 * rootcause/tramp_uprobe.c, the agent). */
#ifndef OSPROF_BPF_ROOTCAUSE_H
#define OSPROF_BPF_ROOTCAUSE_H

#define RC_NSLOTS   128 /* ftree nodes measured at once (slot 0 is f0) */
#define RC_STACK    32  /* nested timed calls per thread */
#define RC_HBUCKETS 64  /* log2 buckets of the f0 histogram */

/* Kinds of call site; tails end when the enclosing call returns. */
#define RC_K_CALL 0
#define RC_K_TAIL 1
#define RC_K_IND  2 /* flag: target read from registers/memory at run time */

/* A site's run-time description (key: site id, the attach cookie). */
struct rc_bsite {
	unsigned char kind;   /* RC_K_* */
	unsigned char is_mem; /* operand is memory: target = *(base+index*scale+disp) */
	signed char base;     /* pt_regs index, -1 none, -2 rip */
	signed char index;    /* pt_regs index, -1 none */
	unsigned int scale;
	long long disp;
	unsigned long long next_ip; /* run-time address after the instruction */
};

/* children map: (measured parent slot, site id) -> child slot. */
struct rc_ckey {
	unsigned int parent;
	unsigned int site;
};

struct rc_frame {
	unsigned long long start;
	unsigned long long ret_ip; /* where the timed call returns */
	/* The stack pointer at the call, found again at its return: a deeper
	 * call of the same site (recursion) returns below it. */
	unsigned long long rsp;
	unsigned int site;
	unsigned int slot;
	unsigned int tail;
	unsigned int pad;
};

struct rc_thread {
	unsigned long long f0_start;
	unsigned long long gen; /* search generation when this f0 call began */
	unsigned int f0_depth;
	unsigned int sp;
	unsigned long long off_start; /* preempted since (0: on CPU) */
	unsigned int off_slot;
	unsigned int irq_slot;
	unsigned long long irq_start;
	struct rc_frame stk[RC_STACK];
	unsigned long long lat[RC_NSLOTS]; /* max latency of the slot's call in this f0 call */
	unsigned long long tgt[RC_NSLOTS]; /* last indirect target seen */
	unsigned long long pre[RC_NSLOTS]; /* preempted while the slot was innermost */
	unsigned long long irq[RC_NSLOTS]; /* hard+soft IRQ time while innermost */
	unsigned int irqn[RC_NSLOTS];      /* last IRQ number (softirq: 1000 + vec) */
};

/* One in-peak f0 call, sent through the ring buffer. */
struct rc_event {
	unsigned long long f0_lat;
	unsigned long long gen;
	unsigned int tid;
	unsigned int pad;
	unsigned long long lat[RC_NSLOTS];
	unsigned long long tgt[RC_NSLOTS];
	unsigned long long pre[RC_NSLOTS];
	unsigned long long irq[RC_NSLOTS];
	unsigned int irqn[RC_NSLOTS];
};

/* The trampoline backend's uprobe fallback: a call site no jump fits gets
 * uprobes on the call and on its return address, and its per-call times go
 * into a cell of the agent's thread in an mmapable array (tid & RC_FB_MASK)
 * that the agent reads when its f0 call ends. The agent publishes where its
 * stack of timed calls is (thr); the BPF side reads the innermost slot there
 * and keeps its own frames in the cell, which the agent reads in turn, so
 * that a site under a given parent slot is found whichever side timed the
 * parent. */
#define RC_FB_CELLS 1024
#define RC_FB_MASK  (RC_FB_CELLS - 1)
#define RC_FB_STACK 8
/* The agent's per-thread state as the BPF side reads it (agent.c asserts
 * it): u32 f0_depth, u32 sp at 0, frames of RC_AGENT_FRAME bytes from
 * RC_AGENT_STK, each with its u32 slot at RC_AGENT_SLOT. */
#define RC_AGENT_STK   16
#define RC_AGENT_FRAME 24
#define RC_AGENT_SLOT  16
#define RC_AGENT_DEPTH 64

struct rc_fb_frame {
	unsigned long long start;
	unsigned long long ret_ip;
	unsigned long long rsp; /* as in struct rc_frame */
	unsigned int slot;
	unsigned int site;
	unsigned int agent_sp; /* the agent's sp when the call began */
	unsigned int pad;
};

struct rc_fb_cell {
	unsigned int tid;       /* owner, written by the agent */
	unsigned int n;         /* open frames */
	unsigned long long thr; /* the agent's struct thr of that thread */
	unsigned long long touched[RC_NSLOTS / 64];
	struct rc_fb_frame fr[RC_FB_STACK];
	unsigned long long lat[RC_NSLOTS]; /* ns, max per slot in this f0 call */
	unsigned long long tgt[RC_NSLOTS]; /* last indirect target */
};

#endif
