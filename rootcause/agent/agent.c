/* The DARC in-process agent (LD_PRELOAD): patches call sites of a process
 * osprof starts with jumps to generated trampolines that time each call with
 * the TSC (seed 002 §4.2.2 "calltramp" + "rettramp", done in user space, which
 * the dissertation leaves as future work). Control: rootcause/agent/darc_shm.h.
 *
 * Call sites `call rel32` and tail jumps `jmp rel32` become jumps to a
 * stub; f0's first instructions are relocated into its stub (plan made by
 * osprof, rootcause/reloc.c; code by reloc_emit.c), and a site among them
 * is patched in the relocated copy. Any other site (indirect call, short
 * jump) gets osprof's uprobes when osprof runs as root (the uprobe
 * fallback: rootcause/bpf/rc_fallback.bpf.c, their times read from this
 * thread's cell at the end of f0), else an int3, turned into the call by
 * on_trap, as does an f0 a jump cannot replace (a branch into its first
 * bytes). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <signal.h>
#include <ucontext.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>
#include "rootcause/agent/darc_shm.h"
#include "rootcause/agent/reloc.h"

#define HIDDEN __attribute__((visibility("hidden")))
#define STACK  64

void darc_enter_asm(void) HIDDEN;
void darc_ret_asm(void) HIDDEN;

static struct rc_shm *shm;
/* Set in a forked child: the PID filter of this backend (only the process
 * that claimed the channel records; frames already pushed still return). */
static volatile int forked;

static void on_fork_child(void)
{
	forked = 1;
}

struct frame {
	uint64_t ret, start;
	uint32_t slot, site;
};

struct thr {
	uint32_t f0_depth, sp;
	uint64_t gen;
	struct frame stk[STACK];
	uint64_t lat[RC_NSLOTS]; /* cycles */
	uint64_t tgt[RC_NSLOTS]; /* last target of an indirect call */
	uint32_t touched[RC_NSLOTS];
	uint32_t ntouched;
	struct rc_fb_cell *cell; /* this thread's uprobe-fallback cell, or NULL */
};

/* The uprobe programs read the stack of timed calls at these offsets. */
_Static_assert(offsetof(struct thr, sp) == 4 && offsetof(struct thr, stk) == RC_AGENT_STK &&
                   sizeof(struct frame) == RC_AGENT_FRAME &&
                   offsetof(struct frame, slot) == RC_AGENT_SLOT && STACK == RC_AGENT_DEPTH,
               "struct thr as rootcause/bpf/rootcause.h describes it");

static __thread struct thr *thr __attribute__((tls_model("initial-exec")));
/* The uprobe fallback's cells (rootcause/bpf/rootcause.h), NULL without it. */
static struct rc_fb_cell *fb_cells;

/* ---- hot path (called from tramp.S) ---- */

/* Claims the thread's cell (tid & RC_FB_MASK): the uprobe programs count
 * the owner's calls only. */
static void fb_claim(struct thr *t)
{
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	struct rc_fb_cell *c = &fb_cells[tid & RC_FB_MASK];
	memset(c, 0, sizeof(*c));
	__atomic_store_n(&c->thr, (uint64_t)t, __ATOMIC_RELAXED);
	__atomic_store_n(&c->tid, tid, __ATOMIC_RELEASE);
	t->cell = c;
}

/* The parent of a call: a call timed by the uprobes that began after the
 * agent's innermost one, else that one. */
static uint32_t fb_parent(const struct thr *t, uint32_t parent)
{
	const struct rc_fb_cell *c = t->cell;
	uint32_t n = __atomic_load_n(&c->n, __ATOMIC_RELAXED);
	if (n && n <= RC_FB_STACK && c->fr[n - 1].agent_sp == t->sp)
		return c->fr[n - 1].slot;
	return parent;
}

static uint32_t edge(uint32_t parent, uint32_t site)
{
	uint64_t key = (uint64_t)parent << 32 | site;
	for (uint32_t i = rcs_hash(key), n = 0; n < RCS_HASH; n++, i = (i + 1) & (RCS_HASH - 1)) {
		uint64_t k = __atomic_load_n(&shm->edge_key[i], __ATOMIC_ACQUIRE);
		if (k == key)
			return __atomic_load_n(&shm->edge_val[i], __ATOMIC_RELAXED);
		if (!k)
			break;
	}
	return UINT32_MAX;
}

