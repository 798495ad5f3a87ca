/* Peak detection on the counts of the seed figures and on edge cases. */
#include <math.h>
#include <stdlib.h>
#include "tests/unit/check.h"
#include "tests/unit/analysis_util.h"

/* Log2 bucket ("bin") of a peak boundary at r = 1. */
#define BIN(idx) ((idx)-1)

/* Seed 002 Fig. 3.4: bins 17-21 hold 43 11981 266 106 5, bin 22 is empty,
 * bins 23-24 hold 3 22. DARC shows two peaks: 17-21 and 23-24. */
static void test_fig_3_4(void)
{
	const uint64_t c[] = {43, 11981, 266, 106, 5, 0, 3, 22};
	struct osp_hist h;
	struct osp_peak pk[8];
	hist_from_bins(&h, 1, 17, c, 8);
	unsigned n = osp_find_peaks(&h, NULL, pk, 8);
	CHECK_EQ_U64(n, 2);
	CHECK_EQ_U64(BIN(pk[0].first), 17);
	CHECK_EQ_U64(BIN(pk[0].last), 21);
	CHECK_EQ_U64(pk[0].count, 43 + 11981 + 266 + 106 + 5);
	CHECK_EQ_U64(BIN(pk[0].mode), 18);
	CHECK_EQ_U64(BIN(pk[1].first), 23);
	CHECK_EQ_U64(BIN(pk[1].last), 24);
	CHECK_EQ_U64(pk[1].count, 25);
	CHECK(fabs(pk[0].share_ops + pk[1].share_ops - 1) < 1e-12);
	CHECK(fabs(pk[0].share_lat + pk[1].share_lat - 1) < 1e-9);
	osp_hist_free(&h);
}

/* Seed 002 Fig. 7.1: three adjacent peaks, bins 7-9 | 10-13 | 14-18, with no
 * empty bucket between them. The text gives only the ranges; these counts
 * follow the figure's shape (a 2-process zero-byte read loop). */
static void test_fig_7_1(void)
{
	const uint64_t c[] = {3200, 1900000, 41000, 2100, 5600, 9800,
	                      1500, 310,     900,   2500, 700,  40};
	struct osp_hist h;
	struct osp_peak pk[8];
	hist_from_bins(&h, 1, 7, c, 12);
	unsigned n = osp_find_peaks(&h, NULL, pk, 8);
	CHECK_EQ_U64(n, 3);
	CHECK_EQ_U64(BIN(pk[0].first), 7);
	CHECK_EQ_U64(BIN(pk[0].last), 9);
	CHECK_EQ_U64(BIN(pk[1].first), 10);
	CHECK_EQ_U64(BIN(pk[1].last), 13);
	CHECK_EQ_U64(BIN(pk[2].first), 14);
	CHECK_EQ_U64(BIN(pk[2].last), 18);
	CHECK_EQ_U64(pk[1].count, 2100 + 5600 + 9800 + 1500);
	osp_hist_free(&h);
}

/* Seed 002 Fig. 7.2 / seed 001 Fig. 7 (readdir): peaks at bin 9, 11-14,
 * 16-17 and 18-23; bins 10 and 15 are empty, 17|18 is a valley. */
static void test_fig_7_2(void)
{
	const uint64_t c[] = {520, 0, 30, 400, 350, 60, 0, 90, 40, 12, 45, 80, 60, 25, 4};
	struct osp_hist h;
	struct osp_peak pk[8];
	hist_from_bins(&h, 1, 9, c, 15);
	unsigned n = osp_find_peaks(&h, NULL, pk, 8);
	CHECK_EQ_U64(n, 4);
	CHECK_EQ_U64(BIN(pk[0].first), 9);
	CHECK_EQ_U64(BIN(pk[0].last), 9);
	CHECK_EQ_U64(BIN(pk[1].first), 11);
	CHECK_EQ_U64(BIN(pk[1].last), 14);
	CHECK_EQ_U64(BIN(pk[2].first), 16);
	CHECK_EQ_U64(BIN(pk[2].last), 17);
	CHECK_EQ_U64(BIN(pk[3].first), 18);
	CHECK_EQ_U64(BIN(pk[3].last), 23);
	osp_hist_free(&h);
}

/* A shallow dip (1000, 700, 1000) and a noisy one (10, 4, 9) stay one peak;
 * a deep dip with enough counts splits. */
