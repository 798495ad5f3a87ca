/* Shared by `osprof plot --diff` and `osprof html FILE B`. */
#ifndef OSPROF_CLI_VIEW_SETS_H
#define OSPROF_CLI_VIEW_SETS_H

#include <osprof/profile.h>

/* Brings A and B to one resolution: the finer set is replaced by an exact
 * copy at the coarser r (buckets nest), with a note on stderr since the
 * finer set's time slices are not carried over. 0, or 1 on ENOMEM. */
int osp_cli_common_resolution(const char *cmd, struct osp_set **a, const char *fa,
                              struct osp_set **b, const char *fb);

/* --drop-dim LIST: replaces A (and B when not NULL) by copies whose
 * profiles are summed over the comma-separated dimensions (e.g. pid, which
 * differs between runs). 0, or an exit status after one line on stderr. */
int osp_cli_drop_dims(const char *cmd, const char *list, struct osp_set **a, struct osp_set **b);

#endif
