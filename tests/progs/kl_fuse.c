/* A minimal FUSE file system spoken directly over /dev/fuse (no libfuse):
 * one read-only file "f" of 4 KiB of zeros, opened with direct I/O so every
 * read() is one FUSE_READ request. Serves until the mount goes away.
 * usage: kl_fuse MOUNTPOINT READY_FILE   (READY_FILE is created once mounted) */
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define FILE_SIZE 4096

static int fd;

static void reply(uint64_t unique, int error, const void *data, size_t len)
{
	struct fuse_out_header h = {
	    .len = (uint32_t)(sizeof(h) + len), .error = error, .unique = unique};
	struct iovec iov[2] = {{&h, sizeof(h)}, {(void *)data, len}};
	if (writev(fd, iov, len ? 2 : 1) < 0 && errno != ENOENT) /* ENOENT: interrupted */
		perror("kl_fuse: reply");
}

static void attr(uint64_t node, struct fuse_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->ino = node;
	a->nlink = 1;
	a->blksize = 4096;
	if (node == FUSE_ROOT_ID) {
		a->mode = S_IFDIR | 0755;
		a->nlink = 2;
	} else {
		a->mode = S_IFREG | 0444;
		a->size = FILE_SIZE;
		a->blocks = FILE_SIZE / 512;
	}
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: kl_fuse MOUNTPOINT READY_FILE\n");
		return 2;
	}
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror("/dev/fuse");
		return 1;
	}
	char opts[128];
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0", fd);
	if (mount("kl_fuse", argv[1], "fuse.kl_fuse", MS_NOSUID | MS_NODEV, opts)) {
		perror("kl_fuse: mount");
		return 1;
	}
	int r = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (r < 0 || close(r)) {
		perror(argv[2]);
		return 1;
	}
	static char buf[FUSE_MIN_READ_BUFFER + 65536];
	static const char zeros[FILE_SIZE];
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR || errno == ENOENT || errno == EAGAIN)
				continue;
			if (errno == ENODEV) /* unmounted */
				return 0;
			perror("kl_fuse: read");
			return 1;
		}
		if ((size_t)n < sizeof(struct fuse_in_header))
			continue;
		struct fuse_in_header *in = (struct fuse_in_header *)buf;
		void *arg = in + 1;
		switch (in->opcode) {
		case FUSE_INIT: {
			struct fuse_init_in *ii = arg;
			struct fuse_init_out o = {.major = FUSE_KERNEL_VERSION,
			                          .minor = ii->minor < 31 ? ii->minor : 31,
			                          .max_readahead = ii->max_readahead,
			                          .max_background = 16,
			                          .congestion_threshold = 12,
			                          .max_write = 4096,
			                          .time_gran = 1};
			reply(in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_LOOKUP: {
			if (in->nodeid != FUSE_ROOT_ID || strcmp((char *)arg, "f")) {
				reply(in->unique, -ENOENT, NULL, 0);
				break;
			}
			struct fuse_entry_out e = {.nodeid = 2, .generation = 1};
			attr(2, &e.attr);
			reply(in->unique, 0, &e, sizeof(e));
			break;
		}
		case FUSE_GETATTR: {
			struct fuse_attr_out a = {0};
			attr(in->nodeid, &a.attr);
			reply(in->unique, 0, &a, sizeof(a));
			break;
		}
		case FUSE_OPEN:
		case FUSE_OPENDIR: {
			struct fuse_open_out o = {
			    .fh = 1, .open_flags = in->opcode == FUSE_OPEN ? FOPEN_DIRECT_IO : 0};
			reply(in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_READ: {
			struct fuse_read_in *rd = arg;
			size_t len = rd->offset >= FILE_SIZE ? 0 : FILE_SIZE - rd->offset;
			if (len > rd->size)
				len = rd->size;
			reply(in->unique, 0, zeros, len);
			break;
		}
		case FUSE_STATFS: {
			struct fuse_statfs_out st = {0};
			reply(in->unique, 0, &st, sizeof(st));
			break;
		}
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
			break; /* no reply */
		case FUSE_READDIR:
		case FUSE_FLUSH:
		case FUSE_RELEASE:
		case FUSE_RELEASEDIR:
		case FUSE_ACCESS:
		case FUSE_DESTROY:
			reply(in->unique, 0, NULL, 0);
			break;
		default:
			reply(in->unique, -ENOSYS, NULL, 0);
		}
	}
}
