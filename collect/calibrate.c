/* Measures the characteristic times of this machine (seed 001 §3.1 "prior
 * knowledge"): small workloads known to show one peak each, profiled into a
 * set whose layer is "calib" (analysis/calib.c reads it). Each item is
 * short so the whole run takes ~1-2 s. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <osprof/analysis.h>
#include <osprof/clock.h>
#include "collect/calibrate.h"

#define CALIB_R 4
#define FILE_MB 16

static volatile sig_atomic_t stop_flag;

void osp_calibrate_stop(void)
{
	stop_flag = 1;
}

static int stopped(void)
{
	return stop_flag != 0;
}

static struct osp_profile *prof(struct osp_set *s, const char *op)
{
	return osp_set_get(s, OSP_CALIB_LAYER, op, NULL, 0);
}

static void rec(struct osp_set *s, struct osp_profile *p, uint64_t v)
{
	if (p)
		osp_profile_add(s, p, v, 0);
}

static void skipped(FILE *log, const char *op, const char *why)
{
	if (log)
		fprintf(log, "calibrate: skipped %s: %s\n", op, why);
}

static uint64_t rnd(uint64_t *x)
{
	/* xorshift64: reproducible offsets without touching rand()'s state. */
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void null_syscall(struct osp_set *s)
{
	struct osp_profile *p = prof(s, "null_syscall");
	for (int i = 0; i < 20000 && !stopped(); i++) {
		uint64_t t0 = osp_now_ns();
		syscall(SYS_getppid);
		rec(s, p, osp_now_ns() - t0);
	}
}

static int make_file(const char *dir, char *path, size_t len, FILE *log)
{
	struct statfs sf;
	/* tmpfs has no disk behind it (and refuses O_DIRECT): its "disk"
	 * times would be memory times under disk names. */
	if (statfs(dir, &sf) == 0 && (sf.f_type == TMPFS_MAGIC || sf.f_type == RAMFS_MAGIC)) {
		skipped(log, "disk items",
		        "the directory is on tmpfs/ramfs; use --dir on a real disk");
		return -1;
	}
	snprintf(path, len, "%s/osprof-calib.%d", dir, (int)getpid());
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		skipped(log, "disk file", strerror(errno));
		return -1;
	}
	char *buf = malloc(1 << 20);
	if (!buf) {
		close(fd);
		unlink(path);
		return -1;
	}
	uint64_t x = 88172645463325252ull;
	for (size_t i = 0; i < (1u << 20) / 8; i++)
		((uint64_t *)buf)[i] = rnd(&x);
	for (int i = 0; i < FILE_MB; i++)
		if (write(fd, buf, 1 << 20) != 1 << 20) {
			skipped(log, "disk file", "short write");
			free(buf);
			close(fd);
			unlink(path);
			return -1;
		}
	free(buf);
	fdatasync(fd);
	return fd;
}

static void file_reads(struct osp_set *s, int fd, const char *path, FILE *log)
{
	char *buf;
	if (posix_memalign((void **)&buf, 4096, 65536))
		return;
	uint64_t x = 2463534242ull;
	/* Page-cache reads on the first MiB, read once to warm it. */
	struct osp_profile *p = prof(s, "pagecache_read_4k");
	for (int i = 0; i < 256; i++)
		if (pread(fd, buf, 4096, (off_t)i * 4096) < 0)
			break;
	for (int i = 0; i < 5000 && !stopped(); i++) {
		off_t off = (off_t)(rnd(&x) % 256) * 4096;
		uint64_t t0 = osp_now_ns();
		ssize_t n = pread(fd, buf, 4096, off);
		uint64_t t = osp_now_ns() - t0;
		if (n == 4096)
			rec(s, p, t);
	}
	int dfd = open(path, O_RDONLY | O_DIRECT);
	if (dfd < 0) {
		skipped(log, "odirect_read_4k", "O_DIRECT not supported on this directory");
		free(buf);
		return;
	}
	p = prof(s, "odirect_read_4k");
	uint64_t blocks = (uint64_t)FILE_MB * 256;
	for (int i = 0; i < 400 && !stopped(); i++) {
		off_t off = (off_t)(rnd(&x) % blocks) * 4096;
		uint64_t t0 = osp_now_ns();
		ssize_t n = pread(dfd, buf, 4096, off);
		uint64_t t = osp_now_ns() - t0;
		if (n != 4096) {
			skipped(log, "odirect_read_4k", "O_DIRECT read failed");
			break;
		}
		rec(s, p, t);
	}
	p = prof(s, "seq_read_64k");
	for (off_t off = 0; off + 65536 <= (off_t)FILE_MB << 20 && !stopped(); off += 65536) {
		uint64_t t0 = osp_now_ns();
		ssize_t n = pread(dfd, buf, 65536, off);
		uint64_t t = osp_now_ns() - t0;
		if (n != 65536)
			break;
		rec(s, p, t);
	}
	close(dfd);
	p = prof(s, "write_fsync_4k");
	for (int i = 0; i < 30 && !stopped(); i++) {
		uint64_t t0 = osp_now_ns();
		if (pwrite(fd, buf, 4096, (off_t)i * 4096) != 4096 || fsync(fd))
			break;
		rec(s, p, osp_now_ns() - t0);
	}
	free(buf);
}

