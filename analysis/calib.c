/* The calibration set of `osprof calibrate` (collect/calibrate.c) as the
 * analysis uses it: where it is kept, its items' labels, an item's
 * characteristic time, and the items that could explain a peak. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <osprof/analysis.h>

static const struct {
	const char *op, *label;
} labels[] = {
    {"null_syscall", "null system call"},
    {"pagecache_read_4k", "page-cache 4 KiB read"},
    {"odirect_read_4k", "O_DIRECT 4 KiB random read"},
    {"seq_read_64k", "O_DIRECT 64 KiB sequential read"},
    {"write_fsync_4k", "4 KiB write + fsync"},
    {"ctx_switch", "context switch (pipe ping-pong)"},
    {"thread_wakeup", "thread wake-up (other CPU)"},
    {"futex_handoff", "futex hand-off (same CPU)"},
    {"timer_irq", "timer interrupt"},
    {"timer_tick", "timer tick period"},
    {"sched_slice", "scheduler time slice"},
    {"tcp_rtt", "loopback TCP round trip"},
};

const char *osp_calib_label(const char *op)
{
	for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); i++)
		if (!strcmp(labels[i].op, op))
			return labels[i].label;
	return NULL;
}

const char *osp_calib_default_path(char *buf, size_t len)
{
	const char *env = getenv("OSPROF_CALIBRATION");
	if (env && *env) {
		snprintf(buf, len, "%s", env);
		return buf;
	}
	char host[256] = "localhost";
	if (gethostname(host, sizeof(host)) == 0)
		host[sizeof(host) - 1] = '\0';
	snprintf(buf, len, "/var/lib/osprof/calibration-%s.osp", host);
	return buf;
}

struct osp_set *osp_calib_load_default(void)
{
	char path[4096], err[512];
	struct osp_set *s = NULL;
	osp_calib_default_path(path, sizeof(path));
	if (access(path, R_OK) != 0)
		return NULL;
	if (osp_set_load(path, &s, err, sizeof(err)) < 0)
		return NULL;
	return s;
}

double osp_calib_time(const struct osp_profile *p)
{
	return p->hist.count ? (double)osp_hist_quantile(&p->hist, 0.5) : 0;
}

unsigned osp_annotate_peak(const struct osp_set *calib, const struct osp_peak *pk,
                           const char **names, unsigned max)
{
	struct {
		const char *label;
		double dist;
	} m[32];
	unsigned n = 0;
	if (!calib || pk->mean_ns <= 0)
		return 0;
	for (size_t i = 0; i < calib->n && n < 32; i++) {
		const struct osp_profile *p = calib->profiles[i];
		if (strcmp(p->layer, OSP_CALIB_LAYER) || !p->hist.count)
			continue;
		double t = osp_calib_time(p);
		if (t <= 0)
			continue;
		double d = fabs(log2(t / pk->mean_ns));
		/* Inside the range counts only for peaks up to two octaves wide:
		 * a wide peak's range holds many unrelated times. */
		int inside = t >= (double)pk->lo_ns && t <= (double)pk->hi_ns &&
		             (double)pk->hi_ns <= 4.0 * (double)(pk->lo_ns ? pk->lo_ns : 1);
		if (!inside && d > 0.5)
			continue;
		const char *label = osp_calib_label(p->op);
		m[n].label = label ? label : p->op;
		m[n].dist = d;
		n++;
	}
	/* Closest first (insertion sort: a handful of entries). */
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j > 0 && m[j].dist < m[j - 1].dist; j--) {
			__typeof__(m[0]) t = m[j];
			m[j] = m[j - 1];
			m[j - 1] = t;
		}
	for (unsigned i = 0; i < n && i < max; i++)
		names[i] = m[i].label;
	return n < max ? n : max;
}
