/* End-of-run loss line and exit status (cli/losses.h). A command that lost
 * data must not look like one that did not: scripts see status 3, people see
 * one line naming each count, and the counts stay in the file. */
#include <stdio.h>
#include "cli/losses.h"

int osp_losses_finish(const char *cmd, const struct osp_losses *l, int allow_loss, int status)
{
	if (!osp_losses_any(l))
		return status;
	char what[1024];
	osp_losses_describe(l, what, sizeof(what));
	int lossy = status == 0 && !allow_loss;
	fprintf(stderr, "osprof %s: finished with losses: %s; %s\n", cmd, what,
	        allow_loss ? "exit status 0 (--allow-loss)"
	        : lossy    ? "exit status 3 (--allow-loss makes it 0)"
	                   : "the command's own failure status is kept");
	return lossy ? OSP_EXIT_LOSS : status;
}
