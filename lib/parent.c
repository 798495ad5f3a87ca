/* Parent tables of profiles: measured nesting (include/osprof/profile.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <osprof/profile.h>

static int layer_name_ok(const char *s)
{
	if (!s || !*s)
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || *s == 0x7f)
			return 0;
	return 1;
}

static int dim_name_ok(const char *s)
{
	if (!s || !*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

static int same(const struct osp_parent *e, const char *layer, const char *op,
                const struct osp_dim *sorted, unsigned ndims)
{
	if (strcmp(e->layer, layer) || (!e->op) != (!op) || (op && strcmp(e->op, op)) ||
	    e->ndims != ndims)
		return 0;
	for (unsigned i = 0; i < ndims; i++)
		if (strcmp(e->dims[i].name, sorted[i].name) ||
		    strcmp(e->dims[i].value, sorted[i].value))
			return 0;
	return 1;
}

static void entry_free(struct osp_parent *e)
{
	free(e->layer);
	free(e->op);
	for (unsigned i = 0; i < e->ndims; i++) {
		free(e->dims[i].name);
		free(e->dims[i].value);
	}
}

static int entry_fill(struct osp_parent *e, const char *layer, const char *op,
                      const struct osp_dim *sorted, unsigned ndims)
{
	memset(e, 0, sizeof(*e));
	e->layer = strdup(layer);
	e->op = op ? strdup(op) : NULL;
	int bad = !e->layer || (op && !e->op);
	for (unsigned i = 0; i < ndims && !bad; i++) {
		e->dims[i].name = strdup(sorted[i].name);
		e->dims[i].value = strdup(sorted[i].value);
		e->ndims = i + 1;
		bad = !e->dims[i].name || !e->dims[i].value;
	}
	if (bad)
		entry_free(e);
	return bad ? -ENOMEM : 0;
}

int osp_profile_add_parent(struct osp_profile *p, const char *layer, const char *op,
                           const struct osp_dim *dims, unsigned ndims, uint64_t n)
{
	struct osp_dim sorted[OSP_MAX_DIMS];
	if (!layer_name_ok(layer) || (op && !layer_name_ok(op)) || ndims > OSP_MAX_DIMS ||
	    (ndims && !op))
		return -EINVAL;
	for (unsigned i = 0; i < ndims; i++) {
		if (!dim_name_ok(dims[i].name) || !dims[i].value || !*dims[i].value)
			return -EINVAL;
		/* insertion sort by name: at most OSP_MAX_DIMS entries */
		unsigned j = i;
		for (; j > 0 && strcmp(sorted[j - 1].name, dims[i].name) > 0; j--)
			sorted[j] = sorted[j - 1];
		if (j > 0 && !strcmp(sorted[j - 1].name, dims[i].name))
			return -EINVAL;
		sorted[j] = dims[i];
	}
	for (size_t i = 0; i < p->nparents; i++)
		if (same(&p->parents[i], layer, op, sorted, ndims)) {
			if (p->parents[i].count + n < n)
				return -EINVAL;
			p->parents[i].count += n;
			return 0;
		}
	struct osp_parent *v = realloc(p->parents, (p->nparents + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->parents = v;
	if (entry_fill(&v[p->nparents], layer, op, sorted, ndims))
		return -ENOMEM;
	v[p->nparents++].count = n;
	return 0;
}

uint64_t osp_profile_parent_total(const struct osp_profile *p, const char *layer)
{
	uint64_t t = 0;
	for (size_t i = 0; i < p->nparents; i++)
		if (!strcmp(p->parents[i].layer, layer))
			t += p->parents[i].count;
	return t;
}

void osp_profile_parents_free(struct osp_profile *p)
{
	for (size_t i = 0; i < p->nparents; i++)
		entry_free(&p->parents[i]);
	free(p->parents);
	p->parents = NULL;
	p->nparents = 0;
}
