/* Fuzz target for what the kernel layers read from the kernel: tracefs event
 * names (fs pairing rules, one name per input line) and /proc/kallsyms
 * lines (symbol table and address lookups). Built with `make fuzz`. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "collect/fs_events.c"
#include "collect/ksyms.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* names: the input split at newlines, NULs kept as terminators */
	char *buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = 0;
	char **names = NULL;
	size_t n = 0;
	for (char *p = buf, *nl; p && *p && n < 4096; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		char **v = realloc(names, (n + 1) * sizeof(*v));
		if (!v)
			break;
		names = v;
		names[n++] = strdup(p);
	}
	struct fs_pairs out = {0};
	if (fs_pair_names("fuzz", names, n, &out) == 0)
		for (size_t i = 0; i < out.n; i++)
			if (!out.v[i].op[0] || !out.v[i].start[0] || !out.v[i].end[0])
				abort();
	fs_pairs_free(&out);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(buf);

	/* the same bytes as a kallsyms file */
	FILE *f = fmemopen((void *)data, size ? size : 1, "r");
	if (!f)
		return 0;
	struct ksyms *k = ksyms_read(f, "fuzz");
	fclose(f);
	if (k) {
		for (size_t i = 0; i + 8 <= size && i < 256; i += 8) {
			uint64_t a;
			memcpy(&a, data + i, 8);
			(void)ksyms_find(k, a);
		}
		ksyms_free(k);
	}
	return 0;
}