HIDDEN void darc_c_enter(uint32_t site, uint64_t *retslot)
{
	struct thr *t = thr;
	if (forked)
		return;
	if (site == 0) { /* f0 */
		if (!t) {
			t = thr = calloc(1, sizeof(*t));
			if (!t)
				return;
			if (fb_cells)
				fb_claim(t);
		}
		if (t->sp >= STACK)
			return;
		uint32_t slot = 0;
		if (t->f0_depth++ == 0) {
			t->sp = 0;
			if (t->cell)
				t->cell->n = 0;
			t->gen = __atomic_load_n(&shm->gen, __ATOMIC_ACQUIRE);
		} else {
			slot = t->stk[t->sp - 1].slot; /* recursion: transparent */
		}
		t->stk[t->sp++] = (struct frame){*retslot, __rdtsc(), slot, 0};
		*retslot = (uint64_t)darc_ret_asm;
		return;
	}
	if (!t || !t->f0_depth || t->sp >= STACK || !t->sp)
		return;
	uint32_t parent = t->stk[t->sp - 1].slot;
	if (__builtin_expect(t->cell != NULL, 0))
		parent = fb_parent(t, parent);
	uint32_t child = edge(parent, site);
	if (child >= RC_NSLOTS)
		return; /* not on a path of the ftree */
	struct frame *f = &t->stk[t->sp++];
	f->ret = *retslot;
	f->slot = child;
	f->site = site;
	*retslot = (uint64_t)darc_ret_asm;
	f->start = __rdtsc();
}

/* The uprobe-timed calls of this f0 call into its record (e, or none). */
static void fb_collect(struct rc_fb_cell *c, struct rc_event *e)
{
	for (uint32_t w = 0; w < RC_NSLOTS / 64; w++) {
		for (uint64_t m = c->touched[w]; m; m &= m - 1) {
			uint32_t s = w * 64 + (uint32_t)__builtin_ctzll(m);
			if (e && c->lat[s] > e->lat[s])
				e->lat[s] = c->lat[s];
			if (e && c->tgt[s])
				e->tgt[s] = c->tgt[s];
			c->lat[s] = c->tgt[s] = 0;
		}
		c->touched[w] = 0;
	}
}

