/* Segments: write/read back, truncation, corruption, rotation, disk budget. */
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tests/unit/check.h"
#include "tests/unit/trace_gen.h"

static uint64_t fake_clock;
static uint64_t fake_now(void)
{
	return fake_clock;
}
static void quiet(const char *msg)
{
	(void)msg;
}

static char *tmpdir(void)
{
	static char buf[8][64];
	static int k;
	char *p = buf[k++ % 8];
	strcpy(p, "/tmp/osprof-trace-test.XXXXXX");
	return mkdtemp(p);
}

static void rm_rf(const char *dir)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

static struct osp_trace_writer *open_w(const char *dir, struct osp_trace_writer_opts *o)
{
	char err[256];
	o->dir = dir;
	o->now = fake_now;
	o->log = quiet;
	struct osp_trace_writer *w = osp_trace_writer_open(o, err, sizeof(err));
	if (!w)
		fprintf(stderr, "%s\n", err);
	return w;
}

/* Reads every segment of path; checks events against the stream of seed
 * starting at event `skip`; returns events read. */
static uint64_t read_all(const char *path, uint64_t seed, uint64_t skip, uint64_t *dropped,
                         int *warned)
{
	char **paths, err[256];
	size_t n;
	struct trace_gen g;
	struct osp_trace_event want, ev;
	uint64_t count = 0;
	tg_init(&g, seed);
	for (uint64_t i = 0; i < skip; i++)
		tg_next(&g, &want);
	if (osp_trace_list(path, &paths, &n, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		struct osp_trace_reader *r = osp_trace_reader_open(paths[i], err, sizeof(err));
		CHECK(r != NULL);
		if (!r)
			continue;
		while (osp_trace_reader_next(r, &ev) == 1) {
			tg_next(&g, &want);
			if (!tg_equal(&ev, &want)) {
				fprintf(stderr, "event %llu differs\n", (unsigned long long)count);
				check_failed_ = 1;
				break;
			}
			count++;
		}
		struct osp_trace_reader_stats st;
		osp_trace_reader_get_stats(r, &st);
		if (dropped)
			*dropped += st.dropped;
		if (warned && osp_trace_reader_warning(r))
			*warned = 1;
		osp_trace_reader_close(r);
	}
	osp_trace_list_free(paths, n);
	return count;
}

static void write_stream(struct osp_trace_writer *w, uint64_t seed, unsigned n)
{
	struct trace_gen g;
	struct osp_trace_event ev;
	tg_init(&g, seed);
	for (unsigned i = 0; i < n; i++) {
		tg_next(&g, &ev);
		osp_trace_writer_add(w, &ev);
	}
}

static void roundtrip(int zstd)
{
	char *d = tmpdir();
	struct osp_trace_writer_opts o = {.zstd = zstd, .block_bytes = 8192, .target = "-a"};
	struct osp_trace_writer *w = open_w(d, &o);
	write_stream(w, 5, 50000);
	osp_trace_writer_drop(w, 7);
	struct osp_trace_writer_stats st;
	CHECK_EQ_U64(osp_trace_writer_close(w, &st), 0);
	CHECK_EQ_U64(st.events, 50000);
	CHECK_EQ_U64(st.segments, 1);
	CHECK(zstd ? st.disk_bytes < st.raw_bytes : st.disk_bytes > st.raw_bytes);
	uint64_t dropped = 0;
	int warned = 0;
	CHECK_EQ_U64(read_all(d, 5, 0, &dropped, &warned), 50000);
	CHECK_EQ_U64(dropped, 7);
	CHECK(!warned);
	/* the header carries the host facts */
	char **paths, err[256];
	size_t n;
	CHECK(osp_trace_list(d, &paths, &n, err, sizeof(err)) == 0 && n == 1);
	struct osp_trace_reader *r = osp_trace_reader_open(paths[0], err, sizeof(err));
	const struct osp_trace_host *h = osp_trace_reader_host(r);
	char host[128];
	gethostname(host, sizeof(host));
	CHECK_STR(h->hostname, host);
	CHECK(h->cpus > 0 && h->mem_bytes > 0 && h->start_wall_ns > 0 && h->kernel[0]);
	CHECK_STR(h->target, "-a");
	CHECK_EQ_U64(h->seq, 1);
	osp_trace_reader_close(r);
	osp_trace_list_free(paths, n);
	rm_rf(d);
}

static void test_roundtrip_plain(void)
{
	roundtrip(0);
}
static void test_roundtrip_zstd(void)
{
	roundtrip(1);
}

static long file_size(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 ? (long)sb.st_size : -1;
}

/* A segment cut at any byte reads back exactly its complete blocks. */
static void cut_or_corrupt(int corrupt)
{
	char *d = tmpdir();
	struct osp_trace_writer_opts o = {.zstd = corrupt, .block_bytes = 2048};
	struct osp_trace_writer *w = open_w(d, &o);
	write_stream(w, 11, 3000);
	osp_trace_writer_close(w, NULL);
	char **paths, err[256], cut[300];
	size_t n;
	CHECK(osp_trace_list(d, &paths, &n, err, sizeof(err)) == 0 && n == 1);
	long size = file_size(paths[0]);
	CHECK(size > 0);
	if (size <= 0)
		return;
	FILE *f = fopen(paths[0], "rb");
	uint8_t *all = malloc((size_t)size);
	CHECK(fread(all, 1, (size_t)size, f) == (size_t)size);
	fclose(f);
	snprintf(cut, sizeof(cut), "%s/cut.bin", d);
	uint64_t prev = 0;
	unsigned warnings = 0, opened = 0;
	for (long len = 0; len <= size; len += corrupt ? 37 : 13) {
		f = fopen(cut, "wb");
		if (corrupt) {
			fwrite(all, 1, (size_t)size, f);
			fseek(f, len, SEEK_SET);
			uint8_t b = (uint8_t)(all[len < size ? len : size - 1] ^ 0x5a);
			fwrite(&b, 1, 1, f);
		} else {
			fwrite(all, 1, (size_t)len, f);
		}
		fclose(f);
		struct osp_trace_reader *r = osp_trace_reader_open(cut, err, sizeof(err));
		if (!r)
			continue; /* header itself damaged: refused with a message */
		opened++;
		struct osp_trace_event ev, want;
		struct trace_gen g;
		tg_init(&g, 11);
		uint64_t k = 0;
		while (osp_trace_reader_next(r, &ev) == 1) {
			tg_next(&g, &want);
			CHECK(tg_equal(&ev, &want));
			k++;
		}
		if (osp_trace_reader_warning(r))
			warnings++;
		if (!corrupt) {
			CHECK(k >= prev); /* longer prefixes never read fewer events */
			prev = k;
			CHECK(len == size ? k == 3000 && !osp_trace_reader_warning(r)
			                  : osp_trace_reader_warning(r) != NULL);
		}
		osp_trace_reader_close(r);
	}
	CHECK(opened > 10 && warnings > 10);
	free(all);
	osp_trace_list_free(paths, n);
	rm_rf(d);
}

static void test_truncated_segments(void)
{
	cut_or_corrupt(0);
}
static void test_corrupted_segments(void)
{
	cut_or_corrupt(1);
}

static unsigned count_files(const char *dir, uint64_t *bytes)
{
	char **paths, err[256];
	size_t n;
	if (osp_trace_list(dir, &paths, &n, err, sizeof(err)) < 0)
		return 0;
	for (size_t i = 0; bytes && i < n; i++)
		*bytes += (uint64_t)file_size(paths[i]);
	osp_trace_list_free(paths, n);
	return (unsigned)n;
}

static void test_rotation_by_size(void)
{
	char *d = tmpdir();
	struct osp_trace_writer_opts o = {.block_bytes = 4096, .rotate_bytes = 64 << 10};
	struct osp_trace_writer *w = open_w(d, &o);
	write_stream(w, 3, 60000);
	struct osp_trace_writer_stats st;
	osp_trace_writer_close(w, &st);
	unsigned n = count_files(d, NULL);
	CHECK(n > 3);
	CHECK_EQ_U64(st.segments, n);
	char **paths, err[256];
	size_t k;
	osp_trace_list(d, &paths, &k, err, sizeof(err));
	for (size_t i = 0; i < k; i++)
		CHECK(file_size(paths[i]) <= 64 << 10);
	osp_trace_list_free(paths, k);
	CHECK_EQ_U64(read_all(d, 3, 0, NULL, NULL), 60000);
	rm_rf(d);
}

static void test_rotation_by_time(void)
{
	char *d = tmpdir();
	fake_clock = 1000;
	struct osp_trace_writer_opts o = {.rotate_ns = 10000000000ull};
	struct osp_trace_writer *w = open_w(d, &o);
	struct trace_gen g;
	struct osp_trace_event ev;
	tg_init(&g, 8);
	for (unsigned s = 0; s < 5; s++) {
		for (unsigned i = 0; i < 1000; i++) {
			tg_next(&g, &ev);
			osp_trace_writer_add(w, &ev);
		}
		osp_trace_writer_tick(w);
		fake_clock += 3000000000ull; /* 3 s: flushes the block (> 1 s) */
		osp_trace_writer_tick(w);
	}
	struct osp_trace_writer_stats st;
	osp_trace_writer_close(w, &st);
	/* 15 s of recording with -G 10 s: a segment for 0-10 s, one after */
	CHECK_EQ_U64(st.segments, 2);
	CHECK_EQ_U64(count_files(d, NULL), 2);
	CHECK_EQ_U64(read_all(d, 8, 0, NULL, NULL), 5000);
	rm_rf(d);
}

/* --max-disk: the directory stays within budget; the oldest segments go,
 * the newest events stay; with --archive they are moved, not lost. */
static void budget(int archive)
{
	char *d = tmpdir(), *a = archive ? tmpdir() : NULL;
	struct osp_trace_writer_opts o = {.block_bytes = 4096, .max_disk = 200 << 10, .archive = a};
	struct osp_trace_writer *w = open_w(d, &o);
	write_stream(w, 4, 100000);
	struct osp_trace_writer_stats st;
	osp_trace_writer_close(w, &st);
	uint64_t bytes = 0;
	unsigned n = count_files(d, &bytes);
	CHECK(bytes <= 200 << 10);
	CHECK(n >= 2);
	CHECK(st.segments > n);
	CHECK_EQ_U64(st.dropped, 0);
	if (archive) {
		CHECK_EQ_U64(st.archived, st.segments - n);
		CHECK_EQ_U64(st.deleted, 0);
		CHECK_EQ_U64(count_files(a, NULL), st.archived);
	} else {
		CHECK_EQ_U64(st.deleted, st.segments - n);
	}
	/* what remains is the newest part of the stream */
	uint64_t kept = 0;
	{
		char **paths, err[256];
		size_t k;
		osp_trace_list(d, &paths, &k, err, sizeof(err));
		for (size_t i = 0; i < k; i++) {
			struct osp_trace_reader *r =
			    osp_trace_reader_open(paths[i], err, sizeof(err));
			struct osp_trace_event ev;
			while (osp_trace_reader_next(r, &ev) == 1)
				kept++;
			osp_trace_reader_close(r);
		}
		osp_trace_list_free(paths, k);
	}
	CHECK(kept > 0 && kept < 100000);
	CHECK_EQ_U64(read_all(d, 4, 100000 - kept, NULL, NULL), kept);
	/* archive + working dir = the whole stream, in order */
	if (archive)
		CHECK_EQ_U64(read_all(a, 4, 0, NULL, NULL), 100000 - kept);
	rm_rf(d);
	if (a)
		rm_rf(a);
}

static void test_max_disk_deletes_oldest(void)
{
	budget(0);
}
static void test_max_disk_archives_oldest(void)
{
	budget(1);
}

static void test_bad_dir(void)
{
	char err[256];
	struct osp_trace_writer_opts o = {.dir = "/proc/self/osprof-no"};
	CHECK(osp_trace_writer_open(&o, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "/proc/self/osprof-no") != NULL);
	CHECK(osp_trace_reader_open("/nonexistent.ospt", err, sizeof(err)) == NULL);
	CHECK(strstr(err, "/nonexistent.ospt") != NULL);
}

int main(void)
{
	RUN(test_roundtrip_plain);
	RUN(test_roundtrip_zstd);
	RUN(test_truncated_segments);
	RUN(test_corrupted_segments);
	RUN(test_rotation_by_size);
	RUN(test_rotation_by_time);
	RUN(test_max_disk_deletes_oldest);
	RUN(test_max_disk_archives_oldest);
	RUN(test_bad_dir);
	CHECK_EXIT();
}
