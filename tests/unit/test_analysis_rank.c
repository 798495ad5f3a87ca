/* Ranking with cumulative share, "likely nested" count matches, the
 * preemption formulas, characteristic-time annotation and the diff
 * selection on sets built in memory. */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include "tests/unit/check.h"
#include "tests/unit/analysis_util.h"

#define NEAR(a, b, eps) CHECK(fabs((a) - (b)) <= (eps))

/* Adds n values v to (layer, op) of s. */
static struct osp_profile *put(struct osp_set *s, const char *op, uint64_t v, unsigned n)
{
	struct osp_profile *p = osp_set_get(s, "fs", op, NULL, 0);
	for (unsigned i = 0; i < n; i++)
		osp_profile_add(s, p, v, 0);
	return p;
}

/* Seed 000 Table 3.1 in miniature: ranked by total, cumulative share. */
static void test_rank(void)
{
	struct osp_set *s = osp_set_new(1);
	put(s, "readpage", 1000, 40); /* 40 us */
	put(s, "readdir", 100000, 5); /* 500 us */
	put(s, "lookup", 20000, 20);  /* 400 us */
	put(s, "write_super", 60, 1); /* 60 ns */
	struct osp_profile *b = osp_set_get(s, "fs", "bytes", NULL, 0);
	b->unit = OSP_UNIT_BYTES;
	osp_profile_add(s, b, 1u << 30, 0);
	struct osp_rank_entry *e;
	long n = osp_rank(s, &e);
	CHECK_EQ_U64(n, 4); /* bytes are not ranked by latency */
	CHECK_STR(e[0].p->op, "readdir");
	CHECK_STR(e[1].p->op, "lookup");
	CHECK_STR(e[2].p->op, "readpage");
	CHECK_STR(e[3].p->op, "write_super");
	double tot = 500000 + 400000 + 40000 + 60;
	NEAR(e[0].share, 500000 / tot, 1e-12);
	NEAR(e[1].cum_share, 900000 / tot, 1e-12);
	NEAR(e[3].cum_share, 1, 1e-12);
	NEAR(e[2].share_ops, 40.0 / 66, 1e-12);
	free(e);
	osp_set_free(s);
}

/* readdir's slow peaks (disk) hold exactly readpage's count; lookup and
 * read_inode differ by one (seed 000 §3.1.2); open/release match but the
 * faster one cannot be the caller. */
static void test_nesting(void)
{
	struct osp_set *s = osp_set_new(1);
	struct osp_profile *rd = put(s, "readdir", 500, 400); /* cached */
	put(s, "readdir", 200000, 130);                       /* disk, peak 2 */
	put(s, "readdir", 5000000, 70);                       /* disk, peak 3 */
	(void)rd;
	put(s, "readpage", 3000, 200);
	put(s, "lookup", 9000, 1364);
	put(s, "read_inode", 8000, 1365);
	put(s, "unrelated", 100, 7777);
	struct osp_nest_hint *h;
	long n = osp_nesting_hints(s, -1, &h);
	int found_rd = 0, found_lk = 0, wrong = 0;
	for (long i = 0; i < n; i++) {
		const char *o = h[i].outer->op, *in = h[i].inner->op;
		if (!strcmp(o, "readdir") && !strcmp(in, "readpage")) {
			found_rd = 1;
			CHECK_EQ_U64(h[i].peak_first, 2);
			CHECK_EQ_U64(h[i].peak_last, 3);
			CHECK_EQ_U64(h[i].npeaks, 3);
			CHECK_EQ_U64(h[i].outer_count, 200);
		} else if (!strcmp(o, "lookup") && !strcmp(in, "read_inode")) {
			found_lk = 1;
			CHECK_EQ_U64(h[i].outer_count, 1364);
			CHECK_EQ_U64(h[i].inner_count, 1365);
		} else if (!strcmp(o, "read_inode") || !strcmp(in, "unrelated") ||
		           !strcmp(o, "readpage")) {
			wrong = 1; /* faster callers or no count match */
		}
	}
	CHECK(found_rd);
	CHECK(found_lk);
	CHECK(!wrong);
	free(h);
	/* A stricter tolerance drops nothing exact but keeps the +-1 slack. */
	n = osp_nesting_hints(s, 0, &h);
	found_lk = 0;
	for (long i = 0; i < n; i++)
		found_lk |= !strcmp(h[i].outer->op, "lookup");
	CHECK(found_lk);
	free(h);
	osp_set_free(s);
}

