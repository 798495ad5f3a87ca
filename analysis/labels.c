/* Characteristic-time labels that claim no more than they know (issue 11):
 * a calibration item labels a peak only when (1) the peak's whole value
 * range lies within the item's own measured spread, (2) the item's time lies
 * in the peak's range, and (3) the profile's layer and op are ones the
 * mechanism can show up in (a disk read does not label a pipe write; a
 * futex hand-off does not label a readdir). The label is a candidate,
 * printed as "consistent with ...". docs/analysis.md lists the rules. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <osprof/analysis.h>

/* Op families, matched on the op name. */
static int has(const char *op, const char *const *words)
{
	for (; *words; words++)
		if (strstr(op, *words))
			return 1;
	return 0;
}

static const char *const reads[] = {"read", NULL};
static const char *const syncs[] = {"sync", NULL};
static const char *const waits[] = {"futex", "poll", "select", "epoll", "wait", "pause", NULL};
static const char *const sleeps[] = {"sleep", "poll", "select", "epoll", "futex", NULL};
static const char *const sock_ops[] = {"recv",   "send", "read",   "write", "connect",
                                       "accept", "poll", "select", NULL};

static int fs_is(const struct osp_profile *p, const char *a, const char *b)
{
	const char *fs = osp_profile_dim(p, "fs");
	return fs && (!strcmp(fs, a) || (b && !strcmp(fs, b)));
}

static int layer_is(const struct osp_profile *p, const char *l)
{
	return !strcmp(p->layer, l);
}

/* Can the mechanism measured by calibration item `item` make a peak of p? */
static int mechanism_fits(const char *item, const struct osp_profile *p, const char **why)
{
	const char *op = p->op;
	int kernel_io = layer_is(p, "block") || layer_is(p, "fs");
	int pipe_sock = fs_is(p, "pipefs", "sockfs");
	if (!strcmp(item, "null_syscall")) {
		*why = "the fastest path of a system call";
		return layer_is(p, "syscall") || layer_is(p, "user");
	}
	if (!strcmp(item, "pagecache_read_4k")) {
		*why = "a read served from the page cache";
		return has(op, reads) && !pipe_sock && !layer_is(p, "block");
	}
	if (!strcmp(item, "odirect_read_4k") || !strcmp(item, "seq_read_64k")) {
		*why = "a read that waits for the disk";
		return (has(op, reads) || layer_is(p, "block")) && !pipe_sock &&
		       !fs_is(p, "tmpfs", "proc");
	}
	if (!strcmp(item, "write_fsync_4k")) {
		*why = "a write flushed to the disk";
		return has(op, syncs) || layer_is(p, "block") || (kernel_io && strstr(op, "write"));
	}
	if (!strcmp(item, "ctx_switch") || !strcmp(item, "thread_wakeup") ||
	    !strcmp(item, "futex_handoff")) {
		*why = "a wait for another thread or process";
		return layer_is(p, "lock") || layer_is(p, "sched") || has(op, waits) || pipe_sock;
	}
	if (!strcmp(item, "timer_irq")) {
		*why = "an interrupt handler";
		return layer_is(p, "irq");
	}
	if (!strcmp(item, "timer_tick")) {
		*why = "a timed sleep or timeout";
		return layer_is(p, "irq") || has(op, sleeps);
	}
	if (!strcmp(item, "sched_slice")) {
		/* Any op can be preempted, but an op that waits by design
		 * (wait4, poll, futex, nanosleep) waits for something else. */
		*why = "a call that waited for the CPU";
		return !has(op, waits) && !has(op, sleeps) && !layer_is(p, "sched");
	}
	if (!strcmp(item, "tcp_rtt")) {
		*why = "a socket round trip";
		return fs_is(p, "sockfs", NULL) ||
		       (has(op, sock_ops) && !has(op, reads) && strncmp(op, "write", 5));
	}
	*why = "";
	return 0;
}

unsigned osp_label_peak(const struct osp_set *calib, const struct osp_profile *p,
                        const struct osp_peak *pk, struct osp_peak_label *out, unsigned max)
{
	struct osp_peak_label all[16];
	unsigned n = 0, pk_r = p->hist.r;
	if (!calib || p->unit != OSP_UNIT_NS || pk->mean_ns <= 0)
		return 0;
	for (size_t i = 0; i < calib->n; i++) {
		const struct osp_profile *c = calib->profiles[i];
		const char *why;
		if (strcmp(c->layer, OSP_CALIB_LAYER) || !c->hist.count)
			continue;
		double t = osp_calib_time(c);
		/* The item's spread: its 5th..95th percentile, widened by a
		 * factor 2 each way for this machine's run-to-run variation
		 * (docs/analysis.md: 1.2-2.4x between calibrations). */
		double lo = (double)osp_hist_quantile(&c->hist, 0.05) / 2;
		double hi = (double)osp_hist_quantile(&c->hist, 0.95) * 2;
		/* A peak's range is known to its histogram's buckets only:
		 * round the spread out to them. */
		lo = (double)osp_bucket_lo(osp_bucket_index((uint64_t)lo, pk_r), pk_r);
		hi = (double)osp_bucket_hi(osp_bucket_index((uint64_t)hi, pk_r), pk_r);
		/* The item's time within an octave of the peak's mean too: a
		 * time at the edge of a peak is not what most of it is. */
		if (t <= 0 || t < (double)pk->lo_ns || t > (double)pk->hi_ns ||
		    fabs(log2(t / pk->mean_ns)) > 1 || (double)pk->lo_ns < lo ||
		    (double)pk->hi_ns > hi || !mechanism_fits(c->op, p, &why))
			continue;
		struct osp_peak_label l = {0};
		const char *name = osp_calib_label(c->op);
		l.item = c->op;
		l.label = name ? name : c->op;
		l.calib_ns = t;
		l.calib_lo_ns = lo;
		l.calib_hi_ns = hi;
		l.dist = fabs(log2(t / pk->mean_ns));
		/* Without an fs dimension the file behind a read is unknown
		 * (a read of /dev/zero is no page-cache read): say so. */
		int fs_matters = !strcmp(c->op, "pagecache_read_4k") ||
		                 !strcmp(c->op, "odirect_read_4k") ||
		                 !strcmp(c->op, "seq_read_64k");
		l.fs_unknown = fs_matters && !osp_profile_dim(p, "fs");
		snprintf(l.evidence, sizeof(l.evidence),
		         "calibration %s: median %.0f ns inside the peak, within an octave of its "
		         "mean, peak range inside its spread %.0f-%.0f ns; %s:%s can be %s%s",
		         c->op, t, lo, hi, p->layer, p->op, why,
		         l.fs_unknown ? " (file system unknown: record with --by fs to check)"
		                      : "");
		if (n < 16)
			all[n++] = l;
	}
	/* Closest to the peak's mean first (insertion sort: a handful). */
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j > 0 && all[j].dist < all[j - 1].dist; j--) {
			struct osp_peak_label t = all[j];
			all[j] = all[j - 1];
			all[j - 1] = t;
		}
	if (n > max)
		n = max;
	memcpy(out, all, n * sizeof(*out));
	return n;
}
