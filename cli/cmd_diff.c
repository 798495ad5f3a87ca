/* osprof diff: automated comparison of two profile sets (seed 001 §3.2). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include <osprof/analysis.h>
#include <osprof/render.h>

static const char usage[] =
    "usage: osprof diff [OPTIONS] A B\n"
    "       osprof diff --by host [OPTIONS] SET [SET...]\n\n"
    "Compares two complete profile sets and reports the few profiles that differ,\n"
    "ranked by score, each with its scores and the reason (new peak at 256 us-1 ms,\n"
    "total latency +40 %, ...), then the profiles present on only one side.\n"
    "Profiles are matched by layer, op and dimensions. Selection in three phases:\n"
    "  1. insignificant pairs (small share of total latency and of ops, or few\n"
    "     ops) and pairs with near-equal totals are set aside; op counts that\n"
    "     differ by a factor of 2 or more differ already;\n"
    "  2. the number and position of the significant peaks are compared;\n"
    "  3. the remaining pairs are scored with the metric (0 = same .. 100).\n"
    "Metrics: EMD (default), TOTOPS, TOTLAT, CHISQUARE, GROUPOPS, GROUPLAT,\n"
    "INTERSECT, JEFFREY; docs/analysis.md defines them and their thresholds.\n\n"
    "Options:\n"
    "  -m, --metric M          metric deciding phase 3 (default EMD)\n"
    "  -t, --threshold T       phase-3 score at or above which a pair differs\n"
    "                          (default: the metric's; listed below)\n"
    "      --min-share PCT     phase 1: insignificant below PCT % of total latency\n"
    "                          (and below --min-ops-share of ops); default 1\n"
    "      --min-ops-share PCT default 1\n"
    "      --min-count N       insignificant if both sides have fewer ops (10)\n"
    "      --near-equal PCT    totals within PCT % are similar (default 5)\n"
    "      --drop-dim LIST     sum profiles over these dimensions first (e.g. pid:\n"
    "                          pids differ between runs)\n"
    "  -a, --all               also list similar and insignificant profiles\n"
    "      --json              NDJSON: one object per compared profile in rank\n"
    "                          order: layer, op, dims, verdict (differs, similar,\n"
    "                          insignificant, only_in_a, only_in_b), scores, reason\n"
    "      --by host           fleet mode: which hosts are not like the others.\n"
    "                          SET is a set merged from many hosts (osprof merge\n"
    "                          keeps each file's host as a host dimension), or\n"
    "                          several SETs merged here. Every host is diffed\n"
    "                          against the mean of the other hosts and the hosts\n"
    "                          are ranked by SCORE: the % of their latency in\n"
    "                          profiles that differ (or exist on one side only),\n"
    "                          each at its larger share; 0 = like the others.\n"
    "                          With --json one object per host.\n\n"
    "Sets at different resolutions are compared at the coarser one (exact: the\n"
    "buckets nest); a note on stderr says so.\n"
    "Every change must also be beyond chance for the sample sizes (counts and\n"
    "peak populations z >= 3.29, shapes KS >= 1.95: p < 0.001), so a few calls or\n"
    "one outlier never differ alone; a peak whose population change makes half of\n"
    "a >= 25 % total-latency change differs in phase 2 (peak-growth). Each verdict\n"
    "names the phase, the test and its threshold.\n"
    "Exit status: 0 when compared (whatever the verdicts), 2 on bad usage or input.\n";

enum { OPT_JSON = 256, OPT_MIN_SHARE, OPT_MIN_OPS, OPT_MIN_COUNT, OPT_NEAR, OPT_DROP, OPT_BY };

#define MAX_DROP 8

/* Splits LIST at commas into names (pointers into list). */
static int parse_dims(char *list, const char **names, unsigned *n)
{
	char *save, *tok;
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*n == MAX_DROP || !*tok ||
		    strspn(tok, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(tok))
			return osp_usage_err("diff",
			                     "--drop-dim: '%s' is not a dimension name "
			                     "([a-z0-9_]+, at most %d)",
			                     tok, MAX_DROP);
		names[(*n)++] = tok;
	}
	return 0;
}

/* Replaces *s by t when t is not NULL; returns -1 on ENOMEM. */
static int replace(struct osp_set **s, struct osp_set *t)
{
	if (!t)
		return -1;
	osp_set_free(*s);
	*s = t;
	return 0;
}

