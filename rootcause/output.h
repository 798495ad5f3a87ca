/* Renderings of the ftree: indented arrow chains, folded stacks for
 * flamegraph.pl, JSON (schema in docs/rootcause.md), and the state file
 * that lets a later run resume the search (seed 002 §3.10). */
#ifndef OSPROF_RC_OUTPUT_H
#define OSPROF_RC_OUTPUT_H

#include <stdio.h>
#include "rootcause/search.h"

struct rc_info {
	const char *f0; /* "BIN:SYM" or "syscall:NAME" */
	const char *backend;
	int peak;              /* 1-based number of the chosen peak */
	int blo, bhi;          /* its buckets, floor(log2 ns) */
	const uint64_t *hist;  /* RC_HBUCKETS */
	uint64_t f0_calls;     /* f0 calls seen until the search ended */
	uint64_t search_calls; /* of which during the search */
	uint64_t search_ns;    /* wall time of the search */
	int f0_break;          /* f0 hooked with the breakpoint fallback */
	const char *fallback;  /* how sites no jump fits are probed, or NULL */
};

/* Call-site nodes instrumented during the search, by how (RC_PROBE_*). */
void rc_count_probes(const struct rc_search *s, uint64_t counts[RC_PROBE_KINDS]);

void rc_print_tree(FILE *out, const struct rc_search *s, const struct rc_info *in);
void rc_print_folded(FILE *out, const struct rc_search *s);
void rc_print_json(FILE *out, const struct rc_search *s, const struct rc_info *in);
/* The root-cause paths as a profile set (for osprof html/report): layer
 * "rootcause", op = f0, one profile per path end with dimensions path
 * (frames joined by ';', outermost first), peak and status, holding the
 * in-peak latencies of that node; plus f0's whole histogram (no path).
 * 0 or -errno after printing why. */
int rc_write_osp(const char *path, const struct rc_search *s, const struct rc_info *in);
/* f0's histogram with numbered peaks (seed 002 Fig. 3.4), bcc style. */
void rc_print_hist(FILE *out, const char *f0, const uint64_t *hist, int n);

/* State file: 0 or -errno (save); load fills s's ftree, the saved
 * histogram and peak, or prints "FILE:LINE: ..." and returns -EINVAL. */
int rc_state_save(const char *path, const struct rc_search *s, const struct rc_info *in);
struct rc_state {
	char f0[512];
	int blo, bhi;
	uint64_t hist[RC_HBUCKETS];
};
int rc_state_load(const char *path, struct rc_search *s, struct rc_state *st);

#endif
