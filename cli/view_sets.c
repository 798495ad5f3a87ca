/* A/B sets of different resolutions for the views: compared at the coarser
 * one, as `osprof diff` does. */
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
