/* libFuzzer target: the .osp reader must reject or accept any bytes without
 * crashing, leaking or reading out of bounds; what it accepts must write back
 * and read again to the same text (lossless). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <osprof/profile.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	struct osp_set *s = NULL;
	char err[256];
	if (osp_set_read(f, "fuzz", &s, err, sizeof(err)) == 0) {
		char *a, *b;
		size_t la, lb;
		FILE *w = open_memstream(&a, &la);
		osp_set_write(s, w);
		fclose(w);
		FILE *r = fmemopen(a, la, "r");
		struct osp_set *t = NULL;
		if (osp_set_read(r, "again", &t, err, sizeof(err)))
			abort(); /* what we write we must read */
		fclose(r);
		w = open_memstream(&b, &lb);
		osp_set_write(t, w);
		fclose(w);
		if (la != lb || memcmp(a, b, la))
			abort();
		free(a);
		free(b);
		osp_set_free(t);
		osp_set_free(s);
	}
	fclose(f);
	return 0;
}