static void finish_f0(struct thr *t, uint64_t cycles)
{
	uint64_t mult = __atomic_load_n(&shm->tsc_mult, __ATOMIC_RELAXED);
	if (mult && !forked) {
		uint64_t ns = (uint64_t)(((unsigned __int128)cycles * mult) >> 32);
		unsigned b = ns ? 63u - (unsigned)__builtin_clzll(ns) : 0;
		__atomic_fetch_add(&shm->hist[b], 1, __ATOMIC_RELAXED);
		if (__atomic_load_n(&shm->searching, __ATOMIC_ACQUIRE) && ns >= shm->peak_lo &&
		    ns <= shm->peak_hi && t->gen == __atomic_load_n(&shm->gen, __ATOMIC_ACQUIRE)) {
			uint64_t h = __atomic_load_n(&shm->ev_head, __ATOMIC_RELAXED), idx;
			do {
				idx = h;
				if (idx - __atomic_load_n(&shm->ev_tail, __ATOMIC_ACQUIRE) >=
				    RCS_NEV) {
					__atomic_fetch_add(&shm->lost, 1, __ATOMIC_RELAXED);
					goto clear;
				}
			} while (!__atomic_compare_exchange_n(&shm->ev_head, &h, idx + 1, 0,
			                                      __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
			struct rc_event *e = &shm->ev[idx % RCS_NEV];
			memset(e, 0, sizeof(*e));
			e->f0_lat = ns;
			e->gen = t->gen;
			e->tid = (uint32_t)syscall(SYS_gettid);
			for (uint32_t i = 0; i < t->ntouched; i++) {
				uint32_t s = t->touched[i];
				e->lat[s] = (uint64_t)(((unsigned __int128)t->lat[s] * mult) >> 32);
				if (!e->lat[s])
					e->lat[s] = 1;
				e->tgt[s] = t->tgt[s];
			}
			if (t->cell)
				fb_collect(t->cell, e);
			__atomic_store_n(&shm->ev_seq[idx % RCS_NEV], idx + 1, __ATOMIC_RELEASE);
		}
	}
clear:
	if (t->cell)
		fb_collect(t->cell, NULL);
	for (uint32_t i = 0; i < t->ntouched; i++)
		t->lat[t->touched[i]] = t->tgt[t->touched[i]] = 0;
	t->ntouched = 0;
}

HIDDEN uint64_t darc_c_ret(void)
{
	uint64_t now = __rdtsc();
	struct thr *t = thr;
	struct frame *f = &t->stk[--t->sp];
	uint64_t d = now - f->start;
	if (f->site == 0) {
		if (--t->f0_depth == 0)
			finish_f0(t, d);
		return f->ret;
	}
	uint32_t s = f->slot;
	if (d > t->lat[s]) {
		if (!t->lat[s] && t->ntouched < RC_NSLOTS)
			t->touched[t->ntouched++] = s;
		t->lat[s] = d;
	}
	return f->ret;
}

/* ---- patching (control thread) ---- */

struct stubarea {
	uint8_t *base;
	size_t used, size;
};
static struct stubarea areas[16];
static int nareas;

struct patched {
	uint32_t site;
	uint64_t addr;
	uint8_t orig[5];
};
static struct patched *patches;
static size_t npatches;

static int near(uint64_t a, uint64_t b)
{
	int64_t d = (int64_t)(a - b);
	return d > -(1ll << 31) + 4096 && d < (1ll << 31) - 4096;
}

/* Stub memory within rel32 reach of addr. RWX: stubs are appended while
 * others run, so the pages can never drop X. */
static uint8_t *stub_alloc(uint64_t addr, size_t len)
{
	for (int i = 0; i < nareas; i++)
		if (areas[i].used + len <= areas[i].size && near((uint64_t)areas[i].base, addr)) {
			uint8_t *p = areas[i].base + areas[i].used;
			areas[i].used += len;
			return p;
		}
	if (nareas == 16)
		return NULL;
	size_t size = 1 << 20;
	for (int64_t k = 1; k < 1800; k++) {
		for (int sign = -1; sign <= 1; sign += 2) {
			uint64_t hint = (addr & ~0xfffffull) + (uint64_t)(sign * k * (1ll << 20));
			void *p = mmap((void *)hint, size, PROT_READ | PROT_WRITE | PROT_EXEC,
			               MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
			if (p == MAP_FAILED)
				continue;
			if (!near((uint64_t)p, addr) || !near((uint64_t)p + size, addr)) {
				munmap(p, size);
				continue;
			}
			areas[nareas] = (struct stubarea){p, len, size};
			return areas[nareas++].base;
		}
	}
	return NULL;
}

/* Code is rewritten while the target runs, the way Linux's text_poke_bp
 * does it: int3 on the first byte, then the tail, then the first byte. A
 * thread that reaches the instruction meanwhile traps into on_trap, waits
 * for the patch to finish and re-executes it. membarrier (if the kernel has
 * it) makes every CPU see each step before the next one. */
static volatile uint64_t poke_addr;
static volatile int poke_busy;
/* Every address ever poked: the SIGTRAP of a thread that hit the int3 can
 * be delivered after the poke finished and poke_addr moved on. */
#define POKED_MAX 4096
static volatile uint64_t poked[POKED_MAX];
static volatile unsigned npoked;
static struct sigaction old_trap;
static int have_sync_core;

static void sync_cores(void)
{
	if (have_sync_core)
		syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0);
}

static int was_poked(uint64_t a)
{
	unsigned n = npoked < POKED_MAX ? npoked : POKED_MAX;
	for (unsigned i = 0; i < n; i++)
		if (poked[i] == a)
			return 1;
	return 0;
}

/* Breakpoint probes: entries are filled before their int3 is written and
 * never reused for another address, so on_trap reads them without a lock. */
struct bp {
	uint64_t at;      /* where the int3 is (the original, or its relocated copy) */
	uint64_t next_ip; /* the original instruction's end: RIP-relative operands */
	uint64_t target;  /* direct callee, or f0's stub */
	int64_t disp;
	uint32_t site; /* 0: f0, run its stub */
	uint8_t len, tail, indirect, is_mem, scale, orig;
	int8_t base, index;
	volatile int live;
};
#define BP_MAX 1024
static struct bp bps[BP_MAX];
static volatile unsigned nbps;

static struct bp *bp_find(uint64_t at)
{
	unsigned n = nbps;
	for (unsigned i = 0; i < n; i++)
		if (bps[i].at == at)
			return &bps[i];
	return NULL;
}

/* pt_regs index (rootcause/callsites.c) -> ucontext register. */
static int greg_of(int ptregs)
{
	static const signed char map[20] = {REG_R15, REG_R14, REG_R13, REG_R12, REG_RBP,
	                                    REG_RBX, REG_R11, REG_R10, REG_R9,  REG_R8,
	                                    REG_RAX, REG_RCX, REG_RDX, REG_RSI, REG_RDI,
	                                    -1,      -1,      -1,      -1,      REG_RSP};
	return ptregs >= 0 && ptregs < 20 ? map[ptregs] : -1;
}

static uint64_t reg_val(const ucontext_t *uc, const struct bp *b, int r)
{
	if (r == -2)
		return b->next_ip;
	int g = greg_of(r);
	return g >= 0 ? (uint64_t)uc->uc_mcontext.gregs[g] : 0;
}

/* Does what the call or jump at b->at would have done, timing it like a
 * trampoline would: the return address is swapped by darc_c_enter. */
static void bp_emulate(ucontext_t *uc, const struct bp *b)
{
	greg_t *g = uc->uc_mcontext.gregs;
	if (!b->site) {
		g[REG_RIP] = (greg_t)b->target; /* f0's stub times it */
		return;
	}
	uint64_t t = b->target;
	if (b->indirect) {
		t = reg_val(uc, b, b->base) + reg_val(uc, b, b->index) * b->scale +
		    (uint64_t)b->disp;
		if (b->is_mem)
			t = *(const uint64_t *)t;
	}
	uint64_t *slot = (uint64_t *)g[REG_RSP];
	if (!b->tail) {
		slot--; /* the call's push; below the red zone the kernel skipped */
		*slot = b->at + b->len;
		g[REG_RSP] = (greg_t)slot;
	}
	struct thr *th = thr;
	uint32_t sp = th ? th->sp : 0;
	darc_c_enter(b->site, slot);
	if (b->indirect && th && th->sp > sp)
		th->tgt[th->stk[th->sp - 1].slot] = t;
	g[REG_RIP] = (greg_t)t;
}

static void on_trap(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	uint64_t at = (uint64_t)uc->uc_mcontext.gregs[REG_RIP] - 1;
	struct bp *b = bp_find(at);
	if (b && b->live) {
		bp_emulate(uc, b);
		return;
	}
	if (at == poke_addr || was_poked(at)) {
		/* Ours: wait for the instruction to be whole, then run it. */
		while (poke_busy && poke_addr == at)
			;
		if (*(volatile uint8_t *)at != 0xcc) {
			uc->uc_mcontext.gregs[REG_RIP] = (greg_t)at;
			return;
		}
	}
	if (old_trap.sa_flags & SA_SIGINFO && old_trap.sa_sigaction)
		old_trap.sa_sigaction(sig, si, ucv);
	else if (old_trap.sa_handler != SIG_IGN && old_trap.sa_handler != SIG_DFL)
		old_trap.sa_handler(sig);
	else {
		signal(SIGTRAP, SIG_DFL);
		raise(SIGTRAP);
	}
}

static int in_stubs(uint64_t a)
{
	for (int i = 0; i < nareas; i++)
		if (a >= (uint64_t)areas[i].base && a < (uint64_t)areas[i].base + areas[i].size)
			return 1;
	return 0;
}

/* Replaces the 5-byte instruction at addr by bytes (in a stub: the pages
 * stay RWX). */
static int text_poke(uint64_t addr, const uint8_t bytes[5])
{
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t start = addr & ~(uint64_t)(pg - 1);
	size_t span = (size_t)(addr + 5 - start);
	int stub = in_stubs(addr);
	if (!stub && mprotect((void *)start, span, PROT_READ | PROT_WRITE | PROT_EXEC))
		return -errno;
	volatile uint8_t *p = (volatile uint8_t *)addr;
	if (!was_poked(addr) && npoked < POKED_MAX)
		poked[npoked] = addr, npoked = npoked + 1;
	poke_addr = addr;
	poke_busy = 1;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	p[0] = 0xcc;
	sync_cores();
	for (int i = 1; i < 5; i++)
		p[i] = bytes[i];
	sync_cores();
	p[0] = bytes[0];
	sync_cores();
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	poke_busy = 0;
	poke_addr = 0;
	return !stub && mprotect((void *)start, span, PROT_READ | PROT_EXEC) ? -errno : 0;
}

/* Writes one byte of code (an int3 or the byte it replaced): a single
 * store, so a thread sees either. */
static int poke_byte(uint64_t addr, uint8_t b)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t start = addr & ~(uint64_t)(pg - 1);
	int stub = in_stubs(addr);
	if (!stub &&
	    mprotect((void *)start, (size_t)(addr + 1 - start), PROT_READ | PROT_WRITE | PROT_EXEC))
		return -errno;
	if (!was_poked(addr) && npoked < POKED_MAX)
		poked[npoked] = addr, npoked = npoked + 1;
	__atomic_store_n((uint8_t *)addr, b, __ATOMIC_SEQ_CST);
	sync_cores();
	return !stub && mprotect((void *)start, (size_t)(addr + 1 - start), PROT_READ | PROT_EXEC)
	           ? -errno
	           : 0;
}

static void put32(uint8_t *p, int32_t v)
{
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* f0's relocated instructions: a site among them is patched there. */
static uint64_t f0_addr;
static uint8_t *f0_copy;
static int f0_newoff[RCR_MAX_INSN];

static uint64_t site_location(uint64_t addr)
{
	const struct rcr_plan *p = &shm->f0_plan;
	if (!f0_copy || addr < f0_addr || addr >= f0_addr + p->len)
		return addr;
	for (uint32_t i = 0; i < p->n; i++)
		if (p->insn[i].off == addr - f0_addr)
			return (uint64_t)(f0_copy + f0_newoff[i]);
	return addr;
}

static int add_break(const struct rcs_cmd *c, uint64_t loc)
{
	struct bp *b = bp_find(loc);
	if (!b) {
		if (nbps == BP_MAX)
			return -ENOSPC;
		b = &bps[nbps];
		b->at = loc;
		b->orig = *(uint8_t *)loc;
		if (b->orig == 0xcc)
			return -EBUSY; /* someone else's breakpoint */
		__atomic_store_n(&nbps, nbps + 1, __ATOMIC_RELEASE);
	}
	b->next_ip = c->addr + c->len;
	b->target = c->target;
	b->disp = c->disp;
	b->site = c->site;
	b->len = c->len;
	b->tail = c->tail;
	b->indirect = c->indirect;
	b->is_mem = c->is_mem;
	b->scale = c->scale;
	b->base = c->base;
	b->index = c->index;
	__atomic_store_n(&b->live, 1, __ATOMIC_RELEASE);
	int rc = poke_byte(loc, 0xcc);
	return rc ? rc : RCS_BREAK;
}

/* Where no jump fits: osprof's uprobes when it offers them (not in f0's
 * relocated copy, which the uprobes on the original would miss, and not on
 * tail jumps, which have no return), else a breakpoint. */
static int add_fallback(const struct rcs_cmd *c, uint64_t loc)
{
	if (fb_cells && loc == c->addr && !c->tail)
		return RCS_UPROBE;
	return add_break(c, loc);
}

static int add_site(const struct rcs_cmd *c)
{
	uint64_t loc = site_location(c->addr);
	uint8_t *a = (uint8_t *)loc;
	int32_t rel;
	memcpy(&rel, a + 1, 4);
	/* call rel32 and jmp rel32 (a tail call) jump to a stub; the stub is
	 * the same for both: at its entry [rsp] is the address the callee
	 * returns to. */
	if (!rc_reloc_site_jumps(a, loc == c->addr ? c->len : 5, c->indirect) ||
	    loc + 5 + (uint64_t)(int64_t)rel != c->target)
		return add_fallback(c, loc);
	uint8_t *s = stub_alloc(loc, RCS_STUB_SITE);
	if (!s)
		return add_fallback(c, loc);
	memset(s, 0xcc, RCS_STUB_SITE);
	s[0] = 0x41, s[1] = 0xbb; /* mov $site, %r11d */
	put32(s + 2, (int32_t)c->site);
	s[6] = 0xff, s[7] = 0x15; /* call *enter(%rip) */
	put32(s + 8, 32 - 12);
	s[12] = 0xff, s[13] = 0x25; /* jmp *target(%rip) */
	put32(s + 14, 40 - 18);
	put64(s + 32, (uint64_t)darc_enter_asm);
	put64(s + 40, c->target);
	struct patched *v = realloc(patches, (npatches + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	patches = v;
	v = &patches[npatches];
	v->site = c->site;
	v->addr = loc;
	memcpy(v->orig, a, 5);
	uint8_t jump[5] = {a[0]};
	put32(jump + 1, (int32_t)((int64_t)(uint64_t)s - (int64_t)(loc + 5)));
	int rc = text_poke(loc, jump);
	if (!rc)
		npatches++;
	return rc ? rc : RCS_JUMP;
}

static int del_site(const struct rcs_cmd *c)
{
	for (size_t i = 0; i < npatches; i++) {
		if (patches[i].site != c->site)
			continue;
		int rc = text_poke(patches[i].addr, patches[i].orig);
		patches[i] = patches[--npatches];
		return rc;
	}
	for (unsigned i = 0; i < nbps; i++) {
		struct bp *b = &bps[i];
		if (b->site != c->site || !b->live)
			continue;
		/* live drops after the byte: a trap already taken still runs the
		 * call; one delivered later finds the old byte and re-executes. */
		int rc = poke_byte(b->at, b->orig);
		__atomic_store_n(&b->live, 0, __ATOMIC_RELEASE);
		return rc;
	}
	return -ENOENT;
}

/* Finds the load bias of shm->f0_path in this process. */
static int f0_bias(uint64_t *bias)
{
	FILE *f = fopen("/proc/self/maps", "re");
	if (!f)
		return -errno;
	char line[4608];
	int rc = -ENOENT;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, off;
		char perms[8];
		int pos = 0;
		if (sscanf(line, "%llx-%*[0-9a-f] %7s %llx %*s %*s%n", &start, perms, &off, &pos) <
		    3)
			continue;
		char *p = line + pos;
		while (*p == ' ')
			p++;
		p[strcspn(p, "\n")] = 0;
		if (strcmp(p, shm->f0_path) || off != 0)
			continue;
		*bias = start; /* first mapping of offset 0: the ELF base */
		rc = 0;
		break;
	}
	fclose(f);
	return rc;
}

static int patch_f0(void)
{
	uint64_t base = 0;
	int rc = f0_bias(&base);
	if (rc)
		return rc;
	/* base maps file offset 0, i.e. vaddr of the first PT_LOAD (0 for PIE,
	 * 0x400000 for a classic non-PIE executable). */
	uint64_t first = 0;
	const unsigned char *ehdr = (const unsigned char *)base;
	if (ehdr[16] == 2) /* ET_EXEC */
		first = base;
	uint64_t addr = shm->f0_vaddr - first + base;
	const struct rcr_plan *p = &shm->f0_plan;
	uint32_t n = p->len;
	if (!n || n > RCR_MAX_IN || (shm->f0_mode == RCS_JUMP && n < 5) ||
	    memcmp((void *)addr, p->bytes, n))
		return -EINVAL; /* not the code osprof planned for */
	uint8_t *s = stub_alloc(addr, RCS_STUB_F0);
	if (!s)
		return -ENOMEM;
	/* code: 12 + RCR_MAX_OUT + 6 bytes; data: back at 144, enter at 152 */
	memset(s, 0xcc, RCS_STUB_F0);
	s[0] = 0x41, s[1] = 0xbb; /* mov $0, %r11d: site 0 is f0 */
	put32(s + 2, 0);
	s[6] = 0xff, s[7] = 0x15; /* call *enter(%rip) */
	put32(s + 8, 152 - 12);
	int len = rc_reloc_emit(p, addr, (uint64_t)(s + 12), s + 12, RCR_MAX_OUT, f0_newoff);
	if (len < 0)
		return -ERANGE;
	s[12 + len] = 0xff, s[13 + len] = 0x25; /* jmp *back(%rip) */
	put32(s + 14 + len, 144 - (18 + len));
	put64(s + 144, addr + n);
	put64(s + 152, (uint64_t)darc_enter_asm);
	f0_addr = addr;
	f0_copy = s + 12;
	if (shm->f0_mode == RCS_BREAK) {
		struct rcs_cmd c = {.addr = addr, .target = (uint64_t)s, .len = (uint8_t)n};
		rc = add_break(&c, addr);
		return rc < 0 ? rc : 0;
	}
	uint8_t jmp[5] = {0xe9};
	put32(jmp + 1, (int32_t)((int64_t)(uint64_t)s - (int64_t)(addr + 5)));
	return text_poke(addr, jmp);
}

static void calibrate(void)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	uint64_t c0 = __rdtsc(), ns;
	do {
		clock_gettime(CLOCK_MONOTONIC, &b);
		ns = (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000ull + (uint64_t)b.tv_nsec -
		     (uint64_t)a.tv_nsec;
	} while (ns < 20000000);
	uint64_t cyc = __rdtsc() - c0;
	__atomic_store_n(&shm->tsc_mult, (uint64_t)(((unsigned __int128)ns << 32) / cyc),
	                 __ATOMIC_RELEASE);
}

static void *control(void *arg)
{
	(void)arg;
	calibrate();
	for (;;) {
		uint32_t seq = __atomic_load_n(&shm->cmd_seq, __ATOMIC_ACQUIRE);
		while (shm->cmd_tail < __atomic_load_n(&shm->cmd_head, __ATOMIC_ACQUIRE)) {
			uint64_t i = shm->cmd_tail % RCS_NCMD;
			const struct rcs_cmd *c = &shm->cmds[i];
			int rc = c->op == RCS_ADD_SITE    ? add_site(c)
			         : c->op == RCS_DEL_SITE  ? del_site(c)
			         : c->op == RCS_ADD_BREAK ? add_break(c, site_location(c->addr))
			                                  : -EINVAL;
			shm->cmd_result[i] = rc;
			__atomic_store_n(&shm->cmd_tail, shm->cmd_tail + 1, __ATOMIC_RELEASE);
		}
		struct timespec to = {0, 50000000};
		syscall(SYS_futex, &shm->cmd_seq, FUTEX_WAIT, seq, &to, NULL, 0);
	}
	return NULL;
}

/* The uprobe fallback's cells: a BPF array map osprof created before
 * starting CMD, its fd inherited (OSPROF_DARC_UFB). Only the process that
 * claimed the channel maps it. */
static void fb_map(const struct rc_shm *s)
{
	const char *v = getenv("OSPROF_DARC_UFB");
	if (!s->ufb || !v)
		return;
	long pg = sysconf(_SC_PAGESIZE);
	size_t len = (sizeof(struct rc_fb_cell) * RC_FB_CELLS + (size_t)pg - 1) & ~((size_t)pg - 1);
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, atoi(v), 0);
	if (p != MAP_FAILED)
		fb_cells = p;
}

__attribute__((constructor)) static void darc_agent_init(void)
{
	const char *name = getenv("OSPROF_DARC_SHM");
	if (!name)
		return;
	int fd = shm_open(name, O_RDWR, 0);
	if (fd < 0)
		return;
	void *p = mmap(NULL, sizeof(struct rc_shm), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return;
	struct rc_shm *s = p;
	int32_t zero = 0;
	if (s->magic != RCS_MAGIC ||
	    !__atomic_compare_exchange_n(&s->claimed, &zero, (int32_t)getpid(), 0, __ATOMIC_ACQ_REL,
	                                 __ATOMIC_RELAXED)) {
		munmap(p, sizeof(struct rc_shm)); /* another process of CMD owns it */
		return;
	}
	uint64_t bias;
	shm = s;
	if (f0_bias(&bias)) {
		/* Not the program f0 lives in (e.g. a shell running CMD): let
		 * a later exec'd process claim the channel. */
		shm = NULL;
		__atomic_store_n(&s->claimed, 0, __ATOMIC_RELEASE);
		munmap(p, sizeof(struct rc_shm));
		return;
	}
	fb_map(s);
	struct sigaction sa = {.sa_sigaction = on_trap, .sa_flags = SA_SIGINFO | SA_RESTART};
	sigaction(SIGTRAP, &sa, &old_trap);
	have_sync_core =
	    syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0) == 0;
	int rc = patch_f0();
	if (rc) {
		snprintf(s->error, sizeof(s->error), "patching f0: %s", strerror(-rc));
		__atomic_store_n(&s->ready, 2, __ATOMIC_RELEASE);
		return;
	}
	pthread_atfork(NULL, NULL, on_fork_child);
	pthread_t th;
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&th, &at, control, NULL)) {
		snprintf(s->error, sizeof(s->error), "cannot start the control thread");
		__atomic_store_n(&s->ready, 2, __ATOMIC_RELEASE);
		return;
	}
	__atomic_store_n(&s->ready, 1, __ATOMIC_RELEASE);
}
