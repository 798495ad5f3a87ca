/* Workloads for the labelled diff corpus and the preemption test. Each run
 * times its own operations (clock reads around each call, as OSprof's
 * user-level profilers did) into a profile set written to OUT.
 *
 *   corpus_workload SCENARIO VARIANT OUT [DIR]
 *     cache   warm|cold     app:pread4k  random 4 KiB reads, file cached or dropped
 *     procs   one|two       app:locked   flock + 300 us sleep, 1 or 2 processes
 *     direct  buffered|odirect  app:pread4k  random 4 KiB reads, page cache or O_DIRECT
 *     sleep   none|sleep    app:step     5 us of work; every 10th op also sleeps 50 us
 *     rare    none|rare     app:step     the same with every 20th op sleeping (5 %)
 *     partial warm|partial  app:pread4k  random 4 KiB reads, file cached, or cached
 *                                        but one 64 KiB chunk in 10 dropped (10 % misses)
 *   every scenario also profiles app:fstat (unchanged by the variant).
 *     preempt alone|hog|hog2  app:read0  zero-byte reads for 1 s on one CPU, alone
 *                                        or beside one or two CPU hogs on that CPU
 *     lseek   one|two       app:lseek    20,000 lseek(SEEK_CUR) on one open file by
 *                                        1 or 2 processes (shared: f_pos lock waits)
 * DIR holds the scratch files (default /var/tmp; must be a real disk). */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <osprof/clock.h>
#include <osprof/profile.h>
#include "tests/progs/xorshift.h"

#define FILE_BLOCKS 2048 /* 8 MiB */

static char dir[1024] = "/var/tmp";
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void spin_ns(uint64_t ns)
{
	uint64_t end = osp_now_ns() + ns;
	while (osp_now_ns() < end)
		;
}

static void timed_fstat(struct osp_set *s, int n)
{
	struct osp_profile *p = osp_set_get(s, "app", "fstat", NULL, 0);
	struct stat st;
	for (int i = 0; i < n; i++) {
		uint64_t t0 = osp_now_ns();
		fstat(1, &st);
		osp_profile_add(s, p, osp_now_ns() - t0, 0);
	}
}

static int data_file(char *path, size_t len)
{
	snprintf(path, len, "%s/osprof-corpus.%d", dir, (int)getpid());
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		die(path);
	static char buf[1 << 16];
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)xorshift64(&rng);
	for (int i = 0; i < FILE_BLOCKS * 4096 / (int)sizeof(buf); i++)
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			die("write");
	fdatasync(fd);
	return fd;
}

static void reads(struct osp_set *s, int fd, int n)
{
	struct osp_profile *p = osp_set_get(s, "app", "pread4k", NULL, 0);
	void *buf;
	if (posix_memalign(&buf, 4096, 4096))
		die("posix_memalign");
	for (int i = 0; i < n; i++) {
		off_t off = (off_t)(xorshift64(&rng) % FILE_BLOCKS) * 4096;
		uint64_t t0 = osp_now_ns();
		if (pread(fd, buf, 4096, off) != 4096)
			die("pread");
		osp_profile_add(s, p, osp_now_ns() - t0, 0);
	}
	free(buf);
}

/* cold: 0 cached, 1 dropped, 2 cached but every 10th block dropped. */
static void cache(struct osp_set *s, int cold)
{
	char path[2048];
	int fd = data_file(path, sizeof(path));
	char buf[4096];
	if (cold == 2) {
		for (int i = 0; i < FILE_BLOCKS; i++)
			if (pread(fd, buf, 4096, (off_t)i * 4096) != 4096)
				die("pread");
		posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
		/* Whole 64 KiB chunks: the page cache may hold the file in
		 * large folios, which a 4 KiB drop leaves in place. */
		for (int i = 0; i < FILE_BLOCKS; i += 160)
			posix_fadvise(fd, (off_t)i * 4096, 65536, POSIX_FADV_DONTNEED);
	} else if (cold) {
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	} else {
		for (int i = 0; i < FILE_BLOCKS; i++)
			if (pread(fd, buf, 4096, (off_t)i * 4096) != 4096)
				die("pread");
	}
	reads(s, fd, 1000);
	close(fd);
	unlink(path);
}