/* Count matches the order of layers forbids, or that a measurement already
 * answers, are never offered: a system call does not call a user-level op,
 * two system calls do not nest, and an fs op whose system-call parents were
 * measured gets no guessed parent at that layer. */
static void test_nesting_rules(void)
{
	struct osp_set *s = osp_set_new(1);
	struct osp_profile *p[6];
	const char *const key[6][2] = {{"syscall", "unlink"},     {"user", "open"},
	                               {"syscall", "read"},       {"syscall", "write"},
	                               {"syscall", "getdents64"}, {"fs", "ext4_readdir"}};
	const uint64_t v[6] = {90000, 500, 80000, 700, 100000, 3000};
	for (int i = 0; i < 6; i++) {
		p[i] = osp_set_get(s, key[i][0], key[i][1], NULL, 0);
		for (int k = 0; k < 100; k++)
			osp_profile_add(s, p[i], v[i], 0);
	}
	struct osp_nest_hint *h;
	long n = osp_nesting_hints(s, -1, &h);
	int getdents_guess = 0, wrong = 0;
	for (long i = 0; i < n; i++) {
		const struct osp_profile *o = h[i].outer, *in = h[i].inner;
		if (o == p[4] && in == p[5])
			getdents_guess++;
		if (!strcmp(in->layer, "user") ||
		    (!strcmp(o->layer, "syscall") && !strcmp(in->layer, "syscall")))
			wrong = 1;
		for (long j = 0; j < i; j++)
			wrong |= h[j].outer == o && h[j].inner == in; /* a pair twice */
	}
	CHECK(!wrong);
	CHECK(getdents_guess == 1); /* nothing measured yet: one guess */
	free(h);
	CHECK(osp_profile_add_parent(p[5], "syscall", "getdents64", NULL, 0, 100) == 0);
	n = osp_nesting_hints(s, -1, &h);
	for (long i = 0; i < n; i++)
		CHECK(!(h[i].inner == p[5] && !strcmp(h[i].outer->layer, "syscall")));
	free(h);
	osp_set_free(s);
}

/* Eq. 3.5 with the seed's numbers: Y = 0.01, t_cpu = t_period / 2 = 2^14,
 * Q = 2^26 gives 5.8e-10 (seed: "10^-9"); Y = 0.1, 2^18: 0.7e-6 (seed). */
static void test_preempt_prob(void)
{
	double p1 = osp_preempt_prob(16384, 32768, 0.01, 67108864);
	double p2 = osp_preempt_prob(262144, 524288, 0.1, 67108864);
	NEAR(p1, 0.5 * pow(0.99, 2048), 1e-15);
	CHECK(p1 > 1e-10 && p1 < 1e-8);
	NEAR(p2, 0.5 * pow(0.9, 128), 1e-15);
	CHECK(p2 > 0.6e-6 && p2 < 0.8e-6);
	NEAR(osp_preempt_prob(100, 400, 0, 1e6), 0.25, 1e-12);
}

/* Eq. 3.6 by hand: 1000 requests in bucket b = 10 (mean 1.5 * 2^10) with
 * Q = 2^20 and P = 2 move 1000 * 1536 / 2^20 = 1.46 requests to the
 * bucket of 1536 + 2^20 (b = 20). */
