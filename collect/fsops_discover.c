/* Mounts, the files opened to read their ops tables, and BTF decoding
 * (fsops_discover.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "collect/bpf/osp_bpf.h"
#include "collect/fsops_discover.h"
#include "collect/ksyms.h"
#include "fsops_probe.skel.h"

/* Kernel pseudo file systems: no file data, or osprof's own machinery. */
static const char *const pseudo[] = {
    "proc",    "sysfs",       "cgroup",  "cgroup2",  "devtmpfs",   "devpts", "debugfs",
    "tracefs", "securityfs",  "bpf",     "pstore",   "configfs",   "mqueue", "hugetlbfs",
    "autofs",  "binfmt_misc", "fusectl", "efivarfs", "rpc_pipefs", "nsfs",   "selinuxfs",
};

/* The members timed, per table: the operations a workload's calls reach
 * (seed 001's generic FS layer), not per-page or per-permission-check hooks
 * that fire on every path component. */
static const char *const members[FSOPS_NTBL] = {
    ",llseek,read,write,read_iter,write_iter,iterate,iterate_shared,mmap,open,flush,release,"
    "fsync,fallocate,splice_read,splice_write,unlocked_ioctl,copy_file_range,remap_file_range,",
    ",lookup,create,link,unlink,symlink,mkdir,rmdir,mknod,rename,setattr,getattr,listxattr,"
    "tmpfile,atomic_open,",
    ",readpage,read_folio,readahead,writepage,writepages,dirty_folio,write_begin,write_end,"
    "direct_IO,",
    ",statfs,sync_fs,write_inode,evict_inode,alloc_inode,put_super,remount_fs,",
};
static const char *const tables[FSOPS_NTBL] = {"file_operations", "inode_operations",
                                               "address_space_operations", "super_operations"};

static int in_list(const char *list, const char *name)
{
	char key[64];
	snprintf(key, sizeof(key), ",%s,", name);
	return strstr(list, key) != NULL;
}

/* OSPROF_FSOPS_OPS=read_iter,fsync narrows the members timed (fewer
 * probes: tests, or a user who wants a few ops of many file systems). */
static int wanted_op(const char *name, int narrow)
{
	const char *only = narrow ? getenv("OSPROF_FSOPS_OPS") : NULL;
	char list[512];
	if (!only || !*only)
		return 1;
	snprintf(list, sizeof(list), ",%s,", only);
	return in_list(list, name);
}

static int is_pseudo(const char *type)
{
	for (size_t i = 0; i < sizeof(pseudo) / sizeof(pseudo[0]); i++)
		if (!strcmp(type, pseudo[i]))
			return 1;
	return 0;
}

/* mountinfo escapes blanks and backslashes as \ooo. */
static void unescape(char *s)
{
	char *d = s;
	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] && s[3]) {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = 0;
}

/* Calls fn(type, mountpoint, ctx) for each mount; stops when fn returns 1. */
static void each_mount(int (*fn)(const char *, const char *, void *), void *ctx)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	if (!f)
		return;
	char line[4096];
	while (fgets(line, sizeof(line), f)) {
		char root[1024], mnt[1024], type[64];
		const char *dash = strstr(line, " - ");
		if (!dash || sscanf(line, "%*s %*s %*s %1023s %1023s", root, mnt) != 2 ||
		    sscanf(dash + 3, "%63s", type) != 1)
			continue;
		char *dot = strchr(type, '.'); /* fuse.sshfs: the kernel type is fuse */
		if (dot)
			*dot = 0;
		unescape(mnt);
		if (fn(type, mnt, ctx))
			break;
	}
	fclose(f);
}

struct want {
	const char *types;
	struct fsops_found *out;
};

static int add_mount(const char *type, const char *mnt, void *ctx)
{
	struct want *w = ctx;
	if (w->types ? !in_list(w->types, type) : is_pseudo(type))
		return 0;
	for (size_t i = 0; i < w->out->nfs; i++)
		if (!strcmp(w->out->fs[i].type, type))
			return 0;
	if (w->out->nfs == FSOPS_MAX_FS || strlen(type) >= sizeof(w->out->fs[0].type) ||
	    strlen(mnt) >= sizeof(w->out->fs[0].mnt))
		return 0;
	struct fsops_fs *fs = &w->out->fs[w->out->nfs++];
	memset(fs, 0, sizeof(*fs));
	snprintf(fs->type, sizeof(fs->type), "%s", type);
	snprintf(fs->mnt, sizeof(fs->mnt), "%s", mnt);
	return 0;
}

