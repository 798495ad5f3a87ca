/* The DARC search (seed 002 ch. 3): an ftree of per-call-site nodes, maxcount
 * voting on in-peak f0 calls, a decision every decision_time votes, several
 * branches at once, and probes removed as soon as a branch is decided. The
 * instrumentation itself is a backend (rootcause/backend.h). */
#ifndef OSPROF_RC_SEARCH_H
#define OSPROF_RC_SEARCH_H

#include <stdio.h>
#include "rootcause/backend.h"
#include <osprof/hist.h>
#include "rootcause/procmaps.h"

enum rc_kind { RC_N_ROOT, RC_N_CALL, RC_N_PREEMPT, RC_N_IRQ };
enum rc_status {
	RC_MEASURED,  /* a candidate being timed under a frontier node */
	RC_FRONTIER,  /* its callees are being timed: "in progress" */
	RC_DECIDED,   /* chose its main contributors among its callees */
	RC_CAUSE,     /* its own code is the cause: "root cause found" */
	RC_MAXDEPTH,  /* chosen at the maximum depth */
	RC_MINBUCKET, /* chosen, but faster than min_bucket */
	RC_PRUNED,    /* not a main contributor */
	RC_PREEMPTED, /* pseudo node: preemption is the cause */
	RC_IRQ,       /* pseudo node: interrupt time is the cause */
};

#define RC_MAX_TARGETS 8

struct rc_node {
	int id, parent, depth;
	int kind, status;
	int slot;  /* measured slot, -1 when not measured */
	int site;  /* index in rc_search.sites, -1 for root and pseudo nodes */
	int probe; /* RC_PROBE_* of its call site */
	char *name;
	char where[160];   /* caller+0xoff of the call site */
	uint64_t callee;   /* run-time address of the callee, 0 if unknown */
	uint64_t maxcount; /* votes as a candidate of its parent */
	uint64_t self_votes, pre_votes, irq_votes; /* votes while frontier */
	uint64_t rounds;                           /* in-peak calls voted on while frontier */
	uint64_t gen0;                             /* records of older generations are ignored */
	uint64_t lat_sum, lat_n;
	uint32_t irqn;
	int self_cause;
	struct {
		uint64_t addr, n;
	} tg[RC_MAX_TARGETS];
	int *kids;
	size_t nkids;
	/* In-peak latencies: of the call (candidates, f0) and of preemption
	 * while frontier; r = 1, allocated on first use (nbuckets 0 before). */
	struct osp_hist hist, pre_hist;
};

struct rc_site_rec {
	uint32_t id;
	uint64_t rt;
	struct rc_site s;
	struct rc_module *m;
	int refs;
	int probe; /* RC_PROBE_* */
};

struct rc_params {
	unsigned decision_time, max_depth, min_bucket, start_ops;
	double maxcount_pct;
};

struct rc_search {
	struct rc_params p;
	struct rc_backend *be;
	struct rc_space *space;
	struct rc_node *nodes;
	size_t n, cap;
	struct rc_site_rec *sites;
	size_t nsites;
	uint32_t next_site;
	unsigned char slot_used[RC_NSLOTS];
	uint64_t gen;
	uint64_t records, used;
	uint64_t peak_lo, peak_hi;
	int done;
	int verbose;
	char err[256];
};

void rc_params_default(struct rc_params *p);
int rc_search_init(struct rc_search *s, const struct rc_params *p, struct rc_backend *be,
                   struct rc_space *space);
void rc_search_free(struct rc_search *s);
/* Root node for f0 (name, run-time address). */
int rc_search_root(struct rc_search *s, const char *name, uint64_t f0_rt);
/* Instruments f0's callees and starts voting on calls in [lo, hi] ns. */
int rc_search_start(struct rc_search *s, uint64_t lo, uint64_t hi);
/* Backend callback: one in-peak f0 call. */
void rc_search_event(void *ctx, const struct rc_event *e);
/* Removes every probe still in place. */
void rc_search_stop(struct rc_search *s);
/* Re-instruments the frontier of a tree rebuilt from a state file. */
int rc_search_resume(struct rc_search *s, uint64_t lo, uint64_t hi);
/* New node (name copied); -1 on ENOMEM. */
int rc_node_new(struct rc_search *s, int parent, int kind, const char *name);
const char *rc_status_name(int status);
int rc_status_parse(const char *s);

#endif
