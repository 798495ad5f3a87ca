/* TSC calibration for user-level profilers: the hot path reads the cycle
 * counter (a few ns) instead of clock_gettime (~20 ns) and converts with a
 * multiplier measured once against CLOCK_MONOTONIC. */
#include <stdio.h>
#include <string.h>
#include <osprof/clock.h>

/* The TSC is a usable clock only if it ticks at a constant rate across
 * frequency changes and idle states, which the kernel advertises. */
static int tsc_invariant(void)
{
#if defined(__x86_64__)
	/* fopen, not open: inside the preload library a call to open() would
	 * bind to our own interposer. */
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");
	char line[64] = "";
	int ok = 0;
	if (f) {
		if (fgets(line, sizeof(line), f) && !strncmp(line, "tsc", 3))
			ok = 1;
		fclose(f);
	}
	if (ok)
		return 1;
	f = fopen("/proc/cpuinfo", "re");
	if (!f)
		return 0;
	char buf[4096];
	while (fgets(buf, sizeof(buf), f)) {
		if (strncmp(buf, "flags", 5))
			continue;
		ok = strstr(buf, " constant_tsc") && strstr(buf, " nonstop_tsc");
		break;
	}
	fclose(f);
	return ok;
#else
	return 0;
#endif
}

void osp_tsc_calibrate(struct osp_tsc *t)
{
	t->mult = 0;
	t->usable = 0;
#if defined(__x86_64__)
	if (!tsc_invariant())
		return;
	/* Bracket each clock read by two TSC reads and keep the tightest pair,
	 * so a preemption during a sample does not skew the ratio. */
	uint64_t ns[2] = {0, 0}, cyc[2] = {0, 0};
	for (int k = 0; k < 2; k++) {
		uint64_t best = UINT64_MAX;
		for (int i = 0; i < 16; i++) {
			uint64_t c0 = osp_cycles();
			uint64_t n = osp_now_ns();
			uint64_t c1 = osp_cycles();
			if (c1 - c0 < best) {
				best = c1 - c0;
				ns[k] = n;
				cyc[k] = c0 + (c1 - c0) / 2;
			}
		}
		if (k == 0) {
			/* 2 ms keeps the error below 1e-5 with ~20 ns of
			 * sampling noise at each end. */
			uint64_t end = osp_now_ns() + 2000000;
			while (osp_now_ns() < end)
				;
		}
	}
	uint64_t dc = cyc[1] - cyc[0], dn = ns[1] - ns[0];
	if (!dc || !dn || dc > (1ull << 40))
		return;
	t->mult = (uint64_t)(((unsigned __int128)dn << 32) / dc);
	t->usable = t->mult != 0;
#endif
}
