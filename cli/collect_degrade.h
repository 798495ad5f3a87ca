/* Degrade, don't die: prepares and attaches the requested layers, dropping
 * each one that cannot work on this kernel (its own line has said which
 * probe failed and why) and going on with the rest. Only when no layer is
 * left is it an error. Shared by run, record and top. */
#ifndef OSPROF_CLI_COLLECT_DEGRADE_H
#define OSPROF_CLI_COLLECT_DEGRADE_H

#include "collect/layer.h"

/* Prepares layers[0..*n). A layer whose prepare fails is removed from
 * layers[] (later layers move down one slot) and named in the set's
 * metadata `layers_unavailable`. Returns 0 with *n layers prepared;
 * OSP_EXIT_USAGE when a prepare failed on the user's input; OSP_EXIT_FAIL
 * when none is left. In both error cases *n is the number of layers
 * prepared that the caller must still destroy. */
int osp_collect_prepare(const char *cmd, struct osp_session *s, const struct osp_layer **layers,
                        int *n);

/* Attaches the prepared layers[0..*n) the same way: one that fails is
 * destroyed and removed (with its layer_state slot). Same returns; on
 * error the remaining *n layers are still prepared. */
int osp_collect_attach(const char *cmd, struct osp_session *s, const struct osp_layer **layers,
                       int *n);

#endif
