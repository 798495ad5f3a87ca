/* The pass-through of the stack layer: every FUSE request is served by the
 * same call on the lower directory and timed from its arrival to the end of
 * its reply. Inodes are held as O_PATH descriptors (keyed by device and
 * inode number, so hard links share one), open files as real descriptors;
 * data moves by splice where the kernel allows it. */
#define FUSE_USE_VERSION FUSE_MAKE_VERSION(3, 12)
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>
#include <osprof/clock.h>
#include "collect/stack_fs.h"
#include "collect/stack_stats.h"

/* Attributes and names are cached by the kernel this long: the lower
 * directory is meant to change only through the mount while it is up. */
#define CACHE_TIMEOUT 1.0
#define INODE_BUCKETS 4096

struct snode {
	int fd; /* O_PATH */
	dev_t dev;
	ino_t ino;
	uint64_t nlookup;
	struct snode *next;
};

/* Open files and directories are listed, so that those the kernel never
 * released (a release still queued when the connection ends is dropped by
 * the kernel) are counted and closed at the end. */
struct handle {
	struct handle *prev, *next;
	int is_dir;
};

struct sfile {
	struct handle h;
	int fd;
	_Atomic int64_t next_off; /* end of the last read or write: offset class */
};

struct sdir {
	struct handle h;
	DIR *dp;
	off_t offset;
	struct dirent *entry;
};

struct osp_stack_fs {
	struct osp_stack_fs_opts o;
	struct snode root;
	struct handle handles; /* circular list head */
	pthread_mutex_t lock;
	struct snode *buckets[INODE_BUCKETS];
	struct fuse_session *se;
	pthread_t loop;
	int loop_started;
	pthread_mutex_t end_lock;
	pthread_cond_t end_cond;
	int ended;
	unsigned conn_minor; /* /sys/fs/fuse/connections/N of the mount */
	int root_caller;     /* serving as root: create files as the caller */
};

/* One operation in flight: when it arrived and who sent it. */
struct op_t {
	uint64_t t0;
	pid_t tid;
};

static void t_begin(struct op_t *t, fuse_req_t req)
{
	t->t0 = osp_now_ns();
	t->tid = fuse_req_ctx(req)->pid;
}

static void t_end_io(const struct op_t *t, enum osp_stack_op op, int64_t size, int offset_seq)
{
	struct osp_stack_sample smp = {t->tid, size, offset_seq};
	osp_stack_stats_add(op, t->t0, osp_now_ns(), &smp);
}

static void t_end(const struct op_t *t, enum osp_stack_op op)
{
	t_end_io(t, op, -1, -1);
}

static void reply_err(fuse_req_t req, const struct op_t *t, enum osp_stack_op op, int err)
{
	fuse_reply_err(req, err);
	t_end(t, op);
}

static struct osp_stack_fs *fs_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

static struct snode *node_of(fuse_req_t req, fuse_ino_t ino)
{
	return ino == FUSE_ROOT_ID ? &fs_of(req)->root : (struct snode *)(uintptr_t)ino;
}

static int fd_of(fuse_req_t req, fuse_ino_t ino)
{
	return node_of(req, ino)->fd;
}

/* The path through which calls that take no O_PATH descriptor reach it. */
static void proc_path(char *buf, size_t len, int fd)
{
	snprintf(buf, len, "/proc/self/fd/%d", fd);
}

static unsigned bucket_of(dev_t dev, ino_t ino)
{
	return (unsigned)((ino * 0x9e3779b97f4a7c15ull) ^ dev) % INODE_BUCKETS;
}

/* Finds or adds the node of (dev, ino), one more lookup; takes fd or
 * closes it when the node exists already. NULL on ENOMEM (fd closed). */
static struct snode *node_get(struct osp_stack_fs *fs, int fd, const struct stat *st)
{
	unsigned b = bucket_of(st->st_dev, st->st_ino);
	pthread_mutex_lock(&fs->lock);
	struct snode *n = fs->buckets[b];
	while (n && (n->dev != st->st_dev || n->ino != st->st_ino))
		n = n->next;
	if (n) {
		n->nlookup++;
		close(fd);
	} else if ((n = calloc(1, sizeof(*n)))) {
		*n = (struct snode){fd, st->st_dev, st->st_ino, 1, fs->buckets[b]};
		fs->buckets[b] = n;
	} else {
		close(fd);
	}
	pthread_mutex_unlock(&fs->lock);
	return n;
}

