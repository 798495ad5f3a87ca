/* Clocks. Nanoseconds everywhere; user level may count TSC cycles on the hot
 * path and convert with a calibrated multiplier. */
#ifndef OSPROF_CLOCK_H
#define OSPROF_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t osp_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t osp_wall_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__)
static inline uint64_t osp_cycles(void)
{
	uint32_t lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}
#endif

/* Conversion cycles -> ns: ns = (cycles * mult) >> 32. */
struct osp_tsc {
	uint64_t mult;
	int usable; /* 0: fall back to osp_now_ns() */
};
/* Calibrates against CLOCK_MONOTONIC (a few ms, once per process). */
void osp_tsc_calibrate(struct osp_tsc *t);
static inline uint64_t osp_tsc_to_ns(const struct osp_tsc *t, uint64_t cycles)
{
	return (uint64_t)(((unsigned __int128)cycles * t->mult) >> 32);
}

/* Parses "10ms", "2s", "500us", "1m", "250" (default unit: seconds for
 * durations given to the CLI). Returns 0 or -EINVAL. */
int osp_parse_duration(const char *s, uint64_t *ns);
/* Formats ns as "1.23 ms" style text into buf. */
char *osp_format_ns(uint64_t ns, char *buf, unsigned len);

#endif
