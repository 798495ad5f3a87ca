/* The phases both drivers share: profiling f0 until --start-ops calls,
 * choosing the peak, and the progress line (drawn by the caller). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <osprof/clock.h>
#include <osprof/status.h>
#include "rootcause/driver.h"
#include "rootcause/peaks.h"

void rc_progress(const struct rc_opts *o, int force, const char *fmt, ...)
{
	if (!o->progress.show)
		return;
	if (!fmt) {
		o->progress.show(o->progress.ctx, force, NULL);
		return;
	}
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	o->progress.show(o->progress.ctx, force, line);
}

uint64_t rc_hist_total(const uint64_t *hist)
{
	uint64_t t = 0;
	for (int i = 0; i < RC_HBUCKETS; i++)
		t += hist[i];
	return t;
}

int rc_profile_f0(struct rc_opts *o, struct rc_target *t, rc_hist_read_fn read, void *ctx,
                  uint64_t *hist)
{
	int ret = -1;
	for (;;) {
		enum rc_target_state st = rc_wait(t, -1, osp_now_ns() + 50000000ull);
		if (read(ctx, hist) || st == RC_STOPPED)
			break;
		uint64_t n = rc_hist_total(hist);
		rc_progress(o, 0, "profiling f0: %" PRIu64 " of %u calls", n, o->p.start_ops);
		if (n >= o->p.start_ops) {
			ret = 0;
			break;
		}
		if (st == RC_EXITED) {
			rc_progress(o, 1, NULL);
			osp_err("rootcause: target exited after %" PRIu64
			        " of %u f0 calls (--start-ops)",
			        n, o->p.start_ops);
			return -1;
		}
	}
	rc_progress(o, 1, NULL);
	return ret;
}

int rc_choose_peak(const struct rc_opts *o, const uint64_t *hist, struct rc_info *in)
{
	struct rc_peak pk[RC_MAX_PEAKS];
	int np = rc_find_peaks(hist, RC_HBUCKETS, pk, RC_MAX_PEAKS);
	int want = o->peak ? o->peak : rc_auto_peak(pk, np);
	if (want < 1 || want > np) {
		osp_err("rootcause: --peak %d: f0's histogram has %d peak%s", o->peak, np,
		        np == 1 ? "" : "s");
		return -1;
	}
	in->peak = want;
	in->blo = pk[want - 1].lo;
	in->bhi = pk[want - 1].hi;
	return 0;
}