static void direct(struct osp_set *s, int odirect)
{
	char path[2048];
	int fd = data_file(path, sizeof(path)), rfd = fd;
	char buf[4096];
	for (int i = 0; i < FILE_BLOCKS; i++)
		if (pread(fd, buf, 4096, (off_t)i * 4096) != 4096)
			die("pread");
	if (odirect && (rfd = open(path, O_RDONLY | O_DIRECT)) < 0)
		die("O_DIRECT");
	reads(s, rfd, 1000);
	if (rfd != fd)
		close(rfd);
	close(fd);
	unlink(path);
}

static void locked(struct osp_set *s, int fd, int n)
{
	struct osp_profile *p = osp_set_get(s, "app", "locked", NULL, 0);
	for (int i = 0; i < n; i++) {
		uint64_t t0 = osp_now_ns();
		flock(fd, LOCK_EX);
		usleep(300);
		flock(fd, LOCK_UN);
		osp_profile_add(s, p, osp_now_ns() - t0, 0);
		/* Sleeping (not spinning) lets two processes interleave even on
		 * a busy CPU; a short time outside the lock means the other
		 * process usually finds it taken and waits. */
		usleep(50);
	}
}

static void procs(struct osp_set *s, int two, const char *out)
{
	char path[2048], part[4200], err[512];
	snprintf(path, sizeof(path), "%s/osprof-corpus-lock.%d", dir, (int)getpid());
	int fd = open(path, O_RDWR | O_CREAT, 0600);
	if (fd < 0)
		die(path);
	pid_t pid = -1;
	snprintf(part, sizeof(part), "%s.child", out);
	if (two) {
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			/* flock locks belong to the open file: reopen. */
			int cfd = open(path, O_RDWR);
			struct osp_set *cs = osp_set_new(s->r);
			if (cfd < 0 || !cs)
				_exit(1);
			locked(cs, cfd, 500);
			_exit(osp_set_save(cs, part, err, sizeof(err)) ? 1 : 0);
		}
	}
	locked(s, fd, 500);
	if (pid > 0) {
		int st;
		struct osp_set *cs = NULL;
		if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) ||
		    osp_set_load(part, &cs, err, sizeof(err)) ||
		    osp_set_merge(s, cs, err, sizeof(err))) {
			fprintf(stderr, "child profile: %s\n", err);
			exit(1);
		}
		osp_set_free(cs);
		unlink(part);
	}
	close(fd);
	unlink(path);
}

static void lseeks(struct osp_set *s, int fd, int n)
{
	struct osp_profile *p = osp_set_get(s, "app", "lseek", NULL, 0);
	for (int i = 0; i < n; i++) {
		uint64_t t0 = osp_now_ns();
		if (lseek(fd, 0, SEEK_CUR) < 0)
			die("lseek");
		osp_profile_add(s, p, osp_now_ns() - t0, 0);
	}
}

/* Two processes on one open file take its f_pos lock on every lseek. */
static void lseek_procs(struct osp_set *s, int two, const char *out)
{
	char path[2048], part[4200], err[512];
	snprintf(path, sizeof(path), "%s/osprof-corpus-seek.%d", dir, (int)getpid());
	int fd = open(path, O_RDWR | O_CREAT, 0600);
	if (fd < 0)
		die(path);
	unlink(path);
	snprintf(part, sizeof(part), "%s.child", out);
	pid_t pid = two ? fork() : -1;
	if (pid == 0) {
		struct osp_set *cs = osp_set_new(s->r);
		if (!cs)
			_exit(1);
		lseeks(cs, fd, 20000);
		_exit(osp_set_save(cs, part, err, sizeof(err)) ? 1 : 0);
	}
	lseeks(s, fd, 20000);
	if (pid > 0) {
		int st;
		struct osp_set *cs = NULL;
		if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) ||
		    osp_set_load(part, &cs, err, sizeof(err)) ||
		    osp_set_merge(s, cs, err, sizeof(err))) {
			fprintf(stderr, "child profile: %s\n", err);
			exit(1);
		}
		osp_set_free(cs);
		unlink(part);
	}
	close(fd);
}