static void test_preempt_predict(void)
{
	unsigned nb = osp_nbuckets(1);
	uint64_t *n = calloc(nb, sizeof(*n));
	double *in = calloc(nb, sizeof(double)), *out = calloc(nb, sizeof(double));
	n[11] = 1000;
	double tot = osp_preempt_predict(n, 1, 1u << 20, 2, in, out);
	NEAR(tot, 1000.0 * 1536 / 1048576, 1e-9);
	NEAR(out[11], tot, 1e-12);
	NEAR(in[21], tot, 1e-12);
	/* P = 3: destination 1536 + 2^21, bucket 21. */
	osp_preempt_predict(n, 1, 1u << 20, 3, in, NULL);
	NEAR(in[22], tot, 1e-12);
	/* Flagging: a peak at Q holding the predicted count is explained. */
	struct osp_hist h;
	uint64_t c[12] = {1000000, [10] = 1460};
	hist_from_bins(&h, 1, 10, c, 12);
	struct osp_peak pk[4];
	struct osp_preempt_peak res[4];
	unsigned np = osp_find_peaks(&h, NULL, pk, 4);
	CHECK_EQ_U64(np, 2);
	osp_preempt_peaks(&h, pk, np, 1u << 20, 2, res);
	NEAR(res[1].predicted, 1000000.0 * 1536 / 1048576, 1e-6);
	CHECK(res[1].model_fits);
	CHECK(!res[0].model_fits);
	/* Ten times more than predicted is not preemption. */
	osp_hist_free(&h);
	c[10] = 14600;
	hist_from_bins(&h, 1, 10, c, 12);
	np = osp_find_peaks(&h, NULL, pk, 4);
	osp_preempt_peaks(&h, pk, np, 1u << 20, 2, res);
	CHECK(!res[1].model_fits);
	osp_hist_free(&h);
	free(n);
	free(in);
	free(out);
}

static void test_annotate(void)
{
	struct osp_set *cal = osp_set_new(4);
	struct osp_profile *p = osp_set_get(cal, OSP_CALIB_LAYER, "odirect_read_4k", NULL, 0);
	for (int i = 0; i < 100; i++)
		osp_profile_add(cal, p, 80000 + (uint64_t)i * 100, 0);
	p = osp_set_get(cal, OSP_CALIB_LAYER, "null_syscall", NULL, 0);
	for (int i = 0; i < 100; i++)
		osp_profile_add(cal, p, 200, 0);
	struct osp_peak pk = {.lo_ns = 65536, .hi_ns = 131071, .mean_ns = 90000};
	const char *names[4];
	CHECK_EQ_U64(osp_annotate_peak(cal, &pk, names, 4), 1);
	CHECK_STR(names[0], "O_DIRECT 4 KiB random read");
	pk = (struct osp_peak){.lo_ns = 128, .hi_ns = 255, .mean_ns = 180};
	CHECK_EQ_U64(osp_annotate_peak(cal, &pk, names, 4), 1);
	CHECK_STR(names[0], "null system call");
	pk = (struct osp_peak){.lo_ns = 2000, .hi_ns = 4000, .mean_ns = 3000};
	CHECK_EQ_U64(osp_annotate_peak(cal, &pk, names, 4), 0);
	CHECK_EQ_U64(osp_annotate_peak(NULL, &pk, names, 4), 0);
	osp_set_free(cal);
}

/* The default calibration path: $OSPROF_CALIBRATION, else per host; a
 * saved calibration is found there. */
static void test_calib_default(void)
{
	char path[4096], err[256], tmpl[] = "/tmp/osprof-calib-test.XXXXXX";
	int fd = mkstemp(tmpl);
	CHECK(fd >= 0);
	close(fd);
	setenv("OSPROF_CALIBRATION", tmpl, 1);
	CHECK_STR(osp_calib_default_path(path, sizeof(path)), tmpl);
	struct osp_set *c = osp_set_new(4);
	struct osp_profile *p = osp_set_get(c, OSP_CALIB_LAYER, "tcp_rtt", NULL, 0);
	for (int i = 0; i < 9; i++)
		osp_profile_add(c, p, 10000 + (uint64_t)i * 1000, 0);
	CHECK(osp_set_save(c, tmpl, err, sizeof(err)) == 0);
	struct osp_set *l = osp_calib_load_default();
	CHECK(l != NULL);
	const struct osp_profile *q =
	    l ? osp_set_find(l, OSP_CALIB_LAYER, "tcp_rtt", NULL, 0) : NULL;
	CHECK(q && fabs(osp_calib_time(q) - 14000) <= 14000 * 0.1);
	CHECK_STR(osp_calib_label("tcp_rtt"), "loopback TCP round trip");
	CHECK(osp_calib_label("nope") == NULL);
	osp_set_free(l);
	osp_set_free(c);
	unlink(tmpl);
	CHECK(osp_calib_load_default() == NULL); /* absent: no calibration */
	unsetenv("OSPROF_CALIBRATION");
	osp_calib_default_path(path, sizeof(path));
	CHECK(strncmp(path, "/var/lib/osprof/calibration-", 28) == 0);
	CHECK(strcmp(path + strlen(path) - 4, ".osp") == 0);
}

