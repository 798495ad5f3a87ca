/* Unit tests of the view model and the SVG, gnuplot and HTML renderers:
 * formatting, selection and order, escaping of hostile labels, empty sets,
 * and the statistics the views show. */
#include <stdlib.h>
#include <string.h>
#include <osprof/osprof.h>
#include <osprof/render.h>
#include "render/vmodel.h"
#include "check.h"

static struct osp_set *three(void)
{
	struct osp_set *s = osp_set_new(1);
	struct osp_profile *r = osp_set_get(s, "syscall", "read", NULL, 0);
	struct osp_profile *w = osp_set_get(s, "syscall", "write", NULL, 0);
	struct osp_profile *f = osp_set_get(s, "fs", "read", NULL, 0);
	for (int i = 0; i < 100; i++) {
		osp_profile_add(s, r, 100, 0);   /* total 10 us */
		osp_profile_add(s, w, 10000, 0); /* total 1 ms */
		osp_profile_add(s, f, 1000, 0);  /* total 100 us */
	}
	return s;
}

static char *render(int kind, const struct osp_set *s, const struct osp_plot_opts *o, int *rc)
{
	char *buf = NULL, err[128];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (kind == 0)
		*rc = osp_render_svg(f, s, o, err, sizeof(err));
	else if (kind == 1)
		*rc = osp_render_gnuplot(f, s, o, NULL, NULL, err, sizeof(err));
	else {
		struct osp_html_opts h = {
		    .name_a = "a.osp", .b = o ? o->b : NULL, .name_b = "b.osp"};
		*rc = osp_render_html(f, s, &h);
	}
	fclose(f);
	return buf;
}