static void node_forget(struct osp_stack_fs *fs, struct snode *n, uint64_t count)
{
	if (n == &fs->root)
		return;
	pthread_mutex_lock(&fs->lock);
	n->nlookup = count > n->nlookup ? 0 : n->nlookup - count;
	if (!n->nlookup) {
		struct snode **pp = &fs->buckets[bucket_of(n->dev, n->ino)];
		while (*pp && *pp != n)
			pp = &(*pp)->next;
		if (*pp)
			*pp = n->next;
		close(n->fd);
		free(n);
	}
	pthread_mutex_unlock(&fs->lock);
}

/* Looks name up under parent into e; 0 or an errno. */
static int do_lookup(fuse_req_t req, fuse_ino_t parent, const char *name,
                     struct fuse_entry_param *e)
{
	memset(e, 0, sizeof(*e));
	e->attr_timeout = CACHE_TIMEOUT;
	e->entry_timeout = CACHE_TIMEOUT;
	int fd = openat(fd_of(req, parent), name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (fstatat(fd, "", &e->attr, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW)) {
		int err = errno;
		close(fd);
		return err;
	}
	struct snode *n = node_get(fs_of(req), fd, &e->attr);
	if (!n)
		return ENOMEM;
	e->ino = (uintptr_t)n;
	return 0;
}

static void reply_entry(fuse_req_t req, const struct op_t *t, enum osp_stack_op op,
                        fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e;
	int err = do_lookup(req, parent, name, &e);
	if (err)
		fuse_reply_err(req, err);
	else
		fuse_reply_entry(req, &e);
	t_end(t, op);
}

static void st_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct op_t t;
	t_begin(&t, req);
	reply_entry(req, &t, OSP_STACK_LOOKUP, parent, name);
}

static void st_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	struct op_t t;
	t_begin(&t, req);
	node_forget(fs_of(req), node_of(req, ino), nlookup);
	fuse_reply_none(req);
	t_end(&t, OSP_STACK_FORGET);
}

static void st_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets)
{
	struct op_t t;
	t_begin(&t, req);
	for (size_t i = 0; i < count; i++)
		node_forget(fs_of(req), node_of(req, forgets[i].ino), forgets[i].nlookup);
	fuse_reply_none(req);
	t_end(&t, OSP_STACK_FORGET);
}

static void reply_attr(fuse_req_t req, const struct op_t *t, enum osp_stack_op op, fuse_ino_t ino)
{
	struct stat st;
	if (fstatat(fd_of(req, ino), "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW))
		fuse_reply_err(req, errno);
	else
		fuse_reply_attr(req, &st, CACHE_TIMEOUT);
	t_end(t, op);
}

static void st_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)fi;
	struct op_t t;
	t_begin(&t, req);
	reply_attr(req, &t, OSP_STACK_GETATTR, ino);
}

static int set_times(int ffd, const char *path, const struct stat *attr, int valid)
{
	struct timespec tv[2] = {{0, UTIME_OMIT}, {0, UTIME_OMIT}};
	if (valid & FUSE_SET_ATTR_ATIME_NOW)
		tv[0].tv_nsec = UTIME_NOW;
	else if (valid & FUSE_SET_ATTR_ATIME)
		tv[0] = attr->st_atim;
	if (valid & FUSE_SET_ATTR_MTIME_NOW)
		tv[1].tv_nsec = UTIME_NOW;
	else if (valid & FUSE_SET_ATTR_MTIME)
		tv[1] = attr->st_mtim;
	return ffd >= 0 ? futimens(ffd, tv) : utimensat(AT_FDCWD, path, tv, 0);
}

