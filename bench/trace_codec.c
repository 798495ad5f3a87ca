/* Trace codec benchmark on a recorded trace: size and encode speed of the
 * seed-004 record encoding (alone and with a zstd pass per block) against
 * raw fixed-size records, and against deflate level 6 (what gzip -6 does)
 * and zstd level 3 applied to those raw records. All in process, on the
 * same events, best of 5 runs each.
 * Usage: trace_codec TRACE_DIR|FILE [RAW_OUT]  (RAW_OUT: the raw records,
 * for comparing with the gzip and zstd command-line tools) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <osprof/clock.h>
#include <osprof/trace.h>

#define BLOCK (256u << 10)
#define HDR   48 /* block header bytes (docs/trace-format.md) */

static struct osp_trace_event *evs;
static size_t nev;
static struct osp_trace_codec codec;

static int load(const char *path)
{
	char **paths, err[512];
	size_t np, cap = 0;
	if (osp_trace_list(path, &paths, &np, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	for (size_t i = 0; i < np; i++) {
		struct osp_trace_reader *r = osp_trace_reader_open(paths[i], err, sizeof(err));
		if (!r) {
			fprintf(stderr, "%s\n", err);
			return -1;
		}
		struct osp_trace_event ev;
		while (osp_trace_reader_next(r, &ev) == 1) {
			if (nev == cap) {
				cap = cap ? cap * 2 : 65536;
				evs = realloc(evs, cap * sizeof(*evs));
				if (!evs)
					return -1;
			}
			evs[nev++] = ev;
		}
		osp_trace_reader_close(r);
	}
	osp_trace_list_free(paths, np);
	return 0;
}

/* Encodes every event in blocks; with zstd, compresses each block. Returns
 * the bytes that would go to disk. */
static size_t encode_all(uint8_t *blk, uint8_t *zbuf, size_t zcap, ZSTD_CCtx *cctx, int level)
{
	size_t out = 0, len = 0;
	osp_trace_codec_reset(&codec);
	for (size_t i = 0; i <= nev; i++) {
		if (i == nev || len >= BLOCK) {
			if (!len)
				break;
			size_t stored = len;
			if (cctx) {
				size_t z = ZSTD_compressCCtx(cctx, zbuf, zcap, blk, len, level);
				if (!ZSTD_isError(z) && z < len)
					stored = z;
			}
			out += HDR + stored;
			len = 0;
			osp_trace_codec_reset(&codec);
			if (i == nev)
				break;
		}
		len += osp_trace_encode(&codec, &evs[i], blk + len);
	}
	return out;
}

struct result {
	const char *name;
	size_t bytes;
	double secs;
};

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: trace_codec TRACE [RAW_OUT]\n");
		return 2;
	}
	if (load(argv[1]) < 0 || !nev) {
		fprintf(stderr, "trace_codec: no events in %s\n", argv[1]);
		return 1;
	}
	size_t raw_len = nev * OSP_TRACE_RAW_SIZE;
	uint8_t *raw = malloc(raw_len);
	for (size_t i = 0; i < nev; i++)
		osp_trace_raw_pack(&evs[i], raw + i * OSP_TRACE_RAW_SIZE);
	if (argc > 2) {
		FILE *f = fopen(argv[2], "wb");
		if (!f || fwrite(raw, 1, raw_len, f) != raw_len || fclose(f)) {
			perror(argv[2]);
			return 1;
		}
	}
	uint8_t *blk = malloc(BLOCK + OSP_TRACE_MAX_RECORD);
	size_t zcap = ZSTD_compressBound(raw_len > BLOCK * 2 ? raw_len : BLOCK * 2);
	uint8_t *zbuf = malloc(zcap);
	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	struct result res[4] = {{"osprof encoding", 0, 1e9},
	                        {"osprof encoding + zstd(1) per block", 0, 1e9},
	                        {"deflate -6 (gzip -6) of raw records", 0, 1e9},
	                        {"zstd -3 of raw records", 0, 1e9}};
	for (int run = 0; run < 5; run++) {
		for (int k = 0; k < 4; k++) {
			uint64_t t0 = osp_now_ns();
			if (k == 0)
				res[k].bytes = encode_all(blk, zbuf, zcap, NULL, 0);
			else if (k == 1)
				res[k].bytes = encode_all(blk, zbuf, zcap, cctx, 1);
			else if (k == 2) {
				uLongf n = (uLongf)zcap;
				if (compress2(zbuf, &n, raw, raw_len, 6) != Z_OK)
					return 1;
				res[k].bytes = n;
			} else {
				size_t z = ZSTD_compressCCtx(cctx, zbuf, zcap, raw, raw_len, 3);
				if (ZSTD_isError(z))
					return 1;
				res[k].bytes = z;
			}
			double s = (osp_now_ns() - t0) / 1e9;
			if (s < res[k].secs)
				res[k].secs = s;
		}
	}
	printf("events %zu, raw fixed-size records %zu bytes (%d B each)\n\n", nev, raw_len,
	       OSP_TRACE_RAW_SIZE);
	printf("%-40s %12s %8s %12s %10s\n", "method", "bytes", "ratio", "Mevents/s", "MB/s(raw)");
	for (int k = 0; k < 4; k++)
		printf("%-40s %12zu %7.2fx %12.2f %10.1f\n", res[k].name, res[k].bytes,
		       (double)raw_len / res[k].bytes, nev / res[k].secs / 1e6,
		       raw_len / res[k].secs / 1e6);
	double r_ours = (double)raw_len / res[0].bytes, r_z = (double)raw_len / res[1].bytes;
	double r_gz = (double)raw_len / res[2].bytes;
	printf("\nratios\n");
	printf("  encoding vs raw records:             %6.2fx  (target >= 8)\n", r_ours);
	printf("  encoding+zstd vs raw records:        %6.2fx\n", r_z);
	printf("  encoding+zstd size vs gzip -6 size:  %6.2f   (ratio of ratios, target >= 1)\n",
	       r_z / r_gz);
	printf("  encoding+zstd speed vs gzip -6:      %6.2fx  (target >= 5)\n",
	       res[2].secs / res[1].secs);
	printf("  encoding speed vs gzip -6:           %6.2fx\n", res[2].secs / res[0].secs);
	printf("  encoding speed vs zstd -3:           %6.2fx\n", res[3].secs / res[0].secs);
	printf("  encoding+zstd speed vs zstd -3:      %6.2fx\n", res[3].secs / res[1].secs);
	printf("  encoding+zstd size vs zstd -3 size:  %6.2f\n",
	       r_z / ((double)raw_len / res[3].bytes));
	int ok = r_ours >= 8 && r_z >= r_gz && res[2].secs / res[1].secs >= 5;
	printf("\ntargets %s\n", ok ? "met" : "NOT met");
	ZSTD_freeCCtx(cctx);
	free(zbuf);
	free(blk);
	free(raw);
	free(evs);
	return 0;
}
