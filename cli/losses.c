/* End-of-run loss line and exit status (cli/losses.h). A command that lost
 * data must not look like one that did not: scripts see status 3, people see
 * one line naming each count, and the counts stay in the file. */
#include <inttypes.h>
#include <stdio.h>
#include "cli/losses.h"

int osp_losses_finish(const char *cmd, const struct osp_losses *l, int allow_loss, double max_loss,
                      int status)
{
	if (!osp_losses_any(l))
		return status;
	char what[1024], why[160];
	osp_losses_describe(l, what, sizeof(what));
	/* A bound the user set: rare losses are known and accepted (an
	 * interrupt's lock wait refused by BPF's recursion guard), many are not. */
	int within = max_loss > 0 && osp_losses_within(l, max_loss);
	int lossy = status == 0 && !allow_loss && !within;
	if (status != 0)
		snprintf(why, sizeof(why), "the command's own failure status is kept");
	else if (allow_loss)
		snprintf(why, sizeof(why), "exit status 0 (--allow-loss)");
	else if (max_loss > 0)
		snprintf(why, sizeof(why),
		         "exit status %d (%s --max-loss %g %% of %" PRIu64 " calls recorded)",
		         lossy ? OSP_EXIT_LOSS : 0, within ? "within" : "beyond", max_loss * 100,
		         l->events);
	else
		snprintf(why, sizeof(why), "exit status 3 (--allow-loss makes it 0)");
	fprintf(stderr, "osprof %s: finished with losses: %s; %s\n", cmd, what, why);
	return lossy ? OSP_EXIT_LOSS : status;
}
