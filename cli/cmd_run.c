/* osprof run: profile one command and every process it creates. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/collect_opts.h"
#include "cli/progress.h"
#include "collect/session.h"
#include "collect/user_elf.h"

static const char usage_head[] =
    "usage: osprof run [OPTIONS] [--] CMD [ARGS...]\n\n"
    "Runs CMD, profiles it and every process it forks, and writes the profile\n"
    "set to -o FILE (default osprof.osp). A layer this kernel cannot serve is\n"
    "named once with the reason and the run goes on with the others.\n"
    "SIGINT and SIGTERM reach CMD (Ctrl-C by itself, a signal sent to osprof\n"
    "alone passed on); osprof writes the profile when CMD has exited. A second\n"
    "signal kills CMD (SIGKILL). Whatever was collected is written.\n"
    "Read the result with 'osprof report FILE'.\n\n"
    "Exit status: CMD's exit status (128+N if CMD was killed by signal N; 127 if\n"
    "CMD was not found). When CMD exits 0 but something was lost (events, static\n"
    "or setuid programs the user layer could not enter), 3, after one line\n"
    "naming each count (--allow-loss: 0). Before CMD runs: 2 for a bad option,\n"
    "value or output path, 1 when profiling cannot start here (no root, no BTF,\n"
    "no requested layer can attach). 1 also when FILE cannot be written.\n"
    "\nOptions:\n";

/* Waits for CMD while redrawing the progress line. The layers aggregate in
 * the kernel or in the child's own counter files, and reading them early
 * would end their time slices: the line shows the elapsed time and CMD. */
static int wait_child(struct osp_waiter *wt, struct osp_progress *pg, const char *cmd)
{
	for (;;) {
		if (pg)
			osp_progress_show(pg, 1, "profiling %s (pid %d)", cmd, (int)wt->child);
		uint64_t until = pg && pg->on ? osp_now_ns() + 250000000ull : UINT64_MAX;
		if (osp_wait(wt, until) == OSP_WAKE_CHILD)
			return wt->status;
	}
}

int cmd_run(int argc, char **argv)
{
	struct osp_collect_opts o;
	const struct osp_collect_spec spec = {"run", usage_head, 0, NULL, 1};
	int next, rc;
	OSP_PARSE_OR_RETURN(osp_collect_parse(&spec, argc, argv, &o, &next));
	if (next >= argc)
		return osp_usage_err("run", "no command given");
	char **cmdv = argv + next;
	char found[4096];
	if (osp_elf_resolve(cmdv[0], found, sizeof(found))) {
		fprintf(stderr, "osprof run: %s: command not found\n", cmdv[0]);
		return 127;
	}
	const struct osp_layer *layers[OSP_MAX_LAYERS];
	int nlayers;
	if ((rc = osp_collect_layers("run", &o, layers, &nlayers)))
		return rc;
	struct osp_session s;
	if (osp_collect_session(&s, &o, layers, nlayers))
		return OSP_EXIT_FAIL;
	char cmdline[1024] = "";
	for (char **a = cmdv; *a; a++)
		snprintf(cmdline + strlen(cmdline), sizeof(cmdline) - strlen(cmdline), "%s%s",
		         a == cmdv ? "" : " ", *a);
	osp_set_meta(s.set, "command", cmdline);
	s.argv = cmdv;

	int status = OSP_EXIT_FAIL, n = nlayers, release_fd = -1;
	if ((status = osp_session_prepare("run", &s, layers, &n)))
		goto out;
	status = OSP_EXIT_FAIL;
	nlayers = n;
	osp_signals_install();
	pid_t child_pid = osp_spawn(cmdv, &release_fd, &(struct osp_spawn_opts){.who = "run"});
	if (child_pid < 0) {
		osp_err("run: cannot start %s: %s", cmdv[0], strerror(errno));
		goto out;
	}
	s.root_pid = child_pid;
	struct osp_waiter wt;
	osp_waiter_init(&wt, child_pid, -1);
	if ((status = osp_session_attach("run", &s, layers, &n))) {
		close(release_fd); /* the held child exits without running */
		wait_child(&wt, NULL, cmdv[0]);
		goto out;
	}
	status = OSP_EXIT_FAIL;
	nlayers = n;
	s.start_ns = osp_now_ns();
	if (osp_spawn_release(release_fd)) {
		osp_err("run: cannot release %s: %s", cmdv[0], strerror(errno));
		goto out;
	}
	struct osp_progress pg;
	osp_progress_init(&pg, "run", o.quiet);
	status = wait_child(&wt, &pg, cmdv[0]);
	osp_progress_show(&pg, 1, "%s exited, collecting", cmdv[0]);
	osp_progress_end(&pg);
	osp_set_metaf(s.set, "duration_ns", "%llu",
	              (unsigned long long)(osp_now_ns() - s.start_ns));
	osp_session_collect("run", &s, layers, nlayers, 0);
	status = osp_collect_finish("run", s.set, o.output, &o, status);
out:
	if (s.bad_input)
		status = OSP_EXIT_USAGE;
	osp_session_end(&s, layers, n);
	free(o.pids.v);
	return status;
}
