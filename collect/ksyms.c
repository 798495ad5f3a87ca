/* /proc/kallsyms, sorted once, searched by address (see ksyms.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <osprof/sort.h>
#include "collect/ksyms.h"

struct ksym {
	uint64_t addr;
	char *name;
};

struct ksyms {
	size_t n;
	struct ksym *v;
};

static int cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

struct ksyms *ksyms_load(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	if (!f) {
		fprintf(stderr, "osprof: cannot read /proc/kallsyms: %s\n", strerror(errno));
		return NULL;
	}
	struct ksyms *k = ksyms_read(f, "/proc/kallsyms");
	fclose(f);
	return k;
}

struct ksyms *ksyms_read(FILE *f, const char *fname)
{
	struct ksyms *k = calloc(1, sizeof(*k));
	size_t cap = 0;
	char line[512], name[256], type;
	unsigned long long addr;
	if (!k)
		goto nomem;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || !addr ||
		    (type != 't' && type != 'T'))
			continue;
		if (k->n == cap) {
			cap = cap ? 2 * cap : 65536;
			struct ksym *v = realloc(k->v, cap * sizeof(*v));
			if (!v)
				goto nomem;
			k->v = v;
		}
		if (!(k->v[k->n].name = strdup(name)))
			goto nomem;
		k->v[k->n++].addr = addr;
	}
	if (k->n == 0) {
		fprintf(stderr,
		        "osprof: %s shows no function addresses (kptr_restrict?): run as root\n",
		        fname);
		ksyms_free(k);
		return NULL;
	}
	osp_sort(k->v, k->n, sizeof(*k->v), cmp);
	return k;
nomem:
	ksyms_free(k);
	fprintf(stderr, "osprof: out of memory reading %s\n", fname);
	return NULL;
}

void ksyms_free(struct ksyms *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n; i++)
		free(k->v[i].name);
	free(k->v);
	free(k);
}

const char *ksyms_find(const struct ksyms *k, uint64_t addr)
{
	size_t lo = 0, hi = k->n;
	/* last symbol with v.addr <= addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? k->v[lo - 1].name : NULL;
}