static void test_valley_thresholds(void)
{
	const uint64_t shallow[] = {100, 1000, 700, 1000, 100};
	const uint64_t noisy[] = {2, 10, 4, 9, 1};
	const uint64_t deep[] = {100, 1000, 300, 1000, 100};
	struct osp_hist h;
	struct osp_peak pk[8];
	hist_from_bins(&h, 1, 10, shallow, 5);
	CHECK_EQ_U64(osp_find_peaks(&h, NULL, pk, 8), 1);
	osp_hist_free(&h);
	hist_from_bins(&h, 1, 10, noisy, 5);
	CHECK_EQ_U64(osp_find_peaks(&h, NULL, pk, 8), 1);
	osp_hist_free(&h);
	hist_from_bins(&h, 1, 10, deep, 5);
	CHECK_EQ_U64(osp_find_peaks(&h, NULL, pk, 8), 2);
	CHECK_EQ_U64(BIN(pk[1].first), 12);
	/* A stricter ratio merges it again. */
	struct osp_peak_opts o = {4.0, 2.0, OSP_PEAK_MIN_COUNT};
	CHECK_EQ_U64(osp_find_peaks(&h, &o, pk, 8), 1);
	osp_hist_free(&h);
}

/* Plateau minima cut once; an empty histogram has no peaks; max limits
 * what is written but not the count returned. */
static void test_edges(void)
{
	const uint64_t plateau[] = {500, 20, 20, 20, 600};
	const uint64_t many[] = {5, 0, 5, 0, 5, 0, 5};
	struct osp_hist h;
	struct osp_peak pk[8];
	hist_from_bins(&h, 1, 10, plateau, 5);
	CHECK_EQ_U64(osp_find_peaks(&h, NULL, pk, 8), 2);
	CHECK_EQ_U64(BIN(pk[0].last), 12);
	CHECK_EQ_U64(BIN(pk[1].first), 13);
	osp_hist_free(&h);
	osp_hist_init(&h, 1);
	CHECK_EQ_U64(osp_find_peaks(&h, NULL, pk, 8), 0);
	osp_hist_free(&h);
	hist_from_bins(&h, 1, 3, many, 7);
	CHECK_EQ_U64(osp_find_peaks(&h, NULL, pk, 2), 4);
	osp_hist_free(&h);
}

/* At r = 4 a two-mode histogram of real values is split between the modes
 * and the peak ranges and means follow the values. */
static void test_resolution_4(void)
{
	struct osp_hist h;
	struct osp_peak pk[64];
	osp_hist_init(&h, 4);
	for (int i = 0; i < 5000; i++)
		osp_hist_add(&h, 1000 + (uint64_t)(i % 50));
	for (int i = 0; i < 300; i++)
		osp_hist_add(&h, 100000 + (uint64_t)(i % 500) * 10);
	unsigned n = osp_find_peaks(&h, NULL, pk, 64);
	CHECK_EQ_U64(n, 2);
	CHECK_EQ_U64(pk[0].count, 5000);
	CHECK_EQ_U64(pk[0].lo_ns, 1000);
	CHECK(pk[0].mean_ns >= 1000 && pk[0].mean_ns <= 1049);
	CHECK_EQ_U64(pk[1].hi_ns, 102990); /* clipped to the max */
	CHECK(pk[1].mean_ns > 92682 && pk[1].mean_ns <= 102990);
	osp_hist_free(&h);
}

/* At r = 16 (1010 buckets, heap buffers) the same two modes are found. */
static void test_resolution_16(void)
{
	struct osp_hist h;
	unsigned max = osp_nbuckets(16) / 2 + 2;
	struct osp_peak *pk = malloc(max * sizeof(*pk));
	osp_hist_init(&h, 16);
	for (int i = 0; i < 20000; i++)
		osp_hist_add(&h, 1000 + (uint64_t)(i % 64));
	for (int i = 0; i < 2000; i++)
		osp_hist_add(&h, 1000000 + (uint64_t)(i % 1000) * 100);
	unsigned n = osp_find_peaks(&h, NULL, pk, max);
	CHECK_EQ_U64(n, 2);
	CHECK_EQ_U64(pk[0].count, 20000);
	CHECK_EQ_U64(pk[1].count, 2000);
	CHECK(pk[1].lo_ns >= 900000 && pk[1].hi_ns == 1099900);
	osp_hist_free(&h);
	free(pk);
}

int main(void)
{
	RUN(test_fig_3_4);
	RUN(test_fig_7_1);
	RUN(test_fig_7_2);
	RUN(test_valley_thresholds);
	RUN(test_edges);
	RUN(test_resolution_4);
	RUN(test_resolution_16);
	CHECK_EXIT();
}