static unsigned occurrences(const char *hay, const char *needle)
{
	unsigned n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static void test_format(void)
{
	char b[32];
	CHECK_STR(osp_render_value(0, OSP_UNIT_NS, b, sizeof(b)), "0");
	CHECK_STR(osp_render_value(100, OSP_UNIT_NS, b, sizeof(b)), "100ns");
	CHECK_STR(osp_render_value(1500, OSP_UNIT_NS, b, sizeof(b)), "1.5µs");
	CHECK_STR(osp_render_value(1e6, OSP_UNIT_NS, b, sizeof(b)), "1ms");
	CHECK_STR(osp_render_value(2.5e9, OSP_UNIT_NS, b, sizeof(b)), "2.5s");
	CHECK_STR(osp_render_value(4096, OSP_UNIT_BYTES, b, sizeof(b)), "4KiB");
	CHECK_STR(osp_render_value(12, OSP_UNIT_COUNT, b, sizeof(b)), "12");
	/* Bucket coordinates: value 1 starts bucket 1, 1024 bucket 11 at r=1. */
	CHECK(osp_vm_xpos(1, 1) == 1.0);
	CHECK(osp_vm_xpos(1024, 1) == 11.0);
	CHECK(osp_vm_xpos(2, 4) == 5.0);
}

static void test_select(void)
{
	struct osp_set *s = three();
	const struct osp_profile **v;
	long n = osp_vm_select(s, NULL, 0, &v);
	CHECK_EQ_U64(n, 3);
	CHECK_STR(v[0]->op, "write");
	CHECK_STR(v[1]->layer, "fs");
	CHECK_STR(v[2]->layer, "syscall");
	free(v);
	CHECK_STR(s->profiles[0]->op, "read"); /* the set keeps its order */
	n = osp_vm_select(s, "read", 0, &v);
	CHECK_EQ_U64(n, 2);
	free(v);
	n = osp_vm_select(s, "syscall:read", 0, &v);
	CHECK_EQ_U64(n, 1);
	free(v);
	n = osp_vm_select(s, NULL, 1, &v);
	CHECK_EQ_U64(n, 1);
	CHECK_STR(v[0]->op, "write");
	free(v);
	n = osp_vm_select(s, "nosuch", 0, &v);
	CHECK_EQ_U64(n, 0);
	free(v);
	osp_set_free(s);
}

static void test_stats_and_peaks(void)
{
	struct osp_set *s = osp_set_new(1);
	struct osp_profile *p = osp_set_get(s, "fs", "read", NULL, 0);
	/* Two modes far apart: 900 ops at ~300 ns, 100 ops at ~300 us. */
	for (int i = 0; i < 900; i++)
		osp_profile_add(s, p, 300, 0);
	for (int i = 0; i < 100; i++)
		osp_profile_add(s, p, 300000, 0);
	struct osp_vm_stats st;
	struct osp_vm_totals t;
	osp_vm_totals(s, &t);
	osp_vm_stats(p, &t, &st);
	CHECK_EQ_U64(st.count, 1000);
	CHECK_EQ_U64(st.total, 900 * 300 + 100 * 300000);
	CHECK_EQ_U64(st.mean, st.total / 1000);
	CHECK(st.share > 0.999 && st.share <= 1.0);
	CHECK(st.p50 >= 256 && st.p50 < 512);
	CHECK(st.p99 >= 262144 && st.p99 < 524288);
	CHECK_EQ_U64(st.npeaks, 2);
	CHECK_EQ_U64(st.peaks[0].lo, osp_bucket_index(300, 1));
	CHECK_EQ_U64(st.peaks[0].count, 900);
	CHECK_EQ_U64(st.peaks[1].mode, osp_bucket_index(300000, 1));
	CHECK(st.peaks[1].share_ops > 0.099 && st.peaks[1].share_ops < 0.101);
	/* Empty profile: no peaks, no division by zero. */
	struct osp_profile *e = osp_set_get(s, "fs", "idle", NULL, 0);
	osp_vm_stats(e, &t, &st);
	CHECK_EQ_U64(st.count, 0);
	CHECK_EQ_U64(st.npeaks, 0);
	osp_set_free(s);
}

static void test_layer_share(void)
{
	/* syscall: read 10 us + write 1 ms; fs: read 100 us. Shares are taken
	 * within a layer because layers nest. */
	struct osp_set *s = three();
	struct osp_vm_totals t;
	struct osp_vm_stats st;
	osp_vm_totals(s, &t);
	CHECK_EQ_U64(t.n, 2);
	osp_vm_stats(osp_set_find(s, "fs", "read", NULL, 0), &t, &st);
	CHECK(st.share == 1.0);
	osp_vm_stats(osp_set_find(s, "syscall", "write", NULL, 0), &t, &st);
	CHECK(st.share > 0.990 && st.share < 0.991); /* 1000 / 1010 */
	osp_vm_stats(osp_set_find(s, "syscall", "write", NULL, 0), NULL, &st);
	CHECK(st.share == 0);
	osp_set_free(s);
}

static void test_hostile_labels(void)
{
	struct osp_set *s = osp_set_new(1);
	struct osp_dim d = {"comm", "</script><b x=\"1\">it's & \x7f"};
	struct osp_profile *p = osp_set_get(s, "syscall", "read", &d, 1);
	CHECK(p != NULL);
	osp_profile_add(s, p, 1000, 0);
	struct osp_plot_opts o = {0};
	int rc;
	char *svg = render(0, s, &o, &rc);
	CHECK(rc == 0);
	CHECK(strstr(svg, "&lt;/script&gt;&lt;b x=&quot;1&quot;&gt;it's &amp; ") != NULL);
	CHECK(strstr(svg, "<b x") == NULL);
	free(svg);
	char *gp = render(1, s, &o, &rc);
	CHECK(rc == 0);
	CHECK(strstr(gp, "it''s") != NULL);
	free(gp);
	char *html = render(2, s, NULL, &rc);
	CHECK(rc == 0);
	/* Only the two real script elements close; the label is escaped. */
	CHECK_EQ_U64(occurrences(html, "</script>"), 2);
	CHECK(
	    strstr(html, "\\u003c/script\\u003e\\u003cb x=\\\"1\\\"\\u003eit's \\u0026 \\u007f") !=
	    NULL);
	free(html);
	osp_set_free(s);
}

static void test_empty_and_errors(void)
{
	struct osp_set *s = osp_set_new(4);
	struct osp_plot_opts o = {0};
	int rc;
	char *svg = render(0, s, &o, &rc);
	CHECK(rc == 0 && strstr(svg, "no profiles in this set"));
	CHECK(strstr(svg, "</svg>") != NULL);
	free(svg);
	char *gp = render(1, s, &o, &rc);
	CHECK(rc == 0 && strstr(gp, "no profiles in this set"));
	free(gp);
	char *html = render(2, s, NULL, &rc);
	CHECK(rc == 0 && strstr(html, "\"profiles\":[\n]"));
	free(html);
	o.op = "nosuch";
	char err[128] = "";
	FILE *f = fopen("/dev/null", "w");
	CHECK(osp_render_svg(f, s, &o, err, sizeof(err)) == -1);
	CHECK(strstr(err, "nosuch") != NULL);
	o.op = NULL;
	o.heatmap = 1;
	CHECK(osp_render_svg(f, s, &o, err, sizeof(err)) == -1);
	CHECK(strstr(err, "time-sliced") != NULL);
	fclose(f);
	osp_set_free(s);
}

static void test_zero_and_overflow(void)
{
	/* A zero latency and a negative delta cast to unsigned: the zero and
	 * overflow buckets are drawn and labelled, never dropped. */
	struct osp_set *s = osp_set_new(16);
	struct osp_profile *p = osp_set_get(s, "syscall", "read", NULL, 0);
	osp_profile_add(s, p, 0, 0);
	osp_profile_add(s, p, 500, 0);
	osp_profile_add(s, p, (uint64_t)-5, 0);
	struct osp_plot_opts o = {0};
	int rc;
	char *svg = render(0, s, &o, &rc);
	CHECK(rc == 0);
	CHECK(strstr(svg, "class=\"bar\" data-bucket=\"0\" data-count=\"1\"") != NULL);
	char ovf[64];
	snprintf(ovf, sizeof(ovf), "class=\"bar\" data-bucket=\"%u\" data-count=\"1\"",
	         osp_nbuckets(16) - 1);
	CHECK(strstr(svg, ovf) != NULL);
	CHECK(strstr(svg, ">ovf</text>") != NULL);
	CHECK(strstr(svg, ">0</text>") != NULL);
	free(svg);
	char *gp = render(1, s, &o, &rc);
	CHECK(rc == 0 && strstr(gp, "\"0\" 0.5") != NULL);
	free(gp);
	osp_set_free(s);
}

static int folded(const char *text, struct osp_folded_set *rc, char *err, size_t errlen)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int r = osp_folded_read(f, "rc.txt", rc, err, errlen);
	fclose(f);
	return r;
}