/* fd, if it is on a file system of type magic; else closed, -1. By the
 * statfs type, not st_dev: overlayfs reports its lower layers' devices for
 * files. */
static int same_type(int fd, long magic)
{
	struct statfs sf;
	if (fd >= 0 && (fstatfs(fd, &sf) || sf.f_type != magic)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A regular file on the same file system as dir fd root: a bounded
 * breadth-first walk that only reads, else an unnamed O_TMPFILE (gone on
 * close). -1 if neither. */
static int open_regular(int root)
{
	struct statfs rs;
	if (fstatfs(root, &rs))
		return -1;
	long magic = (long)rs.f_type;
	int queue[64], head = 0, tail = 0, seen = 0, fd = -1;
	queue[tail++] = dup(root);
	while (head < tail && fd < 0 && seen < 4096) {
		int dfd = queue[head++];
		DIR *d = fdopendir(dfd);
		if (!d) {
			close(dfd);
			continue;
		}
		for (struct dirent *e; fd < 0 && (e = readdir(d)) && seen < 4096; seen++) {
			struct stat st;
			if (e->d_name[0] == '.' ||
			    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW))
				continue;
			if (S_ISREG(st.st_mode))
				fd = same_type(openat(dirfd(d), e->d_name,
				                      O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC),
				               magic);
			else if (S_ISDIR(st.st_mode) && tail < 64)
				queue[tail] = same_type(
				    openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC),
				    magic),
				tail += queue[tail] >= 0;
		}
		closedir(d);
	}
	while (head < tail)
		close(queue[head++]);
	if (fd < 0)
		fd = openat(root, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	return fd;
}

/* Argument of a prototype leading to a super_block: its kind, or NONE. */
static unsigned arg_kind(const struct btf *btf, __u32 type, unsigned *idx)
{
	static const struct {
		const char *name;
		unsigned kind;
	} kinds[] = {
	    {"kiocb", FSOPS_K_KIOCB},
	    {"file", FSOPS_K_FILE},
	    {"inode", FSOPS_K_INODE},
	    {"dentry", FSOPS_K_DENTRY},
	    {"super_block", FSOPS_K_SB},
	    {"path", FSOPS_K_PATH},
	    {"address_space", FSOPS_K_MAPPING},
	    {"folio", FSOPS_K_FOLIO},
	    {"page", FSOPS_K_PAGE},
	    {"readahead_control", FSOPS_K_RAC},
	};
	int id = btf__resolve_type(btf, type);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, (__u32)id) : NULL;
	if (!t || !btf_is_ptr(t) || (id = btf__resolve_type(btf, t->type)) <= 0 ||
	    !btf_is_func_proto(t = btf__type_by_id(btf, (__u32)id)))
		return FSOPS_K_NONE;
	const struct btf_param *p = btf_params(t);
	for (unsigned i = 0; i < btf_vlen(t) && i < 4; i++) {
		int pid = btf__resolve_type(btf, p[i].type);
		const struct btf_type *pt = pid > 0 ? btf__type_by_id(btf, (__u32)pid) : NULL;
		if (!pt || !btf_is_ptr(pt) || (pid = btf__resolve_type(btf, pt->type)) <= 0)
			continue;
		const struct btf_type *st = btf__type_by_id(btf, (__u32)pid);
		if (!btf_is_struct(st))
			continue;
		const char *n = btf__name_by_offset(btf, st->name_off);
		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
			if (!strcmp(n, kinds[k].name)) {
				*idx = i;
				return kinds[k].kind;
			}
	}
	return FSOPS_K_NONE;
}

