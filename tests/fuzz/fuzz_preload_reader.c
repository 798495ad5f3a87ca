/* libFuzzer target: the preload counter-file reader (collect/user_file.c)
 * must reject or accept any bytes without crashing, leaking or overflowing.
 * The reader is compiled in here because the fuzz build links only the
 * portable core. Seeds: tests/fuzz/gen_preload_seeds.py. */
#include <stdlib.h>
#include <string.h>
#include "collect/user_file.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The reader requires an 8-byte aligned image, as mmap gives it. */
	void *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	/* Take the set's resolution from the input's header when it is a valid
	 * one, so that matching files reach the record parser at every r. */
	unsigned r = 1;
	if (size >= 20) {
		uint32_t v;
		memcpy(&v, data + 16, 4);
		if (osp_resolution_valid(v))
			r = v;
	}
	static const char *const bys[] = {NULL, "pid", "tid", "comm"};
	struct osp_set *s = osp_set_new(r);
	if (s) {
		struct osp_pf_info info;
		char err[256];
		const char *by = bys[size % 4];
		if (osp_pf_load(buf, size, s, by, &info, err, sizeof(err)) == 0) {
			for (size_t i = 0; i < s->n; i++)
				if (osp_hist_check(&s->profiles[i]->hist))
					abort(); /* count must equal the sum of buckets */
		}
		osp_set_free(s);
	}
	free(buf);
	return 0;
}
