/* Prometheus text exposition: `le` bounds line up exactly with our buckets
 * (every cumulative count equals the number of recorded values <= le, at
 * every resolution), families are contiguous, labels escaped, the series
 * cap counted. */
#include <stdlib.h>
#include <string.h>
#include "tests/unit/check.h"
#include <osprof/render.h>

static char *render(const struct osp_set *s, size_t max_series)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct osp_prom_opts o = {max_series, NULL};
	CHECK(osp_render_prometheus(f, s, &o) == 0);
	fclose(f);
	return buf;
}

static void test_seconds(void)
{
	char b[48];
	osp_prom_seconds(b, sizeof(b), 0);
	CHECK_STR(b, "0");
	osp_prom_seconds(b, sizeof(b), 1023);
	CHECK_STR(b, "0.000001023");
	osp_prom_seconds(b, sizeof(b), 1000000000);
	CHECK_STR(b, "1");
	osp_prom_seconds(b, sizeof(b), 1073741823);
	CHECK_STR(b, "1.073741823");
	osp_prom_seconds(b, sizeof(b), 1500000000);
	CHECK_STR(b, "1.5");
}

static uint64_t vals[4000];

/* Every _bucket line: cumulative count == values <= le (in integer ns). */
static void check_exact(unsigned r)
{
	struct osp_set *s = osp_set_new(r);
	struct osp_profile *p = osp_set_get(s, "syscall", "read", NULL, 0);
	uint64_t x = 12345;
	size_t n = sizeof(vals) / sizeof(vals[0]);
	for (size_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		vals[i] = i < 10 ? i : (x >> 40) % (1u << (4 + i % 20));
		osp_profile_add(s, p, vals[i], 0);
	}
	osp_set_meta(s, "host", "h1");
	char *out = render(s, 0), *save, *line;
	unsigned lines = 0;
	double prev = -1;
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		static const char pre[] = "osprof_syscall_latency_seconds_bucket{";
		if (strncmp(line, pre, sizeof(pre) - 1))
			continue;
		char *le = strstr(line, "le=\"");
		CHECK(le != NULL);
		CHECK(strstr(line, "host=\"h1\"") && strstr(line, "op=\"read\""));
		if (!le || !strncmp(le + 4, "+Inf", 4))
			continue;
		/* le is an exact decimal: parse it as integer ns */
		unsigned long long sec = 0, frac = 0;
		char fr[16] = "";
		if (sscanf(le + 4, "%llu.%9[0-9]", &sec, fr) < 1)
			CHECK(0);
		size_t fl = strlen(fr);
		frac = strtoull(fr, NULL, 10);
		for (; fl < 9; fl++)
			frac *= 10;
		uint64_t le_ns = sec * 1000000000ull + frac;
		CHECK((double)le_ns > prev); /* strictly increasing */
		prev = (double)le_ns;
		uint64_t want = 0;
		for (size_t i = 0; i < n; i++)
			want += vals[i] <= le_ns;
		CHECK_EQ_U64(strtoull(strrchr(line, ' ') + 1, NULL, 10), want);
		lines++;
	}
	CHECK(lines > 10);
	free(out);
	osp_set_free(s);
}

static void test_exact_r1(void)
{
	check_exact(1);
}

static void test_exact_r16(void)
{
	check_exact(16);
}

static void test_families_labels_cap(void)
{
	struct osp_set *s = osp_set_new(1);
	struct osp_dim d[2] = {{"path", "a\"b\\c"}, {"le", "x"}};
	osp_profile_add(s, osp_set_get(s, "syscall", "read", NULL, 0), 100, 0);
	osp_profile_add(s, osp_set_get(s, "fs", "ext4_read", NULL, 0), 100, 0);
	osp_profile_add(s, osp_set_get(s, "syscall", "write", d, 2), 100, 0);
	struct osp_profile *b = osp_set_get(s, "syscall", "pread", NULL, 0);
	osp_profile_add(s, b, 7, 0);
	osp_profile_add(s, b, 9, 0);
	osp_set_meta(s, "lost_events", "5");
	char *out = render(s, 0);
	/* one TYPE line per family: syscall's three series are contiguous */
	const char *t = strstr(out, "# TYPE osprof_syscall_latency_seconds histogram");
	CHECK(t && !strstr(t + 1, "# TYPE osprof_syscall_latency_seconds"));
	CHECK(strstr(out, "path=\"a\\\"b\\\\c\""));
	CHECK(strstr(out, "dim_le=\"x\""));
	CHECK(strstr(out, "osprof_lost_events_total 5\n"));
	CHECK(strstr(out, "osprof_series_overflow_total 0\n"));
	free(out);
	out = render(s, 2); /* the first two profiles: syscall read, fs ext4_read */
	CHECK(strstr(out, "op=\"read\"") && strstr(out, "op=\"ext4_read\""));
	CHECK(!strstr(out, "op=\"write\"") && !strstr(out, "op=\"pread\""));
	CHECK(strstr(out, "osprof_series_overflow_total 2\n"));
	CHECK(strstr(out, "osprof_series_overflow_calls_total 3\n"));
	free(out);
	osp_set_free(s);
}

int main(void)
{
	RUN(test_seconds);
	RUN(test_exact_r1);
	RUN(test_exact_r16);
	RUN(test_families_labels_cap);
	CHECK_EXIT();
}
