/* A walk over every event of a trace, filtered (include/osprof/trace.h). */
#include <stdio.h>
#include <string.h>
#include <osprof/trace.h>

int osp_trace_filter_match(const struct osp_trace_filter *f, const struct osp_trace_event *ev)
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

static int walk_segment(struct osp_trace_reader *r, const struct osp_trace_filter *f,
                        osp_trace_visit_fn fn, void *ctx, struct osp_trace_totals *t)
{
	struct osp_trace_event ev;
	int rc = 0;
	while (!rc && osp_trace_reader_next(r, &ev) == 1) {
		t->events++;
		if (!t->first_ts || (ev.ts_ns && ev.ts_ns < t->first_ts))
			t->first_ts = ev.ts_ns;
		if (ev.ts_ns + ev.lat_ns > t->last_end)
			t->last_end = ev.ts_ns + ev.lat_ns;
		if (!osp_trace_filter_match(f, &ev))
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
	return rc;
}

int osp_trace_walk(const char *path, const struct osp_trace_filter *f, osp_trace_visit_fn fn,
                   void *ctx, osp_trace_warn_fn warn, struct osp_trace_totals *t, char *err,
                   size_t errlen)
{
	char **paths;
	size_t n;
	memset(t, 0, sizeof(*t));
	if (osp_trace_list(path, &paths, &n, err, errlen) < 0)
		return -1;
	if (n == 0) {
		snprintf(err, errlen, "%s: no trace segments (*%s) in this directory", path,
		         OSP_TRACE_EXT);
		osp_trace_list_free(paths, n);
		return -1;
	}
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		struct osp_trace_reader *r = osp_trace_reader_open(paths[i], err, errlen);
		if (!r) {
			rc = -1;
			break;
		}
		if (t->segments++ == 0)
			t->host = *osp_trace_reader_host(r);
		rc = walk_segment(r, f, fn, ctx, t);
		if (!rc && osp_trace_reader_warning(r)) {
			t->truncated++;
			if (warn)
				warn(osp_trace_reader_warning(r));
		}
		osp_trace_reader_close(r);
	}
	osp_trace_list_free(paths, n);
	return rc;
}