static int pin_to(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* Round trip of one byte between two processes on one CPU: two switches. */
static void ctx_switch(struct osp_set *s, FILE *log)
{
	int ab[2], ba[2];
	if (pipe(ab) || pipe(ba)) {
		skipped(log, "ctx_switch", strerror(errno));
		return;
	}
	cpu_set_t old;
	sched_getaffinity(0, sizeof(old), &old);
	int cpu = sched_getcpu();
	pin_to(cpu < 0 ? 0 : cpu);
	pid_t pid = fork();
	if (pid == 0) {
		char c;
		close(ab[1]);
		close(ba[0]);
		while (read(ab[0], &c, 1) == 1 && write(ba[1], &c, 1) == 1)
			;
		_exit(0);
	}
	close(ab[0]);
	close(ba[1]);
	if (pid > 0) {
		struct osp_profile *p = prof(s, "ctx_switch");
		char c = 'x';
		for (int i = 0; i < 3000 && !stopped(); i++) {
			uint64_t t0 = osp_now_ns();
			if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
				break;
			rec(s, p, (osp_now_ns() - t0) / 2);
		}
	} else {
		skipped(log, "ctx_switch", strerror(errno));
	}
	close(ab[1]);
	close(ba[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	sched_setaffinity(0, sizeof(old), &old);
}

static long futex(atomic_int *uaddr, int op, int val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

struct wake {
	atomic_int word; /* futex: the iteration the waiter may pass */
	atomic_int go, ready, done;
	atomic_int abort; /* the waker stopped early (interrupted) */
	atomic_uint_fast64_t t0;
	pthread_mutex_t lock;
	struct osp_set *s;
	struct osp_profile *p;
	int mutex_mode, n;
	int cpu; /* the waiter's CPU */
};

static void spin_ns(uint64_t ns)
{
	uint64_t end = osp_now_ns() + ns;
	while (osp_now_ns() < end)
		;
}

static void wait_for(atomic_int *v, int i, atomic_int *abort)
{
	while (atomic_load(v) < i && !(abort && atomic_load(abort)))
		sched_yield();
}

static void *waiter(void *arg)
{
	struct wake *w = arg;
	pin_to(w->cpu);
	for (int i = 1; i <= w->n; i++) {
		wait_for(&w->go, i, &w->abort);
		if (atomic_load(&w->go) < i)
			break;
		atomic_store(&w->ready, i);
		uint64_t t;
		if (w->mutex_mode) {
			pthread_mutex_lock(&w->lock);
			t = osp_now_ns() - atomic_load(&w->t0);
			pthread_mutex_unlock(&w->lock);
		} else {
			int cur;
			while ((cur = atomic_load(&w->word)) < i)
				futex(&w->word, FUTEX_WAIT_PRIVATE, cur);
			t = osp_now_ns() - atomic_load(&w->t0);
		}
		rec(w->s, w->p, t);
		atomic_store(&w->done, i);
	}
	return NULL;
}

/* Per iteration the waker lets the waiter block (30 us), stamps the time
 * and releases it (futex wake or mutex unlock): the sample is the time until
 * the woken thread runs. Sequence numbers keep the two in lock step.
 * same_cpu: both threads on one CPU (a hand-off is a context switch), else
 * the waiter on another CPU (a wake-up IPI; when that CPU sits idle, as on
 * an unloaded VM, its idle exit is included: much slower than when busy). */
static void wakeups(struct osp_set *s, const char *op, int mutex_mode, int same_cpu, int n)
{
	struct wake w = {.s = s, .p = prof(s, op), .mutex_mode = mutex_mode, .n = n};
	cpu_set_t old;
	sched_getaffinity(0, sizeof(old), &old);
	int cpu = sched_getcpu() < 0 ? 0 : sched_getcpu();
	w.cpu = cpu;
	for (int c = 0; !same_cpu && c < CPU_SETSIZE; c++)
		if (c != cpu && CPU_ISSET(c, &old)) {
			w.cpu = c;
			break;
		}
	pin_to(cpu);
	pthread_mutex_init(&w.lock, NULL);
	pthread_t th;
	if (pthread_create(&th, NULL, waiter, &w)) {
		sched_setaffinity(0, sizeof(old), &old);
		return;
	}
	for (int i = 1; i <= n && !stopped(); i++) {
		if (mutex_mode)
			pthread_mutex_lock(&w.lock);
		atomic_store(&w.go, i);
		wait_for(&w.ready, i, NULL);
		spin_ns(30000);
		atomic_store(&w.t0, osp_now_ns());
		if (mutex_mode) {
			pthread_mutex_unlock(&w.lock);
		} else {
			atomic_store(&w.word, i);
			futex(&w.word, FUTEX_WAKE_PRIVATE, 1);
		}
		wait_for(&w.done, i, NULL);
	}
	atomic_store(&w.abort, 1);
	pthread_join(th, NULL);
	pthread_mutex_destroy(&w.lock);
	sched_setaffinity(0, sizeof(old), &old);
}

struct hog {
	struct osp_set *s;
	struct osp_profile *p;
	uint64_t min_gap, until;
	int cpu;
	pthread_mutex_t *m;
	int runs; /* record the run lengths between gaps instead of the gaps */
};

/* Busy loop watching its own clock readings: a gap is time the CPU was
 * taken away (an interrupt, other threads); a run is how long the loop ran
 * between two gaps, i.e. its time slice when gaps are preemptions. */
static void *gaps(void *arg)
{
	struct hog *h = arg;
	if (h->cpu >= 0)
		pin_to(h->cpu);
	uint64_t last = osp_now_ns(), run_start = 0;
	while (last < h->until && !stopped()) {
		uint64_t now = osp_now_ns();
		if (now - last >= h->min_gap) {
			/* The first run started at an unknown point: skip it. */
			uint64_t v = h->runs ? (run_start ? last - run_start : 0) : now - last;
			run_start = now;
			if (v) {
				pthread_mutex_lock(h->m);
				rec(h->s, h->p, v);
				pthread_mutex_unlock(h->m);
			}
		}
		last = now;
	}
	return NULL;
}

static void timer(struct osp_set *s)
{
	struct timespec res;
	if (clock_getres(CLOCK_MONOTONIC_COARSE, &res) == 0)
		rec(s, prof(s, "timer_tick"),
		    (uint64_t)res.tv_sec * 1000000000ull + (uint64_t)res.tv_nsec);
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	struct hog h = {s, prof(s, "timer_irq"), 700, osp_now_ns() + 100000000ull, -1, &m, 0};
	gaps(&h);
}

/* Two hogs on one CPU: each one's runs between preemptions (gaps of 50 us
 * or more) are its time slices, the Q of seed 000 §3.3. Their gaps would
 * measure (P-1)Q instead, P growing with whatever else runs there. */
static void sched_slice(struct osp_set *s, FILE *log)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	int cpu = sched_getcpu();
	uint64_t until = osp_now_ns() + 300000000ull;
	struct hog h[2] = {{s, prof(s, "sched_slice"), 50000, until, cpu < 0 ? 0 : cpu, &m, 1},
	                   {s, prof(s, "sched_slice"), 50000, until, cpu < 0 ? 0 : cpu, &m, 1}};
	pthread_t th[2];
	int started = 0;
	for (int i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, gaps, &h[i]) == 0)
			started++;
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	if (started < 2)
		skipped(log, "sched_slice", "cannot start threads");
}

struct echo {
	int lfd;
};

static void *echo_server(void *arg)
{
	struct echo *e = arg;
	int fd = accept(e->lfd, NULL, NULL);
	if (fd < 0)
		return NULL;
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	char c;
	while (read(fd, &c, 1) == 1 && write(fd, &c, 1) == 1)
		;
	close(fd);
	return NULL;
}

static void tcp_round_trips(struct osp_set *s, FILE *log)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t sl = sizeof(sa);
	struct echo e = {socket(AF_INET, SOCK_STREAM, 0)};
	if (e.lfd < 0 || bind(e.lfd, (struct sockaddr *)&sa, sl) || listen(e.lfd, 1) ||
	    getsockname(e.lfd, (struct sockaddr *)&sa, &sl)) {
		skipped(log, "tcp_rtt", strerror(errno));
		if (e.lfd >= 0)
			close(e.lfd);
		return;
	}
	pthread_t th;
	if (pthread_create(&th, NULL, echo_server, &e)) {
		close(e.lfd);
		return;
	}
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sl) == 0) {
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		struct osp_profile *p = prof(s, "tcp_rtt");
		char c = 'x';
		for (int i = 0; i < 2000 && !stopped(); i++) {
			uint64_t t0 = osp_now_ns();
			if (write(fd, &c, 1) != 1 || read(fd, &c, 1) != 1)
				break;
			rec(s, p, osp_now_ns() - t0);
		}
	} else {
		skipped(log, "tcp_rtt", strerror(errno));
	}
	if (fd >= 0)
		close(fd);
	else
		shutdown(e.lfd, SHUT_RDWR);
	pthread_join(th, NULL);
	close(e.lfd);
}

