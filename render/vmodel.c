/* View model: statistics and selection shared by every graphical view. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <osprof/render.h>
#include <osprof/sort.h>
#include "render/vmodel.h"

void osp_vm_totals(const struct osp_set *s, struct osp_vm_totals *t)
{
	t->n = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct osp_profile *p = s->profiles[i];
		if (p->unit != OSP_UNIT_NS)
			continue;
		unsigned k = 0;
		while (k < t->n && strcmp(t->layer[k], p->layer))
			k++;
		if (k == t->n) {
			if (t->n == OSP_VM_MAX_LAYERS)
				continue;
			t->layer[t->n] = p->layer;
			t->total[t->n++] = 0;
		}
		t->total[k] += p->hist.total;
	}
}

void osp_vm_stats(const struct osp_profile *p, const struct osp_vm_totals *t,
                  struct osp_vm_stats *st)
{
	const struct osp_hist *h = &p->hist;
	memset(st, 0, sizeof(*st));
	st->count = h->count;
	st->total = h->total;
	if (h->count) {
		st->mean = h->total / h->count;
		st->p50 = osp_hist_quantile(h, 0.50);
		st->p99 = osp_hist_quantile(h, 0.99);
	}
	for (unsigned k = 0; t && p->unit == OSP_UNIT_NS && k < t->n; k++)
		if (!strcmp(t->layer[k], p->layer) && t->total[k])
			st->share = (double)h->total / (double)t->total[k];
	st->npeaks = osp_vm_peaks(p, st->peaks, OSP_VM_MAX_PEAKS);
}

int osp_vm_matches(const struct osp_profile *p, const char *op)
{
	if (!op || !*op)
		return 1;
	if (!strcmp(p->op, op))
		return 1;
	size_t ll = strlen(p->layer);
	if (!strncmp(op, p->layer, ll) && op[ll] == ':' && !strcmp(op + ll + 1, p->op))
		return 1;
	char label[512];
	return !strcmp(osp_profile_label(p, label, sizeof(label)), op);
}

static int by_total(const void *x, const void *y)
{
	const struct osp_profile *a = *(const struct osp_profile *const *)x;
	const struct osp_profile *b = *(const struct osp_profile *const *)y;
	if (a->hist.total != b->hist.total)
		return a->hist.total < b->hist.total ? 1 : -1;
	if (a->hist.count != b->hist.count)
		return a->hist.count < b->hist.count ? 1 : -1;
	int c = strcmp(a->layer, b->layer);
	if (c)
		return c;
	c = strcmp(a->op, b->op);
	if (c)
		return c;
	char la[512], lb[512];
	return strcmp(osp_profile_label(a, la, sizeof(la)), osp_profile_label(b, lb, sizeof(lb)));
}

long osp_vm_select(const struct osp_set *s, const char *op, unsigned top,
                   const struct osp_profile ***out)
{
	const struct osp_profile **v = malloc((s->n ? s->n : 1) * sizeof(*v));
	if (!v)
		return -1;
	size_t n = 0;
	for (size_t i = 0; i < s->n; i++)
		if (osp_vm_matches(s->profiles[i], op))
			v[n++] = s->profiles[i];
	osp_sort(v, n, sizeof(*v), by_total);
	if (top && n > top)
		n = top;
	*out = v;
	return (long)n;
}

long osp_vm_select_ab(const struct osp_set *a, const struct osp_set *b, const char *op,
                      unsigned top, const struct osp_profile ***out, struct osp_set **extra)
{
	*extra = NULL;
	long n = osp_vm_select(a, op, top, out);
	if (n < 0 || !b || (top && (unsigned long)n >= top))
		return n;
	const struct osp_profile **vb;
	long nb = osp_vm_select(b, op, 0, &vb);
	struct osp_set *x = nb >= 0 ? osp_set_new(a->r) : NULL;
	const struct osp_profile **all =
	    x ? realloc(*out, (size_t)(n + nb + 1) * sizeof(*all)) : NULL;
	if (!all) {
		if (nb >= 0)
			free(vb);
		osp_set_free(x);
		free(*out);
		*out = NULL;
		return -1;
	}
	*out = all;
	for (long k = 0; k < nb && (!top || (unsigned long)n < top); k++) {
		if (osp_vm_twin(a, vb[k]))
			continue;
		struct osp_profile *p =
		    osp_set_get(x, vb[k]->layer, vb[k]->op, vb[k]->dims, vb[k]->ndims);
		if (!p)
			continue;
		p->unit = vb[k]->unit;
		all[n++] = p;
	}
	free(vb);
	*extra = x;
	return n;
}

const struct osp_profile *osp_vm_twin(const struct osp_set *b, const struct osp_profile *p)
{
	if (!b)
		return NULL;
	return osp_set_find(b, p->layer, p->op, p->dims, p->ndims);
}

double osp_vm_xpos(double v, unsigned r)
{
	if (v <= 0)
		return 0.5;
	return 1.0 + (double)r * log2(v);
}

char *osp_render_value(double v, enum osp_unit u, char *buf, size_t len)
{
	static const char *const tu[] = {"ns", "µs", "ms", "s"};
	static const char *const bu[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	unsigned i = 0;
	if (v == 0) {
		snprintf(buf, len, "0");
		return buf;
	}
	if (u == OSP_UNIT_NS) {
		while (i < 3 && v >= 1000) {
			v /= 1000;
			i++;
		}
		if (i == 3 && v >= 1000)
			snprintf(buf, len, "%.3gks", v / 1000);
		else
			snprintf(buf, len, "%.3g%s", v, tu[i]);
	} else if (u == OSP_UNIT_BYTES) {
		while (i < 6 && v >= 1024) {
			v /= 1024;
			i++;
		}
		snprintf(buf, len, "%.3g%s", v, bu[i]);
	} else {
		snprintf(buf, len, "%.3g", v);
	}
	return buf;
}

void osp_vm_range(const struct osp_hist *h, int *first, int *last)
{
	int f = osp_hist_first(h), l = osp_hist_last(h);
	if (f < 0)
		return;
	if (*first > *last) {
		*first = f;
		*last = l;
		return;
	}
	if (f < *first)
		*first = f;
	if (l > *last)
		*last = l;
}

uint64_t osp_vm_slice_max(const struct osp_profile *p)
{
	uint64_t m = 0;
	for (size_t i = 0; i < p->nslices; i++)
		for (unsigned k = 0; k < p->hist.nbuckets; k++)
			if (p->slices[i].buckets[k] > m)
				m = p->slices[i].buckets[k];
	return m;
}

long osp_vm_select_plot(const struct osp_set *a, const struct osp_plot_opts *o,
                        const struct osp_profile ***out, struct osp_set **extra, char *err,
                        size_t errlen)
{
	osp_vm_set_calibration(o->calib);
	long n = osp_vm_select_ab(a, o->b, o->op, o->top, out, extra);
	if (n < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (n == 0 && o->op) {
		snprintf(err, errlen, "--op '%s': no profile matches", o->op);
		free(*out);
		*out = NULL;
		osp_set_free(*extra);
		*extra = NULL;
		return -1;
	}
	return n;
}

void osp_vm_plot_range(const struct osp_set *a, const struct osp_set *b,
                       const struct osp_profile *const *v, long n, int *blo, int *bhi)
{
	*blo = 1;
	*bhi = 0;
	for (long i = 0; i < n; i++) {
		osp_vm_range(&v[i]->hist, blo, bhi);
		const struct osp_profile *pb = osp_vm_twin(b, v[i]);
		if (pb)
			osp_vm_range(&pb->hist, blo, bhi);
	}
	if (*blo > *bhi) {
		*blo = 1;
		*bhi = 10 * (int)a->r;
	}
	*blo = *blo > 0 ? *blo - 1 : 0;
	if (*bhi + 1 < (int)osp_nbuckets(a->r))
		(*bhi)++;
}

int osp_vm_plot_done(FILE *f, const struct osp_profile **v, struct osp_set *extra, char *err,
                     size_t errlen)
{
	free(v);
	osp_set_free(extra);
	if (ferror(f)) {
		snprintf(err, errlen, "write error");
		return -1;
	}
	return 0;
}

unsigned osp_vm_lanes(const double *lo, const double *hi, unsigned n, unsigned *lane)
{
	const double gap = 4; /* room between two labels of one lane */
	unsigned nl = 0;
	for (unsigned i = 0; i < n; i++) {
		unsigned l = 0;
		for (;;) {
			int clash = 0;
			for (unsigned j = 0; j < i && !clash; j++)
				clash = lane[j] == l && lo[i] < hi[j] + gap && lo[j] < hi[i] + gap;
			if (!clash)
				break;
			l++;
		}
		lane[i] = l;
		if (l + 1 > nl)
			nl = l + 1;
	}
	return nl;
}
