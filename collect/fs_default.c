/* Default fs pairs from the ops tables (collect/fs_default.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "collect/fs_default.h"
#include "collect/fsops_discover.h"

static int in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; p && *p;) {
		size_t len = strcspn(p, ",");
		if (len == n && !strncmp(p, name, n))
			return 1;
		p += len + (p[len] == ',');
	}
	return 0;
}

const char *fs_pair_class_name(enum fs_pair_class c)
{
	return c == FS_PAIR_VFS_OP   ? "default: a VFS operation (ops table)"
	       : c == FS_PAIR_HELPER ? "opt-in: an internal helper (--fs-ops all or by name)"
	                             : "default: file system not mounted, ops tables unread";
}

int fs_pairs_classify(const struct fs_pairs *p, enum fs_pair_class *cls)
{
	struct fsops_found f;
	for (size_t i = 0; i < p->n; i++)
		cls[i] = FS_PAIR_UNKNOWN;
	int rc = fsops_discover(NULL, 0, &f); /* every mounted fs, every member */
	if (rc)
		return rc;
	for (size_t i = 0; i < p->n; i++) {
		const struct fs_pair *q = &p->v[i];
		int mounted = 0, in_table = 0;
		for (size_t k = 0; k < f.nfs; k++)
			mounted |= !strcmp(f.fs[k].type, q->subsys);
		for (size_t k = 0; k < f.nfn && !in_table; k++)
			in_table = !strcmp(f.fn[k].name, q->op) || !strcmp(f.fn[k].name, q->start);
		/* jbd2, jbd, iomap, netfs are no file system types: helpers */
		int helper_subsys = in_list("jbd2,jbd,iomap,netfs", q->subsys);
		cls[i] = in_table                   ? FS_PAIR_VFS_OP
		         : mounted || helper_subsys ? FS_PAIR_HELPER
		                                    : FS_PAIR_UNKNOWN;
	}
	fsops_found_free(&f);
	return 0;
}

int fs_pairs_select(struct fs_pairs *p, const char *fs_ops, int verbose)
{
	if (!p->n || (fs_ops && !strcmp(fs_ops, "all")))
		return 0;
	for (const char *o = fs_ops; o && *o;) {
		size_t len = strcspn(o, ",");
		int found = 0;
		for (size_t i = 0; i < p->n && !found; i++)
			found = strlen(p->v[i].op) == len && !strncmp(p->v[i].op, o, len);
		if (!found) {
			fprintf(stderr,
			        "osprof: --fs-ops: '%.*s' is no tracepoint pair here (see 'osprof "
			        "list -v fs')\n",
			        (int)len, o);
			return -EINVAL;
		}
		o += len + (o[len] == ',');
	}
	enum fs_pair_class *cls = malloc(p->n * sizeof(*cls));
	if (!cls)
		return -ENOMEM;
	if (fs_pairs_classify(p, cls)) {
		fprintf(stderr, "osprof: fs: cannot read the ops tables of the mounted file "
		                "systems: timing every tracepoint pair (as --fs-ops all)\n");
		free(cls);
		return 0;
	}
	size_t kept = 0, left = 0;
	for (size_t i = 0; i < p->n; i++) {
		if (cls[i] == FS_PAIR_HELPER && !in_list(fs_ops, p->v[i].op)) {
			if (verbose)
				fprintf(stderr, "osprof: fs: %s left out (helper; --fs-ops all)\n",
				        p->v[i].op);
			left++;
			continue;
		}
		p->v[kept++] = p->v[i];
	}
	p->n = kept;
	free(cls);
	if (left && verbose)
		fprintf(stderr,
		        "osprof: fs: %zu helper tracepoint pairs left out (not VFS operations; "
		        "--fs-ops all or by name adds them)\n",
		        left);
	return 0;
}
