/* Reads the .osp text format (docs/file-format.md). Every malformed input is
 * reported as "FILE:LINE: what is wrong"; nothing is trusted, since files come
 * from other hosts and other versions (the reader is fuzzed). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <osprof/profile.h>
#include "lib/escape.h"

#define OSP_FORMAT_VERSION 2 /* reads 1 and 2 (2 adds parent tables) */

struct reader {
	const char *name;
	unsigned long line;
	char *err;
	size_t errlen;
	struct osp_set *set;
	struct osp_profile *cur; /* profile being read */
	int have_stats, have_buckets;
	uint64_t last_slice;
	uint64_t version;
};

static int fail(struct reader *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct reader *rd, const char *fmt, ...)
{
	int n = snprintf(rd->err, rd->errlen, "%s:%lu: ", rd->name, rd->line);
	va_list ap;
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < rd->errlen)
		vsnprintf(rd->err + n, rd->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static int parse_u64(struct reader *rd, const char *tok, const char *what, uint64_t *out)
{
	if (!tok)
		return fail(rd, "missing %s", what);
	if (*tok < '0' || *tok > '9')
		return fail(rd, "bad number '%.40s' for %s", tok, what);
	char *end;
	errno = 0;
	unsigned long long v = strtoull(tok, &end, 10);
	if (errno || *end)
		return fail(rd, "bad number '%.40s' for %s", tok, what);
	*out = v;
	return 0;
}

/* Parses " IDX:N IDX:N ..." into b (cleared by the caller); sum in *sum. */
static int parse_buckets(struct reader *rd, char **save, uint64_t *b, uint64_t *sum)
{
	unsigned nb = rd->set ? osp_nbuckets(rd->set->r) : 0;
	char *tok;
	*sum = 0;
	while ((tok = strtok_r(NULL, " ", save))) {
		char *colon = strchr(tok, ':');
		if (!colon)
			return fail(rd, "bad bucket '%.40s' (want INDEX:COUNT)", tok);
		*colon = '\0';
		uint64_t idx, n;
		if (parse_u64(rd, tok, "bucket index", &idx) ||
		    parse_u64(rd, colon + 1, "bucket count", &n))
			return -1;
		if (idx >= nb)
			return fail(rd, "bucket index %llu out of range (r=%u has %u buckets)",
			            (unsigned long long)idx, rd->set->r, nb);
		if (b[idx])
			return fail(rd, "bucket %llu given twice", (unsigned long long)idx);
		if (*sum + n < *sum)
			return fail(rd, "bucket counts overflow");
		b[idx] = n;
		*sum += n;
	}
	return 0;
}

static int finish_profile(struct reader *rd)
{
	struct osp_profile *p = rd->cur;
	if (!p)
		return 0;
	if (!rd->have_stats || !rd->have_buckets)
		return fail(rd, "profile %s:%s lacks a %s line", p->layer, p->op,
		            rd->have_stats ? "buckets" : "stats");
	/* the parents of one layer account for some of the calls, not more */
	for (size_t i = 0; i < p->nparents; i++)
		if (osp_profile_parent_total(p, p->parents[i].layer) > p->hist.count)
			return fail(
			    rd,
			    "profile %s:%s: parents at layer %.40s count more than its %llu calls",
			    p->layer, p->op, p->parents[i].layer,
			    (unsigned long long)p->hist.count);
	rd->cur = NULL;
	return 0;
}

/* A NAME=VALUE token of a key (it has a '=') as a dimension: split in place,
 * the value unescaped; -1 after the error. */
static int take_dim(struct reader *rd, char *tok, struct osp_dim *d)
{
	char *eq = strchr(tok, '=');
	*eq = '\0';
	if (osp_unescape(eq + 1))
		return fail(rd, "bad %%-escape in dimension %.40s", tok);
	*d = (struct osp_dim){tok, eq + 1};
	return 0;
}

/* "parent COUNT LAYER OP [NAME=VALUE ...]" / "outside COUNT LAYER" (v2). */
static int read_parent_line(struct reader *rd, char **save, int outside)
{
	uint64_t n;
	if (rd->version < 2)
		return fail(rd, "parent tables need format version 2");
	if (!rd->have_buckets)
		return fail(rd, "parent table before buckets");
	if (parse_u64(rd, strtok_r(NULL, " ", save), "parent count", &n))
		return -1;
	char *layer = strtok_r(NULL, " ", save), *op = outside ? NULL : strtok_r(NULL, " ", save);
	if (!layer || (!outside && !op))
		return fail(rd, "%s line needs a layer%s", outside ? "outside" : "parent",
		            outside ? "" : " and an op");
	if (osp_unescape(layer) || (op && osp_unescape(op)))
		return fail(rd, "bad %%-escape in parent name");
	struct osp_dim dims[OSP_MAX_DIMS];
	unsigned nd = 0;
	char *tok;
	while ((tok = strtok_r(NULL, " ", save))) {
		if (outside || !strchr(tok, '=') || nd == OSP_MAX_DIMS)
			return fail(rd, "bad parent dimension '%.40s'", tok);
		if (take_dim(rd, tok, &dims[nd++]))
			return -1;
	}
	int rc = osp_profile_add_parent(rd->cur, layer, op, dims, nd, n);
	if (rc == -ENOMEM)
		return fail(rd, "out of memory");
	return rc ? fail(rd, "invalid parent (names, dimensions or count)") : 0;
}

static int need_header(struct reader *rd)
{
	if (!rd->set)
		return fail(rd, "missing header: not an osprof profile set");
	return 0;
}

static int read_profile_line(struct reader *rd, char **save)
{
	char *layer = strtok_r(NULL, " ", save), *op = strtok_r(NULL, " ", save);
	if (!layer || !op)
		return fail(rd, "profile line needs a layer and an op");
	if (osp_unescape(layer) || osp_unescape(op))
		return fail(rd, "bad %%-escape in profile name");
	struct osp_dim dims[OSP_MAX_DIMS];
	unsigned nd = 0;
	char *tok;
	while ((tok = strtok_r(NULL, " ", save))) {
		if (!strchr(tok, '='))
			return fail(rd, "bad dimension '%.40s' (want NAME=VALUE)", tok);
		if (nd == OSP_MAX_DIMS)
			return fail(rd, "more than %d dimensions", OSP_MAX_DIMS);
		if (take_dim(rd, tok, &dims[nd++]))
			return -1;
	}
	if (osp_set_find(rd->set, layer, op, dims, nd))
		return fail(rd, "profile %.40s:%.40s given twice", layer, op);
	rd->cur = osp_set_get(rd->set, layer, op, dims, nd);
	if (!rd->cur)
		return fail(rd, "invalid profile key (names, dimensions or values)");
	rd->have_stats = rd->have_buckets = 0;
	rd->last_slice = 0;
	return 0;
}

/* stats COUNT TOTAL MIN MAX */
static int read_stats_line(struct reader *rd, struct osp_hist *h, char **save)
{
	uint64_t c, t, mn, mx;
	if (parse_u64(rd, strtok_r(NULL, " ", save), "count", &c) ||
	    parse_u64(rd, strtok_r(NULL, " ", save), "total", &t) ||
	    parse_u64(rd, strtok_r(NULL, " ", save), "min", &mn) ||
	    parse_u64(rd, strtok_r(NULL, " ", save), "max", &mx))
		return -1;
	if (c && mn > mx)
		return fail(rd, "min %llu > max %llu", (unsigned long long)mn,
		            (unsigned long long)mx);
	h->count = c;
	h->total = t;
	h->min = c ? mn : UINT64_MAX;
	h->max = c ? mx : 0;
	rd->have_stats = 1;
	return 0;
}

/* buckets IDX:N ... (after stats, whose count they sum to) */
static int read_buckets_line(struct reader *rd, struct osp_hist *h, char **save)
{
	uint64_t sum;
	if (!rd->have_stats)
		return fail(rd, "buckets before stats");
	if (rd->have_buckets)
		return fail(rd, "buckets given twice");
	if (parse_buckets(rd, save, h->buckets, &sum))
		return -1;
	if (sum != h->count)
		return fail(rd, "count %llu != sum of buckets %llu", (unsigned long long)h->count,
		            (unsigned long long)sum);
	rd->have_buckets = 1;
	return 0;
}

/* slice INDEX IDX:N ... */
static int read_slice_line(struct reader *rd, struct osp_profile *p, char **save)
{
	uint64_t idx, sum;
	if (parse_u64(rd, strtok_r(NULL, " ", save), "slice index", &idx))
		return -1;
	if (p->nslices && idx <= rd->last_slice)
		return fail(rd, "slice %llu out of order", (unsigned long long)idx);
	uint64_t *b = osp_profile_slice(p, idx);
	if (!b)
		return fail(rd, "out of memory");
	rd->last_slice = idx;
	return parse_buckets(rd, save, b, &sum);
}

static int read_line(struct reader *rd, char *line)
{
	char *save, *kw = strtok_r(line, " ", &save);
	if (!kw || *kw == '#')
		return 0;
	if (!strcmp(kw, "osprof-profile-set")) {
		uint64_t v;
		if (rd->set)
			return fail(rd, "header given twice");
		if (parse_u64(rd, strtok_r(NULL, " ", &save), "format version", &v))
			return -1;
		if (v < 1 || v > OSP_FORMAT_VERSION)
			return fail(rd,
			            "unsupported format version %llu (this osprof reads 1 to %d)",
			            (unsigned long long)v, OSP_FORMAT_VERSION);
		rd->version = v;
		rd->set = osp_set_new(1);
		return rd->set ? 0 : fail(rd, "out of memory");
	}
	if (need_header(rd))
		return -1;
	if (!strcmp(kw, "r")) {
		uint64_t r;
		if (parse_u64(rd, strtok_r(NULL, " ", &save), "resolution", &r))
			return -1;
		if (rd->set->n)
			return fail(rd, "resolution must come before the profiles");
		if (r > 16 || !osp_resolution_valid((unsigned)r))
			return fail(rd, "resolution %llu is not one of 1, 2, 4, 8, 16",
			            (unsigned long long)r);
		rd->set->r = (unsigned)r;
		return 0;
	}
	if (!strcmp(kw, "slice_ns"))
		return parse_u64(rd, strtok_r(NULL, " ", &save), "slice length",
		                 &rd->set->slice_ns);
	if (!strcmp(kw, "meta")) {
		char *k = strtok_r(NULL, " ", &save), *v = strtok_r(NULL, " ", &save);
		if (!k)
			return fail(rd, "meta line needs a key");
		if (!v)
			v = k + strlen(k); /* empty value */
		if (osp_unescape(k) || osp_unescape(v) || !*k)
			return fail(rd, "bad %%-escape in meta line");
		return osp_set_meta(rd->set, k, v) ? fail(rd, "out of memory") : 0;
	}
	if (!strcmp(kw, "profile")) {
		if (finish_profile(rd))
			return -1;
		return read_profile_line(rd, &save);
	}
	if (!strcmp(kw, "end")) {
		uint64_t n;
		if (finish_profile(rd) ||
		    parse_u64(rd, strtok_r(NULL, " ", &save), "profile count", &n))
			return -1;
		if (n != rd->set->n)
			return fail(rd, "end says %llu profiles, file has %zu",
			            (unsigned long long)n, rd->set->n);
		return 1;
	}
	static const char *const in_profile[] = {"unit",  "stats",  "buckets",
	                                         "slice", "parent", "outside"};
	int known = 0;
	for (unsigned i = 0; i < sizeof(in_profile) / sizeof(in_profile[0]); i++)
		known |= !strcmp(kw, in_profile[i]);
	if (!known)
		return fail(rd, "unknown record '%.20s'", kw);
	struct osp_profile *p = rd->cur;
	if (!p)
		return fail(rd, "'%.20s' outside a profile", kw);
	struct osp_hist *h = &p->hist;
	if (!strcmp(kw, "parent") || !strcmp(kw, "outside"))
		return read_parent_line(rd, &save, kw[0] == 'o');
	if (!strcmp(kw, "unit")) {
		char *u = strtok_r(NULL, " ", &save);
		if (!u || osp_unit_parse(u, &p->unit))
			return fail(rd, "unknown unit '%.20s'", u ? u : "");
		return 0;
	}
	if (!strcmp(kw, "stats"))
		return read_stats_line(rd, h, &save);
	if (!strcmp(kw, "buckets"))
		return read_buckets_line(rd, h, &save);
	return read_slice_line(rd, p, &save);
}

/* One line into *buf (without its newline), grown as needed but never past
 * OSP_MAX_LINE bytes: the limit is checked while reading, so a hostile file
 * (one 2 GB line, /dev/zero) costs a bounded buffer and fails at once.
 * Returns the length, -1 at end of file, -2 too long, -3 a NUL byte, -4 out
 * of memory. */
static long read_bounded_line(FILE *f, char **buf, size_t *cap)
{
	size_t n = 0;
	int c;
	while ((c = getc(f)) != EOF && c != '\n') {
		if (c == '\0')
			return -3;
		if (n == OSP_MAX_LINE)
			return -2;
		if (n + 1 >= *cap) {
			size_t nc = *cap ? 2 * *cap : 4096;
			if (nc > OSP_MAX_LINE + 1)
				nc = OSP_MAX_LINE + 1;
			char *g = realloc(*buf, nc);
			if (!g)
				return -4;
			*buf = g;
			*cap = nc;
		}
		(*buf)[n++] = (char)c;
	}
	if (c == EOF && n == 0)
		return -1;
	if (!*buf && !(*buf = malloc(*cap = 1)))
		return -4;
	(*buf)[n] = '\0';
	return (long)n;
}

int osp_set_read(FILE *f, const char *name, struct osp_set **out, char *err, size_t errlen)
{
	struct reader rd = {.name = name, .err = err, .errlen = errlen};
	char *line = NULL;
	size_t cap = 0;
	long len = 0;
	int rc = 0, ended = 0;
	*out = NULL;
	while (!ended && (len = read_bounded_line(f, &line, &cap)) >= 0) {
		rd.line++;
		rc = read_line(&rd, line);
		if (rc < 0)
			break;
		ended = rc == 1;
	}
	if (len < -1) {
		rd.line++;
		rc = len == -2   ? fail(&rd, "line longer than %d bytes", OSP_MAX_LINE)
		     : len == -3 ? fail(&rd, "binary data (NUL byte): not an osprof profile set")
		                 : fail(&rd, "out of memory");
	} else if (rc >= 0 && ended && getc(f) != EOF) {
		/* e.g. `cat a.osp b.osp`: reading only a would hide b */
		rd.line++;
		rc = fail(&rd, "data after 'end' (concatenated files? use osprof merge)");
	}
	free(line);
	if (rc >= 0 && !ended) {
		rd.line++;
		rc = rd.set ? fail(&rd, "truncated: no 'end' line")
		            : fail(&rd, "empty file: not an osprof profile set");
	}
	if (rc < 0) {
		osp_set_free(rd.set);
		return -1;
	}
	*out = rd.set;
	return 0;
}

int osp_set_load(const char *path, struct osp_set **out, char *err, size_t errlen)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		*out = NULL;
		return -1;
	}
	int rc = osp_set_read(f, path, out, err, errlen);
	if (f != stdin)
		fclose(f);
	return rc;
}
