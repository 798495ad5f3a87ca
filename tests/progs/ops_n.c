/* Issues exactly N calls of each of many libc file, directory and mapping
 * functions (one round = one of each, except where --list says otherwise),
 * so that a profile of it can be checked for exact counts.
 *
 *   ops_n N [DIR] [--fork | --threads T | --exec | --sigkill | --spawn-noenv |
 *                  --vfork]
 *   ops_n --list     prints "OP CALLS_PER_ROUND" for every op issued
 *   ops_n --errno    checks that failing calls report the right errno
 *
 * --fork     a forked child also does N rounds   (fork: 1 call)
 * --threads  T threads do N rounds each, main none (pthread_create: T)
 * --exec     N rounds, then re-exec itself once for N more (execv)
 * --sigkill  N rounds in the parent; a forked child does N rounds and then
 *            SIGKILLs itself, leaving no chance to flush anything
 * --spawn-noenv  N rounds, then posix_spawn itself with an empty environment
 *            for N more (posix_spawn: 1 call)
 * --vfork    N rounds, then vfork + execv itself for N more (vfork: 1 call)
 *
 * Set-up and clean-up use syscall() directly, so that only the rounds are
 * seen by an interposer. Every call is checked: a failing op exits 1 naming
 * it, so a count can never be right by accident. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utime.h>
/* Entry points a fortified or pre-2.33 build would bind: called by name so
 * this binary binds them too. */
#include "preload/glibc_entries.h"

#define STAT_VER 1 /* _STAT_VER_LINUX on x86_64 */

static const char *const ops_per_round[] = {
    "open",
    "open64",
    "openat",
    "openat64",
    "__open_2",
    "__open64_2",
    "__openat_2",
    "__openat64_2",
    "creat",
    "creat64",
    "close",
    "dup",
    "dup2",
    "dup3",
    "write",
    "pwrite",
    "pwrite64",
    "read",
    "__read_chk",
    "pread",
    "pread64",
    "__pread_chk",
    "__pread64_chk",
    "readv",
    "writev",
    "preadv",
    "preadv64",
    "pwritev",
    "pwritev64",
    "preadv2",
    "pwritev2",
    "preadv64v2",
    "pwritev64v2",
    "lseek",
    "lseek64",
    "sendfile",
    "sendfile64",
    "copy_file_range",
    "fsync",
    "fdatasync",
    "syncfs",
    "sync_file_range",
    "truncate",
    "truncate64",
    "ftruncate",
    "ftruncate64",
    "fallocate",
    "fallocate64",
    "posix_fallocate",
    "posix_fadvise",
    "stat",
    "stat64",
    "fstat",
    "fstat64",
    "lstat",
    "lstat64",
    "fstatat",
    "fstatat64",
    "__xstat",
    "__xstat64",
    "__fxstat",
    "__fxstat64",
    "__lxstat",
    "__lxstat64",
    "__fxstatat",
    "__fxstatat64",
    "statx",
    "statfs",
    "fstatfs",
    "access",
    "faccessat",
    "chmod",
    "fchmod",
    "fchmodat",
    "chown",
    "fchown",
    "lchown",
    "fchownat",
    "utimensat",
    "futimens",
    "utime",
    "utimes",
    "mkdir",
    "mkdirat",
    "rmdir",
    "unlink",
    "unlinkat",
    "rename",
    "renameat",
    "renameat2",
    "link",
    "linkat",
    "symlink",
    "symlinkat",
    "readlink",
    "readlinkat",
    "__readlink_chk",
    "__readlinkat_chk",
    "mknod",
    "mknodat",
    "chdir",
    "fchdir",
    "opendir",
    "fdopendir",
    "readdir",
    "readdir64",
    "closedir",
    "getdents64",
    "mmap",
    "mmap64",
    "munmap",
    "msync",
    "flock",
    "fcntl",
    "fcntl64",
};
#define NOPS (sizeof(ops_per_round) / sizeof(ops_per_round[0]))

static void die(const char *op)
{
	fprintf(stderr, "ops_n: %s: %s\n", op, strerror(errno));
	_exit(1);
}

