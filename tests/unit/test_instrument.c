/* Source instrumentation: exact counts from many threads, data of exited
 * threads kept, flush to $OSPROF_OUTPUT with "%p" and read back. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>
#include <osprof/instrument.h>
#include "tests/unit/check.h"

#define NTHREADS 8
#define NOPS     1000000

static volatile uint64_t sink;

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < NOPS; i++) {
		OSP_PRE(work);
		sink += (uint64_t)i;
		OSP_POST(work);
	}
	for (int i = 0; i < NOPS / 10; i++) {
		OSP_PRE(other);
		OSP_POST(other);
	}
	return NULL;
}

static uint64_t bucket_sum(const struct osp_hist *h)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < h->nbuckets; i++)
		n += h->buckets[i];
	return n;
}

static void test_register_idempotent(void)
{
	int a = osp_op_register("app", "x");
	int b = osp_op_register("app", "y");
	CHECK(a >= 1);
	CHECK(b >= 1 && b != a);
	CHECK_EQ_U64(osp_op_register("app", "x"), a);
	CHECK(osp_op_register("other", "x") != a);
}

/* Threads are joined (their storage would be gone if it were freed at thread
 * exit) before the snapshot, so the counts prove nothing of theirs is lost. */
static void test_threads_exact(void)
{
	pthread_t t[NTHREADS];
	for (int i = 0; i < NTHREADS; i++)
		CHECK(pthread_create(&t[i], NULL, worker, NULL) == 0);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	struct osp_set *s = osp_instrument_snapshot();
	CHECK(s != NULL);
	if (!s)
		return;
	struct osp_profile *w = osp_set_find(s, OSP_LAYER_APP, "work", NULL, 0);
	struct osp_profile *o = osp_set_find(s, OSP_LAYER_APP, "other", NULL, 0);
	CHECK(w && o);
	if (w && o) {
		CHECK_EQ_U64(w->hist.count, (uint64_t)NTHREADS * NOPS);
		CHECK_EQ_U64(bucket_sum(&w->hist), w->hist.count);
		CHECK_EQ_U64(o->hist.count, (uint64_t)NTHREADS * (NOPS / 10));
		CHECK_EQ_U64(bucket_sum(&o->hist), o->hist.count);
		CHECK(osp_hist_check(&w->hist) == 0);
		CHECK(w->hist.min <= w->hist.max);
		CHECK(w->hist.total >= w->hist.min * w->hist.count);
	}
	osp_set_free(s);
}

/* A forked child starts from an empty profile and writes its own file. */
static void test_fork_flush_pid_file(void)
{
	char dir[] = "/tmp/osprof-instr.XXXXXX", tmpl[128], path[128];
	CHECK(mkdtemp(dir) != NULL);
	snprintf(tmpl, sizeof(tmpl), "%s/out.%%p.osp", dir);
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 1000; i++) {
			OSP_PRE(child_op);
			OSP_POST(child_op);
		}
		_exit(osp_instrument_flush(tmpl) ? 1 : 0);
	}
	int st = 0;
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	snprintf(path, sizeof(path), "%s/out.%ld.osp", dir, (long)pid);
	struct osp_set *s = NULL;
	char err[256] = "";
	CHECK(osp_set_load(path, &s, err, sizeof(err)) == 0);
	if (s) {
		struct osp_profile *c = osp_set_find(s, OSP_LAYER_APP, "child_op", NULL, 0);
		CHECK(c && c->hist.count == 1000);
		/* The parent's samples stayed in the parent. */
		CHECK(osp_set_find(s, OSP_LAYER_APP, "work", NULL, 0) == NULL);
		osp_set_free(s);
	} else {
		fprintf(stderr, "%s\n", err);
	}
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	/* The atexit flush must not spill onto the test output. */
	setenv("OSPROF_OUTPUT", "/dev/null", 1);
	RUN(test_register_idempotent);
	RUN(test_threads_exact);
	RUN(test_fork_flush_pid_file);
	CHECK_EXIT();
}