/* Every `every`-th op also sleeps 50 us (0: none). */
static void steps(struct osp_set *s, int every)
{
	struct osp_profile *p = osp_set_get(s, "app", "step", NULL, 0);
	for (int i = 0; i < 3000; i++) {
		uint64_t t0 = osp_now_ns();
		spin_ns(5000);
		if (every && i % every == 0)
			usleep(50);
		osp_profile_add(s, p, osp_now_ns() - t0, 0);
	}
}

static void pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

static void preempt(struct osp_set *s, int hogs)
{
	int cpu = sched_getcpu() < 0 ? 0 : sched_getcpu();
	pin(cpu);
	pid_t pid[2] = {-1, -1};
	for (int h = 0; h < hogs; h++) {
		pid[h] = fork();
		if (pid[h] == 0)
			for (;;)
				;
	}
	int fd = open("/dev/zero", O_RDONLY);
	if (fd < 0)
		die("/dev/zero");
	struct osp_profile *p = osp_set_get(s, "app", "read0", NULL, 0);
	char c;
	uint64_t start = osp_now_ns(), end = start + 1000000000ull;
	while (osp_now_ns() < end) {
		for (int i = 0; i < 1000; i++) {
			uint64_t t0 = osp_now_ns();
			if (read(fd, &c, 0) < 0)
				die("read");
			osp_profile_add(s, p, osp_now_ns() - t0, 0);
		}
	}
	osp_set_metaf(s, "duration_ns", "%llu", (unsigned long long)(osp_now_ns() - start));
	for (int h = 0; h < hogs; h++) {
		kill(pid[h], SIGKILL);
		waitpid(pid[h], NULL, 0);
	}
	close(fd);
}

int main(int argc, char **argv)
{
	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: corpus_workload SCENARIO VARIANT OUT [DIR]\n");
		return 2;
	}
	const char *sc = argv[1], *v = argv[2], *out = argv[3];
	if (argc == 5)
		snprintf(dir, sizeof(dir), "%s", argv[4]);
	rng ^= (uint64_t)getpid() << 20 ^ osp_now_ns();
	struct osp_set *s = osp_set_new(1);
	if (!s)
		die("osp_set_new");
	osp_set_stamp_host(s);
	osp_set_metaf(s, "command", "corpus_workload %s %s", sc, v);
	osp_set_meta(s, "layers", "app");
	if (!strcmp(sc, "cache") && (!strcmp(v, "warm") || !strcmp(v, "cold")))
		cache(s, !strcmp(v, "cold"));
	else if (!strcmp(sc, "procs") && (!strcmp(v, "one") || !strcmp(v, "two")))
		procs(s, !strcmp(v, "two"), out);
	else if (!strcmp(sc, "direct") && (!strcmp(v, "buffered") || !strcmp(v, "odirect")))
		direct(s, !strcmp(v, "odirect"));
	else if (!strcmp(sc, "sleep") && (!strcmp(v, "none") || !strcmp(v, "sleep")))
		steps(s, strcmp(v, "sleep") ? 0 : 10);
	else if (!strcmp(sc, "rare") && (!strcmp(v, "none") || !strcmp(v, "rare")))
		steps(s, strcmp(v, "rare") ? 0 : 20);
	else if (!strcmp(sc, "partial") && (!strcmp(v, "warm") || !strcmp(v, "partial")))
		cache(s, strcmp(v, "partial") ? 0 : 2);
	else if (!strcmp(sc, "lseek") && (!strcmp(v, "one") || !strcmp(v, "two")))
		lseek_procs(s, !strcmp(v, "two"), out);
	else if (!strcmp(sc, "preempt") &&
	         (!strcmp(v, "alone") || !strcmp(v, "hog") || !strcmp(v, "hog2")))
		preempt(s, !strcmp(v, "hog2") ? 2 : !strcmp(v, "hog"));
	else {
		fprintf(stderr, "corpus_workload: unknown scenario/variant '%s %s'\n", sc, v);
		return 2;
	}
	if (strcmp(sc, "preempt"))
		timed_fstat(s, 2000);
	char err[512];
	if (osp_set_save(s, out, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	osp_set_free(s);
	return 0;
}
