/* The bundled demo workload of `scripts/demo.sh`: a small file-system
 * workload whose operations have several distinct execution paths, so its
 * profiles show several peaks (page-cache hits vs. disk reads, plain writes
 * vs. writes followed by fsync, lookups of present and absent files).
 * Usage: osprof-demo [DIR] [SCALE]; DIR defaults to /var/tmp (a real disk). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLOCK 4096

static void die(const char *what)
{
	fprintf(stderr, "osprof-demo: %s: %s\n", what, strerror(errno));
	exit(1);
}

int main(int argc, char **argv)
{
	const char *base = argc > 1 ? argv[1] : "/var/tmp";
	int scale = argc > 2 ? atoi(argv[2]) : 1;
	char dir[4096], path[4200];
	static char buf[BLOCK] __attribute__((aligned(BLOCK)));
	if (scale < 1)
		scale = 1;
	snprintf(dir, sizeof(dir), "%s/osprof-demo.%d", base, (int)getpid());
	if (mkdir(dir, 0700))
		die(dir);
	memset(buf, 'x', sizeof(buf));

	/* A 4 MiB file: written, synced, then read cached and uncached. */
	snprintf(path, sizeof(path), "%s/data", dir);
	int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
	if (fd < 0)
		die(path);
	for (int i = 0; i < 1024; i++)
		if (write(fd, buf, BLOCK) != BLOCK)
			die("write");
	if (fsync(fd))
		die("fsync");
	for (int pass = 0; pass < 4 * scale; pass++)
		for (off_t off = 0; off < 1024 * BLOCK; off += BLOCK)
			if (pread(fd, buf, BLOCK, off) != BLOCK)
				die("pread");
	close(fd);
	int dfd = open(path, O_RDONLY | O_DIRECT);
	if (dfd >= 0) { /* tmpfs has no O_DIRECT: then only cached reads */
		for (int i = 0; i < 256 * scale; i++) {
			off_t off = (off_t)((unsigned)(i * 7919) % 1024) * BLOCK;
			if (pread(dfd, buf, BLOCK, off) != BLOCK)
				die("O_DIRECT pread");
		}
		close(dfd);
	}

	/* Small files: create, write, sometimes fsync, stat, unlink. */
	for (int i = 0; i < 200 * scale; i++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
		if (fd < 0)
			die(path);
		if (write(fd, buf, 512) != 512)
			die("write");
		if (i % 10 == 0 && fsync(fd))
			die("fsync");
		close(fd);
		struct stat st;
		if (stat(path, &st))
			die("stat");
		snprintf(path, sizeof(path), "%s/absent%d", dir, i);
		if (stat(path, &st) == 0)
			die("stat of an absent file succeeded");
	}
	for (int i = 0; i < 200 * scale; i++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		if (unlink(path))
			die(path);
	}
	snprintf(path, sizeof(path), "%s/data", dir);
	if (unlink(path) || rmdir(dir))
		die("cleanup");
	return 0;
}
