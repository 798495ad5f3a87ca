/* libFuzzer target: the folded-stack reader (osprof html --rootcause) must
 * accept or reject any bytes without crashing, leaking or reading out of
 * bounds; what it accepts must render into an HTML report whose data cannot
 * close the script element early. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <osprof/render.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	if (!size)
		return 0; /* fmemopen refuses an empty buffer */
	FILE *f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	struct osp_folded_set rc;
	char err[256];
	if (osp_folded_read(f, "fuzz", &rc, err, sizeof(err)) == 0) {
		for (size_t i = 0; i < rc.n; i++)
			if (!rc.e[i].path[0] || strchr(rc.e[i].path, '\n'))
				abort(); /* accepted paths are non-empty single lines */
		struct osp_set *s = osp_set_new(1);
		char *out;
		size_t len;
		FILE *w = open_memstream(&out, &len);
		struct osp_html_opts o = {.name_a = "a", .rootcause = &rc, .rootcause_name = "rc"};
		if (osp_render_html(w, s, &o) < 0)
			abort();
		fclose(w);
		/* Exactly the two real script elements close. */
		unsigned n = 0;
		for (const char *p = out; (p = strstr(p, "</script")); p++)
			n++;
		if (n != 2)
			abort();
		free(out);
		osp_set_free(s);
		osp_folded_free(&rc);
	} else if (rc.n || rc.e) {
		abort(); /* a rejected file leaves nothing behind */
	}
	fclose(f);
	return 0;
}
