/* Every comparison metric against values computed by hand. */
#include <math.h>
#include <stdlib.h>
#include "tests/unit/check.h"
#include "tests/unit/analysis_util.h"

#define NEAR(a, b, eps) CHECK(fabs((a) - (b)) <= (eps))

/* a = {10, 10}, b = {5, 15} in two adjacent bins (equal counts). */
static void pair(struct osp_hist *a, struct osp_hist *b)
{
	const uint64_t ca[] = {10, 10}, cb[] = {5, 15};
	hist_from_bins(a, 1, 10, ca, 2);
	hist_from_bins(b, 1, 10, cb, 2);
}

static void test_totops_totlat(void)
{
	struct osp_hist a, b;
	pair(&a, &b);
	NEAR(osp_score_totops(&a, &b), 0, 1e-12);
	a.total = 1000;
	b.total = 1400;
	NEAR(osp_score_totlat(&a, &b), 40, 1e-9); /* |1000-1400|/1000 */
	b.total = 5000;
	NEAR(osp_score_totlat(&a, &b), 100, 1e-9); /* capped */
	osp_hist_add_bucket(&b, 11, 5);            /* 25 ops vs 20 */
	NEAR(osp_score_totops(&a, &b), 25, 1e-9);
	osp_hist_free(&a);
	osp_hist_free(&b);
}

static void test_chi2_sf(void)
{
	/* Table values: the 5 % critical points for 1 and 10 degrees. */
	NEAR(osp_chi2_sf(3.841458820694124, 1), 0.05, 1e-9);
	NEAR(osp_chi2_sf(18.307038053275146, 10), 0.05, 1e-9);
	NEAR(osp_chi2_sf(0, 4), 1, 1e-12);
	/* dof 2: Q = exp(-x/2). */
	NEAR(osp_chi2_sf(7, 2), exp(-3.5), 1e-12);
	/* Even dof: Q(15, 100) = e^-100 sum_{j<15} 100^j / j! (Poisson tail). */
	NEAR(osp_chi2_sf(200, 30) / 4.952733529003e-27, 1, 1e-9);
}

static void test_chisquare(void)
{
	struct osp_hist a, b;
	double chi2;
	unsigned dof;
	pair(&a, &b);
	/* (10-5)^2/15 + (10-15)^2/25 = 8/3; p = erfc(sqrt(4/3)). */
	double p = osp_chisquare(&a, &b, &chi2, &dof);
	NEAR(chi2, 8.0 / 3, 1e-12);
	CHECK_EQ_U64(dof, 1);
	NEAR(p, 0.10247043485974947, 1e-9);
	/* Identical shapes at different counts: chi2 = 0, p = 1. */
	struct osp_hist c;
	const uint64_t cc[] = {20, 20};
	hist_from_bins(&c, 1, 10, cc, 2);
	NEAR(osp_chisquare(&a, &c, &chi2, NULL), 1, 1e-12);
	NEAR(chi2, 0, 1e-12);
	osp_hist_free(&a);
	osp_hist_free(&b);
	osp_hist_free(&c);
}

static void test_emd(void)
{
	struct osp_hist a, b;
	pair(&a, &b);
	/* CDFs 0.5 vs 0.25 after the first bin, equal after: 0.25 buckets. */
	NEAR(osp_emd(&a, &b), 0.25, 1e-12);
	NEAR(osp_emd_score(0.25, 1), 20, 1e-9);
	NEAR(osp_emd_score(2, 2), 50, 1e-9); /* one octave at r = 2 */
	/* Everything shifted right by 3 bins: EMD 3. */
	const uint64_t x[] = {7}, y[] = {0, 0, 0, 70};
	struct osp_hist c, d;
	hist_from_bins(&c, 1, 5, x, 1);
	hist_from_bins(&d, 1, 5, y, 4);
	NEAR(osp_emd(&c, &d), 3, 1e-12);
	NEAR(osp_emd(&d, &c), 3, 1e-12);
	osp_hist_free(&a);
	osp_hist_free(&b);
	osp_hist_free(&c);
	osp_hist_free(&d);
}

static void test_intersection_jeffrey(void)
{
	struct osp_hist a, b;
	pair(&a, &b);
	/* min(.5,.25) + min(.5,.75) */
	NEAR(osp_intersection(&a, &b), 0.75, 1e-12);
	/* .5 ln(.5/.375) + .25 ln(.25/.375) + .5 ln(.5/.625) + .75 ln(.75/.625) */
	NEAR(osp_jeffrey(&a, &b), 0.06764415113721041, 1e-12);
	struct osp_scores s;
	osp_compare_hists(&a, &b, NULL, &s);
	NEAR(s.score[OSP_METRIC_INTERSECT], 25, 1e-9);
	NEAR(s.score[OSP_METRIC_JEFFREY], 4.87949406953985, 1e-9);
	NEAR(s.score[OSP_METRIC_EMD], 20, 1e-9);
	NEAR(s.score[OSP_METRIC_CHISQUARE], (1 - 0.10247043485974947) * 100, 1e-6);
	/* Disjoint histograms: maximal Jeffrey, no intersection. */
	const uint64_t x[] = {5}, y[] = {0, 5};
	struct osp_hist c, d;
	hist_from_bins(&c, 1, 5, x, 1);
	hist_from_bins(&d, 1, 5, y, 2);
	NEAR(osp_jeffrey(&c, &d), 2 * M_LN2, 1e-12);
	NEAR(osp_intersection(&c, &d), 0, 1e-12);
	osp_hist_free(&a);
	osp_hist_free(&b);
	osp_hist_free(&c);
	osp_hist_free(&d);
}

