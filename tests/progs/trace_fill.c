/* Writes N synthetic events through the trace writer into DIR and checks
 * what can be read back: the events that were not dropped, in order and
 * intact. For the disk-full and budget tests (tests/sh/trace_disk.sh).
 * Usage: trace_fill DIR N [--zstd] [-C BYTES] [--max-disk BYTES] [--archive DIR]
 *                         [--free-at K FILE]   (unlink FILE after K events)
 * Prints "written=W dropped=D segments=S deleted=X read=R stored_drops=SD". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/unit/trace_gen.h"

static void quiet(const char *m)
{
	fprintf(stderr, "writer: %s\n", m);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: trace_fill DIR N [options]\n");
		return 2;
	}
	struct osp_trace_writer_opts o = {.dir = argv[1], .block_bytes = 4096, .log = quiet};
	unsigned long n = strtoul(argv[2], NULL, 10), free_at = 0;
	const char *free_file = NULL;
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--zstd"))
			o.zstd = 1;
		else if (!strcmp(argv[i], "-C") && i + 1 < argc)
			o.rotate_bytes = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--archive") && i + 1 < argc)
			o.archive = argv[++i];
		else if (!strcmp(argv[i], "--max-disk") && i + 1 < argc)
			o.max_disk = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--free-at") && i + 2 < argc) {
			free_at = strtoul(argv[++i], NULL, 10);
			free_file = argv[++i];
		} else {
			fprintf(stderr, "trace_fill: bad argument %s\n", argv[i]);
			return 2;
		}
	}
	char err[256];
	struct osp_trace_writer *w = osp_trace_writer_open(&o, err, sizeof(err));
	if (!w) {
		fprintf(stderr, "trace_fill: %s\n", err);
		return 1;
	}
	struct trace_gen g;
	struct osp_trace_event ev, want;
	tg_init(&g, 42);
	for (unsigned long i = 0; i < n; i++) {
		if (free_file && i == free_at && unlink(free_file) < 0)
			perror("unlink");
		tg_next(&g, &ev);
		osp_trace_writer_add(w, &ev);
	}
	struct osp_trace_writer_stats st;
	osp_trace_writer_close(w, &st);

	/* Read back: every event must be the next of the generated sequence
	 * after skipping the dropped ones (whole blocks). */
	char **paths;
	size_t np;
	unsigned long read = 0, gi = 0, stored = 0;
	int bad = 0;
	tg_init(&g, 42);
	/* the archive holds the older segments */
	for (int pass = o.archive ? 0 : 1; pass < 2 && !bad; pass++) {
		if (osp_trace_list(pass ? argv[1] : o.archive, &paths, &np, err, sizeof(err)) < 0) {
			fprintf(stderr, "trace_fill: %s\n", err);
			return 1;
		}
		for (size_t i = 0; i < np && !bad; i++) {
			struct osp_trace_reader *r =
			    osp_trace_reader_open(paths[i], err, sizeof(err));
			if (!r) {
				fprintf(stderr, "trace_fill: %s\n", err);
				bad = 1;
				break;
			}
			while (osp_trace_reader_next(r, &ev) == 1) {
				do {
					if (gi++ >= n) {
						fprintf(
						    stderr,
						    "trace_fill: event %lu not in the sequence\n",
						    read);
						bad = 1;
						break;
					}
					tg_next(&g, &want);
				} while (!tg_equal(&ev, &want));
				if (bad)
					break;
				read++;
			}
			struct osp_trace_reader_stats rs;
			osp_trace_reader_get_stats(r, &rs);
			stored += rs.dropped;
			if (osp_trace_reader_warning(r))
				fprintf(stderr, "trace_fill: %s\n", osp_trace_reader_warning(r));
			osp_trace_reader_close(r);
		}
		osp_trace_list_free(paths, np);
	}
	printf("written=%llu dropped=%llu segments=%llu deleted=%llu archived=%llu read=%lu "
	       "stored_drops=%lu\n",
	       (unsigned long long)st.events, (unsigned long long)st.dropped,
	       (unsigned long long)st.segments, (unsigned long long)st.deleted,
	       (unsigned long long)st.archived, read, stored);
	return bad;
}
