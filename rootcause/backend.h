/* What the DARC search needs from an instrumentation backend: probes on
 * f0 and on call sites, ftree edges (parent slot, site) -> child slot, the
 * chosen peak, and one record per in-peak f0 call (struct rc_event). */
#ifndef OSPROF_RC_BACKEND_H
#define OSPROF_RC_BACKEND_H

#include <stdint.h>
#include <sys/types.h>
#include "rootcause/bpf/rootcause.h"
#include "rootcause/callsites.h"

struct rc_backend;
typedef void (*rc_event_fn)(void *ctx, const struct rc_event *e);

struct rc_backend_ops {
	const char *name;
	/* Instruments f0 at run-time address f0_rt (path/off for uprobes). */
	int (*attach_f0)(struct rc_backend *b, const char *path, uint64_t off, uint64_t f0_rt);
	/* Probes one call site; id is unique per site. Returns how (RC_PROBE_*)
	 * or -errno. */
	int (*add_site)(struct rc_backend *b, uint32_t id, const struct rc_site *s,
	                const char *path, uint64_t off, uint64_t rt_addr);
	int (*del_site)(struct rc_backend *b, uint32_t id);
	int (*add_edge)(struct rc_backend *b, uint32_t parent_slot, uint32_t site, uint32_t slot);
	int (*del_edge)(struct rc_backend *b, uint32_t parent_slot, uint32_t site);
	/* Starts (or retargets) the search: records only for f0 calls that began
	 * under generation gen and whose latency is in [lo, hi] ns. */
	int (*set_peak)(struct rc_backend *b, uint64_t lo, uint64_t hi, uint64_t gen);
	/* Delivers the records that are ready, without waiting (the driver
	 * waits: rc_wait on fd); count or -errno. */
	int (*poll)(struct rc_backend *b, rc_event_fn fn, void *ctx);
	/* f0's log2 histogram so far (RC_HBUCKETS counters of floor(log2 ns)). */
	int (*read_hist)(struct rc_backend *b, uint64_t *buckets);
	/* The process whose address space the search uses: the first one of
	 * the target seen calling f0 (CMD or a process it started, e.g.
	 * through a shell script), 0 before one did. */
	pid_t (*f0_pid)(struct rc_backend *b);
	uint64_t (*lost)(struct rc_backend *b);
	void (*destroy)(struct rc_backend *b);
};

/* The ops of a backend whose functions are P_attach_f0, P_add_site, ...,
 * P_destroy. */
#define RC_BACKEND_OPS(P)                                                                          \
	.attach_f0 = P##_attach_f0, .add_site = P##_add_site, .del_site = P##_del_site,            \
	.add_edge = P##_add_edge, .del_edge = P##_del_edge, .set_peak = P##_set_peak,              \
	.poll = P##_poll, .read_hist = P##_read_hist, .f0_pid = P##_f0_pid, .lost = P##_lost,      \
	.destroy = P##_destroy

/* How a site is probed: the backend's own way (a trampoline, a uprobe), or
 * one of the trampoline backend's fallbacks where no jump fits: uprobes
 * (when osprof runs as root; a uprobe pair per call) or an int3 its agent
 * handles (a signal per call). Both are uprobe-class costs. */
enum { RC_PROBE_NATIVE = 0, RC_PROBE_BREAK = 1, RC_PROBE_UPROBE = 2, RC_PROBE_KINDS };

struct rc_backend {
	const struct rc_backend_ops *ops;
	pid_t pid;
	/* Readable when records are ready; -1: none can be (the trampolines'
	 * records are in shared memory), so the driver looks every ms. */
	int fd;
	int f0_break;      /* f0 itself hooked with a breakpoint ... */
	char f0_note[200]; /* ... because of this */
	/* How sites no jump fits are probed ("uprobe", or "breakpoint" and
	 * why not uprobes); "" when every site is probed natively. */
	char fallback[200];
};

/* pid: the target, with the processes it starts (is_child: CMD osprof
 * started, held at its gate) or its children (-p). Prints one line and
 * returns NULL on failure. */
struct rc_backend *rc_uprobe_new(pid_t pid, int is_child);
/* Trampolines in a process osprof starts: returns the backend; the caller
 * must put the agent's environment (rc_tramp_env) into the child. */
struct rc_backend *rc_tramp_new(void);
/* "LD_PRELOAD=..." and "OSPROF_DARC_SHM=..." for the child. */
int rc_tramp_env(struct rc_backend *b, char ***envp);
void rc_tramp_set_pid(struct rc_backend *b, pid_t pid);

#endif
