/* Reader of folded call stacks ("frame;frame;frame COUNT" per line), the
 * format of flamegraph.pl and of `osprof rootcause --folded`, so root-cause
 * results can be shown as a tree in the HTML report. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <osprof/render.h>

/* Bounds against hostile input: a report is for people, not for millions
 * of stacks. */
#define MAX_LINE    65536
#define MAX_ENTRIES 1000000

static int fail(char *err, size_t errlen, const char *name, size_t line, const char *what)
{
	snprintf(err, errlen, "%s:%zu: %s", name, line, what);
	return -1;
}

void osp_folded_free(struct osp_folded_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->e[i].path);
	free(s->e);
	s->e = NULL;
	s->n = 0;
}

/* One line without its newline; 0, 1 for blank/comment, -1 with err. */
static int parse_line(char *l, size_t len, struct osp_folded *out, const char **why)
{
	while (len && (l[len - 1] == ' ' || l[len - 1] == '\t' || l[len - 1] == '\r'))
		l[--len] = '\0';
	if (!len || l[0] == '#')
		return 1;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)l[i] < 0x20 && l[i] != '\t') {
			*why = "control character in the line";
			return -1;
		}
	char *sp = strrchr(l, ' ');
	if (!sp) {
		*why = "expected 'frame;frame;... COUNT'";
		return -1;
	}
	char *end;
	errno = 0;
	unsigned long long c = strtoull(sp + 1, &end, 10);
	if (sp[1] < '0' || sp[1] > '9' || *end || errno) {
		*why = "COUNT is not a non-negative integer";
		return -1;
	}
	*sp = '\0';
	if (!*l || *l == ';' || strstr(l, ";;") || sp[-1] == ';') {
		*why = "empty frame in the call path";
		return -1;
	}
	out->path = strdup(l);
	if (!out->path) {
		*why = "out of memory";
		return -1;
	}
	out->count = c;
	return 0;
}

int osp_folded_read(FILE *f, const char *name, struct osp_folded_set *out, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t cap = 0, lineno = 0, alloc = 0;
	ssize_t len;
	memset(out, 0, sizeof(*out));
	while ((len = getline(&buf, &cap, f)) >= 0) {
		lineno++;
		if (len && buf[len - 1] == '\n')
			buf[--len] = '\0';
		if ((size_t)len > MAX_LINE) {
			free(buf);
			osp_folded_free(out);
			return fail(err, errlen, name, lineno, "line longer than 64 KiB");
		}
		if (memchr(buf, '\0', (size_t)len)) {
			free(buf);
			osp_folded_free(out);
			return fail(err, errlen, name, lineno, "NUL byte in the line");
		}
		struct osp_folded e;
		const char *why = NULL;
		int rc = parse_line(buf, (size_t)len, &e, &why);
		if (rc > 0)
			continue;
		if (rc == 0 && out->n == MAX_ENTRIES) {
			free(e.path);
			rc = -1;
			why = "more than 1,000,000 call paths";
		}
		if (rc == 0 && out->n == alloc) {
			size_t na = alloc ? 2 * alloc : 64;
			struct osp_folded *g = realloc(out->e, na * sizeof(*g));
			if (!g) {
				free(e.path);
				rc = -1;
				why = "out of memory";
			} else {
				out->e = g;
				alloc = na;
			}
		}
		if (rc < 0) {
			free(buf);
			osp_folded_free(out);
			return fail(err, errlen, name, lineno, why);
		}
		out->e[out->n++] = e;
	}
	free(buf);
	if (ferror(f)) {
		osp_folded_free(out);
		return fail(err, errlen, name, lineno, "read error");
	}
	return 0;
}
