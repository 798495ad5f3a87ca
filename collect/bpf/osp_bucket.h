/* Log-bucket index computed the way osp_bucket_index() (include/osprof/hist.h)
 * does, with no __builtin_clzll (clang 14 crashes on it for BPF): a branchy
 * binary search for the most significant bit and the exact threshold table.
 * Plain C on __u64/__u32 so that tests/unit/test_bpf_bucket.c checks it
 * against the core for every resolution. */
#ifndef OSPROF_COLLECT_BPF_OSP_BUCKET_H
#define OSPROF_COLLECT_BPF_OSP_BUCKET_H

#define OSP_BPF_LOG_SPAN 63

/* ceil(2^(63 + k/16)), k = 0..15: copy of osp_log_thresholds (lib/log_table.c,
 * scripts/gen_log_table.py); the unit test checks that they are equal. */
static const __u64 osp_bpf_thresholds[16] = {
    9223372036854775808ull,  9631725603661576981ull,  10058158527438640871ull,
    10503471249702896439ull, 10968499650544839024ull, 11454116617628225966ull,
    11961233684655323371ull, 12490802742373206727ull, 13043817825332782213ull,
    13621316977754388159ull, 14224384202002324190ull, 14854151493325717732ull,
    15511800964685064949ull, 16198567065652879634ull, 16915738899553466671ull,
    17664662643191237677ull,
};

static __always_inline __u32 osp_bpf_msb(__u64 v)
{
	__u32 m = 0;
	if (v >> 32) {
		v >>= 32;
		m += 32;
	}
	if (v >> 16) {
		v >>= 16;
		m += 16;
	}
	if (v >> 8) {
		v >>= 8;
		m += 8;
	}
	if (v >> 4) {
		v >>= 4;
		m += 4;
	}
	if (v >> 2) {
		v >>= 2;
		m += 2;
	}
	if (v >> 1)
		m += 1;
	return m;
}

/* One step of the sub-octave binary search (half < r: r is a power of 2). */
#define OSP_BPF_SUB_STEP(half)                                                                     \
	if ((half) < r && mant >= osp_bpf_thresholds[((k + (half)) * step) & 15])                  \
		k += (half);

static __always_inline __u32 osp_bpf_bucket(__u64 v, __u32 r)
{
	if (v == 0)
		return 0;
	if (v >> 63)
		return OSP_BPF_LOG_SPAN * r + 1;
	__u32 msb = osp_bpf_msb(v);
	__u64 mant = v << (63 - msb);
	__u32 step = 16 / r, k = 0;
	OSP_BPF_SUB_STEP(8)
	OSP_BPF_SUB_STEP(4)
	OSP_BPF_SUB_STEP(2)
	OSP_BPF_SUB_STEP(1)
	return 1 + msb * r + k;
}

#endif
