/* Per-thread profile sets of the stack layer. A FUSE worker thread takes a
 * slot on its first operation (the only locked step) and gives it back when
 * it ends, so a pool that grows and shrinks reuses the same few sets; the
 * sets are added together once the file system has stopped. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "collect/stack_stats.h"

const char *const osp_stack_op_names[OSP_STACK_NOPS] = {
    [OSP_STACK_LOOKUP] = "lookup",
    [OSP_STACK_FORGET] = "forget",
    [OSP_STACK_GETATTR] = "getattr",
    [OSP_STACK_SETATTR] = "setattr",
    [OSP_STACK_READLINK] = "readlink",
    [OSP_STACK_MKNOD] = "mknod",
    [OSP_STACK_MKDIR] = "mkdir",
    [OSP_STACK_UNLINK] = "unlink",
    [OSP_STACK_RMDIR] = "rmdir",
    [OSP_STACK_SYMLINK] = "symlink",
    [OSP_STACK_RENAME] = "rename",
    [OSP_STACK_LINK] = "link",
    [OSP_STACK_OPEN] = "open",
    [OSP_STACK_READ] = "read",
    [OSP_STACK_WRITE] = "write",
    [OSP_STACK_FLUSH] = "flush",
    [OSP_STACK_RELEASE] = "release",
    [OSP_STACK_FSYNC] = "fsync",
    [OSP_STACK_OPENDIR] = "opendir",
    [OSP_STACK_READDIR] = "readdir",
    [OSP_STACK_RELEASEDIR] = "releasedir",
    [OSP_STACK_FSYNCDIR] = "fsyncdir",
    [OSP_STACK_STATFS] = "statfs",
    [OSP_STACK_SETXATTR] = "setxattr",
    [OSP_STACK_GETXATTR] = "getxattr",
    [OSP_STACK_LISTXATTR] = "listxattr",
    [OSP_STACK_REMOVEXATTR] = "removexattr",
    [OSP_STACK_ACCESS] = "access",
    [OSP_STACK_CREATE] = "create",
    [OSP_STACK_FALLOCATE] = "fallocate",
    [OSP_STACK_LLSEEK] = "llseek",
    [OSP_STACK_COPY_FILE_RANGE] = "copy_file_range",
};

/* Who a FUSE request came from: the kernel gives the calling thread's id;
 * --by pid wants its process and --by comm its name, read from /proc once
 * per thread id and kept (a direct-mapped cache, per worker). */
struct task_entry {
	pid_t tid, tgid;
	char comm[20];
};
#define TASK_CACHE 256

struct slot {
	struct osp_set *set;
	struct osp_profile *plain[OSP_STACK_NOPS]; /* keys without per-call dims */
	struct task_entry tasks[TASK_CACHE];
	uint64_t lost;
	int in_use;
	struct slot *next;
};

static struct {
	struct osp_stack_stats_cfg cfg;
	char fs[64];
	pthread_mutex_t lock;
	pthread_key_t key;
	struct slot *all;
	int ready;
} g = {.lock = PTHREAD_MUTEX_INITIALIZER};

static __thread struct slot *self;

static void slot_release(void *arg)
{
	struct slot *sl = arg;
	pthread_mutex_lock(&g.lock);
	sl->in_use = 0;
	pthread_mutex_unlock(&g.lock);
}

int osp_stack_stats_init(const struct osp_stack_stats_cfg *cfg)
{
	if (g.ready)
		return -EBUSY;
	g.cfg = *cfg;
	snprintf(g.fs, sizeof(g.fs), "%s", cfg->fs ? cfg->fs : "unknown");
	g.cfg.fs = g.fs;
	if (pthread_key_create(&g.key, slot_release))
		return -EAGAIN;
	g.ready = 1;
	return 0;
}

static struct slot *slot_get(void)
{
	if (self)
		return self;
	pthread_mutex_lock(&g.lock);
	struct slot *sl = g.all;
	while (sl && sl->in_use)
		sl = sl->next;
	if (!sl) {
		sl = calloc(1, sizeof(*sl));
		if (sl && !(sl->set = osp_set_new(g.cfg.r))) {
			free(sl);
			sl = NULL;
		}
		if (sl) {
			sl->set->slice_ns = g.cfg.slice_ns;
			sl->next = g.all;
			g.all = sl;
		}
	}
	if (sl)
		sl->in_use = 1;
	pthread_mutex_unlock(&g.lock);
	if (sl) {
		pthread_setspecific(g.key, sl);
		self = sl;
	}
	return sl;
}

