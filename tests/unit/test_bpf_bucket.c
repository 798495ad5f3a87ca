/* The BPF-side bucket computation (collect/bpf/osp_bucket.h) must agree with
 * the core's osp_bucket_index for every resolution, at and around every
 * bucket boundary, and its threshold table must equal the core's. */
#include <linux/types.h>
#include <stdint.h>
#include <stdlib.h>
#include <osprof/hist.h>
#include "check.h"
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#include "collect/bpf/osp_bucket.h"

static void thresholds_equal(void)
{
	for (int k = 0; k < OSP_MAX_RESOLUTION; k++)
		CHECK_EQ_U64(osp_bpf_thresholds[k], osp_log_thresholds[k]);
}

static void msb_matches_clz(void)
{
	for (int b = 0; b < 64; b++) {
		uint64_t v = 1ull << b;
		CHECK_EQ_U64(osp_bpf_msb(v), b);
		CHECK_EQ_U64(osp_bpf_msb(v | (v - 1)), b);
	}
}

static void boundaries_match(void)
{
	static const unsigned rs[] = {1, 2, 4, 8, 16};
	for (unsigned i = 0; i < 5; i++) {
		unsigned r = rs[i];
		for (unsigned idx = 0; idx < osp_nbuckets(r); idx++) {
			uint64_t lo = osp_bucket_lo(idx, r);
			uint64_t probes[] = {lo, lo + 1, lo ? lo - 1 : 0, osp_bucket_hi(idx, r)};
			for (unsigned j = 0; j < 4; j++)
				CHECK_EQ_U64(osp_bpf_bucket(probes[j], r),
				             osp_bucket_index(probes[j], r));
		}
		CHECK_EQ_U64(osp_bpf_bucket(UINT64_MAX, r), osp_bucket_index(UINT64_MAX, r));
	}
}

static void random_values_match(void)
{
	srand(1);
	for (int i = 0; i < 200000; i++) {
		uint64_t v = ((uint64_t)rand() << 42) ^ ((uint64_t)rand() << 21) ^ (uint64_t)rand();
		v >>= rand() % 64;
		for (unsigned r = 1; r <= 16; r *= 2)
			CHECK_EQ_U64(osp_bpf_bucket(v, r), osp_bucket_index(v, r));
	}
}

int main(void)
{
	RUN(thresholds_equal);
	RUN(msb_matches_clz);
	RUN(boundaries_match);
	RUN(random_values_match);
	CHECK_EXIT();
}
