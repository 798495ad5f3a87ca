/* A/B sets of different resolutions for the views: compared at the coarser
 * one, as `osprof diff` does. */
#include <stdlib.h>
#include <string.h>
#include <osprof/analysis.h>
#include "cli/cli.h"
#include "cli/view_sets.h"

int osp_cli_common_resolution(const char *cmd, struct osp_set **a, const char *fa,
                              struct osp_set **b, const char *fb)
{
	if (!*b || (*a)->r == (*b)->r)
		return 0;
	struct osp_set **fine = (*a)->r > (*b)->r ? a : b;
	const char *name = fine == a ? fa : fb;
	unsigned r = fine == a ? (*b)->r : (*a)->r;
	struct osp_set *c = osp_set_coarsen(*fine, r);
	if (!c) {
		osp_err("%s: out of memory", cmd);
		return 1;
	}
	fprintf(stderr,
	        "osprof %s: %s has resolution r=%u, the other set r=%u: comparing at r=%u%s\n", cmd,
	        name, (*fine)->r, r, r, (*fine)->slice_ns ? " (its time slices are left out)" : "");
	osp_set_free(*fine);
	*fine = c;
	return 0;
}

#define MAX_DROP OSP_MAX_DIMS

int osp_cli_drop_dims(const char *cmd, const char *list, struct osp_set **a, struct osp_set **b)
{
	char copy[256];
	const char *names[MAX_DROP];
	unsigned n = 0;
	if (strlen(list) >= sizeof(copy))
		return osp_usage_err(cmd, "--drop-dim: list too long");
	strcpy(copy, list);
	for (char *save, *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int ok = n < MAX_DROP && *tok;
		for (const char *c = tok; *c; c++)
			ok &= (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_';
		if (!ok)
			return osp_usage_err(
			    cmd,
			    "--drop-dim: '%s' is not a dimension name ([a-z0-9_]+, "
			    "at most %d)",
			    tok, MAX_DROP);
		names[n++] = tok;
	}
	if (!n)
		return osp_usage_err(cmd, "--drop-dim: no dimension given");
	struct osp_set **sets[2] = {a, b};
	for (int i = 0; i < 2; i++) {
		if (!sets[i] || !*sets[i])
			continue;
		struct osp_set *t = osp_set_drop_dims(*sets[i], names, n);
		if (!t) {
			osp_err("%s: out of memory", cmd);
			return OSP_EXIT_FAIL;
		}
		osp_set_free(*sets[i]);
		*sets[i] = t;
	}
	return 0;
}
