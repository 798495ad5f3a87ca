/* A driver for Debian's own zlib code (libz.a from zlib1g-dev, linked
 * statically by mk/rootcause.mk, so its static functions keep their names):
 * f0 = deflate, level 1 (deflate_fast), on 16 KiB buffers; in PCT% of the
 * calls the data is random (no match anywhere: a hash insert and a failed
 * match search per byte), else repetitive text (long matches at once),
 * about 8x faster. osprof rootcause tests (rootcause_zlib.sh).
 * With RCZ_VERIFY set, every output is inflated back and compared with the
 * input (exit 3 on a difference: tests/tools/rc_patch_all.c patches all of
 * zlib under it).
 * Usage: rcz_deflate ITERATIONS(0: forever) PCT [STOPFILE] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define N (16 << 10)

int main(int argc, char **argv)
{
	static unsigned char text[N], noise[N], out[N * 2], back[N];
	long iters = argc > 1 ? atol(argv[1]) : 1000;
	int pct = argc > 2 ? atoi(argv[2]) : 10;
	const char *stop = argc > 3 ? argv[3] : NULL;
	static const char words[] = "the quick brown fox jumps over the lazy dog ";
	srand(1);
	for (int i = 0; i < N; i++) {
		text[i] = (unsigned char)words[i % (sizeof(words) - 1)];
		noise[i] = (unsigned char)rand();
	}
	int verify = getenv("RCZ_VERIFY") != NULL;
	z_stream s;
	memset(&s, 0, sizeof(s));
	if (deflateInit(&s, 1) != Z_OK)
		return 1;
	for (long i = 0; !iters || i < iters; i++) {
		deflateReset(&s);
		s.next_in = rand() % 100 < pct ? noise : text;
		s.avail_in = N;
		s.next_out = out;
		s.avail_out = sizeof(out);
		if (deflate(&s, Z_FINISH) != Z_STREAM_END)
			return 1;
		uLongf n = sizeof(back);
		if (verify &&
		    (uncompress(back, &n, out, (uLong)(sizeof(out) - s.avail_out)) != Z_OK ||
		     n != N || memcmp(back, s.next_in - N, N)))
			return 3;
		if (stop && i % 64 == 0 && access(stop, F_OK) == 0)
			break;
	}
	deflateEnd(&s);
	return 0;
}
