/* Series selection and naming shared by the Prometheus renderers. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <osprof/sort.h>
#include "render/prom_series.h"

/* [a-zA-Z0-9_] only: anything else in a layer name becomes '_'. */
static void sanitize(char *dst, size_t len, const char *src)
{
	size_t i = 0;
	for (; src[i] && i + 1 < len; i++) {
		char c = src[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
		dst[i] = ok ? c : '_';
	}
	dst[i] = '\0';
}

static void family_name(char *dst, size_t len, const struct osp_profile *p)
{
	char layer[64];
	sanitize(layer, sizeof(layer), p->layer);
	const char *suffix = p->unit == OSP_UNIT_NS      ? "latency_seconds"
	                     : p->unit == OSP_UNIT_BYTES ? "bytes"
	                                                 : "value";
	snprintf(dst, len, "osprof_%s_%s", layer, suffix);
}

const char *prom_family_help(const struct osp_profile *p)
{
	return p->unit == OSP_UNIT_NS ? "latency of each operation (osprof log buckets)"
	                              : "values of each operation (osprof log buckets)";
}

static int by_family(const void *a, const void *b)
{
	const struct prom_series *x = a, *y = b;
	int c = strcmp(x->family, y->family);
	/* set order within a family: stable across scrapes */
	return c ? c : (x->idx < y->idx ? -1 : x->idx > y->idx);
}

int prom_plan_build(struct prom_plan *pl, const struct osp_set *s, const struct osp_prom_opts *o)
{
	memset(pl, 0, sizeof(*pl));
	size_t n = o && o->max_series && o->max_series < s->n ? o->max_series : s->n;
	pl->host = o && o->host ? o->host : osp_get_meta(s, "host");
	pl->series = calloc(n ? n : 1, sizeof(*pl->series));
	if (!pl->series)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		pl->series[i].p = s->profiles[i];
		pl->series[i].idx = i;
		family_name(pl->series[i].family, sizeof(pl->series[i].family), s->profiles[i]);
	}
	for (size_t i = n; i < s->n; i++)
		pl->dropped_calls += s->profiles[i]->hist.count;
	pl->n = n;
	pl->dropped = s->n - n;
	osp_sort(pl->series, n, sizeof(*pl->series), by_family);
	return 0;
}

void prom_plan_free(struct prom_plan *pl)
{
	free(pl->series);
	memset(pl, 0, sizeof(*pl));
}

unsigned prom_labels(const struct prom_plan *pl, const struct osp_profile *p,
                     struct prom_label *out)
{
	unsigned n = 0;
	snprintf(out[n].name, sizeof(out[n].name), "op");
	out[n++].value = p->op;
	for (unsigned i = 0; i < p->ndims; i++) {
		const char *d = p->dims[i].name;
		if (!strcmp(d, "le") || !strcmp(d, "op") || (*d >= '0' && *d <= '9'))
			snprintf(out[n].name, sizeof(out[n].name), "dim_%s", d);
		else
			snprintf(out[n].name, sizeof(out[n].name), "%s", d);
		out[n++].value = p->dims[i].value;
	}
	if (!osp_profile_dim(p, "host") && pl->host && *pl->host) {
		snprintf(out[n].name, sizeof(out[n].name), "host");
		out[n++].value = pl->host;
	}
	return n;
}
