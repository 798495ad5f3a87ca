/* Measured nesting, user side (collect/nest.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <osprof/sort.h>
#include "collect/nest.h"
#include "collect/bpf/osp_bpf.h"
#include "collect/bpf/syscall.h"

/* Name of system call nr (collect/syscall.c). */
const char *osp_syscall_name(unsigned nr);

static struct {
	int sys_fd, fs_fd;
	osp_nest_fs_name_fn fs_name;
	void *fs_ctx;
} ex = {-1, -1, NULL, NULL};

void osp_nest_export_sys(int fd)
{
	ex.sys_fd = fd;
}

void osp_nest_export_fs(int fd, osp_nest_fs_name_fn name, void *ctx)
{
	ex.fs_fd = fd;
	ex.fs_name = fd >= 0 ? name : NULL;
	ex.fs_ctx = fd >= 0 ? ctx : NULL;
}

__u32 osp_nest_flags(void)
{
	return (ex.sys_fd >= 0 ? OSP_NEST_SYS : 0) | (ex.fs_fd >= 0 ? OSP_NEST_FS : 0);
}

int osp_nest_share(struct bpf_object *obj)
{
	const struct {
		const char *name;
		int fd;
	} m[] = {{"sys_inflight", ex.sys_fd}, {"fs_stacks", ex.fs_fd}};
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		struct bpf_map *map = bpf_object__find_map_by_name(obj, m[i].name);
		if (!map || m[i].fd < 0 || bpf_map__fd(map) == m[i].fd)
			continue;
		int rc = bpf_map__reuse_fd(map, m[i].fd);
		if (rc) {
			fprintf(stderr, "osprof: cannot share BPF map %s: %s\n", m[i].name,
			        strerror(-rc));
			return rc;
		}
	}
	return 0;
}

static int add_sys(struct osp_profile *p, unsigned code, __u64 n)
{
	if (!code)
		return osp_profile_add_parent(p, "syscall", NULL, NULL, 0, n);
	char buf[32];
	const char *name = osp_syscall_name(code - 1);
	if (!name) {
		snprintf(buf, sizeof(buf), "sys_%u", code - 1);
		name = buf;
	}
	return osp_profile_add_parent(p, "syscall", name, NULL, 0, n);
}

static int add_fs(struct osp_profile *p, unsigned code, __u64 n)
{
	const char *op = NULL, *fs = NULL;
	if (!code)
		return osp_profile_add_parent(p, "fs", NULL, NULL, 0, n);
	if (!ex.fs_name || ex.fs_name(ex.fs_ctx, code - 1, &op, &fs) || !op)
		return 0; /* a pair this session does not know: not attributed */
	struct osp_dim d = {"fs", (char *)fs};
	return osp_profile_add_parent(p, "fs", op, &d, fs ? 1 : 0, n);
}

int osp_nest_add(struct osp_profile *p, __u32 code, __u64 n)
{
	unsigned sys = code & 0xffff, fs = code >> 16;
	int rc = 0;
	if (!n)
		return 0;
	if (sys != OSP_NEST_NONE)
		rc = add_sys(p, sys, n);
	if (!rc && fs != OSP_NEST_NONE)
		rc = add_fs(p, fs, n);
	return rc == -ENOMEM ? rc : 0;
}

int osp_nest_add_sys_table(struct osp_profile *p, const __u64 *counts)
{
	for (unsigned i = 0; i < OSP_NEST_SYS_SLOTS; i++)
		if (counts[i] && add_sys(p, i, counts[i]) == -ENOMEM)
			return -ENOMEM;
	return 0;
}

/* Layer by layer (syscall before fs), largest count first, outside last. */
static int by_layer_count(const void *x, const void *y)
{
	const struct osp_parent *a = x, *b = y;
	int c = strcmp(b->layer, a->layer);
	if (c)
		return c;
	if (!a->op != !b->op)
		return !a->op ? 1 : -1;
	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	return a->op ? strcmp(a->op, b->op) : 0;
}

void osp_nest_check(struct osp_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		struct osp_profile *p = set->profiles[i];
		int bad = 0;
		for (size_t j = 0; j < p->nparents && !bad; j++)
			bad = osp_profile_parent_total(p, p->parents[j].layer) > p->hist.count;
		if (bad)
			osp_profile_parents_free(p);
		else if (p->nparents > 1)
			osp_sort(p->parents, p->nparents, sizeof(*p->parents), by_layer_count);
	}
}