static void st_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int valid,
                       struct fuse_file_info *fi)
{
	struct op_t t;
	t_begin(&t, req);
	int fd = fd_of(req, ino), ffd = fi ? ((struct sfile *)(uintptr_t)fi->fh)->fd : -1;
	char path[64];
	proc_path(path, sizeof(path), fd);
	int rc = 0;
	if (valid & FUSE_SET_ATTR_MODE)
		rc = ffd >= 0 ? fchmod(ffd, attr->st_mode) : chmod(path, attr->st_mode);
	if (!rc && (valid & (FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID))) {
		uid_t uid = (valid & FUSE_SET_ATTR_UID) ? attr->st_uid : (uid_t)-1;
		gid_t gid = (valid & FUSE_SET_ATTR_GID) ? attr->st_gid : (gid_t)-1;
		rc = fchownat(fd, "", uid, gid, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
	}
	if (!rc && (valid & FUSE_SET_ATTR_SIZE))
		rc = ffd >= 0 ? ftruncate(ffd, attr->st_size) : truncate(path, attr->st_size);
	if (!rc && (valid & (FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_ATIME_NOW |
	                     FUSE_SET_ATTR_MTIME_NOW)))
		rc = set_times(ffd, path, attr, valid);
	if (rc)
		reply_err(req, &t, OSP_STACK_SETATTR, errno);
	else
		reply_attr(req, &t, OSP_STACK_SETATTR, ino);
}

static void st_readlink(fuse_req_t req, fuse_ino_t ino)
{
	struct op_t t;
	t_begin(&t, req);
	char buf[PATH_MAX + 1];
	ssize_t n = readlinkat(fd_of(req, ino), "", buf, sizeof(buf));
	if (n < 0 || n == (ssize_t)sizeof(buf)) {
		reply_err(req, &t, OSP_STACK_READLINK, n < 0 ? errno : ENAMETOOLONG);
		return;
	}
	buf[n] = '\0';
	fuse_reply_readlink(req, buf);
	t_end(&t, OSP_STACK_READLINK);
}

/* As root, new files belong to the caller, not to osprof: the file-system
 * ids of the serving thread (per thread in Linux) are the caller's while
 * it creates one. */
struct as_caller {
	int on;
	uid_t uid;
	gid_t gid;
};

static void caller_enter(fuse_req_t req, struct as_caller *c)
{
	c->on = fs_of(req)->root_caller;
	if (!c->on)
		return;
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	c->gid = (gid_t)setfsgid(ctx->gid);
	c->uid = (uid_t)setfsuid(ctx->uid);
}

static void caller_leave(const struct as_caller *c)
{
	if (!c->on)
		return;
	setfsuid(c->uid);
	setfsgid(c->gid);
}

enum make_kind { MAKE_NOD, MAKE_DIR, MAKE_SYMLINK };

static void make_node(fuse_req_t req, enum osp_stack_op op, fuse_ino_t parent, const char *name,
                      enum make_kind kind, mode_t mode, dev_t rdev, const char *target)
{
	struct op_t t;
	t_begin(&t, req);
	int pfd = fd_of(req, parent), rc;
	struct as_caller c;
	caller_enter(req, &c);
	if (kind == MAKE_DIR)
		rc = mkdirat(pfd, name, mode);
	else if (kind == MAKE_SYMLINK)
		rc = symlinkat(target, pfd, name);
	else
		rc = mknodat(pfd, name, mode, rdev);
	int err = rc ? errno : 0;
	caller_leave(&c);
	if (err)
		reply_err(req, &t, op, err);
	else
		reply_entry(req, &t, op, parent, name);
}

static void st_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev)
{
	make_node(req, OSP_STACK_MKNOD, parent, name, MAKE_NOD, mode, rdev, NULL);
}

static void st_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	make_node(req, OSP_STACK_MKDIR, parent, name, MAKE_DIR, mode, 0, NULL);
}

static void st_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name)
{
	make_node(req, OSP_STACK_SYMLINK, parent, name, MAKE_SYMLINK, 0, 0, link);
}

static void st_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname)
{
	struct op_t t;
	t_begin(&t, req);
	char path[64];
	proc_path(path, sizeof(path), fd_of(req, ino));
	/* An O_PATH descriptor links only with CAP_DAC_READ_SEARCH; its
	 * /proc path links for anyone who may. */
	if (linkat(AT_FDCWD, path, fd_of(req, newparent), newname, AT_SYMLINK_FOLLOW))
		reply_err(req, &t, OSP_STACK_LINK, errno);
	else
		reply_entry(req, &t, OSP_STACK_LINK, newparent, newname);
}

static void remove_entry(fuse_req_t req, enum osp_stack_op op, fuse_ino_t parent, const char *name,
                         int flags)
{
	struct op_t t;
	t_begin(&t, req);
	int rc = unlinkat(fd_of(req, parent), name, flags);
	reply_err(req, &t, op, rc ? errno : 0);
}

