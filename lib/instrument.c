/* Source instrumentation (include/osprof/instrument.h).
 *
 * Each thread owns an array of histograms indexed by op id and is the only
 * writer of it, so recording is a plain increment: no atomics, no locks.
 * Threads register their storage in a global list the first time they record
 * and the storage outlives the thread, so samples of exited threads are still
 * merged when the profile is read. The list and every thread's pointer array
 * change only under `lock`, which is also held while reading, so a snapshot
 * never follows a freed pointer. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <osprof/instrument.h>

struct op_name {
	char *layer;
	char *op;
};

struct thread_hists {
	struct thread_hists *next;
	unsigned cap;        /* entries of h */
	struct osp_hist **h; /* indexed by op id; NULL until first sample */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct op_name *ops; /* ops[id - 1] */
static unsigned nops, ops_cap;
static struct thread_hists *threads;
static unsigned resolution;
static _Thread_local struct thread_hists *self;

static unsigned env_resolution(void)
{
	const char *s = getenv("OSPROF_RESOLUTION");
	if (s) {
		char *end;
		unsigned long r = strtoul(s, &end, 10);
		if (!*end && osp_resolution_valid((unsigned)r))
			return (unsigned)r;
	}
	return 1;
}

static void flush_at_exit(void)
{
	osp_instrument_flush(NULL);
}

/* fork: the child must not inherit a held lock, and its profile (written to
 * its own "%p" file) holds only its own operations. */
static void fork_prepare(void)
{
	pthread_mutex_lock(&lock);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&lock);
}

static void fork_child(void)
{
	for (struct thread_hists *t = threads; t; t = t->next)
		for (unsigned id = 0; id < t->cap; id++)
			if (t->h[id])
				osp_hist_reset(t->h[id]);
	pthread_mutex_unlock(&lock);
}

int osp_op_register(const char *layer, const char *op)
{
	int id = -ENOMEM;
	pthread_mutex_lock(&lock);
	if (!resolution) {
		resolution = env_resolution();
		atexit(flush_at_exit);
		pthread_atfork(fork_prepare, fork_parent, fork_child);
	}
	for (unsigned i = 0; i < nops; i++)
		if (!strcmp(ops[i].layer, layer) && !strcmp(ops[i].op, op)) {
			id = (int)i + 1;
			goto out;
		}
	if (nops == ops_cap) {
		unsigned cap = ops_cap ? 2 * ops_cap : 16;
		struct op_name *n = realloc(ops, cap * sizeof(*n));
		if (!n)
			goto out;
		ops = n;
		ops_cap = cap;
	}
	char *l = strdup(layer), *o = strdup(op);
	if (!l || !o) {
		free(l);
		free(o);
		goto out;
	}
	ops[nops].layer = l;
	ops[nops].op = o;
	id = (int)++nops;
out:
	pthread_mutex_unlock(&lock);
	return id;
}

/* Slow path: first sample of this thread or of this op in this thread. */
static struct osp_hist *thread_hist(int id)
{
	struct osp_hist *h = NULL;
	pthread_mutex_lock(&lock);
	if (id < 1 || (unsigned)id > nops)
		goto out;
	if (!self) {
		self = calloc(1, sizeof(*self));
		if (!self)
			goto out;
		self->next = threads;
		threads = self;
	}
	if ((unsigned)id >= self->cap) {
		unsigned cap = self->cap ? self->cap : 16;
		while (cap <= (unsigned)id)
			cap *= 2;
		struct osp_hist **n = realloc(self->h, cap * sizeof(*n));
		if (!n)
			goto out;
		memset(n + self->cap, 0, (cap - self->cap) * sizeof(*n));
		self->h = n;
		self->cap = cap;
	}
	if (!self->h[id]) {
		h = calloc(1, sizeof(*h));
		if (!h || osp_hist_init(h, resolution)) {
			free(h);
			h = NULL;
			goto out;
		}
		self->h[id] = h;
	}
	h = self->h[id];
out:
	pthread_mutex_unlock(&lock);
	return h;
}

void osp_op_record(int id, uint64_t ns)
{
	struct thread_hists *t = self;
	struct osp_hist *h;
	if (t && id > 0 && (unsigned)id < t->cap && (h = t->h[id]))
		osp_hist_add(h, ns);
	else if ((h = thread_hist(id)))
		osp_hist_add(h, ns);
}

struct osp_set *osp_instrument_snapshot(void)
{
	pthread_mutex_lock(&lock);
	struct osp_set *s = osp_set_new(resolution ? resolution : env_resolution());
	if (!s)
		goto out;
	osp_set_stamp_host(s);
	osp_set_meta(s, "layers", OSP_LAYER_APP);
	osp_set_metaf(s, "pid", "%ld", (long)getpid());
	char comm[17] = "";
	if (!prctl(PR_GET_NAME, comm, 0, 0, 0) && comm[0])
		osp_set_meta(s, "comm", comm);
	for (unsigned id = 1; id <= nops; id++) {
		struct osp_profile *p = NULL;
		for (struct thread_hists *t = threads; t; t = t->next) {
			if (id >= t->cap || !t->h[id] || !t->h[id]->count)
				continue;
			if (!p)
				p = osp_set_get(s, ops[id - 1].layer, ops[id - 1].op, NULL, 0);
			if (!p || osp_hist_merge(&p->hist, t->h[id])) {
				osp_set_free(s);
				s = NULL;
				goto out;
			}
		}
	}
out:
	pthread_mutex_unlock(&lock);
	return s;
}

/* "%p" in $OSPROF_OUTPUT becomes the pid, so that every process of a
 * forking program writes its own file. */
static int output_path(const char *tmpl, char *buf, size_t len)
{
	size_t o = 0;
	for (const char *p = tmpl; *p; p++) {
		int n;
		if (p[0] == '%' && p[1] == 'p') {
			n = snprintf(buf + o, len - o, "%ld", (long)getpid());
			p++;
		} else {
			n = snprintf(buf + o, len - o, "%c", *p);
		}
		if (n < 0 || (size_t)n >= len - o)
			return -ENAMETOOLONG;
		o += (size_t)n;
	}
	return 0;
}

int osp_instrument_flush(const char *path)
{
	char buf[4096];
	if (!path)
		path = getenv("OSPROF_OUTPUT");
	if (path && *path) {
		int e = output_path(path, buf, sizeof(buf));
		if (e)
			return e;
		path = buf;
	} else {
		path = NULL;
	}
	struct osp_set *s = osp_instrument_snapshot();
	if (!s)
		return -ENOMEM;
	int e = 0;
	if (path) {
		char err[512];
		e = osp_set_save(s, path, err, sizeof(err));
		if (e)
			fprintf(stderr, "osprof: cannot write %s\n", err);
	} else {
		e = osp_set_write(s, stderr);
		fflush(stderr);
	}
	osp_set_free(s);
	return e;
}
