/* Interposers: sync, size, attributes, namespace, directories, mappings and
 * locks. */
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/time.h>
#include <unistd.h>
#include <utime.h>
#include "preload/glibc_entries.h"
#include "preload/wrap.h"

ssize_t getdents64(int fd, void *buf, size_t n);

/* sync, size, space; posix_* return an error number instead of -1. */
OSP_WRAP(int, fsync, (int fd), (fd), -1)
OSP_WRAP(int, fdatasync, (int fd), (fd), -1)
OSP_WRAP(int, syncfs, (int fd), (fd), -1)
OSP_WRAP(int, sync_file_range, (int fd, off64_t off, off64_t n, unsigned int fl), (fd, off, n, fl),
         -1)
OSP_WRAP(int, truncate, (const char *path, off_t n), (path, n), -1)
OSP_WRAP(int, truncate64, (const char *path, off64_t n), (path, n), -1)
OSP_WRAP(int, ftruncate, (int fd, off_t n), (fd, n), -1)
OSP_WRAP(int, ftruncate64, (int fd, off64_t n), (fd, n), -1)
OSP_WRAP(int, fallocate, (int fd, int mode, off_t off, off_t n), (fd, mode, off, n), -1)
OSP_WRAP(int, fallocate64, (int fd, int mode, off64_t off, off64_t n), (fd, mode, off, n), -1)
OSP_WRAP(int, posix_fallocate, (int fd, off_t off, off_t n), (fd, off, n), ENOSYS)
OSP_WRAP(int, posix_fallocate64, (int fd, off64_t off, off64_t n), (fd, off, n), ENOSYS)
OSP_WRAP(int, posix_fadvise, (int fd, off_t off, off_t n, int adv), (fd, off, n, adv), ENOSYS)
OSP_WRAP(int, posix_fadvise64, (int fd, off64_t off, off64_t n, int adv), (fd, off, n, adv), ENOSYS)

/* attributes */
OSP_WRAP(int, stat, (const char *path, struct stat *st), (path, st), -1)
OSP_WRAP(int, stat64, (const char *path, struct stat64 *st), (path, st), -1)
OSP_WRAP(int, fstat, (int fd, struct stat *st), (fd, st), -1)
OSP_WRAP(int, fstat64, (int fd, struct stat64 *st), (fd, st), -1)
OSP_WRAP(int, lstat, (const char *path, struct stat *st), (path, st), -1)
OSP_WRAP(int, lstat64, (const char *path, struct stat64 *st), (path, st), -1)
OSP_WRAP(int, fstatat, (int dirfd, const char *path, struct stat *st, int fl),
         (dirfd, path, st, fl), -1)
OSP_WRAP(int, fstatat64, (int dirfd, const char *path, struct stat64 *st, int fl),
         (dirfd, path, st, fl), -1)
OSP_WRAP(int, __xstat, (int ver, const char *path, struct stat *st), (ver, path, st), -1)
OSP_WRAP(int, __xstat64, (int ver, const char *path, struct stat64 *st), (ver, path, st), -1)
OSP_WRAP(int, __fxstat, (int ver, int fd, struct stat *st), (ver, fd, st), -1)
OSP_WRAP(int, __fxstat64, (int ver, int fd, struct stat64 *st), (ver, fd, st), -1)
OSP_WRAP(int, __lxstat, (int ver, const char *path, struct stat *st), (ver, path, st), -1)
OSP_WRAP(int, __lxstat64, (int ver, const char *path, struct stat64 *st), (ver, path, st), -1)
OSP_WRAP(int, __fxstatat, (int ver, int dirfd, const char *path, struct stat *st, int fl),
         (ver, dirfd, path, st, fl), -1)
OSP_WRAP(int, __fxstatat64, (int ver, int dirfd, const char *path, struct stat64 *st, int fl),
         (ver, dirfd, path, st, fl), -1)
OSP_WRAP(int, statx, (int dirfd, const char *path, int fl, unsigned int mask, struct statx *st),
         (dirfd, path, fl, mask, st), -1)
OSP_WRAP(int, statfs, (const char *path, struct statfs *st), (path, st), -1)
OSP_WRAP(int, statfs64, (const char *path, struct statfs64 *st), (path, st), -1)
OSP_WRAP(int, fstatfs, (int fd, struct statfs *st), (fd, st), -1)
OSP_WRAP(int, fstatfs64, (int fd, struct statfs64 *st), (fd, st), -1)
OSP_WRAP(int, access, (const char *path, int mode), (path, mode), -1)
OSP_WRAP(int, faccessat, (int dirfd, const char *path, int mode, int fl), (dirfd, path, mode, fl),
         -1)
OSP_WRAP(int, chmod, (const char *path, mode_t mode), (path, mode), -1)
OSP_WRAP(int, fchmod, (int fd, mode_t mode), (fd, mode), -1)
OSP_WRAP(int, fchmodat, (int dirfd, const char *path, mode_t mode, int fl), (dirfd, path, mode, fl),
         -1)
