/* View model: statistics and selection shared by every graphical view. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
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
	st->npeaks = osp_vm_peaks(h, st->peaks, OSP_VM_MAX_PEAKS);
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
	qsort(v, n, sizeof(*v), by_total);
	if (top && n > top)
		n = top;
	*out = v;
	return (long)n;
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

char *osp_vm_fmt(double v, enum osp_unit u, char *buf, size_t len)
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
