/* Shared by `osprof plot --diff` and `osprof html FILE B`. */
#ifndef OSPROF_CLI_VIEW_SETS_H
#define OSPROF_CLI_VIEW_SETS_H

#include <osprof/profile.h>

/* Brings A and B to one resolution: the finer set is replaced by an exact
 * copy at the coarser r (buckets nest), with a note on stderr since the
 * finer set's time slices are not carried over. 0, or 1 on ENOMEM. */
int osp_cli_common_resolution(const char *cmd, struct osp_set **a, const char *fa,
                              struct osp_set **b, const char *fb);

#endif
