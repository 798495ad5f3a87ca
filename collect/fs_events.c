/* File-system tracepoint pairs from tracefs (see fs_events.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <osprof/sort.h>
#include "collect/fs_events.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int has(char **names, size_t n, const char *want)
{
	return bsearch(&want, names, n, sizeof(*names), cmp_str) != NULL;
}

static int ends_with(const char *s, const char *suf, size_t *stem)
{
	size_t ls = strlen(s), lf = strlen(suf);
	if (ls <= lf || strcmp(s + ls - lf, suf))
		return 0;
	*stem = ls - lf;
	return 1;
}

/* Profile op names must be printable without blanks (lib/profile.c). */
static int printable(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f)
			return 0;
	return len > 0;
}

static int push(struct fs_pairs *out, const char *subsys, const char *op, size_t oplen,
                const char *start, const char *end)
{
	struct fs_pair p;
	if (oplen >= sizeof(p.op) || strlen(start) >= sizeof(p.start) ||
	    strlen(end) >= sizeof(p.end) || strlen(subsys) >= sizeof(p.subsys))
		return 0; /* names this long are no tracepoints we know */
	if (!printable(op, oplen) || !printable(subsys, strlen(subsys)))
		return 0;
	for (size_t i = 0; i < out->n; i++)
		if (!strcmp(out->v[i].subsys, subsys) && !strcmp(out->v[i].start, start))
			return 0;
	struct fs_pair *v = realloc(out->v, (out->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	out->v = v;
	memset(&p, 0, sizeof(p));
	snprintf(p.subsys, sizeof(p.subsys), "%s", subsys);
	snprintf(p.op, sizeof(p.op), "%.*s", (int)oplen, op);
	snprintf(p.start, sizeof(p.start), "%s", start);
	snprintf(p.end, sizeof(p.end), "%s", end);
	out->v[out->n++] = p;
	return 0;
}

/* Tries to pair `name` as a start event; 0 when it is none, 1 paired, <0. */
static int try_pair(const char *subsys, char **names, size_t n, const char *name,
                    struct fs_pairs *out)
{
	static const char *const suffix[][2] = {
	    {"_enter", "_exit"}, {"_start", "_end"}, {"_begin", "_end"}, {"", "_done"}};
	char buf[256];
	size_t stem;
	for (size_t i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
		if (!ends_with(name, suffix[i][0], &stem) && suffix[i][0][0])
			continue;
		if (!suffix[i][0][0])
			stem = strlen(name);
		if (snprintf(buf, sizeof(buf), "%.*s%s", (int)stem, name, suffix[i][1]) >=
		    (int)sizeof(buf))
			continue;
		if (has(names, n, buf)) {
			int rc = push(out, subsys, name, stem, name, buf);
			return rc < 0 ? rc : 1;
		}
	}
	/* P_start_S + P_end_S: jbd2_start_commit / jbd2_end_commit */
	const char *m = strstr(name, "_start_");
	if (m && m != name) {
		size_t plen = (size_t)(m - name);
		const char *sfx = m + strlen("_start_");
		char op[256];
		if (snprintf(buf, sizeof(buf), "%.*s_end_%s", (int)plen, name, sfx) <
		        (int)sizeof(buf) &&
		    has(names, n, buf)) {
			int l = snprintf(op, sizeof(op), "%.*s_%s", (int)plen, name, sfx);
			if (l < 0 || l >= (int)sizeof(op))
				return 0;
			int rc = push(out, subsys, op, (size_t)l, name, buf);
			return rc < 0 ? rc : 1;
		}
	}
	return 0;
}

int fs_pair_names(const char *subsys, char **names, size_t n, struct fs_pairs *out)
{
	osp_sort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		int rc = try_pair(subsys, names, n, names[i], out);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static int scan_subsys(const char *tracefs, const char *subsys, struct fs_pairs *out)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/events/%s", tracefs, subsys);
	DIR *d = opendir(path);
	if (!d)
		return 0; /* this file system has no tracepoints */
	char **names = NULL;
	size_t n = 0;
	int rc = 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "enable") ||
		    !strcmp(e->d_name, "filter"))
			continue;
		char **nn = realloc(names, (n + 1) * sizeof(*names));
		if (!nn || !(nn[n] = strdup(e->d_name))) {
			names = nn ? nn : names;
			rc = -ENOMEM;
			break;
		}
		names = nn;
		n++;
	}
	closedir(d);
	if (!rc)
		rc = fs_pair_names(subsys, names, n, out);
	free_names(names, n);
	return rc;
}

static int in_list(const char *list, const char *name)
{
	size_t l = strlen(name);
	for (const char *p = list; *p;) {
		const char *c = strchr(p, ',');
		size_t len = c ? (size_t)(c - p) : strlen(p);
		if (len == l && !strncmp(p, name, l))
			return 1;
		p += len + (c != NULL);
	}
	return 0;
}

int fs_discover(const char *tracefs, const char *only, struct fs_pairs *out)
{
	/* helpers that time file-system work but are no file system */
	static const char *const helpers[] = {"jbd2", "jbd", "iomap", "netfs"};
	char seen[4096] = ",";
	int rc = 0;
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < sizeof(helpers) / sizeof(helpers[0]) && !rc; i++) {
		if (only && !in_list(only, helpers[i]))
			continue;
		rc = scan_subsys(tracefs, helpers[i], out);
		strncat(seen, helpers[i], sizeof(seen) - strlen(seen) - 2);
		strcat(seen, ",");
	}
	FILE *f = fopen("/proc/filesystems", "r");
	if (!f) {
		fprintf(stderr, "osprof: fs: cannot read /proc/filesystems: %s\n", strerror(errno));
		fs_pairs_free(out);
		return -errno;
	}
	char line[256], name[64];
	while (!rc && fgets(line, sizeof(line), f)) {
		/* "nodev\tNAME" or "\tNAME" */
		char *t = strrchr(line, '\t');
		if (sscanf(t ? t + 1 : line, "%63s", name) != 1)
			continue;
		char key[80];
		snprintf(key, sizeof(key), ",%s,", name);
		if (strstr(seen, key) || (only && !in_list(only, name)))
			continue;
		if (strlen(seen) + strlen(name) + 2 < sizeof(seen)) {
			strcat(seen, name);
			strcat(seen, ",");
		}
		rc = scan_subsys(tracefs, name, out);
	}
	fclose(f);
	if (rc) {
		fprintf(stderr, "osprof: fs: out of memory discovering tracepoints\n");
		fs_pairs_free(out);
	}
	return rc;
}

void fs_pairs_free(struct fs_pairs *p)
{
	free(p->v);
	p->v = NULL;
	p->n = 0;
}