/* GROUPOPS/GROUPLAT: early exits, then per-peak normalised differences. */
static void test_group(void)
{
	struct osp_hist a, b, c, d, e;
	/* Peaks at bins 10 and 20. */
	uint64_t ca[11] = {1000, [10] = 100}, cb[11] = {800, [10] = 150};
	hist_from_bins(&a, 1, 10, ca, 11);
	hist_from_bins(&b, 1, 10, cb, 11);
	/* (|1000-800| + |100-150|) / 1100 */
	NEAR(osp_score_group(&a, &b, 0, NULL), 250.0 / 1100 * 100, 1e-9);
	double m10 = osp_bucket_mid(11, 1), m20 = osp_bucket_mid(21, 1);
	double la = 1000 * m10 + 100 * m20, lb = 800 * m10 + 150 * m20;
	double want = (200 * m10 + 50 * m20) / la * 100;
	NEAR(osp_score_group(&a, &b, 1, NULL), want, 0.01);
	(void)lb;
	/* Near-equal totals (within 5 %): 0. */
	uint64_t cc[11] = {990, [10] = 101};
	hist_from_bins(&c, 1, 10, cc, 11);
	NEAR(osp_score_group(&a, &c, 0, NULL), 0, 1e-12);
	/* Totals differ by a factor >= 2: 100. */
	uint64_t cd[11] = {3000, [10] = 300};
	hist_from_bins(&d, 1, 10, cd, 11);
	NEAR(osp_score_group(&a, &d, 0, NULL), 100, 1e-12);
	/* A new significant peak at bin 15: 100. */
	uint64_t ce[11] = {1000, [5] = 300, [10] = 100};
	hist_from_bins(&e, 1, 10, ce, 11);
	NEAR(osp_score_group(&a, &e, 0, NULL), 100, 1e-12);
	struct osp_peak_cmp pc;
	osp_compare_peaks(&a, &e, NULL, &pc);
	CHECK(pc.differs);
	CHECK(strstr(pc.reason, "new peak at 32.77 us-65.53 us") != NULL);
	osp_compare_peaks(&e, &a, NULL, &pc);
	CHECK(strstr(pc.reason, "peak at 32.77 us-65.53 us gone") != NULL);
	osp_compare_peaks(&a, &b, NULL, &pc);
	CHECK(!pc.differs);
	osp_hist_free(&a);
	osp_hist_free(&b);
	osp_hist_free(&c);
	osp_hist_free(&d);
	osp_hist_free(&e);
}

/* A peak leaving its buckets for others 4 octaves away has moved; one that
 * shifts 2 octaves but keeps most of its mass in place is left to phase 3. */
static void test_peak_moved(void)
{
	struct osp_hist a, b;
	uint64_t ca[7] = {100, 1000, 100}, cb[7] = {0, 0, 0, 0, 100, 1000, 100};
	hist_from_bins(&a, 1, 10, ca, 7);
	hist_from_bins(&b, 1, 10, cb, 7);
	struct osp_peak_cmp pc;
	osp_compare_peaks(&a, &b, NULL, &pc);
	CHECK(pc.differs);
	CHECK(strstr(pc.reason, "peak moved from") != NULL);
	osp_hist_free(&a);
	osp_hist_free(&b);
	uint64_t cc[7] = {100, 1000, 500, 200, 100}, cd[7] = {0, 0, 100, 1000, 500, 200, 100};
	hist_from_bins(&a, 1, 10, cc, 7);
	hist_from_bins(&b, 1, 10, cd, 7);
	osp_compare_peaks(&a, &b, NULL, &pc);
	CHECK(!pc.differs);
	struct osp_scores s;
	osp_compare_hists(&a, &b, NULL, &s);
	CHECK(fabs(s.emd - 2) < 1e-9);
	CHECK(s.score[OSP_METRIC_EMD] >= osp_metric_default_threshold(OSP_METRIC_EMD));
	osp_hist_free(&a);
	osp_hist_free(&b);
}

static void test_names(void)
{
	enum osp_metric m;
	CHECK(osp_metric_parse("emd", &m) == 0 && m == OSP_METRIC_EMD);
	CHECK(osp_metric_parse("EarthMover", &m) == 0 && m == OSP_METRIC_EMD);
	CHECK(osp_metric_parse("groupLat", &m) == 0 && m == OSP_METRIC_GROUPLAT);
	CHECK(osp_metric_parse("kl", &m) < 0);
	for (unsigned i = 0; i < OSP_METRIC_COUNT; i++) {
		CHECK(osp_metric_parse(osp_metric_name((enum osp_metric)i), &m) == 0 && m == i);
		double t = osp_metric_default_threshold((enum osp_metric)i);
		CHECK(t > 0 && t <= 100);
	}
}

int main(void)
{
	RUN(test_totops_totlat);
	RUN(test_chi2_sf);
	RUN(test_chisquare);
	RUN(test_emd);
	RUN(test_intersection_jeffrey);
	RUN(test_group);
	RUN(test_peak_moved);
	RUN(test_names);
	CHECK_EXIT();
}
