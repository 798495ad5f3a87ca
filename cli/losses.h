/* The end of every collecting command: one line naming what was lost, and
 * the exit status that makes a loss visible to scripts. */
#ifndef OSPROF_CLI_LOSSES_H
#define OSPROF_CLI_LOSSES_H

#include <osprof/losses.h>
#include <osprof/status.h>

/* Prints "osprof CMD: finished with losses: ..." when l has any and returns
 * OSP_EXIT_LOSS if status is 0, !allow_loss and the losses are not within
 * max_loss (a fraction of the calls recorded; 0: none allowed); otherwise
 * returns status. */
int osp_losses_finish(const char *cmd, const struct osp_losses *l, int allow_loss, double max_loss,
                      int status);

#endif
