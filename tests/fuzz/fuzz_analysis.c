/* libFuzzer target: whatever profile set the .osp reader accepts, the
 * analysis must get through it without crashing, leaking or reading out of
 * bounds: peaks (text and JSON, with preemption), ranking, nesting hints, a
 * diff of the set against itself and against a copy with the first half
 * of the profiles (only_in_a entries), and every metric. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <osprof/analysis.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	struct osp_set *s = NULL;
	char err[256];
	if (osp_set_read(f, "fuzz", &s, err, sizeof(err)) == 0) {
		char *buf;
		size_t len;
		FILE *out = open_memstream(&buf, &len);
		struct osp_preempt_view pv = {3000000, 2, "fuzz"};
		for (size_t i = 0; i < s->n; i++) {
			osp_print_peaks(out, s->profiles[i], s, &pv);
			osp_print_peaks_json(out, s->profiles[i], NULL, NULL);
		}
		struct osp_rank_entry *re;
		long n = osp_rank(s, &re);
		if (n >= 0)
			free(re);
		struct osp_nest_hint *nh;
		n = osp_nesting_hints(s, -1, &nh);
		if (n >= 0) {
			osp_print_nest_hints(out, nh, (size_t)n);
			free(nh);
		}
		struct osp_set *half = osp_set_new(s->r);
		for (size_t i = 0; half && i < s->n / 2; i++) {
			const struct osp_profile *p = s->profiles[i];
			struct osp_profile *q =
			    osp_set_get(half, p->layer, p->op, p->dims, p->ndims);
			if (q && q->unit == p->unit)
				osp_hist_merge(&q->hist, &p->hist);
		}
		struct osp_diff d;
		if (osp_diff_sets(s, s, NULL, &d, err, sizeof(err)) == 0)
			osp_diff_free(&d);
		if (half && osp_diff_sets(s, half, NULL, &d, err, sizeof(err)) == 0)
			osp_diff_free(&d);
		osp_set_free(half);
		fclose(out);
		free(buf);
		osp_set_free(s);
	}
	fclose(f);
	return 0;
}
