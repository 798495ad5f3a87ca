/* osprof trace dump (one event per line) and osprof trace stats. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uthash.h>
#include "cli/cli.h"
#include "cli/trace_cmds.h"
#include "cli/trace_common.h"

static const char dump_usage[] =
    "usage: osprof trace dump [FILTERS] [--no-header] [--wall] DIR|FILE\n\n"
    "Prints the events of a trace (a segment file, or every segment of a\n"
    "directory in time order), one per line:\n"
    "  TIME(s)  seconds since the first event of the trace (operation start);\n"
    "           with --wall, local wall-clock time HH:MM:SS.microseconds\n"
    "  COMM PID TID  the thread; LAYER OP  where and what (syscall read, block\n"
    "  rq_write, fs ext4_sync_file ...); DEV INODE  the file (major:minor, 0 when\n"
    "  none); OFFSET SIZE  position and bytes asked; RET  the return value;\n"
    "  LAT(us)  latency; ARG  flags (open flags, lseek whence, mmap prot, ...).\n"
    "A segment cut short (crash, still recording) is read up to its last complete\n"
    "block, with a warning on stderr.\n\n";

static const char stats_usage[] =
    "usage: osprof trace stats [FILTERS] DIR|FILE\n\n"
    "Per operation: count, errors, bytes transferred, share of I/O sequential to\n"
    "the previous I/O on the same file, total and mean latency. Then the trace:\n"
    "events, segments, blocks, time span, dropped events, and its size against\n"
    "raw fixed-size records (86 bytes per event) before and after "
    "compression.\n\n";

static const struct osp_opts_spec dump_spec = {
    .cmd = "trace dump", .head = dump_usage, TRACE_ONE_PATH};
static const struct osp_opts_spec stats_spec = {
    .cmd = "trace stats", .head = stats_usage, TRACE_ONE_PATH};

/* The options of dump (d != NULL) and stats: filters, one path. */
struct dump_opts {
	int no_header, wall;
};

static int parse(const struct osp_opts_spec *spec, int argc, char **argv,
                 struct osp_trace_filter *f, const char **path, struct dump_opts *d)
{
	struct osp_option filters[TRACE_FILTER_NOPTS];
	trace_filter_options(filters, f);
	struct dump_opts unused;
	struct osp_option dump_opts[] = {
	    OSP_OPT_GROUP("\nOptions:"),
	    OSP_OPT_FLAG(0, "no-header", d ? &d->no_header : &unused.no_header,
	                 "no column header line"),
	    OSP_OPT_FLAG(0, "wall", d ? &d->wall : &unused.wall, "TIME as local wall-clock time"),
	    OSP_OPT_END,
	};
	struct osp_option opts[] = {
	    OSP_OPT_INCLUDE(filters),
	    OSP_OPT_INCLUDE(d ? dump_opts : dump_opts + 3),
	    OSP_OPT_END,
	};
	int next, rc = osp_opts_parse(spec, opts, argc, argv, &next);
	if (rc)
		return rc;
	*path = argv[next];
	return 0;
}

struct dump_ctx {
	uint64_t origin;
	int have_origin;
	int wall;
	int64_t mono_to_wall; /* start_wall_ns - start_mono_ns of the first segment */
};