OSP_WRAP(int, chown, (const char *path, uid_t u, gid_t g), (path, u, g), -1)
OSP_WRAP(int, fchown, (int fd, uid_t u, gid_t g), (fd, u, g), -1)
OSP_WRAP(int, lchown, (const char *path, uid_t u, gid_t g), (path, u, g), -1)
OSP_WRAP(int, fchownat, (int dirfd, const char *path, uid_t u, gid_t g, int fl),
         (dirfd, path, u, g, fl), -1)
OSP_WRAP(int, utimensat, (int dirfd, const char *path, const struct timespec ts[2], int fl),
         (dirfd, path, ts, fl), -1)
OSP_WRAP(int, futimens, (int fd, const struct timespec ts[2]), (fd, ts), -1)
OSP_WRAP(int, utime, (const char *path, const struct utimbuf *t), (path, t), -1)
OSP_WRAP(int, utimes, (const char *path, const struct timeval tv[2]), (path, tv), -1)

/* namespace */
OSP_WRAP(int, mkdir, (const char *path, mode_t mode), (path, mode), -1)
OSP_WRAP(int, mkdirat, (int dirfd, const char *path, mode_t mode), (dirfd, path, mode), -1)
OSP_WRAP(int, rmdir, (const char *path), (path), -1)
OSP_WRAP(int, unlink, (const char *path), (path), -1)
OSP_WRAP(int, unlinkat, (int dirfd, const char *path, int fl), (dirfd, path, fl), -1)
OSP_WRAP(int, rename, (const char *from, const char *to), (from, to), -1)
OSP_WRAP(int, renameat, (int fd1, const char *from, int fd2, const char *to), (fd1, from, fd2, to),
         -1)
OSP_WRAP(int, renameat2, (int fd1, const char *from, int fd2, const char *to, unsigned int fl),
         (fd1, from, fd2, to, fl), -1)
OSP_WRAP(int, link, (const char *from, const char *to), (from, to), -1)
OSP_WRAP(int, linkat, (int fd1, const char *from, int fd2, const char *to, int fl),
         (fd1, from, fd2, to, fl), -1)
OSP_WRAP(int, symlink, (const char *target, const char *path), (target, path), -1)
OSP_WRAP(int, symlinkat, (const char *target, int dirfd, const char *path), (target, dirfd, path),
         -1)
OSP_WRAP(ssize_t, readlink, (const char *path, char *buf, size_t n), (path, buf, n), -1)
OSP_WRAP(ssize_t, readlinkat, (int dirfd, const char *path, char *buf, size_t n),
         (dirfd, path, buf, n), -1)
OSP_WRAP(ssize_t, __readlink_chk, (const char *path, char *buf, size_t n, size_t buflen),
         (path, buf, n, buflen), -1)
OSP_WRAP(ssize_t, __readlinkat_chk,
         (int dirfd, const char *path, char *buf, size_t n, size_t buflen),
         (dirfd, path, buf, n, buflen), -1)
OSP_WRAP(int, mknod, (const char *path, mode_t mode, dev_t dev), (path, mode, dev), -1)
OSP_WRAP(int, mknodat, (int dirfd, const char *path, mode_t mode, dev_t dev),
         (dirfd, path, mode, dev), -1)
OSP_WRAP(int, chdir, (const char *path), (path), -1)
OSP_WRAP(int, fchdir, (int fd), (fd), -1)

/* directories */
OSP_WRAP(DIR *, opendir, (const char *path), (path), NULL)
OSP_WRAP(DIR *, fdopendir, (int fd), (fd), NULL)
OSP_WRAP(struct dirent *, readdir, (DIR * d), (d), NULL)
OSP_WRAP(struct dirent64 *, readdir64, (DIR * d), (d), NULL)
OSP_WRAP(int, closedir, (DIR * d), (d), -1)
OSP_WRAP(ssize_t, getdents64, (int fd, void *buf, size_t n), (fd, buf, n), -1)

/* memory mappings */
OSP_WRAP(void *, mmap, (void *addr, size_t n, int prot, int fl, int fd, off_t off),
         (addr, n, prot, fl, fd, off), MAP_FAILED)
OSP_WRAP(void *, mmap64, (void *addr, size_t n, int prot, int fl, int fd, off64_t off),
         (addr, n, prot, fl, fd, off), MAP_FAILED)
OSP_WRAP(int, munmap, (void *addr, size_t n), (addr, n), -1)
OSP_WRAP(int, msync, (void *addr, size_t n, int fl), (addr, n, fl), -1)

/* locks and descriptor control: fcntl's third argument is read as a pointer,
 * as glibc itself does, which carries an int or a pointer alike. */
OSP_WRAP(int, flock, (int fd, int op), (fd, op), -1)

static inline __attribute__((always_inline)) int fcntl_common(unsigned op, int fd, int cmd,
                                                              void *arg)
{
	int (*real)(int, int, ...) = osp_real(op);
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	char *slot = osp_slot();
	if (!slot)
		return real(fd, cmd, arg);
	uint64_t t0 = osp_stamp();
	int rv = real(fd, cmd, arg);
	osp_rec_span(slot, op, t0, osp_stamp());
	return rv;
}

OSP_EXPORT int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	return fcntl_common(OSP_OPI_fcntl, fd, cmd, arg);
}

OSP_EXPORT int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	return fcntl_common(OSP_OPI_fcntl64, fd, cmd, arg);
}
