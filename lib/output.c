/* Safe output files (include/osprof/output.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <osprof/output.h>

static int fail(char *err, size_t errlen, const char *path, int e)
{
	snprintf(err, errlen, "%s: %s", path, strerror(e));
	return -e;
}

/* The names that mean the standard output rather than a file. */
static int is_stdout(const char *path)
{
	return !strcmp(path, "-") || !strcmp(path, "/dev/stdout") ||
	       !strcmp(path, "/proc/self/fd/1") || !strcmp(path, "/dev/fd/1");
}

/* The directory part of path ("." when there is none) into buf. */
static int dir_of(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return snprintf(buf, len, ".") >= (int)len ? -ENAMETOOLONG : 0;
	size_t n = slash == path ? 1 : (size_t)(slash - path);
	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(buf, path, n);
	buf[n] = '\0';
	return 0;
}

int osp_output_check_dir(const char *dir, char *err, size_t errlen)
{
	struct stat st;
	if (stat(dir, &st) < 0)
		return fail(err, errlen, dir, errno);
	if (!S_ISDIR(st.st_mode))
		return fail(err, errlen, dir, ENOTDIR);
	/* access() asks for the real user: root running for a user through a
	 * set-uid wrapper still may not write where that user may not. */
	if (access(dir, W_OK | X_OK) < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: directory not writable: %s", dir, strerror(e));
		return -e;
	}
	return 0;
}

int osp_output_check(const char *path, char *err, size_t errlen)
{
	if (!*path)
		return fail(err, errlen, "(empty output name)", ENOENT);
	if (is_stdout(path))
		return 0;
	struct stat st;
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return fail(err, errlen, path, EISDIR);
		if (!S_ISREG(st.st_mode))
			return access(path, W_OK) < 0 ? fail(err, errlen, path, errno) : 0;
	}
	char dir[PATH_MAX];
	if (dir_of(path, dir, sizeof(dir)) < 0)
		return fail(err, errlen, path, ENAMETOOLONG);
	char sub[PATH_MAX + 32];
	int rc = osp_output_check_dir(dir, sub, sizeof(sub));
	if (rc < 0)
		snprintf(err, errlen, "%s: %s", path, sub);
	return rc;
}

static int open_in_place(struct osp_output *o, const char *path, char *err, size_t errlen)
{
	/* No O_CREAT and no O_TRUNC: the node exists and stays what it is. */
	int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return fail(err, errlen, path, errno);
	struct stat st;
	if (fstat(fd, &st) < 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) {
		/* Swapped for a regular file between the checks: refuse rather
		 * than write into it without the temporary. */
		close(fd);
		return fail(err, errlen, path, EAGAIN);
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		int e = errno;
		close(fd);
		return fail(err, errlen, path, e);
	}
	return 0;
}

static int open_temporary(struct osp_output *o, const char *path, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	if (dir_of(path, dir, sizeof(dir)) < 0)
		return fail(err, errlen, path, ENAMETOOLONG);
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t len = strlen(dir) + strlen(base) + 16;
	o->tmp = malloc(len);
	if (!o->tmp)
		return fail(err, errlen, path, ENOMEM);
	/* mkstemp opens with O_CREAT|O_EXCL: a name someone planted (a
	 * symlink to /etc/shadow, say) is never opened, another is drawn. */
	snprintf(o->tmp, len, "%s/.%s.XXXXXX", dir, base);
	int fd = mkostemp(o->tmp, O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		free(o->tmp);
		o->tmp = NULL;
		return fail(err, errlen, path, e);
	}
	/* mkstemp makes 0600; a profile is as readable as any file made with
	 * the caller's umask. */
	mode_t mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) < 0 || !(o->f = fdopen(fd, "w"))) {
		int e = errno;
		close(fd);
		unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
		return fail(err, errlen, path, e);
	}
	return 0;
}

int osp_output_open(struct osp_output *o, const char *path, char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	int rc = osp_output_check(path, err, errlen);
	if (rc < 0)
		return rc;
	o->path = strdup(path);
	if (!o->path)
		return fail(err, errlen, path, ENOMEM);
	if (is_stdout(path)) {
		o->f = stdout;
		o->borrowed = 1;
		return 0;
	}
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		rc = open_in_place(o, path, err, errlen);
	else
		rc = open_temporary(o, path, err, errlen);
	if (rc < 0) {
		free(o->path);
		o->path = NULL;
	}
	return rc;
}

static void release(struct osp_output *o)
{
	free(o->path);
	free(o->tmp);
	memset(o, 0, sizeof(*o));
}

void osp_output_abort(struct osp_output *o)
{
	if (o->f && !o->borrowed)
		fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	release(o);
}

int osp_output_commit(struct osp_output *o, char *err, size_t errlen)
{
	int e = 0;
	errno = 0;
	if (fflush(o->f) != 0 || ferror(o->f))
		e = errno ? errno : EIO;
	/* fsync before rename: after a crash the name holds the old file or
	 * the whole new one, never an empty one. A FIFO or tty cannot fsync. */
	if (!e && o->tmp && fsync(fileno(o->f)) < 0)
		e = errno;
	if (!o->borrowed && fclose(o->f) != 0 && !e)
		e = errno;
	o->f = NULL;
	if (!e && o->tmp && rename(o->tmp, o->path) < 0)
		e = errno;
	if (e) {
		fail(err, errlen, o->path, e);
		if (o->tmp)
			unlink(o->tmp);
	}
	release(o);
	return -e;
}

int osp_output_save(const char *path, const void *buf, size_t len, char *err, size_t errlen)
{
	struct osp_output o;
	int rc = osp_output_open(&o, path, err, errlen);
	if (rc < 0)
		return rc;
	if (len && fwrite(buf, 1, len, o.f) != len) {
		int e = errno ? errno : EIO;
		osp_output_abort(&o);
		return fail(err, errlen, path, e);
	}
	return osp_output_commit(&o, err, errlen);
}
