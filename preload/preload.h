/* Internals of libosprof-preload.so: the real libc functions, the calling
 * thread's counter slot, and the record step every interposer runs. */
#ifndef OSPROF_PRELOAD_H
#define OSPROF_PRELOAD_H

#include <stdint.h>
#include <osprof/clock.h>
#include <osprof/hist.h>
#include "preload/layout.h"

enum osp_opi {
#define OSP_OP(name) OSP_OPI_##name,
#include "preload/ops.def"
#undef OSP_OP
	OSP_NOPS
};

extern const char *const osp_op_names[OSP_NOPS];

/* Real functions, resolved with dlsym(RTLD_NEXT) on first use. */
extern void *osp_real_fns[OSP_NOPS];
void *osp_resolve(unsigned op);
static inline void *osp_real(unsigned op)
{
	void *p = __atomic_load_n(&osp_real_fns[op], __ATOMIC_RELAXED);
	return __builtin_expect(p != 0, 1) ? p : osp_resolve(op);
}
/* The directory osprof collects from, NULL outside `osprof run`. */
const char *osp_preload_dir(void);
/* Before an exec: notes a static or setuid image the preload cannot follow
 * (FILE searched on PATH when search; fd >= 0 for fexecve). */
void osp_exec_check(const char *file, int search, int fd);

/* dlsym(RTLD_NEXT, name) for functions outside the op table (exec*). */
void *osp_resolve_name(const char *name);

/* Process-wide state, set up by the constructor and again in a fork child. */
struct osp_preload {
	char *base;         /* the mapped file, NULL when not profiling */
	uint64_t slots_off; /* copies of header fields for the hot path */
	uint64_t slot_size;
	uint64_t op_stride;
	unsigned r;
	unsigned nslots;
	struct osp_tsc tsc;
	int disabled; /* no OSPROF_PRELOAD_DIR, or the file could not be made */
};
extern struct osp_preload osp_pl;
extern __thread char *osp_tls_slot __attribute__((tls_model("initial-exec")));

char *osp_slot_claim(void);
static inline char *osp_slot(void)
{
	char *s = osp_tls_slot;
	return __builtin_expect(s != 0, 1) ? s : osp_slot_claim();
}

/* Start of an op's time, in cycles when the TSC is usable, else ns. */
static inline uint64_t osp_stamp(void)
{
#if defined(__x86_64__)
	if (__builtin_expect(osp_pl.tsc.usable, 1))
		return osp_cycles();
#endif
	return osp_now_ns();
}

/* A single add instruction on memory: not atomic across CPUs (the slot has
 * one writer), but a signal handler interrupting the owner cannot lose an
 * update the way a load/add/store sequence could. */
static inline void osp_add(uint64_t *p, uint64_t v)
{
#if defined(__x86_64__)
	__asm__ __volatile__("addq %1, %0" : "+m"(*p) : "er"(v));
#else
	*(volatile uint64_t *)p += v;
#endif
}

void osp_rec_shared(char *slot, unsigned op, uint64_t ns);

static inline void osp_rec(char *slot, unsigned op, uint64_t delta)
{
	uint64_t ns = delta;
#if defined(__x86_64__)
	if (__builtin_expect(osp_pl.tsc.usable, 1))
		ns = osp_tsc_to_ns(&osp_pl.tsc, delta);
#endif
	if (delta >> 63)
		ns = delta; /* a clock going backwards lands in the overflow bucket */
	if (__builtin_expect(((struct osp_pf_slot *)slot)->shared, 0)) {
		osp_rec_shared(slot, op, ns);
		return;
	}
	struct osp_pf_op *o =
	    (struct osp_pf_op *)(slot + OSP_PF_SLOT_HDR + (uint64_t)op * osp_pl.op_stride);
	osp_add(&o->buckets[osp_bucket_index(ns, osp_pl.r)], 1);
	osp_add(&o->total_ns, ns);
	if (~ns > o->min_not)
		o->min_not = ~ns;
	if (ns > o->max_ns)
		o->max_ns = ns;
}

/* Stamps taken around a call with osp_stamp(). Out of line: inlined, the
 * recording made each of the ~125 interposers ~750 bytes; one call (same
 * object, no PLT) costs a few cycles. */
void osp_rec_span(char *slot, unsigned op, uint64_t t0, uint64_t t1);

/* Sets (or clears) a flag of this image's file header. */
void osp_preload_flag(uint32_t flag, int set);

/* Fork child: drop the parent's mapping and start this process's own file. */
void osp_preload_child(void);

/* Exec: an environment that keeps LD_PRELOAD and OSPROF_* so the new image is
 * profiled too. Returns envp itself when nothing is missing, else a malloc'd
 * array (free with osp_env_free after a failed exec). */
char **osp_env_fix(char *const envp[]);
void osp_env_free(char **fixed, char *const envp[]);
void osp_env_save(void);

#endif
