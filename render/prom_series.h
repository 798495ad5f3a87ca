/* What the Prometheus renderers (text and protobuf) share: which profiles
 * become series (the --max-series cap), their metric family names and their
 * labels, so both formats name everything the same way. */
#ifndef OSPROF_RENDER_PROM_SERIES_H
#define OSPROF_RENDER_PROM_SERIES_H

#include <stddef.h>
#include <osprof/render.h>

#define PROM_NAME_MAX  128
#define PROM_LABEL_MAX (OSP_MAX_DIMS + 2)

struct prom_series {
	const struct osp_profile *p;
	size_t idx;                 /* its place in the set */
	char family[PROM_NAME_MAX]; /* osprof_syscall_latency_seconds, ... */
};

struct prom_plan {
	struct prom_series *series; /* grouped by family (sorted), then set order */
	size_t n;
	size_t dropped;         /* profiles over the cap, not exported */
	uint64_t dropped_calls; /* their calls */
	const char *host;       /* host label of profiles without a host dim; may be NULL */
};

/* Chooses the series of s (the first max_series profiles in set order; 0 = no
 * cap). 0 or -ENOMEM. */
int prom_plan_build(struct prom_plan *pl, const struct osp_set *s, const struct osp_prom_opts *o);
void prom_plan_free(struct prom_plan *pl);

struct prom_label {
	char name[64];
	const char *value; /* points into the profile or the plan */
};

/* The labels of one series: op, its dimensions (names made valid, "le" and
 * "op" dims renamed dim_le, dim_op) and host. Returns their number. */
unsigned prom_labels(const struct prom_plan *pl, const struct osp_profile *p,
                     struct prom_label *out);

/* Help line of a family. */
const char *prom_family_help(const struct osp_profile *p);

#endif