static void task_read(struct task_entry *t, pid_t tid)
{
	char path[64], buf[1024];
	t->tid = tid;
	t->tgid = tid;
	snprintf(t->comm, sizeof(t->comm), "?");
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return; /* gone already (a release after exit): its tid stands */
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	char *name = strstr(buf, "Name:\t"), *tgid = strstr(buf, "\nTgid:\t");
	if (name) {
		name += 6;
		size_t len = strcspn(name, "\n");
		if (len >= sizeof(t->comm))
			len = sizeof(t->comm) - 1;
		memcpy(t->comm, name, len);
		t->comm[len] = '\0';
	}
	if (tgid)
		t->tgid = (pid_t)atoi(tgid + 7);
}

static const struct task_entry *task_of(struct slot *sl, pid_t tid)
{
	struct task_entry *t = &sl->tasks[(unsigned)tid % TASK_CACHE];
	if (t->tid != tid)
		task_read(t, tid);
	return t;
}

static struct osp_profile *profile_for(struct slot *sl, enum osp_stack_op op,
                                       const struct osp_stack_sample *smp)
{
	int by = g.cfg.by != OSP_STACK_BY_NONE && smp && smp->tid > 0;
	int size = g.cfg.corr_size && smp && smp->size >= 0;
	int seq = g.cfg.corr_offset && smp && smp->offset_seq >= 0;
	if (!by && !size && !seq) {
		if (!sl->plain[op]) {
			struct osp_dim fs = {"fs", g.fs};
			sl->plain[op] =
			    osp_set_get(sl->set, "stack", osp_stack_op_names[op], &fs, 1);
		}
		return sl->plain[op];
	}
	struct osp_dim d[4];
	char pid[16], sz[24];
	unsigned n = 0;
	d[n++] = (struct osp_dim){"fs", g.fs};
	if (by) {
		const struct task_entry *t = task_of(sl, smp->tid);
		if (g.cfg.by == OSP_STACK_BY_PID) {
			snprintf(pid, sizeof(pid), "%d", (int)t->tgid);
			d[n++] = (struct osp_dim){"pid", pid};
		} else {
			d[n++] = (struct osp_dim){"comm", (char *)t->comm};
		}
	}
	if (size) {
		/* The power of two at or below the request: 4096 holds 4096..8191. */
		uint64_t v = (uint64_t)smp->size;
		snprintf(sz, sizeof(sz), "%llu", v ? 1ull << (63 - __builtin_clzll(v)) : 0ull);
		d[n++] = (struct osp_dim){"size", sz};
	}
	if (seq)
		d[n++] = (struct osp_dim){"offset", smp->offset_seq ? "seq" : "rand"};
	return osp_set_get(sl->set, "stack", osp_stack_op_names[op], d, n);
}

void osp_stack_stats_add(enum osp_stack_op op, uint64_t t0, uint64_t t1,
                         const struct osp_stack_sample *smp)
{
	struct slot *sl = slot_get();
	if (!sl)
		return; /* no memory for a slot: nowhere to count the loss either */
	struct osp_profile *p = profile_for(sl, op, smp);
	if (!p) {
		sl->lost++;
		return;
	}
	osp_profile_add(sl->set, p, t1 - t0, t0 > g.cfg.start_ns ? t0 - g.cfg.start_ns : 0);
}

int osp_stack_stats_merge(struct osp_set *dst, char *err, size_t errlen)
{
	uint64_t lost = 0;
	pthread_mutex_lock(&g.lock);
	int rc = 0;
	for (struct slot *sl = g.all; sl && !rc; sl = sl->next) {
		rc = osp_set_merge(dst, sl->set, err, errlen);
		lost += sl->lost;
	}
	pthread_mutex_unlock(&g.lock);
	if (!rc && lost)
		osp_meta_add_u64(dst, "lost_events", lost);
	return rc;
}

void osp_stack_stats_free(void)
{
	pthread_mutex_lock(&g.lock);
	while (g.all) {
		struct slot *sl = g.all;
		g.all = sl->next;
		osp_set_free(sl->set);
		free(sl);
	}
	pthread_mutex_unlock(&g.lock);
	if (g.ready)
		pthread_key_delete(g.key);
	g.ready = 0;
	self = NULL;
}
