/* Programs the preload cannot follow. Before an exec, the wrapper looks at
 * the new image: a statically linked executable has no dynamic loader to
 * honour LD_PRELOAD, and a setuid/setgid one is run in secure mode, where
 * the loader drops it. Either way its operations would be silently missing,
 * so the wrapper leaves a note in $OSPROF_PRELOAD_DIR (escape-PID-N, one
 * line "static PATH" or "setuid PATH") for osprof to count and report.
 * Only the ELF header and program headers are read: no libelf here, since
 * this runs in a child that may have been made by vfork and must use only
 * async-signal-safe calls (no malloc). Raw system calls, not the libc
 * wrappers: those are this library's own interposers, and the check must
 * not count as the program's opens and reads. */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "preload/preload.h"

static int sys_open(const char *path, int flags, int mode)
{
	return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}
static ssize_t sys_pread(int fd, void *buf, size_t n, off_t off)
{
	return (ssize_t)syscall(SYS_pread64, fd, buf, n, off);
}
static void sys_close(int fd)
{
	syscall(SYS_close, fd);
}

/* 1: an ELF executable without PT_INTERP; 0: dynamic; -1: not ELF/unknown. */
static int elf_fd_static(int fd)
{
	Elf64_Ehdr eh;
	if (sys_pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) || eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    eh.e_phnum == 0 || eh.e_phnum > 256)
		return -1;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		if (sys_pread(fd, &ph, sizeof(ph),
		              (off_t)(eh.e_phoff + (uint64_t)i * sizeof(ph))) !=
		    (ssize_t)sizeof(ph))
			return -1;
		if (ph.p_type == PT_INTERP)
			return 0;
	}
	return 1;
}

/* Static, following one "#!" interpreter as the kernel does. */
static int fd_static(int fd)
{
	char head[256];
	ssize_t n = sys_pread(fd, head, sizeof(head) - 1, 0);
	if (n < 2 || head[0] != '#' || head[1] != '!')
		return elf_fd_static(fd);
	head[n] = 0;
	char *p = head + 2;
	p += strspn(p, " \t");
	p[strcspn(p, " \t\n")] = 0;
	int ifd = *p ? sys_open(p, O_RDONLY | O_CLOEXEC, 0) : -1;
	if (ifd < 0)
		return -1;
	int rc = elf_fd_static(ifd);
	sys_close(ifd);
	return rc;
}

static void note(const char *kind, const char *path)
{
	const char *dir = osp_preload_dir();
	if (!dir)
		return;
	char name[4200], line[4200];
	int pid = (int)syscall(SYS_getpid);
	int len = snprintf(line, sizeof(line), "%s %s\n", kind, path);
	if (len <= 0 || (size_t)len >= sizeof(line))
		return;
	for (unsigned k = 0; k < 1000; k++) {
		snprintf(name, sizeof(name), "%s/escape-%d-%u", dir, pid, k);
		int fd = sys_open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			syscall(SYS_write, fd, line, (size_t)len);
			sys_close(fd);
			return;
		}
	}
}

static void check_fd(int fd, const char *path)
{
	struct stat st;
	if (syscall(SYS_fstat, fd, &st) || !S_ISREG(st.st_mode))
		return;
	if (((st.st_mode & S_ISUID) && st.st_uid != (uid_t)syscall(SYS_geteuid)) ||
	    ((st.st_mode & S_ISGID) && st.st_gid != (gid_t)syscall(SYS_getegid)))
		note("setuid", path);
	else if (fd_static(fd) == 1)
		note("static", path);
}

static void check_path(const char *path)
{
	int fd = sys_open(path, O_RDONLY | O_CLOEXEC, 0);
	if (fd >= 0) {
		check_fd(fd, path);
		sys_close(fd);
	}
}

void osp_exec_check(const char *file, int search, int fd)
{
	if (!osp_preload_dir())
		return;
	if (fd >= 0) {
		char self[64];
		snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
		check_fd(fd, self);
		return;
	}
	if (!file || !*file)
		return;
	if (!search || strchr(file, '/')) {
		check_path(file);
		return;
	}
	/* The first executable on PATH, as execvp will pick it. */
	const char *path = getenv("PATH");
	if (!path)
		path = "/bin:/usr/bin";
	char cand[4200];
	while (*path) {
		size_t n = strcspn(path, ":");
		int len =
		    snprintf(cand, sizeof(cand), "%.*s/%s", n ? (int)n : 1, n ? path : ".", file);
		if (len > 0 && (size_t)len < sizeof(cand) &&
		    syscall(SYS_faccessat, AT_FDCWD, cand, X_OK, 0) == 0) {
			check_path(cand);
			return;
		}
		path += n + (path[n] == ':');
	}
}