static void test_folded(void)
{
	struct osp_folded_set rc;
	char err[256];
	CHECK(folded("# darc\n\nvfs_read;ext4 read;filemap_read 120\r\na 0  \n", &rc, err,
	             sizeof(err)) == 0);
	CHECK_EQ_U64(rc.n, 2);
	CHECK_STR(rc.e[0].path, "vfs_read;ext4 read;filemap_read"); /* frames may hold spaces */
	CHECK_EQ_U64(rc.e[0].count, 120);
	CHECK_STR(rc.e[1].path, "a");
	CHECK_EQ_U64(rc.e[1].count, 0);
	osp_folded_free(&rc);
	static const struct {
		const char *text, *msg;
	} bad[] = {
	    {"a;b 1\nnocount\n", "rc.txt:2: expected"},
	    {"a;b x\n", "rc.txt:1: COUNT"},
	    {"a;b -1\n", "rc.txt:1: COUNT"},
	    {"a;b 99999999999999999999999\n", "rc.txt:1: COUNT"},
	    {"a;;b 3\n", "rc.txt:1: empty frame"},
	    {";a 3\n", "rc.txt:1: empty frame"},
	    {"a; 3\n", "rc.txt:1: empty frame"},
	    {"ok 1\na\x01b 3\n", "rc.txt:2: control"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		CHECK(folded(bad[i].text, &rc, err, sizeof(err)) == -1);
		CHECK(rc.n == 0 && rc.e == NULL);
		if (strncmp(err, bad[i].msg, strlen(bad[i].msg)))
			fprintf(stderr, "bad[%zu]: got '%s', want '%s...'\n", i, err, bad[i].msg);
		CHECK(!strncmp(err, bad[i].msg, strlen(bad[i].msg)));
	}
	/* The report carries the paths. */
	CHECK(folded("x;y 3\n", &rc, err, sizeof(err)) == 0);
	struct osp_set *s = osp_set_new(1);
	char *buf;
	size_t len;
	FILE *w = open_memstream(&buf, &len);
	struct osp_html_opts o = {.name_a = "a", .rootcause = &rc, .rootcause_name = "rc.txt"};
	CHECK(osp_render_html(w, s, &o) == 0);
	fclose(w);
	CHECK(strstr(buf, "\"rc\":{\"name\":\"rc.txt\",\"paths\":[[\"x;y\",3]]}") != NULL);
	free(buf);
	osp_set_free(s);
	osp_folded_free(&rc);
}

static void test_heatmap_budget(void)
{
	struct osp_set *s = osp_set_new(1);
	s->slice_ns = 1000000;
	struct osp_profile *slow = osp_set_get(s, "fs", "slow", NULL, 0);
	struct osp_profile *fast = osp_set_get(s, "fs", "fast", NULL, 0);
	for (int i = 0; i < 10; i++) {
		osp_profile_add(s, fast, 100, (uint64_t)i * 1000000);
		osp_profile_add(s, slow, 100000, (uint64_t)i * 1000000);
	}
	char *buf;
	size_t len;
	FILE *w = open_memstream(&buf, &len);
	struct osp_html_opts o = {.name_a = "a", .max_heatmaps = 1};
	CHECK(osp_render_html(w, s, &o) == 0);
	fclose(w);
	/* Only the profile with the most latency keeps its slices. */
	CHECK(strstr(buf, "\"sliced\":2,\"heat\":1,") != NULL);
	const char *ps = strstr(buf, "\"o\":\"slow\""), *pf = strstr(buf, "\"o\":\"fast\"");
	CHECK(ps && pf);
	CHECK(ps && strstr(ps, "\"s\":[[0,") &&
	      strstr(ps, "\"s\":[[0,") < (pf > ps ? pf : buf + len));
	CHECK(pf && strstr(pf, "\"s\":[]}") != NULL);
	free(buf);
	osp_set_free(s);
}

static void test_diff(void)
{
	struct osp_set *a = three(), *b = three();
	struct osp_profile *q = osp_set_get(b, "block", "rq_issue", NULL, 0);
	for (int i = 0; i < 100; i++)
		osp_profile_add(b, q, 100000, 0);
	/* Make syscall:write of B slower by 2^6. */
	struct osp_profile *w = osp_set_find(b, "syscall", "write", NULL, 0);
	osp_hist_reset(&w->hist);
	for (int i = 0; i < 100; i++)
		osp_profile_add(b, w, 640000, 0);
	struct osp_vm_diff *d;
	long n = osp_vm_diff(a, b, &d);
	CHECK_EQ_U64(n, 4);
	CHECK(d[0].a && d[0].b && !strcmp(d[0].a->op, "write"));
	CHECK_STR(d[0].verdict, "differs");
	int only_b = 0;
	for (long i = 0; i < n; i++)
		if (!d[i].a && d[i].b && !strcmp(d[i].b->op, "rq_issue"))
			only_b = !strcmp(d[i].verdict, "only_in_b");
	CHECK(only_b);
	free(d);
	/* Plots of A with B overlaid also show the profile only in B. */
	struct osp_plot_opts po = {.b = b};
	int prc;
	char *svg = render(0, a, &po, &prc);
	CHECK(prc == 0);
	CHECK(strstr(svg, "data-label=\"block:rq_issue\" data-count=\"0\"") != NULL);
	CHECK(strstr(svg, "only in B: 100 ops") != NULL);
	free(svg);
	char *gp = render(1, a, &po, &prc);
	CHECK(prc == 0 && strstr(gp, "block:rq_issue: only in B, 100 ops") != NULL);
	free(gp);
	po.top = 3; /* the limit counts B-only panels too */
	svg = render(0, a, &po, &prc);
	CHECK(prc == 0 && strstr(svg, "block:rq_issue") == NULL);
	free(svg);
	/* The HTML report carries the ranking with indexes into both sets. */
	struct osp_plot_opts o = {.b = b};
	int rc;
	char *html = render(2, a, &o, &rc);
	CHECK(rc == 0 && strstr(html, "{\"a\":1,\"b\":1,\"score\":"));
	CHECK(strstr(html, "{\"a\":-1,\"b\":3,") != NULL);
	free(html);
	osp_set_free(a);
	osp_set_free(b);
}

/* Label lanes: overlapping labels go to different lanes, disjoint ones
 * share the first; no two labels of one lane overlap. */
static void test_lanes(void)
{
	/* Three 100-wide labels 40 apart, then one far right. */
	double lo[] = {0, 40, 80, 500}, hi[] = {100, 140, 180, 600};
	unsigned lane[4];
	unsigned n = osp_vm_lanes(lo, hi, 4, lane);
	CHECK_EQ_U64(n, 3);
	CHECK_EQ_U64(lane[0], 0);
	CHECK_EQ_U64(lane[1], 1);
	CHECK_EQ_U64(lane[2], 2);
	CHECK_EQ_U64(lane[3], 0);
	for (unsigned i = 0; i < 4; i++)
		for (unsigned j = 0; j < i; j++)
			CHECK(lane[i] != lane[j] || hi[j] < lo[i] || hi[i] < lo[j]);
	/* 0 and 120: a gap of 20 > 4, same lane. */
	double lo2[] = {0, 120}, hi2[] = {100, 220};
	CHECK_EQ_U64(osp_vm_lanes(lo2, hi2, 2, lane), 1);
	CHECK_EQ_U64(osp_vm_lanes(NULL, NULL, 0, lane), 0);
}

int main(void)
{
	osp_vm_set_calibration(NULL); /* independent of this host's calibration */
	RUN(test_format);
	RUN(test_select);
	RUN(test_stats_and_peaks);
	RUN(test_layer_share);
	RUN(test_hostile_labels);
	RUN(test_empty_and_errors);
	RUN(test_zero_and_overflow);
	RUN(test_folded);
	RUN(test_heatmap_budget);
	RUN(test_diff);
	RUN(test_lanes);
	CHECK_EXIT();
}
