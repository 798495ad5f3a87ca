/* Entry points glibc exports that its headers declare only under
 * _FORTIFY_SOURCE (the *_2 and *_chk ones) or no longer (the pre-2.33 stat
 * family, still bound by older binaries): the interposers define them and
 * tests/progs/ops_n.c calls them by name. */
#ifndef OSPROF_PRELOAD_GLIBC_ENTRIES_H
#define OSPROF_PRELOAD_GLIBC_ENTRIES_H

#include <sys/stat.h>
#include <sys/types.h>

int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);
ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen);
ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen);
ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t buflen);
ssize_t __readlink_chk(const char *path, char *buf, size_t n, size_t buflen);
ssize_t __readlinkat_chk(int dirfd, const char *path, char *buf, size_t n, size_t buflen);
int __xstat(int ver, const char *path, struct stat *st);
int __xstat64(int ver, const char *path, struct stat64 *st);
int __fxstat(int ver, int fd, struct stat *st);
int __fxstat64(int ver, int fd, struct stat64 *st);
int __lxstat(int ver, const char *path, struct stat *st);
int __lxstat64(int ver, const char *path, struct stat64 *st);
int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags);
int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st, int flags);

#endif
