/* Bucket boundaries, merge and quantiles of the log histograms. */
#include <math.h>
#include <stdlib.h>
#include <osprof/hist.h>
#include "check.h"

static const unsigned resolutions[] = {1, 2, 4, 8, 16};

/* Reference: floor(r * log2(v)) in long double, trusted away from boundaries. */
static long ref_bucket(uint64_t v, unsigned r)
{
	return (long)floorl(r * log2l((long double)v));
}

static void zero_one_and_top(void)
{
	for (unsigned i = 0; i < 5; i++) {
		unsigned r = resolutions[i];
		CHECK_EQ_U64(osp_bucket_index(0, r), 0);
		CHECK_EQ_U64(osp_bucket_index(1, r), 1);
		CHECK_EQ_U64(osp_bucket_index(2, r), 1 + r);
		CHECK_EQ_U64(osp_bucket_index(1ull << 63, r), osp_nbuckets(r) - 1);
		CHECK_EQ_U64(osp_bucket_index(UINT64_MAX, r), osp_nbuckets(r) - 1);
		CHECK_EQ_U64(osp_bucket_index((1ull << 63) - 1, r), osp_nbuckets(r) - 2);
		CHECK_EQ_U64(osp_bucket_lo(osp_nbuckets(r) - 1, r), 1ull << 63);
		CHECK_EQ_U64(osp_bucket_hi(osp_nbuckets(r) - 1, r), UINT64_MAX);
		CHECK_EQ_U64(osp_bucket_lo(0, r), 0);
		CHECK_EQ_U64(osp_bucket_hi(0, r), 0);
	}
}

static void powers_of_two_start_buckets(void)
{
	for (unsigned i = 0; i < 5; i++) {
		unsigned r = resolutions[i];
		for (unsigned e = 0; e < 63; e++) {
			uint64_t v = 1ull << e;
			CHECK_EQ_U64(osp_bucket_index(v, r), 1 + e * r);
			/* v-1 is in the last sub-octave once octaves hold enough integers. */
			if (e >= 5)
				CHECK_EQ_U64(osp_bucket_index(v - 1, r), e * r);
			else if (e)
				CHECK(osp_bucket_index(v - 1, r) <= e * r);
			CHECK_EQ_U64(osp_bucket_lo(1 + e * r, r), v);
		}
	}
}

static void lo_hi_consistent(void)
{
	/* Every non-empty bucket's lo maps to itself and lo-1 to an earlier one. */
	for (unsigned i = 0; i < 5; i++) {
		unsigned r = resolutions[i];
		for (unsigned idx = 1; idx < osp_nbuckets(r) - 1; idx++) {
			uint64_t lo = osp_bucket_lo(idx, r), hi = osp_bucket_hi(idx, r);
			if (hi < lo)
				continue; /* sub-octave of [1,2) with no integer */
			CHECK_EQ_U64(osp_bucket_index(lo, r), idx);
			CHECK_EQ_U64(osp_bucket_index(hi, r), idx);
			CHECK(osp_bucket_index(lo - 1, r) < idx);
			CHECK(osp_bucket_index(hi + 1, r) > idx);
		}
	}
}

static void matches_float_reference(void)
{
	srand(42);
	for (int n = 0; n < 200000; n++) {
		uint64_t v = ((uint64_t)rand() << 33 ^ (uint64_t)rand() << 11 ^ (uint64_t)rand()) >>
		             (rand() % 63);
		v &= ~(1ull << 63); /* values >= 2^63 go to the overflow bucket */
		if (!v)
			continue;
		for (unsigned i = 0; i < 5; i++) {
			unsigned r = resolutions[i];
			long want = ref_bucket(v, r);
			long got = (long)osp_bucket_index(v, r) - 1;
			/* long double can be off only within 1e-15 of a boundary */
			if (got != want) {
				long double x = r * log2l((long double)v);
				CHECK(fabsl(x - roundl(x)) < 1e-12L);
			}
		}
	}
}

static void add_merge_check(void)
{
	struct osp_hist a, b, c;
	CHECK(osp_hist_init(&a, 2) == 0);
	CHECK(osp_hist_init(&b, 2) == 0);
	CHECK(osp_hist_init(&c, 4) == 0);
	for (uint64_t v = 0; v < 1000; v++)
		osp_hist_add(&a, v);
	osp_hist_add(&b, 5000);
	CHECK(osp_hist_merge(&a, &b) == 0);
	CHECK(osp_hist_merge(&a, &c) != 0);
	CHECK_EQ_U64(a.count, 1001);
	CHECK_EQ_U64(a.min, 0);
	CHECK_EQ_U64(a.max, 5000);
	CHECK_EQ_U64(a.total, 999 * 1000 / 2 + 5000);
	CHECK(osp_hist_check(&a) == 0);
	a.count++;
	CHECK(osp_hist_check(&a) != 0);
	osp_hist_free(&c);
	CHECK(osp_hist_init(&c, 3) != 0);
	osp_hist_free(&a);
	osp_hist_free(&b);
}

static void quantiles(void)
{
	struct osp_hist h;
	osp_hist_init(&h, 1);
	for (int i = 0; i < 90; i++)
		osp_hist_add(&h, 100);
	for (int i = 0; i < 10; i++)
		osp_hist_add(&h, 1000000);
	uint64_t p50 = osp_hist_quantile(&h, 0.5), p99 = osp_hist_quantile(&h, 0.99);
	CHECK(p50 >= 64 && p50 <= 127);
	CHECK(p99 >= 524288 && p99 <= 1000000);
	CHECK_EQ_U64(osp_hist_first(&h), osp_bucket_index(100, 1));
	CHECK_EQ_U64(osp_hist_last(&h), osp_bucket_index(1000000, 1));
	osp_hist_free(&h);
}

int main(void)
{
	RUN(zero_one_and_top);
	RUN(powers_of_two_start_buckets);
	RUN(lo_hi_consistent);
	RUN(matches_float_reference);
	RUN(add_merge_check);
	RUN(quantiles);
	CHECK_EXIT();
}
