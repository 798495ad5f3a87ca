/* Filter options and the walk with messages, shared by the trace subcommands. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "cli/cli.h"
#include "cli/trace_common.h"

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;
	if (!*s || *s == '-')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return *end || errno ? -1 : 0;
}

static int by_path(const char *cmd, struct osp_trace_filter *f, const char *flag, const char *path)
{
	struct stat sb;
	if (stat(path, &sb) < 0)
		return osp_usage_err(cmd, "%s %s: %s", flag, path, strerror(errno));
	f->has_ino = f->has_dev = 1;
	f->ino = sb.st_ino;
	/* kernel dev_t inside the trace: major << 20 | minor */
	f->dev = (uint32_t)major(sb.st_dev) << 20 | (uint32_t)minor(sb.st_dev);
	return 0;
}

int trace_filter_opt(const char *cmd, struct osp_trace_filter *f, int c, const char *arg)
{
	uint64_t v;
	switch (c) {
	case 1000:
		if (parse_u64(arg, &v) || v > UINT32_MAX)
			return osp_usage_err(cmd, "--pid: '%s' is not a process id", arg);
		f->has_pid = 1;
		f->pid = (uint32_t)v;
		return 0;
	case 1001: {
		char *copy = strdup(arg), *save, *tok;
		int rc = 0;
		f->has_ops = 1;
		for (tok = strtok_r(copy, ",", &save); tok && !rc;
		     tok = strtok_r(NULL, ",", &save)) {
			int op = osp_trace_op_parse(tok);
			if (op < 0)
				rc = osp_usage_err(cmd, "--op: unknown operation '%s'", tok);
			else
				f->ops[op] = 1;
		}
		free(copy);
		return rc;
	}
	case 1002:
		if (parse_u64(arg, &v))
			return osp_usage_err(cmd, "--inode: '%s' is not an inode number", arg);
		f->has_ino = 1;
		f->ino = v;
		return 0;
	case 1003:
		return by_path(cmd, f, "--path", arg);
	case 1004:
		if (!parse_u64(arg, &v)) {
			f->has_ino = 1;
			f->ino = v;
			return 0;
		}
		return by_path(cmd, f, "--path-inode", arg);
	case 1005:
		if (osp_parse_duration(arg, &v))
			return osp_usage_err(cmd, "--min-lat: '%s' is not a duration", arg);
		f->min_lat = v;
		return 0;
	}
	return OSP_EXIT_USAGE;
}

static const char *warn_cmd = "";

void trace_warn_as(const char *cmd)
{
	warn_cmd = cmd;
}

void trace_warn(const char *text)
{
	fprintf(stderr, "osprof trace %s: warning: %s\n", warn_cmd, text);
}

int trace_walk(const char *cmd, const char *path, const struct osp_trace_filter *f,
               osp_trace_visit_fn fn, void *ctx, struct osp_trace_totals *t)
{
	char err[600];
	trace_warn_as(cmd);
	int rc = osp_trace_walk(path, f, fn, ctx, trace_warn, t, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "osprof trace %s: %s\n", cmd, err);
		return OSP_EXIT_USAGE;
	}
	return rc;
}

char *trace_dev_str(uint32_t dev, char *buf, size_t len)
{
	snprintf(buf, len, "%u:%u", dev >> 20, dev & 0xfffff);
	return buf;
}
