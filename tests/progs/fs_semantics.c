/* fs_semantics DIR: a fixed script of rename, link, unlink, chmod, truncate,
 * xattr, symlink, mkdir/rmdir and open calls in DIR (empty), many of them
 * meant to fail, printing one line per call with its result or errno name
 * and the file facts that follow (mode, link count, size, xattr values,
 * sorted directory listing) -- nothing that differs between two correct
 * file systems of one type (inode numbers, times). Run on a directory of
 * the lower file system and on one through a pass-through, the outputs must
 * be identical. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

static void res(const char *what, long rc)
{
	if (rc < 0)
		printf("%-40s -> %s\n", what, strerrorname_np(errno));
	else
		printf("%-40s -> %ld\n", what, rc);
}

static void facts(const char *name)
{
	struct stat st;
	if (lstat(name, &st)) {
		printf("  %s: %s\n", name, strerrorname_np(errno));
		return;
	}
	printf("  %s: mode %o nlink %lu size %lld\n", name, (unsigned)st.st_mode,
	       (unsigned long)st.st_nlink, S_ISDIR(st.st_mode) ? -1LL : (long long)st.st_size);
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void listing(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d) {
		printf("  ls %s: %s\n", dir, strerrorname_np(errno));
		return;
	}
	char *names[256];
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d)) && n < 256)
		names[n++] = strdup(e->d_name);
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp);
	printf("  ls %s:", dir);
	for (size_t i = 0; i < n; i++) {
		printf(" %s", names[i]);
		free(names[i]);
	}
	printf("\n");
}

static void xattr_value(const char *path, const char *name)
{
	char buf[64];
	ssize_t n = getxattr(path, name, buf, sizeof(buf) - 1);
	if (n < 0) {
		printf("  getxattr %s %s -> %s\n", path, name, strerrorname_np(errno));
		return;
	}
	buf[n] = '\0';
	printf("  getxattr %s %s = '%s'\n", path, name, buf);
}

static void files_and_links(void)
{
	int fd = open("f", O_RDWR | O_CREAT | O_EXCL, 0644);
	res("open f O_CREAT|O_EXCL", fd < 0 ? -1 : 0);
	res("open f O_CREAT|O_EXCL again", open("f", O_RDWR | O_CREAT | O_EXCL, 0644));
	res("write f 'hello world'", write(fd, "hello world", 11));
	res("ftruncate f 3", ftruncate(fd, 3));
	facts("f");
	res("truncate f 10", truncate("f", 10));
	facts("f");
	res("truncate missing", truncate("missing", 1));
	res("mkdir d", mkdir("d", 0755));
	res("mkdir d again", mkdir("d", 0755));
	res("truncate d", truncate("d", 1));
	res("open d O_WRONLY", open("d", O_WRONLY));
	res("open f/x", open("f/x", O_RDONLY));
	res("open missing", open("missing", O_RDONLY));
	res("chmod f 0600", chmod("f", 0600));
	facts("f");
	res("fchmod f 0640", fchmod(fd, 0640));
	facts("f");
	res("chmod missing", chmod("missing", 0600));
	res("link f g", link("f", "g"));
	facts("f");
	res("link f g again", link("f", "g"));
	res("link missing h", link("missing", "h"));
	res("link d dl", link("d", "dl"));
	res("rename g h", rename("g", "h"));
	facts("g");
	facts("h");
	res("rename h d", rename("h", "d"));
	res("rename d d/sub", rename("d", "d/sub"));
	res("rename missing x", rename("missing", "x"));
	int e = open("e", O_WRONLY | O_CREAT, 0600);
	res("write e 'e'", write(e, "e", 1));
	close(e);
	res("renameat2 e f NOREPLACE", renameat2(AT_FDCWD, "e", AT_FDCWD, "f", RENAME_NOREPLACE));
	res("renameat2 e f EXCHANGE", renameat2(AT_FDCWD, "e", AT_FDCWD, "f", RENAME_EXCHANGE));
	facts("e");
	facts("f");
	res("rename e f (replace)", rename("e", "f"));
	facts("f");
	res("unlink h", unlink("h"));
	res("unlink h again", unlink("h"));
	res("unlink d", unlink("d"));
	close(fd);
}

static void dirs_and_links(void)
{
	res("mkdir d/sub", mkdir("d/sub", 0700));
	res("mkdir d2", mkdir("d2", 0755));
	res("mkdir d2/x", mkdir("d2/x", 0755));
	res("rename d d2 (not empty)", rename("d", "d2"));
	res("rmdir d2", rmdir("d2"));
	res("rmdir f", rmdir("f"));
	res("rmdir d2/x", rmdir("d2/x"));
	res("rename d d2 (empty)", rename("d", "d2"));
	facts("d2/sub");
	res("symlink f s", symlink("f", "s"));
	char buf[64];
	ssize_t n = readlink("s", buf, sizeof(buf) - 1);
	res("readlink s", n);
	if (n >= 0) {
		buf[n] = '\0';
		printf("  s -> %s\n", buf);
	}
	res("readlink f", readlink("f", buf, sizeof(buf)));
	res("open s O_NOFOLLOW", open("s", O_RDONLY | O_NOFOLLOW));
	res("symlink f s again", symlink("f", "s"));
	res("mkfifo p", mkfifo("p", 0600));
	facts("p");
	facts("s");
	res("rename f d2/sub/f", rename("f", "d2/sub/f"));
	facts("d2/sub/f");
	listing(".");
	listing("d2/sub");
}

static void xattrs(void)
{
	int fd = open("x", O_RDWR | O_CREAT, 0644);
	close(fd);
	res("setxattr x user.a v1", setxattr("x", "user.a", "v1", 2, 0));
	xattr_value("x", "user.a");
	res("setxattr x user.a CREATE", setxattr("x", "user.a", "v2", 2, XATTR_CREATE));
	res("setxattr x user.a REPLACE", setxattr("x", "user.a", "v3", 2, XATTR_REPLACE));
	xattr_value("x", "user.a");
	res("setxattr x user.b REPLACE", setxattr("x", "user.b", "v", 1, XATTR_REPLACE));
	res("setxattr x user.b", setxattr("x", "user.b", "bee", 3, 0));
	xattr_value("x", "user.missing");
	char small[1];
	res("getxattr x user.b (1-byte buffer)", getxattr("x", "user.b", small, sizeof(small)));
	res("getxattr x user.b (size query)", getxattr("x", "user.b", NULL, 0));
	char list[256];
	ssize_t n = listxattr("x", list, sizeof(list));
	res("listxattr x", n);
	res("listxattr x (1-byte buffer)", listxattr("x", small, sizeof(small)));
	res("removexattr x user.a", removexattr("x", "user.a"));
	res("removexattr x user.a again", removexattr("x", "user.a"));
	xattr_value("x", "user.b");
	res("setxattr missing user.a", setxattr("missing", "user.a", "v", 1, 0));
	res("getxattr x bogus namespace", getxattr("x", "bogus.a", list, sizeof(list)));
}

int main(int argc, char **argv)
{
	if (argc != 2 || chdir(argv[1])) {
		fprintf(stderr, "usage: fs_semantics EMPTY_DIR\n");
		return 2;
	}
	umask(022);
	files_and_links();
	dirs_and_links();
	xattrs();
	return 0;
}
