/* Writes a profile set in the .osp text format (docs/file-format.md). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <osprof/output.h>
#include <osprof/profile.h>
#include "lib/escape.h"

static void write_buckets(FILE *f, const uint64_t *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (b[i])
			fprintf(f, " %u:%llu", i, (unsigned long long)b[i]);
	fputc('\n', f);
}

/* The rest of a profile's or a parent's line: "LAYER [OP] [NAME=VALUE ...]". */
static void write_key(FILE *f, const char *layer, const char *op, const struct osp_dim *dims,
                      unsigned ndims)
{
	osp_escape_write(f, layer);
	if (op) {
		fputc(' ', f);
		osp_escape_write(f, op);
	}
	for (unsigned d = 0; d < ndims; d++) {
		fprintf(f, " %s=", dims[d].name);
		osp_escape_write(f, dims[d].value);
	}
	fputc('\n', f);
}

/* Measured nesting: "parent COUNT LAYER OP [NAME=VALUE ...]" per enclosing
 * op, "outside COUNT LAYER" for the calls that ran outside any op of LAYER. */
static void write_parents(FILE *f, const struct osp_profile *p)
{
	for (size_t i = 0; i < p->nparents; i++) {
		const struct osp_parent *e = &p->parents[i];
		fprintf(f, "%s %llu ", e->op ? "parent" : "outside", (unsigned long long)e->count);
		write_key(f, e->layer, e->op, e->dims, e->ndims);
	}
}

int osp_set_write(const struct osp_set *s, FILE *f)
{
	/* Version 2 only adds parent tables: a set without them is written as
	 * version 1, readable by every osprof. */
	int v2 = 0;
	for (size_t i = 0; i < s->n && !v2; i++)
		v2 = s->profiles[i]->nparents > 0;
	fprintf(f, "osprof-profile-set %d\n", v2 ? 2 : 1);
	fprintf(f, "r %u\n", s->r);
	fprintf(f, "slice_ns %llu\n", (unsigned long long)s->slice_ns);
	for (size_t i = 0; i < s->nmeta; i++) {
		fputs("meta ", f);
		osp_escape_write(f, s->meta[i].key);
		fputc(' ', f);
		osp_escape_write(f, s->meta[i].value);
		fputc('\n', f);
	}
	for (size_t i = 0; i < s->n; i++) {
		const struct osp_profile *p = s->profiles[i];
		const struct osp_hist *h = &p->hist;
		fputs("profile ", f);
		write_key(f, p->layer, p->op, p->dims, p->ndims);
		if (p->unit != OSP_UNIT_NS)
			fprintf(f, "unit %s\n", osp_unit_name(p->unit));
		fprintf(f, "stats %llu %llu %llu %llu\n", (unsigned long long)h->count,
		        (unsigned long long)h->total, (unsigned long long)(h->count ? h->min : 0),
		        (unsigned long long)(h->count ? h->max : 0));
		fputs("buckets", f);
		write_buckets(f, h->buckets, h->nbuckets);
		for (size_t j = 0; j < p->nslices; j++) {
			fprintf(f, "slice %llu", (unsigned long long)p->slices[j].index);
			write_buckets(f, p->slices[j].buckets, h->nbuckets);
		}
		write_parents(f, p);
	}
	fprintf(f, "end %zu\n", s->n);
	return ferror(f) ? -EIO : 0;
}

int osp_set_save(const struct osp_set *s, const char *path, char *err, size_t errlen)
{
	struct osp_output o;
	int rc = osp_output_open(&o, path, err, errlen);
	if (rc < 0)
		return rc;
	if ((rc = osp_set_write(s, o.f)) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		osp_output_abort(&o);
		return rc;
	}
	return osp_output_commit(&o, err, errlen);
}
