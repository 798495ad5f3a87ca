/* bcc-style text histograms, so users of print_log2_hist read ours at once. */
#include <string.h>
#include <osprof/render.h>

#define BAR_WIDTH 40

uint64_t osp_pick_unit_div(const struct osp_hist *h)
{
	int first = osp_hist_first(h);
	uint64_t lo = first > 0 ? osp_bucket_lo((unsigned)first, h->r) : 0;
	if (lo >= 1000000)
		return 1000000;
	if (lo >= 1000)
		return 1000;
	return 1;
}

const char *osp_unit_div_name(uint64_t div, enum osp_unit unit)
{
	if (unit == OSP_UNIT_BYTES)
		return "bytes";
	if (unit == OSP_UNIT_COUNT)
		return "value";
	return div >= 1000000 ? "msecs" : div >= 1000 ? "usecs" : "nsecs";
}

void osp_print_hist(FILE *out, const struct osp_hist *h, const uint64_t *buckets,
                    enum osp_unit unit, uint64_t unit_div)
{
	int first = -1, last = -1;
	uint64_t peak = 0;
	if (unit != OSP_UNIT_NS || !unit_div)
		unit_div = 1;
	for (unsigned i = 0; i < h->nbuckets; i++)
		if (buckets[i]) {
			if (first < 0)
				first = (int)i;
			last = (int)i;
			if (buckets[i] > peak)
				peak = buckets[i];
		}
	if (first < 0) {
		fprintf(out, "     (no samples)\n");
		return;
	}
	/* bcc's columns are 10 digits wide; wider values (forced -n on long
	 * latencies, large sizes) widen them instead of breaking the layout. */
	int w = 10;
	for (int i = last; i >= first && i >= 0; i--) {
		uint64_t hi = osp_bucket_hi((unsigned)i, h->r);
		if ((unsigned)i == h->nbuckets - 1 || hi < osp_bucket_lo((unsigned)i, h->r))
			continue;
		char d[24];
		int n = snprintf(d, sizeof(d), "%llu", (unsigned long long)(hi / unit_div));
		if (n > w)
			w = n;
		break;
	}
	fprintf(out, "%*s : count    distribution\n", 2 * w + 4, osp_unit_div_name(unit_div, unit));
	for (int i = first; i <= last; i++) {
		unsigned idx = (unsigned)i;
		uint64_t lo = osp_bucket_lo(idx, h->r), hi = osp_bucket_hi(idx, h->r);
		if (hi < lo)
			continue; /* sub-octave holding no integer value */
		char bar[BAR_WIDTH + 1];
		unsigned stars = (unsigned)((buckets[idx] * BAR_WIDTH + peak - 1) / peak);
		memset(bar, '*', stars);
		memset(bar + stars, ' ', BAR_WIDTH - stars);
		bar[BAR_WIDTH] = '\0';
		if (idx == h->nbuckets - 1)
			fprintf(out, "%*s : %-8llu |%s|\n", 2 * w + 4, ">= 2^63 (overflow)",
			        (unsigned long long)buckets[idx], bar);
		else
			fprintf(out, "%*llu -> %-*llu : %-8llu |%s|\n", w,
			        (unsigned long long)(lo / unit_div), w,
			        (unsigned long long)(hi / unit_div),
			        (unsigned long long)buckets[idx], bar);
	}
}