static int add_fn(struct fsops_found *out, const char *name, const char *op, unsigned idx,
                  unsigned kind)
{
	for (size_t i = 0; i < out->nfn; i++)
		if (!strcmp(out->fn[i].name, name))
			return 0; /* one probe per function, named by its first member */
	struct fsops_fn *v = realloc(out->fn, (out->nfn + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	out->fn = v;
	struct fsops_fn *f = &v[out->nfn++];
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", name);
	snprintf(f->op, sizeof(f->op), "%s", op);
	f->arg_idx = idx;
	f->kind = kind;
	return 0;
}

/* The timed members of one table copied by the probe. */
static int decode(const struct btf *btf, const struct ksyms *ks, int tbl,
                  const struct fsops_probe_out *po, struct fsops_found *out)
{
	int id = btf__find_by_name_kind(btf, tables[tbl], BTF_KIND_STRUCT);
	if (id <= 0 || !po->addr[tbl] || !po->len[tbl])
		return 0;
	const struct btf_type *t = btf__type_by_id(btf, (__u32)id);
	const struct btf_member *m = btf_members(t);
	for (unsigned i = 0; i < btf_vlen(t); i++) {
		const char *name = btf__name_by_offset(btf, m[i].name_off);
		__u32 off = btf_member_bit_offset(t, i) / 8;
		__u64 addr;
		if (!name || !in_list(members[tbl], name) || !wanted_op(name, out->narrow) ||
		    off + 8 > po->len[tbl])
			continue;
		memcpy(&addr, po->tbl[tbl] + off, sizeof(addr));
		unsigned idx = 0, kind = arg_kind(btf, m[i].type, &idx);
		const char *fn = addr ? ksyms_find(ks, addr) : NULL;
		if (!fn || kind == FSOPS_K_NONE)
			continue;
		int rc = add_fn(out, fn, name, idx, kind);
		if (rc)
			return rc;
	}
	return 0;
}

/* Runs the probe on fd and decodes its four tables into out. */
static int read_tables(struct fsops_probe_bpf *k, const struct btf *btf, const struct ksyms *ks,
                       int fd, struct fsops_fs *fs, struct fsops_found *out)
{
	__u64 args[1] = {(__u64)fd};
	LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = args, .ctx_size_in = sizeof(args));
	memset(&k->bss->probe_out, 0, sizeof(k->bss->probe_out));
	int rc = bpf_prog_test_run_opts(bpf_program__fd(k->progs.fsops_probe), &o);
	if (rc)
		return rc;
	if (k->bss->probe_out.err)
		return k->bss->probe_out.err;
	fs->s_type = k->bss->probe_out.s_type;
	for (int t = 0; t < FSOPS_NTBL && !rc; t++)
		rc = decode(btf, ks, t, &k->bss->probe_out, out);
	return rc;
}

int fsops_discover(const char *types, int narrow, struct fsops_found *out)
{
	memset(out, 0, sizeof(*out));
	out->narrow = narrow;
	struct want w = {types, out};
	char list[512];
	if (types) {
		snprintf(list, sizeof(list), ",%s,", types);
		w.types = list;
	}
	each_mount(add_mount, &w);
	if (!out->nfs)
		return 0;
	struct btf *btf = btf__load_vmlinux_btf();
	struct ksyms *ks = ksyms_load();
	struct fsops_probe_bpf *k = fsops_probe_bpf__open();
	int rc = -ENOMEM;
	if (!btf || !ks || !k) {
		fprintf(stderr, "osprof: fs: cannot read kernel BTF or symbols for the VFS ops\n");
		goto out;
	}
	if ((rc = fsops_probe_bpf__load(k))) {
		fprintf(stderr, "osprof: fs: cannot load the ops-table reader: %s\n",
		        strerror(-rc));
		goto out;
	}
	size_t keep = 0;
	for (size_t i = 0; i < out->nfs; i++) {
		struct fsops_fs *fs = &out->fs[i];
		int root = open(fs->mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC), file = -1;
		int e = root < 0 ? -errno : read_tables(k, btf, ks, root, fs, out);
		if (!e && (file = open_regular(root)) >= 0) {
			e = read_tables(k, btf, ks, file, fs, out);
			fs->read_files = !e;
		}
		if (root >= 0)
			close(root);
		if (file >= 0)
			close(file);
		if (e == -ENOMEM) {
			rc = e;
			goto out;
		}
		if (e || !fs->s_type) {
			snprintf(out->unseen + strlen(out->unseen),
			         sizeof(out->unseen) - strlen(out->unseen), "%s%s (%s: %s)",
			         *out->unseen ? ", " : "", fs->type, fs->mnt, strerror(-e));
			continue;
		}
		out->fs[keep++] = *fs;
	}
	out->nfs = keep;
	rc = 0;
out:
	fsops_probe_bpf__destroy(k);
	ksyms_free(ks);
	btf__free(btf);
	if (rc)
		fsops_found_free(out);
	return rc;
}

void fsops_found_free(struct fsops_found *f)
{
	free(f->fn);
	f->fn = NULL;
	f->nfn = 0;
}