static void st_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	remove_entry(req, OSP_STACK_UNLINK, parent, name, 0);
}

static void st_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	remove_entry(req, OSP_STACK_RMDIR, parent, name, AT_REMOVEDIR);
}

static void st_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent,
                      const char *newname, unsigned int flags)
{
	struct op_t t;
	t_begin(&t, req);
	int rc = renameat2(fd_of(req, parent), name, fd_of(req, newparent), newname, flags);
	reply_err(req, &t, OSP_STACK_RENAME, rc ? errno : 0);
}

static void handle_add(struct osp_stack_fs *fs, struct handle *h, int is_dir)
{
	h->is_dir = is_dir;
	pthread_mutex_lock(&fs->lock);
	h->next = fs->handles.next;
	h->prev = &fs->handles;
	h->next->prev = h;
	fs->handles.next = h;
	pthread_mutex_unlock(&fs->lock);
}

static void handle_del(struct osp_stack_fs *fs, struct handle *h)
{
	pthread_mutex_lock(&fs->lock);
	h->prev->next = h->next;
	h->next->prev = h->prev;
	pthread_mutex_unlock(&fs->lock);
}

static struct sfile *file_new(fuse_req_t req, int fd, struct fuse_file_info *fi)
{
	struct sfile *f = malloc(sizeof(*f));
	if (!f)
		return NULL;
	f->fd = fd;
	atomic_init(&f->next_off, 0);
	handle_add(fs_of(req), &f->h, 0);
	fi->fh = (uintptr_t)f;
	fi->direct_io = fs_of(req)->o.direct_io;
	return f;
}

static struct sfile *file_of(struct fuse_file_info *fi)
{
	return (struct sfile *)(uintptr_t)fi->fh;
}

static void st_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct op_t t;
	t_begin(&t, req);
	char path[64];
	proc_path(path, sizeof(path), fd_of(req, ino));
	int fd = open(path, (fi->flags & ~O_NOFOLLOW) | O_CLOEXEC);
	if (fd < 0) {
		reply_err(req, &t, OSP_STACK_OPEN, errno);
		return;
	}
	if (!file_new(req, fd, fi)) {
		close(fd);
		reply_err(req, &t, OSP_STACK_OPEN, ENOMEM);
		return;
	}
	if (fuse_reply_open(req, fi) == -ENOENT) { /* the caller was interrupted */
		close(fd);
		handle_del(fs_of(req), &file_of(fi)->h);
		free(file_of(fi));
	}
	t_end(&t, OSP_STACK_OPEN);
}

static void st_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
                      struct fuse_file_info *fi)
{
	struct op_t t;
	t_begin(&t, req);
	struct as_caller c;
	caller_enter(req, &c);
	int fd =
	    openat(fd_of(req, parent), name, (fi->flags | O_CREAT | O_CLOEXEC) & ~O_NOFOLLOW, mode);
	int err = fd < 0 ? errno : 0;
	caller_leave(&c);
	if (err) {
		reply_err(req, &t, OSP_STACK_CREATE, err);
		return;
	}
	struct fuse_entry_param e;
	if ((err = do_lookup(req, parent, name, &e)) || !file_new(req, fd, fi)) {
		close(fd);
		reply_err(req, &t, OSP_STACK_CREATE, err ? err : ENOMEM);
		return;
	}
	if (fuse_reply_create(req, &e, fi) == -ENOENT) {
		close(fd);
		handle_del(fs_of(req), &file_of(fi)->h);
		free(file_of(fi));
	}
	t_end(&t, OSP_STACK_CREATE);
}

/* 1 when a request starts where the previous one of its open file ended. */
static int offset_class(struct sfile *f, off_t off, size_t size)
{
	int64_t prev = atomic_exchange_explicit(&f->next_off, (int64_t)(off + (off_t)size),
	                                        memory_order_relaxed);
	return prev == (int64_t)off;
}

static void st_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                    struct fuse_file_info *fi)
{
	(void)ino;
	struct op_t t;
	t_begin(&t, req);
	struct sfile *f = file_of(fi);
	struct fuse_bufvec buf = FUSE_BUFVEC_INIT(size);
	buf.buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
	buf.buf[0].fd = f->fd;
	buf.buf[0].pos = off;
	/* Classified before the reply: after it, a release may free f. */
	int seq = offset_class(f, off, size);
	fuse_reply_data(req, &buf, FUSE_BUF_SPLICE_MOVE);
	t_end_io(&t, OSP_STACK_READ, (int64_t)size, seq);
}