/* Client and echo server on one CPU: across CPUs each round trip pays two
 * wake-ups of an idle CPU (thread_wakeup), and the scheduler chose either
 * placement from run to run (median 12 us one run, 71 us the next here). */
static void tcp_rtt(struct osp_set *s, FILE *log)
{
	cpu_set_t old;
	sched_getaffinity(0, sizeof(old), &old);
	pin_to(sched_getcpu() < 0 ? 0 : sched_getcpu());
	tcp_round_trips(s, log);
	sched_setaffinity(0, sizeof(old), &old);
}

struct osp_set *osp_calibrate(const char *dir, FILE *log)
{
	struct osp_set *s = osp_set_new(CALIB_R);
	if (!s)
		return NULL;
	osp_set_stamp_host(s);
	osp_set_meta(s, "command", "osprof calibrate");
	osp_set_meta(s, "layers", OSP_CALIB_LAYER);
	uint64_t t0 = osp_now_ns();
	null_syscall(s);
	char path[4096];
	int fd = make_file(dir ? dir : "/var/tmp", path, sizeof(path), log);
	if (fd >= 0) {
		file_reads(s, fd, path, log);
		close(fd);
		unlink(path);
	}
	/* Each item checks the stop flag too; skipped ones stay empty. */
	if (!stopped())
		ctx_switch(s, log);
	if (!stopped())
		wakeups(s, "thread_wakeup", 0, 0, 1000);
	if (!stopped())
		wakeups(s, "futex_handoff", 1, 1, 1000);
	if (!stopped())
		timer(s);
	if (!stopped())
		sched_slice(s, log);
	if (!stopped())
		tcp_rtt(s, log);
	if (stopped())
		osp_set_meta(s, "interrupted", "1");
	osp_set_metaf(s, "duration_ns", "%llu", (unsigned long long)(osp_now_ns() - t0));
	return s;
}
