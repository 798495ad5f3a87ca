/* osprof top: a live terminal view of latency profiles, refreshed every
 * interval, ranked by total latency. */
#include <curses.h>
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/collect_opts.h"
#include "cli/top_source.h"
#include "cli/top_view.h"
#include "collect/session.h"

static const char usage_head[] =
    "usage: osprof top [OPTIONS] [-a | -p PID[,PID] | -c CGROUP | --comm NAME]\n"
    "       osprof top --replay FILE [-i DUR]\n\n"
    "A live view in the terminal, like top(1): the profiles of the chosen layers\n"
    "ranked by total latency, with their counts, rate over the last interval,\n"
    "total, mean and p99, and the log2 histogram of the selected profile.\n"
    "Kernel layers need root and BTF (see 'osprof list').\n\n"
    "In top, -i DUR is the refresh interval (default 1s), -d DUR stops after DUR\n"
    "and -o FILE is where the 'w' key (and Ctrl-C, when -o is given) writes the\n"
    "profile set collected so far. --replay FILE plays the time slices of a file\n"
    "recorded with -i back, one slice per refresh, instead of collecting; its\n"
    "rates are per recorded slice, not per refresh.\n\n"
    "Keys: q quit, Up/Down (j/k) select, PgUp/PgDn/Home/End, l/L next/previous\n"
    "layer (filter), p or space pause, c cumulative or last-interval values,\n"
    "w write the profile set to -o FILE, z zero the counters.\n"
    "\nOptions:\n";

static void zero(struct osp_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		osp_hist_reset(&s->profiles[i]->hist);
}

static int run(struct top_source *src, struct top_view *v, uint64_t duration_ns)
{
	uint64_t start = osp_now_ns(), prev = start, next = start + v->interval_ns;
	int rc = OSP_EXIT_OK;
	struct osp_waiter wt;
	osp_waiter_init(&wt, 0, STDIN_FILENO); /* keys wake it */
	timeout(0);
	top_view_draw(v);
	for (;;) {
		uint64_t now = osp_now_ns();
		if (duration_ns && now - start >= duration_ns)
			break;
		if (now < next) {
			uint64_t until =
			    duration_ns && start + duration_ns < next ? start + duration_ns : next;
			enum osp_wake wk = osp_wait(&wt, until);
			if (wk == OSP_WAKE_STOP)
				break;
			if (wk != OSP_WAKE_FD)
				continue;
			int ch = getch();
			if (ch == ERR)
				continue;
			enum top_action a = top_view_key(v, ch);
			if (a == TOP_QUIT)
				break;
			if (a == TOP_ZERO) {
				zero(v->cum);
				if (v->last)
					zero(v->last); /* rates too start again */
			}
			if (a != TOP_NONE)
				top_view_draw(v);
			continue;
		}
		next += v->interval_ns;
		if (next < now)
			next = now + v->interval_ns; /* fell behind: do not burst */
		if (v->paused)
			continue;
		struct osp_set *iv = osp_set_new(v->cum->r);
		if (!iv) {
			rc = OSP_EXIT_FAIL;
			break;
		}
		int pr = src->poll(src, iv);
		if (pr < 0)
			snprintf(v->status, sizeof(v->status),
			         " collection incomplete this interval");
		if (pr == 1) {
			v->finished = 1;
		} else {
			char err[200];
			if (osp_set_merge(v->cum, iv, err, sizeof(err)) < 0)
				snprintf(v->status, sizeof(v->status), " %s", err);
			for (size_t m = 0; m < iv->nmeta; m++)
				if (!osp_get_meta(v->cum, iv->meta[m].key))
					osp_set_meta(v->cum, iv->meta[m].key, iv->meta[m].value);
			osp_set_free(v->last);
			v->last = iv;
			iv = NULL;
			v->last_secs =
			    (double)(src->poll_span_ns ? src->poll_span_ns : now - prev) / 1e9;
			prev = now;
			v->ticks++;
		}
		osp_set_free(iv);
		top_view_draw(v);
	}
	return rc;
}

int cmd_top(int argc, char **argv)
{
	const char *replay = NULL;
	const struct osp_option own[] = {
	    OSP_OPT_STRING(0, "replay", &replay, "FILE",
	                   "play the time slices of FILE back instead of collecting"),
	    OSP_OPT_END,
	};
	const struct osp_collect_spec spec = {"top", usage_head, 1, own, 0};
	struct osp_collect_opts o;
	int next, rc;
	OSP_PARSE_OR_RETURN(osp_collect_parse(&spec, argc, argv, &o, &next));
	if (next < argc) {
		rc = osp_usage_err("top", "unexpected argument '%s'", argv[next]);
		goto out_opts;
	}
	if (replay && (o.all || o.pids.n || o.cgroup || o.comm || o.layers)) {
		rc = osp_usage_err("top",
		                   "--replay takes its profiles from FILE: no -l/-a/-p/-c/--comm");
		goto out_opts;
	}
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		osp_err("top: needs a terminal; for text output use 'osprof record INTERVAL'");
		rc = OSP_EXIT_USAGE;
		goto out_opts;
	}
	if ((rc = osp_collect_one_target("top", &o)))
		goto out_opts;
	uint64_t interval = o.interval_ns ? o.interval_ns : 1000000000ull;
	struct top_source src;
	memset(&src, 0, sizeof(src));
	rc = replay ? top_source_replay(&src, replay) : top_source_live(&src, &o, "top");
	if (rc)
		goto out_opts;
	osp_signals_install();
	setlocale(LC_ALL, "");
	initscr();
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	struct top_view v;
	memset(&v, 0, sizeof(v));
	v.cum = src.cum;
	v.what = src.what;
	v.out_path = o.output;
	v.interval_ns = interval;
	rc = run(&src, &v, o.duration_ns);
	endwin();
	/* Ctrl-C/SIGTERM with -o: keep what was collected. */
	const char *save = osp_signals_stop() && o.output_given ? o.output : NULL;
	if (!replay) /* the loss line and status, as run and record end */
		rc = osp_collect_finish("top", v.cum, save, &o, rc);
	else if (save)
		rc = osp_collect_save("top", v.cum, save, rc);
	osp_set_free(v.last);
	src.close(&src);
out_opts:
	free(o.pids.v);
	return rc;
}
