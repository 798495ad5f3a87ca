/* Analysis annotations for the views, from the analysis library
 * (include/osprof/analysis.h): peaks (osp_find_peaks), characteristic
 * times of this machine's calibration (osp_label_peak: layer and op must fit), and the ranked
 * differences between two sets (osp_diff_sets). The views only see the
 * osp_vm_* types, so the analysis API is used here and nowhere else. */
#include <stdlib.h>
#include <string.h>
#include <osprof/analysis.h>
#include "render/vmodel.h"

/* The calibration (characteristic times) of the render in progress: given
 * by the caller in the view's options (osp_plot_opts.calib,
 * osp_html_opts.calib), never read from disk here. */
static const struct osp_set *calib;

static const struct osp_set *calibration(void)
{
	return calib;
}

void osp_vm_set_calibration(const struct osp_set *c)
{
	calib = c;
}

static unsigned find(const struct osp_hist *h, struct osp_peak *pk, unsigned max)
{
	unsigned n = osp_find_peaks(h, NULL, pk, max);
	return n < max ? n : max;
}

unsigned osp_vm_peaks(const struct osp_profile *p, struct osp_vm_peak *out, unsigned max)
{
	struct osp_peak pk[OSP_VM_MAX_PEAKS];
	const struct osp_set *c = p->unit == OSP_UNIT_NS ? calibration() : NULL;
	if (max > OSP_VM_MAX_PEAKS)
		max = OSP_VM_MAX_PEAKS;
	unsigned n = find(&p->hist, pk, max);
	for (unsigned k = 0; k < n; k++) {
		struct osp_vm_peak *o = &out[k];
		struct osp_peak_label lb;
		memset(o, 0, sizeof(*o));
		o->lo = pk[k].first;
		o->hi = pk[k].last;
		o->mode = pk[k].mode;
		o->count = pk[k].count;
		o->mean = pk[k].mean_ns;
		o->share_ops = pk[k].share_ops;
		o->share_lat = pk[k].share_lat;
		/* The closest candidate mechanism only, worded as a candidate: the views have room
		 * for one, and osp_label_peak has already refused those that do not fit the peak's
		 * range, layer and op. */
		if (c && osp_label_peak(c, p, &pk[k], &lb, 1) == 1)
			snprintf(o->note, sizeof(o->note), "consistent with %s", lb.label);
	}
	return n;
}

unsigned osp_vm_notes(const struct osp_set *s, const struct osp_profile *p, struct osp_vm_note *out,
                      unsigned max)
{
	(void)s;
	const struct osp_set *c = calibration();
	struct osp_peak pk[OSP_VM_MAX_PEAKS];
	if (!c || p->unit != OSP_UNIT_NS)
		return 0;
	unsigned n = find(&p->hist, pk, OSP_VM_MAX_PEAKS), nn = 0;
	/* One line per characteristic time that explains a peak, no repeats. */
	for (unsigned k = 0; k < n; k++) {
		struct osp_peak_label lb[2];
		unsigned m = osp_label_peak(c, p, &pk[k], lb, 2);
		for (unsigned i = 0; i < m && nn < max; i++) {
			int dup = 0;
			for (unsigned j = 0; j < nn; j++)
				dup |= !strcmp(out[j].label, lb[i].label);
			if (dup || lb[i].calib_ns <= 0)
				continue;
			out[nn].value = lb[i].calib_ns;
			snprintf(out[nn].label, sizeof(out[nn].label), "%s", lb[i].label);
			nn++;
		}
	}
	return nn;
}

long osp_vm_diff(const struct osp_set *a, const struct osp_set *b, struct osp_vm_diff **out)
{
	struct osp_diff_opts o;
	struct osp_diff d;
	char err[256];
	osp_diff_opts_default(&o);
	if (osp_diff_sets(a, b, &o, &d, err, sizeof(err)) < 0)
		return -1;
	struct osp_vm_diff *v = calloc(d.n ? d.n : 1, sizeof(*v));
	if (!v) {
		osp_diff_free(&d);
		return -1;
	}
	for (size_t i = 0; i < d.n; i++) {
		v[i].a = d.e[i].a;
		v[i].b = d.e[i].b;
		v[i].score = d.e[i].score;
		v[i].verdict = osp_verdict_name(d.e[i].verdict);
		snprintf(v[i].reason, sizeof(v[i].reason), "%s", d.e[i].reason);
	}
	long n = (long)d.n;
	osp_diff_free(&d);
	*out = v;
	return n;
}