#define OK(call, op)                                                                               \
	do {                                                                                       \
		if ((call) < 0)                                                                    \
			die(op);                                                                   \
	} while (0)

static void sys_close(long fd)
{
	syscall(SYS_close, fd);
}

static void sys_unlink(const char *p)
{
	syscall(SYS_unlinkat, AT_FDCWD, p, 0);
}

/* One round in directory `d` (private to the calling thread). */
static void round_in(const char *d)
{
	char f[512], f2[512], l[512], l2[512], s[512], s2[512], s3[512], sub[512], sub2[512],
	    fifo[512], fifo2[512], buf[64] = "0123456789abcdef", lbuf[512];
	snprintf(f, sizeof(f), "%s/f", d);
	snprintf(f2, sizeof(f2), "%s/f2", d);
	snprintf(l, sizeof(l), "%s/l", d);
	snprintf(l2, sizeof(l2), "%s/l2", d);
	snprintf(s, sizeof(s), "%s/s", d);
	snprintf(s2, sizeof(s2), "%s/s2", d);
	snprintf(s3, sizeof(s3), "%s/s3", d);
	snprintf(sub, sizeof(sub), "%s/sub", d);
	snprintf(sub2, sizeof(sub2), "%s/sub2", d);
	snprintf(fifo, sizeof(fifo), "%s/fifo", d);
	snprintf(fifo2, sizeof(fifo2), "%s/fifo2", d);
	long fd = syscall(SYS_openat, AT_FDCWD, f, O_RDWR | O_CREAT, 0600);
	long fd2 = syscall(SYS_openat, AT_FDCWD, f2, O_RDWR | O_CREAT, 0600);
	long dfd = syscall(SYS_openat, AT_FDCWD, d, O_RDONLY | O_DIRECTORY);
	if (fd < 0 || fd2 < 0 || dfd < 0)
		die("setup");
	int x;

	/* open family: each descriptor is closed by syscall except one. */
	OK(x = open(f, O_RDWR), "open");
	OK(close(x), "close");
	OK(x = open64(f, O_RDONLY), "open64");
	sys_close(x);
	OK(x = openat(AT_FDCWD, f, O_RDONLY), "openat");
	sys_close(x);
	OK(x = openat64(AT_FDCWD, f, O_RDONLY), "openat64");
	sys_close(x);
	OK(x = __open_2(f, O_RDONLY), "__open_2");
	sys_close(x);
	OK(x = __open64_2(f, O_RDONLY), "__open64_2");
	sys_close(x);
	OK(x = __openat_2(AT_FDCWD, f, O_RDONLY), "__openat_2");
	sys_close(x);
	OK(x = __openat64_2(AT_FDCWD, f, O_RDONLY), "__openat64_2");
	sys_close(x);
	OK(x = creat(f2, 0600), "creat");
	sys_close(x);
	OK(x = creat64(f2, 0600), "creat64");
	sys_close(x);
	OK(x = dup((int)fd), "dup");
	sys_close(x);
	/* dup2/dup3 onto a descriptor this thread owns: a fixed number would
	 * race with the other threads' descriptors. */
	long spare = syscall(SYS_dup, fd2);
	if (spare < 0)
		die("setup dup");
	OK(dup2((int)fd, (int)spare), "dup2");
	OK(dup3((int)fd2, (int)spare, O_CLOEXEC), "dup3");
	sys_close(spare);

	/* data */
	struct iovec iov = {buf, 16};
	off_t o = 0;
	off64_t o64 = 0, oin = 0, oout = 0;
	OK(write((int)fd, buf, 16), "write");
	OK(pwrite((int)fd, buf, 16, 16), "pwrite");
	OK(pwrite64((int)fd, buf, 16, 32), "pwrite64");
	syscall(SYS_lseek, fd, 0, SEEK_SET);
	OK(read((int)fd, buf, 16), "read");
	OK(__read_chk((int)fd, buf, 16, sizeof(buf)), "__read_chk");
	OK(pread((int)fd, buf, 16, 0), "pread");
	OK(pread64((int)fd, buf, 16, 0), "pread64");
	OK(__pread_chk((int)fd, buf, 16, 0, sizeof(buf)), "__pread_chk");
	OK(__pread64_chk((int)fd, buf, 16, 0, sizeof(buf)), "__pread64_chk");
	OK(readv((int)fd, &iov, 1), "readv");
	OK(writev((int)fd, &iov, 1), "writev");
	OK(preadv((int)fd, &iov, 1, 0), "preadv");
	OK(preadv64((int)fd, &iov, 1, 0), "preadv64");
	OK(pwritev((int)fd, &iov, 1, 0), "pwritev");
	OK(pwritev64((int)fd, &iov, 1, 0), "pwritev64");
	OK(preadv2((int)fd, &iov, 1, 0, 0), "preadv2");
	OK(pwritev2((int)fd, &iov, 1, 0, 0), "pwritev2");
	OK(preadv64v2((int)fd, &iov, 1, 0, 0), "preadv64v2");
	OK(pwritev64v2((int)fd, &iov, 1, 0, 0), "pwritev64v2");
	OK(lseek((int)fd, 0, SEEK_SET), "lseek");
	OK(lseek64((int)fd, 0, SEEK_SET), "lseek64");
	OK(sendfile((int)fd2, (int)fd, &o, 16), "sendfile");
	OK(sendfile64((int)fd2, (int)fd, &o64, 16), "sendfile64");
	OK(copy_file_range((int)fd, &oin, (int)fd2, &oout, 16, 0), "copy_file_range");

	/* sync, size, space */
	OK(fsync((int)fd), "fsync");
	OK(fdatasync((int)fd), "fdatasync");
	OK(syncfs((int)fd), "syncfs");
	OK(sync_file_range((int)fd, 0, 0, SYNC_FILE_RANGE_WRITE), "sync_file_range");
	OK(truncate(f, 64), "truncate");
	OK(truncate64(f, 64), "truncate64");
	OK(ftruncate((int)fd, 64), "ftruncate");
	OK(ftruncate64((int)fd, 64), "ftruncate64");
	OK(fallocate((int)fd, 0, 0, 4096), "fallocate");
	OK(fallocate64((int)fd, 0, 0, 4096), "fallocate64");
	if ((errno = posix_fallocate((int)fd, 0, 4096)))
		die("posix_fallocate");
	if ((errno = posix_fadvise((int)fd, 0, 0, POSIX_FADV_NORMAL)))
		die("posix_fadvise");

	/* attributes */
	struct stat st;
	struct stat64 st64;
	struct statx stx;
	struct statfs sfs;
	OK(stat(f, &st), "stat");
	OK(stat64(f, &st64), "stat64");
	OK(fstat((int)fd, &st), "fstat");
	OK(fstat64((int)fd, &st64), "fstat64");
	OK(lstat(f, &st), "lstat");
	OK(lstat64(f, &st64), "lstat64");
	OK(fstatat(AT_FDCWD, f, &st, 0), "fstatat");
	OK(fstatat64(AT_FDCWD, f, &st64, 0), "fstatat64");
	OK(__xstat(STAT_VER, f, &st), "__xstat");
	OK(__xstat64(STAT_VER, f, &st64), "__xstat64");
	OK(__fxstat(STAT_VER, (int)fd, &st), "__fxstat");
	OK(__fxstat64(STAT_VER, (int)fd, &st64), "__fxstat64");
	OK(__lxstat(STAT_VER, f, &st), "__lxstat");
	OK(__lxstat64(STAT_VER, f, &st64), "__lxstat64");
	OK(__fxstatat(STAT_VER, AT_FDCWD, f, &st, 0), "__fxstatat");
	OK(__fxstatat64(STAT_VER, AT_FDCWD, f, &st64, 0), "__fxstatat64");
	OK(statx(AT_FDCWD, f, 0, STATX_BASIC_STATS, &stx), "statx");
	OK(statfs(f, &sfs), "statfs");
	OK(fstatfs((int)fd, &sfs), "fstatfs");
	OK(access(f, R_OK), "access");
	OK(faccessat(AT_FDCWD, f, R_OK, 0), "faccessat");
	OK(chmod(f, 0600), "chmod");
	OK(fchmod((int)fd, 0600), "fchmod");
	OK(fchmodat(AT_FDCWD, f, 0600, 0), "fchmodat");
	OK(chown(f, getuid(), getgid()), "chown");
	OK(fchown((int)fd, getuid(), getgid()), "fchown");
	OK(lchown(f, getuid(), getgid()), "lchown");
	OK(fchownat(AT_FDCWD, f, getuid(), getgid(), 0), "fchownat");
	OK(utimensat(AT_FDCWD, f, NULL, 0), "utimensat");
	OK(futimens((int)fd, NULL), "futimens");
	OK(utime(f, NULL), "utime");
	OK(utimes(f, NULL), "utimes");

	/* namespace */
	OK(mkdir(sub, 0700), "mkdir");
	OK(mkdirat(AT_FDCWD, sub2, 0700), "mkdirat");
	OK(rmdir(sub), "rmdir");
	OK(unlinkat(AT_FDCWD, sub2, AT_REMOVEDIR), "unlinkat");
	OK(link(f, l), "link");
	OK(linkat(AT_FDCWD, f, AT_FDCWD, l2, 0), "linkat");
	OK(unlink(l), "unlink");
	sys_unlink(l2);
	OK(symlink(f, s), "symlink");
	OK(symlinkat(f, AT_FDCWD, s2), "symlinkat");
	OK(readlink(s, lbuf, sizeof(lbuf)), "readlink");
	OK(readlinkat(AT_FDCWD, s2, lbuf, sizeof(lbuf)), "readlinkat");
	OK(__readlink_chk(s, lbuf, sizeof(lbuf), sizeof(lbuf)), "__readlink_chk");
	OK(__readlinkat_chk(AT_FDCWD, s2, lbuf, sizeof(lbuf), sizeof(lbuf)), "__readlinkat_chk");
	OK(rename(s, s3), "rename");
	OK(renameat(AT_FDCWD, s3, AT_FDCWD, s), "renameat");
	OK(renameat2(AT_FDCWD, s, AT_FDCWD, s3, 0), "renameat2");
	sys_unlink(s2);
	sys_unlink(s3);
	OK(mknod(fifo, S_IFIFO | 0600, 0), "mknod");
	OK(mknodat(AT_FDCWD, fifo2, S_IFIFO | 0600, 0), "mknodat");
	sys_unlink(fifo);
	sys_unlink(fifo2);
	OK(chdir(d), "chdir");
	OK(fchdir((int)dfd), "fchdir");

	/* directories: the two streams make closedir twice a round */
	DIR *dir = opendir(d);
	if (!dir)
		die("opendir");
	errno = 0;
	if (!readdir(dir) && errno)
		die("readdir");
	if (!readdir64(dir) && errno)
		die("readdir64");
	OK(closedir(dir), "closedir");
	long dfd2 = syscall(SYS_openat, AT_FDCWD, d, O_RDONLY | O_DIRECTORY);
	if (!(dir = fdopendir((int)dfd2)))
		die("fdopendir");
	OK(closedir(dir), "closedir");
	char dents[4096];
	OK(getdents64((int)dfd, dents, sizeof(dents)), "getdents64");

	/* mappings: the mmap64 mapping is unmapped by syscall */
	void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
	if (m == MAP_FAILED)
		die("mmap");
	OK(msync(m, 4096, MS_SYNC), "msync");
	OK(munmap(m, 4096), "munmap");
	if ((m = mmap64(NULL, 4096, PROT_READ, MAP_SHARED, (int)fd, 0)) == MAP_FAILED)
		die("mmap64");
	syscall(SYS_munmap, m, 4096);

	/* locks */
	OK(flock((int)fd, LOCK_SH), "flock");
	OK(fcntl((int)fd, F_GETFL), "fcntl");
	OK(fcntl64((int)fd, F_GETFD), "fcntl64");

	sys_close(fd);
	sys_close(fd2);
	sys_close(dfd);
	sys_unlink(f);
	sys_unlink(f2);
}