static int pct_arg(const char *flag, const char *arg, double *out)
{
	char *end;
	double v = strtod(arg, &end);
	if (*end || end == arg || v < 0 || v > 100)
		return osp_usage_err("diff", "%s: '%s' is not a percentage in 0..100", flag, arg);
	*out = v / 100;
	return 0;
}

static void print_json(const struct osp_diff *d, const struct osp_diff_opts *o)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct osp_diff_entry *e = &d->e[i];
		const struct osp_profile *p = e->a ? e->a : e->b;
		printf("{\"rank\":%zu,", i + 1);
		osp_json_profile_key(stdout, p);
		printf(",\"verdict\":\"%s\",\"metric\":\"%s\"", osp_verdict_name(e->verdict),
		       osp_metric_name(o->metric));
		if (e->a && e->b) {
			printf(",\"phase\":%d,\"score\":%.3f,\"scores\":{", e->phase, e->score);
			for (unsigned m = 0; m < OSP_METRIC_COUNT; m++)
				printf("%s\"%s\":%.3f", m ? "," : "",
				       osp_metric_name((enum osp_metric)m), e->scores.score[m]);
			printf(",\"CHISQUARE_P\":%.6g,\"EMD_BUCKETS\":%.4f}", e->scores.chi2_p,
			       e->scores.emd);
			printf(",\"count_a\":%" PRIu64 ",\"count_b\":%" PRIu64
			       ",\"total_a\":%" PRIu64 ",\"total_b\":%" PRIu64,
			       e->a->hist.count, e->b->hist.count, e->a->hist.total,
			       e->b->hist.total);
		} else {
			printf(",\"scores\":{},\"count_%s\":%" PRIu64, e->a ? "a" : "b",
			       p->hist.count);
		}
		if (e->a && e->b)
			printf(",\"decided_by\":\"%s\",\"decided_value\":%.4g,"
			       "\"decided_threshold\":%.4g",
			       e->decided_by ? e->decided_by : "", e->decided_value,
			       e->decided_threshold);
		printf(",\"share\":%.6f,\"reason\":\"", e->share);
		osp_json_string(stdout, e->reason);
		puts("\"}");
	}
}

static void print_text(const struct osp_diff *d, const struct osp_diff_opts *o, double thr,
                       const char *fa, const char *fb, int all)
{
	printf("osprof diff: A = %s, B = %s; metric %s, threshold %g (phase 3; each reason\n"
	       "names the phase and test that decided)\n",
	       fa, fb, osp_metric_name(o->metric), thr);
	printf("%zu differ, %zu only in A, %zu only in B, %zu similar, %zu insignificant\n\n",
	       d->ndiffer, d->nonly_a, d->nonly_b, d->nsimilar, d->ninsignificant);
	if (!d->ndiffer && !d->nonly_a && !d->nonly_b && !all) {
		printf("no profile differs\n");
		return;
	}
	printf("%4s  %-13s %6s  %s\n", "RANK", "VERDICT", "SCORE", "PROFILE");
	for (size_t i = 0; i < d->n; i++) {
		const struct osp_diff_entry *e = &d->e[i];
		if (!all &&
		    (e->verdict == OSP_VERDICT_SIMILAR || e->verdict == OSP_VERDICT_INSIGNIFICANT))
			continue;
		char label[256], score[16] = "-";
		const struct osp_profile *p = e->a ? e->a : e->b;
		if (e->a && e->b)
			snprintf(score, sizeof(score), "%.0f", e->score);
		printf("%4zu  %-13s %6s  %s\n", i + 1, osp_verdict_name(e->verdict), score,
		       osp_profile_label(p, label, sizeof(label)));
		printf("      reason: %s\n", e->reason);
		if (e->a && e->b && e->verdict != OSP_VERDICT_INSIGNIFICANT) {
			printf("      scores:");
			for (unsigned m = 0; m < OSP_METRIC_COUNT; m++) {
				printf(" %s %.0f", osp_metric_name((enum osp_metric)m),
				       e->scores.score[m]);
				if (m == OSP_METRIC_CHISQUARE)
					printf(" (p=%.2g)", e->scores.chi2_p);
			}
			printf("\n");
		}
	}
}