static void st_write_buf(fuse_req_t req, fuse_ino_t ino, struct fuse_bufvec *in, off_t off,
                         struct fuse_file_info *fi)
{
	(void)ino;
	struct op_t t;
	t_begin(&t, req);
	struct sfile *f = file_of(fi);
	size_t size = fuse_buf_size(in);
	struct fuse_bufvec out = FUSE_BUFVEC_INIT(size);
	out.buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
	out.buf[0].fd = f->fd;
	out.buf[0].pos = off;
	ssize_t n = fuse_buf_copy(&out, in, 0);
	int seq = offset_class(f, off, size);
	if (n < 0)
		fuse_reply_err(req, (int)-n);
	else
		fuse_reply_write(req, (size_t)n);
	t_end_io(&t, OSP_STACK_WRITE, (int64_t)size, seq);
}

static void st_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	struct op_t t;
	t_begin(&t, req);
	/* Closing a duplicate runs the lower file system's flush (NFS writes
	 * back, locks are dropped) without closing the file itself. */
	int rc = close(dup(file_of(fi)->fd));
	reply_err(req, &t, OSP_STACK_FLUSH, rc ? errno : 0);
}

static void st_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	struct op_t t;
	t_begin(&t, req);
	struct sfile *f = file_of(fi);
	handle_del(fs_of(req), &f->h);
	close(f->fd);
	free(f);
	reply_err(req, &t, OSP_STACK_RELEASE, 0);
}

static void st_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
	(void)ino;
	struct op_t t;
	t_begin(&t, req);
	int fd = file_of(fi)->fd;
	int rc = datasync ? fdatasync(fd) : fsync(fd);
	reply_err(req, &t, OSP_STACK_FSYNC, rc ? errno : 0);
}

static struct sdir *dir_of(struct fuse_file_info *fi)
{
	return (struct sdir *)(uintptr_t)fi->fh;
}

static void st_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct op_t t;
	t_begin(&t, req);
	struct sdir *d = calloc(1, sizeof(*d));
	int fd = d ? openat(fd_of(req, ino), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	int err = !d ? ENOMEM : fd < 0 ? errno : 0;
	if (!err && !(d->dp = fdopendir(fd))) {
		err = errno;
		close(fd);
	}
	if (err) {
		free(d);
		reply_err(req, &t, OSP_STACK_OPENDIR, err);
		return;
	}
	fi->fh = (uintptr_t)d;
	handle_add(fs_of(req), &d->h, 1);
	if (fuse_reply_open(req, fi) == -ENOENT) {
		handle_del(fs_of(req), &d->h);
		closedir(d->dp);
		free(d);
	}
	t_end(&t, OSP_STACK_OPENDIR);
}

static void st_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                       struct fuse_file_info *fi)
{
	(void)ino;
	struct op_t t;
	t_begin(&t, req);
	struct sdir *d = dir_of(fi);
	char *buf = malloc(size), *p = buf;
	if (!buf) {
		reply_err(req, &t, OSP_STACK_READDIR, ENOMEM);
		return;
	}
	if (off != d->offset) {
		seekdir(d->dp, off);
		d->entry = NULL;
		d->offset = off;
	}
	size_t rem = size;
	int err = 0;
	for (;;) {
		if (!d->entry) {
			errno = 0;
			d->entry = readdir(d->dp);
			if (!d->entry) {
				err = errno;
				break;
			}
		}
		struct stat st = {.st_ino = d->entry->d_ino, .st_mode = d->entry->d_type << 12};
		off_t next = telldir(d->dp);
		size_t len = fuse_add_direntry(req, p, rem, d->entry->d_name, &st, next);
		if (len > rem)
			break; /* kept in d->entry for the next call */
		p += len;
		rem -= len;
		d->entry = NULL;
		d->offset = next;
	}
	/* An error after some entries is reported by the next call. */
	if (err && rem == size)
		fuse_reply_err(req, err);
	else
		fuse_reply_buf(req, buf, size - rem);
	free(buf);
	t_end(&t, OSP_STACK_READDIR);
}

