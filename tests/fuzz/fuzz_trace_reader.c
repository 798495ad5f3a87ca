/* libFuzzer target: the trace segment reader must reject or read any bytes
 * without crashing, leaking or reading out of bounds; every event it returns
 * must encode and decode again to itself. The record decoder gets the raw
 * bytes too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <osprof/trace.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static struct osp_trace_codec enc, dec;

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	char err[256];
	struct osp_trace_reader *r = osp_trace_reader_fopen(f, "fuzz", err, sizeof(err));
	if (r) {
		struct osp_trace_event ev, back;
		uint8_t buf[OSP_TRACE_MAX_RECORD];
		osp_trace_codec_reset(&enc);
		osp_trace_codec_reset(&dec);
		while (osp_trace_reader_next(r, &ev) == 1) {
			size_t n = osp_trace_encode(&enc, &ev, buf);
			if (n > OSP_TRACE_MAX_RECORD ||
			    osp_trace_decode(&dec, buf, n, &back) != (long)n ||
			    memcmp(&ev, &back, sizeof(ev)))
				abort();
		}
		osp_trace_reader_close(r);
	}
	fclose(f);
	/* The block checksum keeps most mutations away from the record decoder:
	 * feed the bytes to it directly as well. */
	struct osp_trace_event ev;
	osp_trace_codec_reset(&dec);
	for (size_t pos = 0; pos < size;) {
		long k = osp_trace_decode(&dec, data + pos, size - pos, &ev);
		if (k < 0)
			break;
		if (k < 2 || (size_t)k > size - pos)
			abort();
		pos += (size_t)k;
	}
	return 0;
}