static int print_event(void *vctx, const struct osp_trace_event *ev)
{
	struct dump_ctx *d = vctx;
	char dev[24];
	if (!d->have_origin) {
		d->origin = ev->ts_ns;
		d->have_origin = 1;
	}
	char when[40];
	if (d->wall) {
		uint64_t w = ev->ts_ns + (uint64_t)d->mono_to_wall;
		time_t sec = (time_t)(w / 1000000000u);
		struct tm tm;
		localtime_r(&sec, &tm);
		size_t n = strftime(when, sizeof(when), "%H:%M:%S", &tm);
		snprintf(when + n, sizeof(when) - n, ".%06u", (unsigned)(w % 1000000000u / 1000));
	} else {
		snprintf(when, sizeof(when), "%.6f", ((double)ev->ts_ns - (double)d->origin) / 1e9);
	}
	printf("%-15s %-15s %-7u %-7u %-7s %-16s %-8s %-10" PRIu64 " %-12" PRIu64 " %-10" PRIu64
	       " %-10" PRId64 " %10.3f 0x%" PRIx64 "\n",
	       when, ev->comm[0] ? ev->comm : "?", ev->pid, ev->tid,
	       osp_trace_layer_name(osp_trace_op_layer(ev->op)),
	       osp_trace_op_name(ev->op) ? osp_trace_op_name(ev->op) : "unknown",
	       trace_dev_str(ev->dev, dev, sizeof(dev)), ev->ino, ev->off, ev->size, ev->ret,
	       ev->lat_ns / 1e3, ev->arg);
	return ferror(stdout) ? 1 : 0;
}

int trace_cmd_dump(int argc, char **argv)
{
	struct osp_trace_filter f;
	const char *path;
	struct dump_opts o = {0};
	int rc = parse(&dump_spec, argc, argv, &f, &path, &o);
	if (rc)
		return osp_opts_exit(rc);
	struct osp_trace_totals t;
	struct dump_ctx d = {0};
	/* the origin is the first event of the whole trace, filtered or not */
	rc = trace_walk("dump", path, NULL, NULL, NULL, &t);
	if (rc)
		return rc;
	d.origin = t.first_ts;
	d.have_origin = 1;
	d.wall = o.wall;
	d.mono_to_wall = (int64_t)(t.host.start_wall_ns - t.host.start_mono_ns);
	if (!o.no_header)
		printf("%-15s %-15s %-7s %-7s %-7s %-16s %-8s %-10s %-12s %-10s %-10s %10s %s\n",
		       o.wall ? "TIME" : "TIME(s)", "COMM", "PID", "TID", "LAYER", "OP", "DEV",
		       "INODE", "OFFSET", "SIZE", "RET", "LAT(us)", "ARG");
	rc = trace_walk("dump", path, &f, print_event, &d, &t);
	if (fflush(stdout) || ferror(stdout))
		return OSP_EXIT_FAIL;
	return rc ? (rc == 1 ? OSP_EXIT_FAIL : rc) : OSP_EXIT_OK;
}

/* ---- stats ---- */

struct file_pos {
	uint64_t key[3]; /* dev, ino, layer: each level is sequential on its own */
	uint64_t next_off;
	UT_hash_handle hh;
};

struct op_stats {
	uint64_t count, errors, bytes, io, seq, lat;
};

struct stats_ctx {
	struct op_stats ops[OSP_TOP_NR + 1];
	struct file_pos *files;
	uint64_t io, seq;
};

static int count_event(void *vctx, const struct osp_trace_event *ev)
{
	struct stats_ctx *c = vctx;
	struct op_stats *o = &c->ops[ev->op < OSP_TOP_NR ? ev->op : OSP_TOP_NR];
	o->count++;
	o->lat += ev->lat_ns;
	if (ev->ret < 0 && osp_trace_op_layer(ev->op) == OSP_TL_SYSCALL)
		o->errors++;
	if (!osp_trace_op_is_io(ev->op))
		return 0;
	int blk = osp_trace_op_layer(ev->op) == OSP_TL_BLOCK;
	uint64_t done = blk ? ev->size : ev->ret > 0 ? (uint64_t)ev->ret : 0;
	o->bytes += done;
	o->io++;
	uint64_t key[3] = {ev->dev, ev->ino, (uint64_t)osp_trace_op_layer(ev->op)};
	struct file_pos *fp;
	HASH_FIND(hh, c->files, key, sizeof(key), fp);
	if (fp && fp->next_off == ev->off) {
		o->seq++;
		c->seq++;
	}
	c->io++;
	if (!fp) {
		fp = calloc(1, sizeof(*fp));
		if (!fp)
			return 1;
		memcpy(fp->key, key, sizeof(key));
		HASH_ADD(hh, c->files, key, sizeof(fp->key), fp);
	}
	fp->next_off = ev->off + done;
	return 0;
}