static void st_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	struct op_t t;
	t_begin(&t, req);
	handle_del(fs_of(req), &dir_of(fi)->h);
	closedir(dir_of(fi)->dp);
	free(dir_of(fi));
	reply_err(req, &t, OSP_STACK_RELEASEDIR, 0);
}

static void st_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
	(void)ino;
	struct op_t t;
	t_begin(&t, req);
	int fd = dirfd(dir_of(fi)->dp);
	int rc = datasync ? fdatasync(fd) : fsync(fd);
	reply_err(req, &t, OSP_STACK_FSYNCDIR, rc ? errno : 0);
}

static void st_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct op_t t;
	t_begin(&t, req);
	struct statvfs sv;
	if (fstatvfs(fd_of(req, ino), &sv))
		fuse_reply_err(req, errno);
	else
		fuse_reply_statfs(req, &sv);
	t_end(&t, OSP_STACK_STATFS);
}

/* Replies to a getxattr/listxattr that returned n (size 0 asks the size). */
static void reply_xattr(fuse_req_t req, const struct op_t *t, enum osp_stack_op op, ssize_t n,
                        const char *buf, size_t size)
{
	if (n < 0)
		fuse_reply_err(req, errno);
	else if (!size)
		fuse_reply_xattr(req, (size_t)n);
	else
		fuse_reply_buf(req, buf, (size_t)n);
	t_end(t, op);
}

static void st_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name, const char *value,
                        size_t size, int flags)
{
	struct op_t t;
	t_begin(&t, req);
	char path[64];
	proc_path(path, sizeof(path), fd_of(req, ino));
	int rc = setxattr(path, name, value, size, flags);
	reply_err(req, &t, OSP_STACK_SETXATTR, rc ? errno : 0);
}

/* getxattr (name) or listxattr (name NULL); size 0 asks the size. */
static void get_xattrs(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size)
{
	enum osp_stack_op op = name ? OSP_STACK_GETXATTR : OSP_STACK_LISTXATTR;
	struct op_t t;
	t_begin(&t, req);
	char path[64], *buf = size ? malloc(size) : NULL;
	if (size && !buf) {
		reply_err(req, &t, op, ENOMEM);
		return;
	}
	proc_path(path, sizeof(path), fd_of(req, ino));
	ssize_t n = name ? getxattr(path, name, buf, size) : listxattr(path, buf, size);
	reply_xattr(req, &t, op, n, buf, size);
	free(buf);
}

static void st_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size)
{
	get_xattrs(req, ino, name, size);
}

static void st_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	get_xattrs(req, ino, NULL, size);
}

static void st_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
	struct op_t t;
	t_begin(&t, req);
	char path[64];
	proc_path(path, sizeof(path), fd_of(req, ino));
	int rc = removexattr(path, name);
	reply_err(req, &t, OSP_STACK_REMOVEXATTR, rc ? errno : 0);
}

static void st_access(fuse_req_t req, fuse_ino_t ino, int mask)
{
	struct op_t t;
	t_begin(&t, req);
	char path[64];
	proc_path(path, sizeof(path), fd_of(req, ino));
	int rc = faccessat(AT_FDCWD, path, mask, 0);
	reply_err(req, &t, OSP_STACK_ACCESS, rc ? errno : 0);
}

static void st_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset, off_t length,
                         struct fuse_file_info *fi)
{
	(void)ino;
	struct op_t t;
	t_begin(&t, req);
	int rc = fallocate(file_of(fi)->fd, mode, offset, length);
	reply_err(req, &t, OSP_STACK_FALLOCATE, rc ? errno : 0);
}

static void st_lseek(fuse_req_t req, fuse_ino_t ino, off_t off, int whence,
                     struct fuse_file_info *fi)
{
	(void)ino;
	struct op_t t;
	t_begin(&t, req);
	off_t res = lseek(file_of(fi)->fd, off, whence);
	if (res < 0)
		fuse_reply_err(req, errno);
	else
		fuse_reply_lseek(req, res);
	t_end(&t, OSP_STACK_LLSEEK);
}

