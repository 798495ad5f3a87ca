/* Output files a root user can trust (every writer of osprof goes through
 * here). A regular file (or a name that does not exist yet) is written to a
 * fresh temporary made with mkstemp in the target's directory and renamed
 * over the target only after a successful flush and fsync: a planted symlink
 * is never followed and a failure never leaves a partial or empty file. A
 * target that exists and is not a regular file (character device, FIFO,
 * socket) is written in place and never replaced; "-" and /dev/stdout are
 * the standard output. */
#ifndef OSPROF_OUTPUT_H
#define OSPROF_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

struct osp_output {
	FILE *f;      /* write here between open and commit */
	char *path;   /* the target as given */
	char *tmp;    /* temporary to rename over path; NULL when written in place */
	int borrowed; /* f is stdout: flushed, never closed */
};

/* Checks, before any work is done, that path can be written: its directory
 * exists and the invoking (real) user may create files in it, and path is
 * not a directory. 0, or -errno with "PATH: reason" in err. */
int osp_output_check(const char *path, char *err, size_t errlen);

/* Like osp_output_check for a directory that files will be created in. */
int osp_output_check_dir(const char *dir, char *err, size_t errlen);

/* Opens the output; 0 or -errno with "PATH: reason" in err. */
int osp_output_open(struct osp_output *o, const char *path, char *err, size_t errlen);

/* Flushes, fsyncs and renames into place (closing the stream). On any
 * failure the temporary is removed, the target is left as it was, and
 * -errno is returned with "PATH: reason" in err. */
int osp_output_commit(struct osp_output *o, char *err, size_t errlen);

/* Drops the output: removes the temporary, leaves the target as it was. */
void osp_output_abort(struct osp_output *o);

/* The whole of a byte buffer written to path through the steps above. */
int osp_output_save(const char *path, const void *buf, size_t len, char *err, size_t errlen);

#endif