/* The sets named, merged with each file's host as a host dimension. */
static struct osp_set *load_fleet(int n, char **files)
{
	struct osp_set *fleet = NULL;
	char err[512];
	for (int i = 0; i < n; i++) {
		struct osp_set *s = osp_cli_load(files[i]);
		if (!s || n == 1) {
			if (!s)
				osp_set_free(fleet);
			return s;
		}
		int bad = 0;
		if (!fleet && !(fleet = osp_set_new(s->r)))
			bad = 1;
		else if (fleet->n && fleet->r != s->r)
			bad = osp_usage_err("diff", "%s: r=%u, %s has r=%u", files[i], s->r,
			                    files[0], fleet->r);
		else if (osp_set_merge_dim(fleet, s, "host", osp_get_meta(s, "host"), err,
		                           sizeof(err)))
			bad = osp_usage_err("diff", "%s: %s", files[i], err);
		osp_set_free(s);
		if (bad) {
			osp_set_free(fleet);
			return NULL;
		}
	}
	return fleet;
}

static int diff_hosts(int n, char **files, const struct osp_diff_opts *o, int json,
                      const char **drop, unsigned ndrop)
{
	if (n < 1)
		return osp_usage_err("diff", "--by host: expected a SET (or several)");
	struct osp_set *s = load_fleet(n, files);
	if (!s)
		return OSP_EXIT_USAGE;
	if (ndrop && replace(&s, osp_set_drop_dims(s, drop, ndrop))) {
		osp_err("diff: out of memory");
		osp_set_free(s);
		return OSP_EXIT_FAIL;
	}
	struct osp_host_ranking hr;
	char err[256];
	int rc = osp_diff_hosts(s, o, &hr, err, sizeof(err));
	osp_set_free(s);
	if (rc == -EINVAL)
		return osp_usage_err("diff", "%s: %s", files[0], err);
	if (rc) {
		osp_err("diff: out of memory");
		return OSP_EXIT_FAIL;
	}
	if (!json) {
		size_t unlike = 0;
		for (size_t i = 0; i < hr.n; i++)
			unlike += hr.hosts[i].score > 0;
		printf("osprof diff --by host: %zu hosts, each against the mean of the others; "
		       "metric %s\n%zu not like the others",
		       hr.n, osp_metric_name(o->metric), unlike);
		if (hr.nohost)
			printf(" (%zu profiles without a host dimension left out)", hr.nohost);
		printf("\n\n%4s  %-20s %6s %6s %5s  %s\n", "RANK", "HOST", "SCORE", "DIFFER",
		       "ONLY", "FIRST DIFFERENCE");
	}
	for (size_t i = 0; i < hr.n; i++) {
		const struct osp_host_rank *h = &hr.hosts[i];
		if (json) {
			printf("{\"rank\":%zu,\"host\":\"", i + 1);
			osp_json_string(stdout, h->host);
			printf("\",\"score\":%.3f,\"differ\":%zu,\"only\":%zu,\"count\":%" PRIu64
			       ",\"first\":\"",
			       h->score, h->ndiffer, h->nonly, h->count);
			osp_json_string(stdout, h->top);
			puts("\"}");
		} else {
			printf("%4zu  %-20s %6.1f %6zu %5zu  %s\n", i + 1, h->host, h->score,
			       h->ndiffer, h->nonly, h->top[0] ? h->top : "-");
		}
	}
	osp_host_ranking_free(&hr);
	return fflush(stdout) ? OSP_EXIT_FAIL : OSP_EXIT_OK;
}