static void st_copy_file_range(fuse_req_t req, fuse_ino_t ino_in, off_t off_in,
                               struct fuse_file_info *fi_in, fuse_ino_t ino_out, off_t off_out,
                               struct fuse_file_info *fi_out, size_t len, int flags)
{
	(void)ino_in;
	(void)ino_out;
	struct op_t t;
	t_begin(&t, req);
	ssize_t n = copy_file_range(file_of(fi_in)->fd, &off_in, file_of(fi_out)->fd, &off_out, len,
	                            (unsigned)flags);
	if (n < 0)
		fuse_reply_err(req, errno);
	else
		fuse_reply_write(req, (size_t)n);
	t_end_io(&t, OSP_STACK_COPY_FILE_RANGE, (int64_t)len, -1);
}

static const struct fuse_lowlevel_ops stack_ops = {
    .lookup = st_lookup,
    .forget = st_forget,
    .forget_multi = st_forget_multi,
    .getattr = st_getattr,
    .setattr = st_setattr,
    .readlink = st_readlink,
    .mknod = st_mknod,
    .mkdir = st_mkdir,
    .unlink = st_unlink,
    .rmdir = st_rmdir,
    .symlink = st_symlink,
    .rename = st_rename,
    .link = st_link,
    .open = st_open,
    .read = st_read,
    .write_buf = st_write_buf,
    .flush = st_flush,
    .release = st_release,
    .fsync = st_fsync,
    .opendir = st_opendir,
    .readdir = st_readdir,
    .releasedir = st_releasedir,
    .fsyncdir = st_fsyncdir,
    .statfs = st_statfs,
    .setxattr = st_setxattr,
    .getxattr = st_getxattr,
    .listxattr = st_listxattr,
    .removexattr = st_removexattr,
    .access = st_access,
    .create = st_create,
    .fallocate = st_fallocate,
    .lseek = st_lseek,
    .copy_file_range = st_copy_file_range,
};

void osp_stack_fs_type(const char *lower, char *out, size_t len)
{
	snprintf(out, len, "unknown");
	struct stat st;
	FILE *f = stat(lower, &st) ? NULL : fopen("/proc/self/mountinfo", "re");
	if (!f)
		return;
	char line[4096];
	while (fgets(line, sizeof(line), f)) {
		unsigned maj, min;
		char *sep = strstr(line, " - ");
		if (!sep || sscanf(line, "%*s %*s %u:%u", &maj, &min) != 2)
			continue;
		if (makedev(maj, min) != st.st_dev)
			continue;
		char type[256]; /* type names have no blanks to escape */
		if (sscanf(sep + 3, "%255s", type) == 1)
			snprintf(out, len, "%s", type);
	}
	fclose(f);
}

static void *loop_main(void *arg)
{
	struct osp_stack_fs *fs = arg;
	struct fuse_loop_config *cfg = fuse_loop_cfg_create();
	if (cfg) {
		fuse_loop_cfg_set_clone_fd(cfg, 0);
		fuse_session_loop_mt(fs->se, cfg);
		fuse_loop_cfg_destroy(cfg);
	}
	pthread_mutex_lock(&fs->end_lock);
	fs->ended = 1;
	pthread_cond_broadcast(&fs->end_cond);
	pthread_mutex_unlock(&fs->end_lock);
	if (fs->o.on_end)
		fs->o.on_end(fs->o.on_end_arg);
	return NULL;
}

/* Closes the handles never released; how many there were. */
static uint64_t close_unreleased(struct osp_stack_fs *fs)
{
	uint64_t n = 0;
	while (fs->handles.next != &fs->handles) {
		struct handle *h = fs->handles.next;
		handle_del(fs, h);
		if (h->is_dir)
			closedir(((struct sdir *)h)->dp);
		else
			close(((struct sfile *)h)->fd);
		free(h);
		n++;
	}
	return n;
}

static void fs_free(struct osp_stack_fs *fs)
{
	for (unsigned b = 0; b < INODE_BUCKETS; b++)
		while (fs->buckets[b]) {
			struct snode *n = fs->buckets[b];
			fs->buckets[b] = n->next;
			close(n->fd);
			free(n);
		}
	if (fs->root.fd >= 0)
		close(fs->root.fd);
	free(fs);
}

