/* Progress on stderr: "\r" + the line + erase-to-end, redrawn in place. */
#include "cli/progress.h"
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>
#include <osprof/clock.h>

#define REDRAW_NS 250000000ull /* 4 lines a second at most */

void osp_progress_init(struct osp_progress *p, const char *cmd, int quiet)
{
	*p = (struct osp_progress){.cmd = cmd};
	p->on = !quiet && isatty(STDERR_FILENO);
	p->start_ns = p->rate_ns = osp_now_ns();
}

void osp_progress_show(struct osp_progress *p, int force, const char *fmt, ...)
{
	if (!p->on)
		return;
	uint64_t now = osp_now_ns();
	if (!force && p->last_ns && now - p->last_ns < REDRAW_NS)
		return;
	p->last_ns = now;
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* to the descriptor: stderr escapes control characters (term_safe.c) */
	dprintf(STDERR_FILENO, "\rosprof %s: %.1fs elapsed%s%s\033[K", p->cmd,
	        (double)(now - p->start_ns) / 1e9, *msg ? ", " : "", msg);
}

static void human_bytes(uint64_t b, char *out, size_t len)
{
	if (b >= 1048576)
		snprintf(out, len, "%.1f MiB", (double)b / 1048576.0);
	else if (b >= 1024)
		snprintf(out, len, "%.1f KiB", (double)b / 1024.0);
	else
		snprintf(out, len, "%llu B", (unsigned long long)b);
}

void osp_progress_counts(struct osp_progress *p, int force, uint64_t events, uint64_t drops,
                         uint64_t bytes)
{
	if (!p->on)
		return;
	uint64_t now = osp_now_ns();
	if (!force && p->last_ns && now - p->last_ns < REDRAW_NS)
		return;
	/* events/s over the interval since the previous line: what is
	 * happening now, not the average since the start. */
	if (events != UINT64_MAX && now > p->rate_ns && events >= p->last_events) {
		p->rate = (double)(events - p->last_events) * 1e9 / (double)(now - p->rate_ns);
		p->last_events = events;
		p->rate_ns = now;
	}
	char ev[64] = "", dr[48] = "", by[48] = "", hb[24];
	if (events != UINT64_MAX)
		snprintf(ev, sizeof(ev), "%llu events (%.0f/s)", (unsigned long long)events,
		         p->rate);
	if (drops != UINT64_MAX)
		snprintf(dr, sizeof(dr), "%s%llu dropped", *ev ? ", " : "",
		         (unsigned long long)drops);
	if (bytes != UINT64_MAX) {
		human_bytes(bytes, hb, sizeof(hb));
		snprintf(by, sizeof(by), "%s%s written", *ev || *dr ? ", " : "", hb);
	}
	osp_progress_show(p, 1, "%s%s%s", ev, dr, by);
}

void osp_progress_end(struct osp_progress *p)
{
	if (!p->on)
		return;
	dprintf(STDERR_FILENO, "\r\033[K");
}