static unsigned long rounds;
static const char *base;

/* Each worker (process or thread) gets its own directory. */
static void work(const char *tag)
{
	char d[400];
	snprintf(d, sizeof(d), "%s/%s.%ld", base, tag, (long)syscall(SYS_gettid));
	if (syscall(SYS_mkdirat, AT_FDCWD, d, 0700))
		die("setup mkdir");
	for (unsigned long i = 0; i < rounds; i++)
		round_in(d);
	syscall(SYS_unlinkat, AT_FDCWD, d, AT_REMOVEDIR);
}

static void *thread_main(void *arg)
{
	work(arg);
	return NULL;
}

static int wait_for(pid_t pid, int want_signal)
{
	int st;
	if (waitpid(pid, &st, 0) != pid)
		die("waitpid");
	if (want_signal)
		return WIFSIGNALED(st) && WTERMSIG(st) == want_signal ? 0 : 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (size_t i = 0; i < NOPS; i++)
			printf("%s %d\n", ops_per_round[i],
			       !strcmp(ops_per_round[i], "closedir") ? 2 : 1);
		return 0;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: ops_n N [DIR] [--fork|--threads "
		                "T|--exec|--sigkill|--spawn-noenv|--vfork]\n");
		return 2;
	}
	if (argc == 2 && !strcmp(argv[1], "--errno")) {
		/* Failing calls keep the errno the real call set. */
		errno = 0;
		if (open("/nonexistent/osprof", O_RDONLY) != -1 || errno != ENOENT)
			die("open errno");
		errno = 0;
		if (read(-1, NULL, 0) != -1 || errno != EBADF)
			die("read errno");
		errno = 0;
		if (stat("", &(struct stat){0}) != -1 || errno != ENOENT)
			die("stat errno");
		errno = 0;
		if (opendir("/nonexistent/osprof") || errno != ENOENT)
			die("opendir errno");
		return 0;
	}
	rounds = strtoul(argv[1], NULL, 10);
	base = argc > 2 && argv[2][0] != '-' ? argv[2] : "/tmp";
	const char *mode = argc > 2 && argv[argc - 1][0] == '-' ? argv[argc - 1] : "";
	if (argc > 3 && !strcmp(argv[argc - 2], "--threads"))
		mode = "--threads";
	if (!strcmp(mode, "--threads")) {
		unsigned long t = strtoul(argv[argc - 1], NULL, 10);
		pthread_t *tids = calloc(t, sizeof(*tids));
		for (unsigned long i = 0; i < t; i++)
			if ((errno = pthread_create(&tids[i], NULL, thread_main, "t")))
				die("pthread_create");
		for (unsigned long i = 0; i < t; i++)
			pthread_join(tids[i], NULL);
		free(tids);
		return 0;
	}
	if (!strcmp(mode, "--fork") || !strcmp(mode, "--sigkill")) {
		int kill_self = !strcmp(mode, "--sigkill");
		pid_t pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			work("child");
			if (kill_self)
				kill(getpid(), SIGKILL);
			_exit(0);
		}
		work("parent");
		return wait_for(pid, kill_self ? SIGKILL : 0);
	}
	work("main");
	if (!strcmp(mode, "--exec") || !strcmp(mode, "--spawn-noenv") || !strcmp(mode, "--vfork")) {
		/* chdir in the rounds moved us: re-exec by absolute path. */
		char self[4096];
		ssize_t n = syscall(SYS_readlink, "/proc/self/exe", self, sizeof(self) - 1);
		if (n <= 0)
			die("readlink /proc/self/exe");
		self[n] = 0;
		char *args[] = {self, argv[1], (char *)base, NULL};
		if (!strcmp(mode, "--exec")) {
			execv(self, args);
			die("execv");
		}
		pid_t pid;
		if (!strcmp(mode, "--vfork")) {
			if ((pid = vfork()) == 0) {
				execv(self, args);
				_exit(127);
			}
			if (pid < 0)
				die("vfork");
			return wait_for(pid, 0);
		}
		char *noenv[] = {NULL};
		if ((errno = posix_spawn(&pid, self, NULL, NULL, args, noenv)))
			die("posix_spawn");
		return wait_for(pid, 0);
	}
	return 0;
}