int osp_stack_fs_start(const struct osp_stack_fs_opts *o, struct osp_stack_fs **out, char *err,
                       size_t errlen)
{
	struct osp_stack_fs *fs = calloc(1, sizeof(*fs));
	if (!fs) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	fs->o = *o;
	fs->handles.next = fs->handles.prev = &fs->handles;
	fs->root_caller = geteuid() == 0;
	pthread_mutex_init(&fs->lock, NULL);
	pthread_mutex_init(&fs->end_lock, NULL);
	pthread_cond_init(&fs->end_cond, NULL);
	fs->root.fd = open(o->lower, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fs->root.fd < 0) {
		snprintf(err, errlen, "%s: %s", o->lower, strerror(errno));
		fs_free(fs);
		return -1;
	}
	fs->root.nlookup = 2;
	/* Permissions are the kernel's to check (against the lower mode bits
	 * passed up) whenever someone other than the owner may enter. */
	char *argv[] = {"osprof-mount", "-o",
	                o->allow_other
	                    ? "fsname=osprof,subtype=osprof,allow_other,default_permissions"
	                    : "fsname=osprof,subtype=osprof",
	                NULL};
	struct fuse_args args = FUSE_ARGS_INIT(3, argv);
	fs->se = fuse_session_new(&args, &stack_ops, sizeof(stack_ops), fs);
	fuse_opt_free_args(&args); /* libfuse copied what it parsed */
	if (!fs->se) {
		snprintf(err, errlen, "cannot start a FUSE session (libfuse said why above)");
		fs_free(fs);
		return -1;
	}
	if (fuse_session_mount(fs->se, o->mountpoint)) {
		snprintf(err, errlen, "%s: cannot mount (needs /dev/fuse and root or fusermount3)",
		         o->mountpoint);
		fuse_session_destroy(fs->se);
		fs_free(fs);
		return -1;
	}
	if (pthread_create(&fs->loop, NULL, loop_main, fs)) {
		snprintf(err, errlen, "cannot start the serving thread");
		fuse_session_unmount(fs->se);
		fuse_session_destroy(fs->se);
		fs_free(fs);
		return -1;
	}
	fs->loop_started = 1;
	/* The connection's number is the mount's anonymous device minor (the
	 * stat is served by the thread just started). */
	struct stat st;
	fs->conn_minor = stat(o->mountpoint, &st) ? 0 : minor(st.st_dev);
	*out = fs;
	return 0;
}

/* Detaches the mount as libfuse attached it: by umount2 as root, through
 * fusermount3 otherwise. Fails harmlessly when it is gone already. */
static void unmount_lazy(const char *mnt)
{
	if (geteuid() == 0) {
		umount2(mnt, MNT_DETACH);
		return;
	}
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0)
			dup2(null, 2);
		execlp("fusermount3", "fusermount3", "-u", "-z", "--", mnt, (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
}

/* Ends the connection so every blocked worker returns (root only). */
static void abort_conn(struct osp_stack_fs *fs)
{
	char path[96];
	snprintf(path, sizeof(path), "/sys/fs/fuse/connections/%u/abort", fs->conn_minor);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "1", 1) != 1) {
			/* nothing more to try: the loop is left to process exit */
		}
		close(fd);
	}
}

static int wait_end(struct osp_stack_fs *fs, unsigned ms)
{
	struct timespec dl;
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += ms / 1000;
	dl.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&fs->end_lock);
	while (!fs->ended)
		if (pthread_cond_timedwait(&fs->end_cond, &fs->end_lock, &dl))
			break;
	int ended = fs->ended;
	pthread_mutex_unlock(&fs->end_lock);
	return ended;
}

const char *osp_stack_fs_libfuse_version(void)
{
	return fuse_pkgversion();
}

int osp_stack_fs_stop(struct osp_stack_fs *fs, unsigned grace_ms, uint64_t *unreleased)
{
	*unreleased = 0;
	if (!fs)
		return 1;
	/* After a lazy unmount the kernel still sends the releases of files
	 * that were open; the session ends (ENODEV) once the last is closed.
	 * fuse_session_unmount would close the device under the threads. */
	unmount_lazy(fs->o.mountpoint);
	if (!wait_end(fs, grace_ms)) {
		abort_conn(fs);
		if (!wait_end(fs, 1000)) {
			/* Someone holds a file open and we cannot abort: leave the
			 * threads to the process's exit rather than hang. */
			return 0;
		}
	}
	pthread_join(fs->loop, NULL);
	/* The connection is gone now: this only closes the device and frees
	 * libfuse's copy of the mount point. */
	fuse_session_unmount(fs->se);
	fuse_session_destroy(fs->se);
	*unreleased = close_unreleased(fs);
	fs_free(fs);
	return 1;
}
