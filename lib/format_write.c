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

int osp_set_write(const struct osp_set *s, FILE *f)
{
	fprintf(f, "osprof-profile-set 1\n");
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
		osp_escape_write(f, p->layer);
		fputc(' ', f);
		osp_escape_write(f, p->op);
		for (unsigned d = 0; d < p->ndims; d++) {
			fprintf(f, " %s=", p->dims[d].name);
			osp_escape_write(f, p->dims[d].value);
		}
		fputc('\n', f);
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
