/* A file-system workload with known system-call counts, for the trace tests:
 *   mkdir 1, openat(O_CREAT) 1, write 64 x 4 KiB (sequential), fsync 1,
 *   openat(O_RDONLY) 1, read 65 (64 x 4 KiB sequential + EOF), lseek 1,
 *   pread64 8, fstat 1, close 2 (on the file), rename 1, unlink 1, rmdir 1.
 * Usage: trace_workload DIR   (DIR must exist; prints nothing on success) */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int die(const char *what)
{
	perror(what);
	return 1;
}

int main(int argc, char **argv)
{
	static char buf[4096];
	char d[4096], f[4200], g[4200];
	struct stat st;
	if (argc != 2) {
		fprintf(stderr, "usage: trace_workload DIR\n");
		return 2;
	}
	snprintf(d, sizeof(d), "%s/trace_workload.d", argv[1]);
	snprintf(f, sizeof(f), "%s/f", d);
	snprintf(g, sizeof(g), "%s/g", d);
	memset(buf, 'x', sizeof(buf));
	if (mkdir(d, 0755))
		return die("mkdir");
	int fd = open(f, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd < 0)
		return die("open");
	for (int i = 0; i < 64; i++)
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			return die("write");
	if (fsync(fd) || close(fd))
		return die("fsync");
	if ((fd = open(f, O_RDONLY)) < 0)
		return die("open");
	for (int i = 0; i < 65; i++)
		if (read(fd, buf, sizeof(buf)) < 0)
			return die("read");
	if (lseek(fd, 0, SEEK_SET))
		return die("lseek");
	for (int i = 0; i < 8; i++)
		if (pread(fd, buf, sizeof(buf), (off_t)i * 8192) != (ssize_t)sizeof(buf))
			return die("pread");
	/* the raw syscall: libc's fstat may become newfstatat or statx */
	if (syscall(SYS_fstat, fd, &st) || close(fd))
		return die("fstat");
	if (rename(f, g) || unlink(g) || rmdir(d))
		return die("rename/unlink/rmdir");
	return 0;
}