/* The three phases on sets built in memory. */
static void test_diff_phases(void)
{
	struct osp_set *a = osp_set_new(1), *b = osp_set_new(1);
	put(a, "read", 1000, 1000);
	put(b, "read", 1000, 900);
	put(b, "read", 300000, 100); /* new peak: phase 2 */
	put(a, "write", 5000, 1000);
	put(b, "write", 5100, 1010); /* near-equal: phase 1 similar */
	put(a, "open", 2000, 1000);
	put(b, "open", 9000, 1000); /* 2 octaves to the right: phase 2 moved */
	put(a, "tiny", 100, 3);
	put(b, "tiny", 100000, 3); /* insignificant */
	put(a, "gone", 7000, 100);
	put(b, "new", 7000, 100);
	put(a, "fsync", 1000000, 100);
	put(b, "fsync", 1000000, 250); /* ops x2.5: phase 1 differs */
	struct osp_diff d;
	char err[128];
	CHECK(osp_diff_sets(a, b, NULL, &d, err, sizeof(err)) == 0);
	CHECK_EQ_U64(d.n, 7);
	CHECK_EQ_U64(d.ndiffer, 3);
	CHECK_EQ_U64(d.nonly_a, 1);
	CHECK_EQ_U64(d.nonly_b, 1);
	CHECK_EQ_U64(d.nsimilar, 1);
	CHECK_EQ_U64(d.ninsignificant, 1);
	for (size_t i = 0; i < d.n; i++) {
		const struct osp_diff_entry *e = &d.e[i];
		const char *op = (e->a ? e->a : e->b)->op;
		if (!strcmp(op, "read")) {
			CHECK(e->verdict == OSP_VERDICT_DIFFERS && e->phase == 2);
			CHECK(strstr(e->reason, "new peak at") != NULL);
		} else if (!strcmp(op, "open")) {
			CHECK(e->verdict == OSP_VERDICT_DIFFERS);
			CHECK(strstr(e->reason, "peak moved from") != NULL);
		} else if (!strcmp(op, "fsync")) {
			CHECK(e->verdict == OSP_VERDICT_DIFFERS && e->phase == 1);
			CHECK(strstr(e->reason, "ops +150 %") != NULL);
		} else if (!strcmp(op, "write")) {
			CHECK(e->verdict == OSP_VERDICT_SIMILAR && e->phase == 1);
		} else if (!strcmp(op, "tiny")) {
			CHECK(e->verdict == OSP_VERDICT_INSIGNIFICANT);
		} else if (!strcmp(op, "gone")) {
			CHECK(e->verdict == OSP_VERDICT_ONLY_IN_A);
		} else {
			CHECK(e->verdict == OSP_VERDICT_ONLY_IN_B);
		}
	}
	/* Rank order: differs first, then only_in_a, only_in_b, ... */
	for (size_t i = 1; i < d.n; i++)
		CHECK(d.e[i - 1].verdict <= d.e[i].verdict);
	osp_diff_free(&d);
	/* Different resolutions are refused with a message. */
	struct osp_set *c = osp_set_new(2);
	CHECK(osp_diff_sets(a, c, NULL, &d, err, sizeof(err)) < 0);
	CHECK(strstr(err, "r=1 and r=2") != NULL);
	osp_set_free(a);
	osp_set_free(b);
	osp_set_free(c);
}

int main(void)
{
	RUN(test_rank);
	RUN(test_nesting);
	RUN(test_nesting_rules);
	RUN(test_preempt_prob);
	RUN(test_preempt_predict);
	RUN(test_annotate);
	RUN(test_calib_default);
	RUN(test_diff_phases);
	CHECK_EXIT();
}
