/* Workloads with known system calls for the kernel-layer tests
 * (tests/sh/kern_*.sh). Usage:
 *   kern_sys count N THREADS CHILDREN  N getpgid(0) in the main thread, in each
 *                                      of THREADS threads and each of CHILDREN
 *                                      forked children: N*(1+THREADS+CHILDREN)
 *   kern_sys loop                      getpgid(0) until killed
 *   kern_sys sleep N USEC              N nanosleep(USEC), timer slack 1 ns
 *   kern_sys bimodal N                 N readv() of /dev/null (returns at once: no
 *                                      scheduling point inside), then N
 *                                      readv() of a pipe a child writes to 5 ms
 *                                      after each "go" byte the parent sends
 *                                      just before the readv
 *   kern_sys phases MS                 getpgid(0) for MS ms, then getsid(0) for MS ms
 *   kern_sys spin MS                   getpgid(0) for MS ms
 *   kern_sys spinread MS               read(/dev/zero, 4 KiB) for MS ms: cheap
 *                                      calls with a cond_resched() inside, so
 *                                      they can be preempted in flight even on
 *                                      a PREEMPT_NONE kernel
 *   kern_sys hog MS                    pure CPU for MS ms
 *   kern_sys read PATH N [OFF]         N pread(4096 bytes, offset OFF or 0) of PATH
 *   kern_sys badread N                 N read(-1, ...): EBADF */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long n_calls;

static void calls(long n)
{
	for (long i = 0; i < n; i++)
		syscall(SYS_getpgid, 0);
}

static void *thread_main(void *arg)
{
	(void)arg;
	calls(n_calls);
	return NULL;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void nsleep(long ns)
{
	struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
	nanosleep(&ts, NULL);
}

static int usage(void)
{
	fprintf(stderr, "usage: kern_sys count|loop|sleep|bimodal|phases|spin|hog|read ...\n");
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	const char *m = argv[1];
	if (!strcmp(m, "count") && argc == 5) {
		n_calls = atol(argv[2]);
		int threads = atoi(argv[3]), children = atoi(argv[4]);
		pthread_t t[64];
		if (threads > 64)
			return usage();
		for (int i = 0; i < children; i++) {
			pid_t p = fork();
			if (p == 0) {
				calls(n_calls);
				_exit(0);
			}
			waitpid(p, NULL, 0);
		}
		for (int i = 0; i < threads; i++)
			pthread_create(&t[i], NULL, thread_main, NULL);
		for (int i = 0; i < threads; i++)
			pthread_join(t[i], NULL);
		calls(n_calls);
		return 0;
	}
	if (!strcmp(m, "loop")) {
		printf("ready\n");
		fflush(stdout);
		for (;;)
			syscall(SYS_getpgid, 0);
	}
	if (!strcmp(m, "sleep") && argc == 4) {
		prctl(PR_SET_TIMERSLACK, 1UL);
		long n = atol(argv[2]), us = atol(argv[3]);
		for (long i = 0; i < n; i++)
			nsleep(us * 1000);
		return 0;
	}
	if (!strcmp(m, "bimodal") && argc == 3) {
		long n = atol(argv[2]);
		char c;
		struct iovec iov = {&c, 1};
		int null = open("/dev/null", O_RDONLY), p[2];
		if (null < 0 || pipe(p))
			return 1;
		for (long i = 0; i < n; i++)
			if (readv(null, &iov, 1) != 0)
				return 1;
		/* A hand-shake, not a free-running writer: the child starts its
		 * 5 ms only when the parent is about to wait, so each readv lasts
		 * >= 5 ms even when the parent runs late (a slow or emulated
		 * machine), which a writer on its own clock cannot promise. */
		int go[2];
		if (pipe(go))
			return 1;
		pid_t w = fork();
		if (w == 0) {
			for (long i = 0; i < n; i++) {
				if (read(go[0], &c, 1) != 1)
					_exit(1);
				nsleep(5000000);
				if (write(p[1], "x", 1) != 1)
					_exit(1);
			}
			_exit(0);
		}
		for (long i = 0; i < n; i++)
			if (write(go[1], "g", 1) != 1 || readv(p[0], &iov, 1) != 1)
				return 1;
		waitpid(w, NULL, 0);
		return 0;
	}
	if ((!strcmp(m, "phases") || !strcmp(m, "spin") || !strcmp(m, "spinread") ||
	     !strcmp(m, "hog")) &&
	    argc == 3) {
		double ms = atof(argv[2]), t0 = now_ms();
		volatile unsigned long x = 0;
		static char buf[4096];
		int zero = open("/dev/zero", O_RDONLY);
		while (now_ms() - t0 < ms) {
			if (!strcmp(m, "spinread"))
				for (int i = 0; i < 100; i++)
					if (read(zero, buf, sizeof(buf)) < 0)
						return 1;
			if (!strcmp(m, "spinread"))
				continue;
			if (!strcmp(m, "hog"))
				for (int i = 0; i < 100000; i++)
					x++;
			else
				for (int i = 0; i < 1000; i++)
					syscall(SYS_getpgid, 0);
		}
		if (!strcmp(m, "phases"))
			for (t0 = now_ms(); now_ms() - t0 < ms;)
				for (int i = 0; i < 1000; i++)
					syscall(SYS_getsid, 0);
		return 0;
	}
	if (!strcmp(m, "read") && (argc == 4 || argc == 5)) {
		off_t off = argc == 5 ? atol(argv[4]) : 0;
		int fd = open(argv[2], O_RDONLY);
		if (fd < 0) {
			perror(argv[2]);
			return 1;
		}
		static char buf[4096];
		long n = atol(argv[3]);
		for (long i = 0; i < n; i++)
			if (pread(fd, buf, sizeof(buf), off) < 0)
				return 1;
		close(fd);
		return 0;
	}
	if (!strcmp(m, "badread") && argc == 3) {
		char c;
		long n = atol(argv[2]);
		for (long i = 0; i < n; i++)
			if (read(-1, &c, 1) >= 0)
				return 1;
		return 0;
	}
	return usage();
}
