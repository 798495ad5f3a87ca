/* Round-trip property tests of the trace record codec (seed 004 flags). */
#include <stdlib.h>
#include "tests/unit/check.h"
#include "tests/unit/trace_gen.h"

#define N 200000

static struct osp_trace_codec enc, dec;

/* Encodes a random stream in blocks of `block` records, decodes it, and
 * checks every record and that every legal flag of every group was used. */
static void roundtrip_seed(uint64_t seed, unsigned block)
{
	struct trace_gen g;
	tg_init(&g, seed);
	struct osp_trace_event *evs = malloc(N * sizeof(*evs));
	uint8_t *buf = malloc((size_t)N * OSP_TRACE_MAX_RECORD);
	size_t *ends = malloc(N * sizeof(size_t));
	memset(&enc, 0, sizeof(enc));
	memset(&dec, 0, sizeof(dec));
	size_t n = 0;
	for (unsigned i = 0; i < N; i++) {
		if (i % block == 0)
			osp_trace_codec_reset(&enc);
		tg_next(&g, &evs[i]);
		size_t k = osp_trace_encode(&enc, &evs[i], buf + n);
		CHECK(k >= 2 && k <= OSP_TRACE_MAX_RECORD);
		n += k;
		ends[i] = n;
	}
	size_t pos = 0, bad = 0;
	for (unsigned i = 0; i < N; i++) {
		if (i % block == 0)
			osp_trace_codec_reset(&dec);
		struct osp_trace_event ev;
		long k = osp_trace_decode(&dec, buf + pos, n - pos, &ev);
		if (k < 0 || !tg_equal(&ev, &evs[i])) {
			if (!bad++)
				fprintf(stderr, "record %u differs (k=%ld)\n", i, k);
			if (k < 0)
				break;
		}
		pos += (size_t)k;
		CHECK_EQ_U64(pos, ends[i]);
		if (pos != ends[i])
			break;
	}
	CHECK_EQ_U64(bad, 0);
	/* every flag case must have been exercised, identically on both sides */
	static const int legal[OSP_TG_NR][4] = {
	    [OSP_TG_OP] = {1, 1, 1, 0},   [OSP_TG_TIME] = {1, 1, 1, 0},
	    [OSP_TG_TASK] = {1, 1, 1, 1}, [OSP_TG_FILE] = {1, 1, 1, 0},
	    [OSP_TG_POS] = {1, 1, 1, 1},  [OSP_TG_RET] = {1, 1, 1, 1},
	    [OSP_TG_LAT] = {1, 1, 1, 0},  [OSP_TG_ARG] = {1, 1, 1, 0},
	};
	for (int gi = 0; gi < OSP_TG_NR; gi++)
		for (int f = 0; f < 4; f++) {
			/* without a previous record in the block only RET's derived case works */
			int needs_prev = f == OSP_TF_SAME || (f == OSP_TF_SEQ && gi != OSP_TG_RET);
			if (block == 1 && needs_prev) {
				CHECK_EQ_U64(enc.flag_count[gi][f], 0);
				continue;
			}
			if (legal[gi][f] && !enc.flag_count[gi][f])
				fprintf(stderr, "group %d flag %d never used\n", gi, f);
			CHECK(!legal[gi][f] || enc.flag_count[gi][f] > 0);
			CHECK(legal[gi][f] || enc.flag_count[gi][f] == 0);
			CHECK_EQ_U64(enc.flag_count[gi][f], dec.flag_count[gi][f]);
		}
	free(evs);
	free(buf);
	free(ends);
}

static void test_roundtrip_random_streams(void)
{
	for (uint64_t seed = 1; seed <= 3; seed++)
		roundtrip_seed(seed, seed == 1 ? N : 1000 * (unsigned)seed);
}

/* One record per block: no previous record, so nothing may be SAME. */
static void test_roundtrip_single_record_blocks(void)
{
	roundtrip_seed(9, 1);
}

/* Sequential 4 KiB reads of one file by one thread: the case seed 004
 * compresses best. Only the time and latency should cost bytes. */
static void test_sequential_reads_are_small(void)
{
	memset(&enc, 0, sizeof(enc));
	uint8_t out[OSP_TRACE_MAX_RECORD];
	size_t total = 0;
	struct osp_trace_event ev = {.pid = 42,
	                             .tid = 42,
	                             .op = OSP_TOP_READ,
	                             .dev = 8u << 20,
	                             .ino = 77,
	                             .size = 4096,
	                             .ret = 4096,
	                             .lat_ns = 1500};
	strcpy(ev.comm, "cat");
	for (unsigned i = 0; i < 1000; i++) {
		ev.ts_ns = 1000000 + i * 2000;
		ev.off = (uint64_t)i * 4096;
		ev.lat_ns = 1500 + i % 3;
		size_t k = osp_trace_encode(&enc, &ev, out);
		if (i > 0)
			total += k;
	}
	/* flags (2) + time delta (2) + latency (2) at most */
	CHECK(total <= 999 * 6);
	CHECK(enc.flag_count[OSP_TG_POS][OSP_TF_SEQ] == 999);
}

/* Arbitrary bytes: the decoder must fail cleanly or produce a record, never
 * read past the end (ASan build checks the bounds). */
static void test_decoder_survives_garbage(void)
{
	struct trace_gen g;
	tg_init(&g, 77);
	uint8_t buf[64];
	unsigned ok = 0, bad = 0;
	for (unsigned i = 0; i < 200000; i++) {
		size_t len = tg_rand(&g) % sizeof(buf);
		uint8_t *p = malloc(len ? len : 1);
		for (size_t j = 0; j < len; j++)
			p[j] = (uint8_t)tg_rand(&g);
		if (i % 100 == 0)
			osp_trace_codec_reset(&dec);
		struct osp_trace_event ev;
		long k = osp_trace_decode(&dec, p, len, &ev);
		if (k < 0)
			bad++;
		else {
			ok++;
			CHECK((size_t)k <= len);
			CHECK(ev.comm[OSP_TRACE_COMM_LEN - 1] == 0);
		}
		free(p);
	}
	CHECK(ok > 0 && bad > 0);
}

static void test_op_table(void)
{
	CHECK_STR(osp_trace_op_name(OSP_TOP_READ), "read");
	CHECK_EQ_U64(osp_trace_op_parse("pwrite64"), OSP_TOP_PWRITE64);
	CHECK(osp_trace_op_parse("nosuchop") == -1);
	CHECK(osp_trace_op_name(OSP_TOP_NR) == NULL);
	CHECK(osp_trace_op_layer(OSP_TOP_BLK_WRITE) == OSP_TL_BLOCK);
	CHECK(osp_trace_op_layer(OSP_TOP_FS_SYNC_FILE) == OSP_TL_FS);
	for (unsigned i = 1; i < OSP_TOP_NR; i++)
		CHECK_EQ_U64(osp_trace_op_parse(osp_trace_op_name(i)), i);
}

int main(void)
{
	RUN(test_roundtrip_random_streams);
	RUN(test_roundtrip_single_record_blocks);
	RUN(test_sequential_reads_are_small);
	RUN(test_decoder_survives_garbage);
	RUN(test_op_table);
	CHECK_EXIT();
}
