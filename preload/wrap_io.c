/* Interposers: opening, closing and data transfer. */
#include <fcntl.h>
#include <stdarg.h>
#include <sys/sendfile.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include "preload/glibc_entries.h"
#include "preload/wrap.h"

static int needs_mode(int flags)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
}

/* open and openat take a mode only with O_CREAT or O_TMPFILE. If dlsym is
 * re-entered while resolving (see resolve.c), the system call is made
 * directly so the loader's own file accesses still work. */
static inline __attribute__((always_inline)) int
open_common(unsigned op, int at, int dirfd, const char *path, int flags, mode_t mode)
{
	void *fn = osp_real(op);
	if (!fn)
		return (int)syscall(SYS_openat, dirfd, path, flags, mode);
	char *slot = osp_slot();
	uint64_t t0 = slot ? osp_stamp() : 0;
	int rv = at ? ((int (*)(int, const char *, int, ...))fn)(dirfd, path, flags, mode)
	            : ((int (*)(const char *, int, ...))fn)(path, flags, mode);
	if (slot)
		osp_rec_span(slot, op, t0, osp_stamp());
	return rv;
}

#define OSP_VA_MODE(flags, mode)                                                                   \
	mode_t mode = 0;                                                                           \
	if (needs_mode(flags)) {                                                                   \
		va_list ap;                                                                        \
		va_start(ap, flags);                                                               \
		mode = va_arg(ap, mode_t);                                                         \
		va_end(ap);                                                                        \
	}

OSP_EXPORT int open(const char *path, int flags, ...)
{
	OSP_VA_MODE(flags, mode)
	return open_common(OSP_OPI_open, 0, AT_FDCWD, path, flags, mode);
}

OSP_EXPORT int open64(const char *path, int flags, ...)
{
	OSP_VA_MODE(flags, mode)
	return open_common(OSP_OPI_open64, 0, AT_FDCWD, path, flags, mode);
}

OSP_EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	OSP_VA_MODE(flags, mode)
	return open_common(OSP_OPI_openat, 1, dirfd, path, flags, mode);
}

OSP_EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	OSP_VA_MODE(flags, mode)
	return open_common(OSP_OPI_openat64, 1, dirfd, path, flags, mode);
}

OSP_WRAP(int, __open_2, (const char *path, int flags), (path, flags), -1)
OSP_WRAP(int, __open64_2, (const char *path, int flags), (path, flags), -1)
OSP_WRAP(int, __openat_2, (int dirfd, const char *path, int flags), (dirfd, path, flags), -1)
OSP_WRAP(int, __openat64_2, (int dirfd, const char *path, int flags), (dirfd, path, flags), -1)
OSP_WRAP(int, creat, (const char *path, mode_t mode), (path, mode), -1)
OSP_WRAP(int, creat64, (const char *path, mode_t mode), (path, mode), -1)
OSP_WRAP(int, dup, (int fd), (fd), -1)
OSP_WRAP(int, dup2, (int fd, int fd2), (fd, fd2), -1)
OSP_WRAP(int, dup3, (int fd, int fd2, int flags), (fd, fd2, flags), -1)

/* close, read and write fall back to the system call for the same reason as
 * open. */
#define OSP_WRAP_SYS(ret, name, params, args, sysargs)                                             \
	OSP_WRAP_OR(ret, name, params, args, return (ret)syscall sysargs)

OSP_WRAP_SYS(int, close, (int fd), (fd), (SYS_close, fd))
OSP_WRAP_SYS(ssize_t, read, (int fd, void *buf, size_t n), (fd, buf, n), (SYS_read, fd, buf, n))
OSP_WRAP_SYS(ssize_t, write, (int fd, const void *buf, size_t n), (fd, buf, n),
             (SYS_write, fd, buf, n))
OSP_WRAP(ssize_t, __read_chk, (int fd, void *buf, size_t n, size_t buflen), (fd, buf, n, buflen),
         -1)
OSP_WRAP(ssize_t, pread, (int fd, void *buf, size_t n, off_t off), (fd, buf, n, off), -1)
OSP_WRAP(ssize_t, pread64, (int fd, void *buf, size_t n, off64_t off), (fd, buf, n, off), -1)
OSP_WRAP(ssize_t, __pread_chk, (int fd, void *buf, size_t n, off_t off, size_t buflen),
         (fd, buf, n, off, buflen), -1)
OSP_WRAP(ssize_t, __pread64_chk, (int fd, void *buf, size_t n, off64_t off, size_t buflen),
         (fd, buf, n, off, buflen), -1)
OSP_WRAP(ssize_t, pwrite, (int fd, const void *buf, size_t n, off_t off), (fd, buf, n, off), -1)
OSP_WRAP(ssize_t, pwrite64, (int fd, const void *buf, size_t n, off64_t off), (fd, buf, n, off), -1)
OSP_WRAP(ssize_t, readv, (int fd, const struct iovec *iov, int n), (fd, iov, n), -1)
OSP_WRAP(ssize_t, writev, (int fd, const struct iovec *iov, int n), (fd, iov, n), -1)
OSP_WRAP(ssize_t, preadv, (int fd, const struct iovec *iov, int n, off_t off), (fd, iov, n, off),
         -1)
OSP_WRAP(ssize_t, preadv64, (int fd, const struct iovec *iov, int n, off64_t off),
         (fd, iov, n, off), -1)
OSP_WRAP(ssize_t, pwritev, (int fd, const struct iovec *iov, int n, off_t off), (fd, iov, n, off),
         -1)
OSP_WRAP(ssize_t, pwritev64, (int fd, const struct iovec *iov, int n, off64_t off),
         (fd, iov, n, off), -1)
OSP_WRAP(ssize_t, preadv2, (int fd, const struct iovec *iov, int n, off_t off, int fl),
         (fd, iov, n, off, fl), -1)
OSP_WRAP(ssize_t, pwritev2, (int fd, const struct iovec *iov, int n, off_t off, int fl),
         (fd, iov, n, off, fl), -1)
OSP_WRAP(ssize_t, preadv64v2, (int fd, const struct iovec *iov, int n, off64_t off, int fl),
         (fd, iov, n, off, fl), -1)
OSP_WRAP(ssize_t, pwritev64v2, (int fd, const struct iovec *iov, int n, off64_t off, int fl),
         (fd, iov, n, off, fl), -1)
OSP_WRAP(off_t, lseek, (int fd, off_t off, int whence), (fd, off, whence), -1)
OSP_WRAP(off64_t, lseek64, (int fd, off64_t off, int whence), (fd, off, whence), -1)
OSP_WRAP(ssize_t, sendfile, (int out, int in, off_t *off, size_t n), (out, in, off, n), -1)
OSP_WRAP(ssize_t, sendfile64, (int out, int in, off64_t *off, size_t n), (out, in, off, n), -1)
OSP_WRAP(ssize_t, copy_file_range,
         (int in, off64_t *inoff, int out, off64_t *outoff, size_t n, unsigned int fl),
         (in, inoff, out, outoff, n, fl), -1)