int cmd_diff(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"metric", required_argument, 0, 'm'},
	    {"threshold", required_argument, 0, 't'},
	    {"min-share", required_argument, 0, OPT_MIN_SHARE},
	    {"min-ops-share", required_argument, 0, OPT_MIN_OPS},
	    {"min-count", required_argument, 0, OPT_MIN_COUNT},
	    {"near-equal", required_argument, 0, OPT_NEAR},
	    {"drop-dim", required_argument, 0, OPT_DROP},
	    {"all", no_argument, 0, 'a'},
	    {"json", no_argument, 0, OPT_JSON},
	    {"by", required_argument, 0, OPT_BY},
	    {"help", no_argument, 0, 'h'},
	    {0, 0, 0, 0},
	};
	struct osp_diff_opts o;
	int c, json = 0, all = 0, by_host = 0;
	char *end;
	const char *drop[MAX_DROP];
	unsigned ndrop = 0;
	osp_diff_opts_default(&o);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":m:t:ah", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (osp_metric_parse(optarg, &o.metric))
				return osp_usage_err(
				    "diff",
				    "--metric: '%s' is not one of EMD, TOTOPS, TOTLAT, "
				    "CHISQUARE, GROUPOPS, GROUPLAT, INTERSECT, JEFFREY",
				    optarg);
			break;
		case 't':
			o.threshold = strtod(optarg, &end);
			if (*end || end == optarg || o.threshold < 0 || o.threshold > 100)
				return osp_usage_err(
				    "diff", "--threshold: '%s' is not a score in 0..100", optarg);
			break;
		case OPT_MIN_SHARE:
			if (pct_arg("--min-share", optarg, &o.min_share_lat))
				return OSP_EXIT_USAGE;
			break;
		case OPT_MIN_OPS:
			if (pct_arg("--min-ops-share", optarg, &o.min_share_ops))
				return OSP_EXIT_USAGE;
			break;
		case OPT_NEAR:
			if (pct_arg("--near-equal", optarg, &o.cmp.near_equal))
				return OSP_EXIT_USAGE;
			break;
		case OPT_MIN_COUNT:
			o.min_count = strtoull(optarg, &end, 10);
			if (*end || !*optarg || *optarg == '-')
				return osp_usage_err("diff", "--min-count: '%s' is not a count",
				                     optarg);
			break;
		case OPT_DROP:
			if (parse_dims(optarg, drop, &ndrop))
				return OSP_EXIT_USAGE;
			break;
		case 'a':
			all = 1;
			break;
		case OPT_BY:
			if (strcmp(optarg, "host"))
				return osp_usage_err("diff", "--by: '%s': only 'host' is supported",
				                     optarg);
			by_host = 1;
			break;
		case OPT_JSON:
			json = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			printf("Default thresholds:");
			for (unsigned m = 0; m < OSP_METRIC_COUNT; m++)
				printf(" %s %g", osp_metric_name((enum osp_metric)m),
				       osp_metric_default_threshold((enum osp_metric)m));
			printf("\n");
			return OSP_EXIT_OK;
		case ':':
			return osp_usage_err("diff", "%s needs an argument", argv[optind - 1]);
		default:
			return osp_usage_err("diff", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (by_host)
		return diff_hosts(argc - optind, argv + optind, &o, json, ndrop ? drop : NULL,
		                  ndrop);
	if (optind != argc - 2)
		return osp_usage_err("diff", "expected two files A and B");
	const char *fa = argv[optind], *fb = argv[optind + 1];
	if (!strcmp(fa, "-") && !strcmp(fb, "-"))
		return osp_usage_err("diff", "only one of A and B can be '-'");
	struct osp_set *a = osp_cli_load(fa), *b = a ? osp_cli_load(fb) : NULL;
	if (!a || !b) {
		osp_set_free(a);
		return OSP_EXIT_USAGE;
	}
	if (a->r != b->r) {
		int a_finer = a->r > b->r;
		unsigned r = a_finer ? b->r : a->r;
		fprintf(stderr, "osprof diff: note: %s rebinned from r=%u to r=%u to match %s\n",
		        a_finer ? fa : fb, a_finer ? a->r : b->r, r, a_finer ? fb : fa);
		if (replace(a_finer ? &a : &b, osp_set_coarsen(a_finer ? a : b, r))) {
			osp_err("diff: out of memory");
			osp_set_free(a);
			osp_set_free(b);
			return OSP_EXIT_FAIL;
		}
	}
	if (ndrop && (replace(&a, osp_set_drop_dims(a, drop, ndrop)) ||
	              replace(&b, osp_set_drop_dims(b, drop, ndrop)))) {
		osp_err("diff: out of memory");
		osp_set_free(a);
		osp_set_free(b);
		return OSP_EXIT_FAIL;
	}
	struct osp_diff d;
	char err[256];
	int rc = osp_diff_sets(a, b, &o, &d, err, sizeof(err));
	if (rc == -EINVAL) {
		osp_err("diff: %s vs %s: %s", fa, fb, err);
		rc = OSP_EXIT_USAGE;
	} else if (rc) {
		osp_err("diff: out of memory");
		rc = OSP_EXIT_FAIL;
	} else {
		double thr =
		    o.threshold >= 0 ? o.threshold : osp_metric_default_threshold(o.metric);
		if (json)
			print_json(&d, &o);
		else
			print_text(&d, &o, thr, fa, fb, all);
		osp_diff_free(&d);
		rc = fflush(stdout) ? OSP_EXIT_FAIL : OSP_EXIT_OK;
	}
	osp_set_free(a);
	osp_set_free(b);
	return rc;
}
