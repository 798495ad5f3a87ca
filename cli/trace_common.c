/* Filters and the event walk shared by the trace subcommands. */
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

static int by_path(const char *cmd, struct trace_filter *f, const char *flag, const char *path)
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

int trace_filter_opt(const char *cmd, struct trace_filter *f, int c, const char *arg)
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

int trace_filter_match(const struct trace_filter *f, const struct osp_trace_event *ev)
{
	if (!f)
		return 1;
	if (f->has_pid && ev->pid != f->pid && ev->tid != f->pid)
		return 0;
	if (f->has_ops && (ev->op >= OSP_TOP_NR || !f->ops[ev->op]))
		return 0;
	if (f->has_ino && ev->ino != f->ino)
		return 0;
	if (f->has_dev && ev->dev != f->dev)
		return 0;
	return ev->lat_ns >= f->min_lat;
}

int trace_walk(const char *cmd, const char *path, const struct trace_filter *f, trace_visit_fn fn,
               void *ctx, struct trace_totals *t)
{
	char **paths, err[600];
	size_t n;
	memset(t, 0, sizeof(*t));
	if (osp_trace_list(path, &paths, &n, err, sizeof(err)) < 0) {
		fprintf(stderr, "osprof trace %s: %s\n", cmd, err);
		return OSP_EXIT_USAGE;
	}
	if (n == 0) {
		fprintf(stderr, "osprof trace %s: %s: no trace segments (*%s) in this directory\n",
		        cmd, path, OSP_TRACE_EXT);
		osp_trace_list_free(paths, n);
		return OSP_EXIT_USAGE;
	}
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		struct osp_trace_reader *r = osp_trace_reader_open(paths[i], err, sizeof(err));
		if (!r) {
			fprintf(stderr, "osprof trace %s: %s\n", cmd, err);
			rc = OSP_EXIT_USAGE;
			break;
		}
		if (t->segments++ == 0)
			t->host = *osp_trace_reader_host(r);
		struct osp_trace_event ev;
		while (!rc && osp_trace_reader_next(r, &ev) == 1) {
			t->events++;
			if (!t->first_ts || (ev.ts_ns && ev.ts_ns < t->first_ts))
				t->first_ts = ev.ts_ns;
			if (ev.ts_ns + ev.lat_ns > t->last_end)
				t->last_end = ev.ts_ns + ev.lat_ns;
			if (!trace_filter_match(f, &ev))
				continue;
			t->matched++;
			rc = fn ? fn(ctx, &ev) : 0;
		}
		struct osp_trace_reader_stats st;
		osp_trace_reader_get_stats(r, &st);
		t->dropped += st.dropped;
		t->blocks += st.blocks;
		t->raw_bytes += st.raw_bytes;
		t->disk_bytes += st.disk_bytes;
		t->zstd_blocks += (uint64_t)st.zstd_blocks;
		if (!rc && osp_trace_reader_warning(r)) {
			t->truncated++;
			fprintf(stderr, "osprof trace %s: warning: %s\n", cmd,
			        osp_trace_reader_warning(r));
		}
		osp_trace_reader_close(r);
	}
	osp_trace_list_free(paths, n);
	return rc;
}

char *trace_dev_str(uint32_t dev, char *buf, size_t len)
{
	snprintf(buf, len, "%u:%u", dev >> 20, dev & 0xfffff);
	return buf;
}
