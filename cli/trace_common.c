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

static int opt_pid(const char *cmd, const char *flag, const char *arg, void *vf)
{
	struct osp_trace_filter *f = vf;
	uint64_t v;
	if (parse_u64(arg, &v) || v > UINT32_MAX)
		return osp_usage_err(cmd, "%s: '%s' is not a process id", flag, arg);
	f->has_pid = 1;
	f->pid = (uint32_t)v;
	return 0;
}

struct op_ctx {
	const char *cmd;
	struct osp_trace_filter *f;
};

static int add_op(const char *tok, void *vctx)
{
	struct op_ctx *c = vctx;
	int op = osp_trace_op_parse(tok);
	if (op < 0)
		return osp_usage_err(c->cmd, "--op: unknown operation '%s'", tok);
	c->f->ops[op] = 1;
	return 0;
}

static int opt_op(const char *cmd, const char *flag, const char *arg, void *vf)
{
	struct op_ctx c = {cmd, vf};
	(void)flag;
	c.f->has_ops = 1;
	return osp_opt_each(arg, add_op, &c);
}

static int opt_inode(const char *cmd, const char *flag, const char *arg, void *vf)
{
	struct osp_trace_filter *f = vf;
	uint64_t v;
	if (parse_u64(arg, &v))
		return osp_usage_err(cmd, "%s: '%s' is not an inode number", flag, arg);
	f->has_ino = 1;
	f->ino = v;
	return 0;
}

static int opt_path(const char *cmd, const char *flag, const char *arg, void *vf)
{
	return by_path(cmd, vf, flag, arg);
}

static int opt_path_inode(const char *cmd, const char *flag, const char *arg, void *vf)
{
	uint64_t v;
	return parse_u64(arg, &v) ? by_path(cmd, vf, flag, arg) : opt_inode(cmd, flag, arg, vf);
}

/* 0 is a valid minimum (every event), unlike a duration option's */
static int opt_min_lat(const char *cmd, const char *flag, const char *arg, void *vf)
{
	struct osp_trace_filter *f = vf;
	if (osp_parse_duration(arg, &f->min_lat))
		return osp_usage_err(cmd, "%s: '%s' is not a duration", flag, arg);
	return 0;
}

void trace_filter_options(struct osp_option t[TRACE_FILTER_NOPTS], struct osp_trace_filter *f)
{
	const struct osp_option filters[TRACE_FILTER_NOPTS] = {
	    OSP_OPT_GROUP("Filters:"),
	    OSP_OPT_CALL(0, "pid", f, opt_pid, "PID", "events of process or thread PID"),
	    OSP_OPT_CALL(0, "op", f, opt_op, "OP[,OP...]",
	                 "these operations only (names as 'osprof trace dump'\n"
	                 "prints)"),
	    OSP_OPT_CALL(0, "path", f, opt_path, "PATH",
	                 "events on the file PATH (its device and inode, now)"),
	    OSP_OPT_CALL(0, "inode", f, opt_inode, "INO", "events on inode INO (any device)"),
	    OSP_OPT_CALL(0, "path-inode", f, opt_path_inode, "P|N",
	                 "--path P, or --inode N when numeric"),
	    OSP_OPT_CALL(0, "min-lat", f, opt_min_lat, "DUR",
	                 "events that took at least DUR (e.g. 1ms, 250us;\n"
	                 "default unit s)"),
	    OSP_OPT_END,
	};
	memset(f, 0, sizeof(*f));
	memcpy(t, filters, sizeof(filters));
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