int trace_cmd_stats(int argc, char **argv)
{
	struct osp_trace_filter f;
	const char *path;
	int rc = parse(&stats_spec, argc, argv, &f, &path, NULL);
	if (rc)
		return osp_opts_exit(rc);
	struct stats_ctx *c = calloc(1, sizeof(*c));
	struct osp_trace_totals t;
	if (!c)
		return OSP_EXIT_FAIL;
	rc = trace_walk("stats", path, &f, count_event, c, &t);
	if (rc == 0) {
		printf("%-18s %-7s %10s %8s %14s %6s %14s %12s\n", "OP", "LAYER", "COUNT", "ERRORS",
		       "BYTES", "SEQ%", "TOTAL_LAT(ms)", "AVG_LAT(us)");
		for (unsigned i = 0; i <= OSP_TOP_NR; i++) {
			struct op_stats *o = &c->ops[i];
			if (!o->count)
				continue;
			const char *name = i < OSP_TOP_NR ? osp_trace_op_name(i) : "unknown";
			char seq[16] = "-";
			if (o->io)
				snprintf(seq, sizeof(seq), "%.1f", 100.0 * o->seq / o->io);
			printf("%-18s %-7s %10" PRIu64 " %8" PRIu64 " %14" PRIu64
			       " %6s %14.3f %12.3f\n",
			       name, osp_trace_layer_name(osp_trace_op_layer(i)), o->count,
			       o->errors, o->bytes, seq, o->lat / 1e6, o->lat / 1e3 / o->count);
		}
		uint64_t raw = t.events * OSP_TRACE_RAW_SIZE;
		printf("\nevents      %" PRIu64 " (%" PRIu64 " matching the filters)\n", t.events,
		       t.matched);
		printf("segments    %" PRIu64 " (%" PRIu64 " blocks, %" PRIu64
		       " zstd-compressed)%s\n",
		       t.segments, t.blocks, t.zstd_blocks,
		       t.truncated ? "; some cut short, see warnings" : "");
		printf("host        %s, %s, %u CPUs, %.1f GiB memory\n", t.host.hostname,
		       t.host.kernel, t.host.cpus, t.host.mem_bytes / 1073741824.0);
		printf("disks       %s\n", t.host.disks[0] ? t.host.disks : "-");
		printf("target      %s\n", t.host.target[0] ? t.host.target : "-");
		printf("attach      %s\n", t.host.attach[0] ? t.host.attach : "-");
		printf("time span   %.6f s\n",
		       t.last_end > t.first_ts ? (t.last_end - t.first_ts) / 1e9 : 0.0);
		printf("dropped     %" PRIu64 "\n", t.dropped);
		printf("sequential  %.1f%% of %" PRIu64 " I/O operations\n",
		       c->io ? 100.0 * c->seq / c->io : 0.0, c->io);
		printf("size        raw records %" PRIu64 " B, encoded %" PRIu64
		       " B, on disk %" PRIu64 " B\n",
		       raw, t.raw_bytes, t.disk_bytes);
		printf("compression %.2fx against raw records (the record encoding alone: %.2fx)\n",
		       t.disk_bytes ? (double)raw / t.disk_bytes : 0.0,
		       t.raw_bytes ? (double)raw / t.raw_bytes : 0.0);
	}
	struct file_pos *fp, *tmp;
	HASH_ITER(hh, c->files, fp, tmp)
	{
		HASH_DEL(c->files, fp);
		free(fp);
	}
	free(c);
	return rc ? (rc == 1 ? OSP_EXIT_FAIL : rc) : OSP_EXIT_OK;
}
