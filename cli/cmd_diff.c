/* osprof diff: automated comparison of two profile sets (seed 001 §3.2). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/options.h"
#include <osprof/analysis.h>
#include <osprof/render.h>

static const char usage_head[] =
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
    "Options:\n";

static const char usage_tail[] =
    "\n"
    "Sets at different resolutions are compared at the coarser one (exact: the\n"
    "buckets nest); a note on stderr says so.\n"
    "Every change must also be beyond chance for the sample sizes (counts and\n"
    "peak populations z >= 3.29, shapes KS >= 1.95: p < 0.001), so a few calls or\n"
    "one outlier never differ alone; a peak whose population change makes half of\n"
    "a >= 25 % total-latency change differs in phase 2 (peak-growth). Each verdict\n"
    "names the phase, the test and its threshold.\n"
    "Exit status: 0 when compared (whatever the verdicts), 2 on bad usage or input.\n";

#define MAX_DROP 8

/* What the command line asks of a diff, beyond osp_diff_opts. */
struct diff_args {
	struct osp_diff_opts o;
	int json, all;
	const char *by;
	const char *drop[MAX_DROP];
	unsigned ndrop;
};

static int add_dim(const char *tok, void *ctx)
{
	struct diff_args *d = ctx;
	if (d->ndrop == MAX_DROP ||
	    strspn(tok, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(tok))
		return osp_usage_err("diff",
		                     "--drop-dim: '%s' is not a dimension name "
		                     "([a-z0-9_]+, at most %d)",
		                     tok, MAX_DROP);
	d->drop[d->ndrop++] = tok;
	return 0;
}

/* --drop-dim LIST: split in place (argv's own storage), so the names live
 * as long as the command. */
static int parse_dims(const char *cmd, const char *flag, const char *arg, void *ctx)
{
	char *save, *tok;
	(void)cmd;
	(void)flag;
	for (tok = strtok_r((char *)arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (add_dim(tok, ctx))
			return OSP_EXIT_USAGE;
	return 0;
}

static int parse_metric(const char *cmd, const char *flag, const char *arg, void *m)
{
	if (osp_metric_parse(arg, m))
		return osp_usage_err(cmd,
		                     "%s: '%s' is not one of EMD, TOTOPS, TOTLAT, CHISQUARE, "
		                     "GROUPOPS, GROUPLAT, INTERSECT, JEFFREY",
		                     flag, arg);
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

/* The scores of a compared pair. */
static void json_pair(struct osp_json *j, const struct osp_diff_entry *e)
{
	osp_json_ku64(j, "phase", (uint64_t)e->phase);
	osp_json_kdbl(j, "score", "%.3f", e->score);
	osp_json_kobj(j, "scores");
	for (unsigned m = 0; m < OSP_METRIC_COUNT; m++)
		osp_json_kdbl(j, osp_metric_name((enum osp_metric)m), "%.3f", e->scores.score[m]);
	osp_json_kdbl(j, "CHISQUARE_P", "%.6g", e->scores.chi2_p);
	osp_json_kdbl(j, "EMD_BUCKETS", "%.4f", e->scores.emd);
	osp_json_obj_end(j);
	osp_json_ku64(j, "count_a", e->a->hist.count);
	osp_json_ku64(j, "count_b", e->b->hist.count);
	osp_json_ku64(j, "total_a", e->a->hist.total);
	osp_json_ku64(j, "total_b", e->b->hist.total);
	osp_json_kstr(j, "decided_by", e->decided_by ? e->decided_by : "");
	osp_json_kdbl(j, "decided_value", "%.4g", e->decided_value);
	osp_json_kdbl(j, "decided_threshold", "%.4g", e->decided_threshold);
}

static void print_json(const struct osp_diff *d, const struct osp_diff_opts *o)
{
	struct osp_json j;
	osp_json_init(&j, stdout);
	for (size_t i = 0; i < d->n; i++) {
		const struct osp_diff_entry *e = &d->e[i];
		const struct osp_profile *p = e->a ? e->a : e->b;
		osp_json_obj(&j);
		osp_json_ku64(&j, "rank", i + 1);
		osp_json_profile_key(&j, p);
		osp_json_kstr(&j, "verdict", osp_verdict_name(e->verdict));
		osp_json_kstr(&j, "metric", osp_metric_name(o->metric));
		if (e->a && e->b) {
			json_pair(&j, e);
		} else {
			osp_json_kobj(&j, "scores");
			osp_json_obj_end(&j);
			osp_json_ku64(&j, e->a ? "count_a" : "count_b", p->hist.count);
		}
		osp_json_kdbl(&j, "share", "%.6f", e->share);
		osp_json_kstr(&j, "reason", e->reason);
		osp_json_obj_end(&j);
		osp_json_line(&j);
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
	struct osp_json j;
	osp_json_init(&j, stdout);
	for (size_t i = 0; i < hr.n; i++) {
		const struct osp_host_rank *h = &hr.hosts[i];
		if (json) {
			osp_json_obj(&j);
			osp_json_ku64(&j, "rank", i + 1);
			osp_json_kstr(&j, "host", h->host);
			osp_json_kdbl(&j, "score", "%.3f", h->score);
			osp_json_ku64(&j, "differ", h->ndiffer);
			osp_json_ku64(&j, "only", h->nonly);
			osp_json_ku64(&j, "count", h->count);
			osp_json_kstr(&j, "first", h->top);
			osp_json_obj_end(&j);
			osp_json_line(&j);
		} else {
			printf("%4zu  %-20s %6.1f %6zu %5zu  %s\n", i + 1, h->host, h->score,
			       h->ndiffer, h->nonly, h->top[0] ? h->top : "-");
		}
	}
	osp_host_ranking_free(&hr);
	return fflush(stdout) ? OSP_EXIT_FAIL : OSP_EXIT_OK;
}

/* A against B: the ranked profiles that differ. */
static int diff_two(const char *fa, const char *fb, const struct diff_args *d)
{
	if (!strcmp(fa, "-") && !strcmp(fb, "-"))
		return osp_usage_err("diff", "only one of A and B can be '-'");
	struct osp_set *a = osp_cli_load(fa), *b = a ? osp_cli_load(fb) : NULL;
	if (!a || !b) {
		osp_set_free(a);
		return OSP_EXIT_USAGE;
	}
	int rc = OSP_EXIT_FAIL;
	if (a->r != b->r) {
		int a_finer = a->r > b->r;
		unsigned r = a_finer ? b->r : a->r;
		fprintf(stderr, "osprof diff: note: %s rebinned from r=%u to r=%u to match %s\n",
		        a_finer ? fa : fb, a_finer ? a->r : b->r, r, a_finer ? fb : fa);
		if (replace(a_finer ? &a : &b, osp_set_coarsen(a_finer ? a : b, r)))
			goto oom;
	}
	if (d->ndrop && (replace(&a, osp_set_drop_dims(a, d->drop, d->ndrop)) ||
	                 replace(&b, osp_set_drop_dims(b, d->drop, d->ndrop))))
		goto oom;
	struct osp_diff res;
	char err[256];
	rc = osp_diff_sets(a, b, &d->o, &res, err, sizeof(err));
	if (rc == -EINVAL) {
		osp_err("diff: %s vs %s: %s", fa, fb, err);
		rc = OSP_EXIT_USAGE;
	} else if (rc) {
		goto oom;
	} else {
		double thr = d->o.threshold >= 0 ? d->o.threshold
		                                 : osp_metric_default_threshold(d->o.metric);
		if (d->json)
			print_json(&res, &d->o);
		else
			print_text(&res, &d->o, thr, fa, fb, d->all);
		osp_diff_free(&res);
		rc = fflush(stdout) ? OSP_EXIT_FAIL : OSP_EXIT_OK;
	}
	osp_set_free(a);
	osp_set_free(b);
	return rc;
oom:
	osp_err("diff: out of memory");
	osp_set_free(a);
	osp_set_free(b);
	return OSP_EXIT_FAIL;
}

static const char *const by_choices[] = {"host", NULL};

static const struct osp_opts_spec spec = {.cmd = "diff", .head = usage_head, .tail = usage_tail};

int cmd_diff(int argc, char **argv)
{
	struct diff_args d = {.json = 0};
	osp_diff_opts_default(&d.o);
	struct osp_option opts[] = {
	    OSP_OPT_CALL('m', "metric", &d.o.metric, parse_metric, "M",
	                 "metric deciding phase 3 (default EMD)"),
	    OSP_OPT_DOUBLE('t', "threshold", &d.o.threshold, 0, 100, "a score in 0..100", "T",
	                   "phase-3 score at or above which a pair differs\n"
	                   "(default: the metric's; listed below)"),
	    OSP_OPT_PERCENT(0, "min-share", &d.o.min_share_lat, "PCT",
	                    "phase 1: insignificant below PCT % of total latency\n"
	                    "(and below --min-ops-share of ops); default 1"),
	    OSP_OPT_PERCENT(0, "min-ops-share", &d.o.min_share_ops, "PCT", "default 1"),
	    OSP_OPT_UINT(0, "min-count", &d.o.min_count, 0, OSP_OPT_NOMAX, "a count", "N",
	                 "insignificant if both sides have fewer ops (10)"),
	    OSP_OPT_PERCENT(0, "near-equal", &d.o.cmp.near_equal, "PCT",
	                    "totals within PCT % are similar (default 5)"),
	    OSP_OPT_CALL(0, "drop-dim", &d, parse_dims, "LIST",
	                 "sum profiles over these dimensions first (e.g. pid:\n"
	                 "pids differ between runs)"),
	    OSP_OPT_FLAG('a', "all", &d.all, "also list similar and insignificant profiles"),
	    OSP_OPT_FLAG(0, "json", &d.json,
	                 "NDJSON: one object per compared profile in rank\n"
	                 "order: layer, op, dims, verdict (differs, similar,\n"
	                 "insignificant, only_in_a, only_in_b), scores, reason"),
	    OSP_OPT_CHOICE(0, "by", &d.by, by_choices, "host",
	                   "fleet mode: which hosts are not like the others.\n"
	                   "SET is a set merged from many hosts (osprof merge\n"
	                   "keeps each file's host as a host dimension), or\n"
	                   "several SETs merged here. Every host is diffed\n"
	                   "against the mean of the other hosts and the hosts\n"
	                   "are ranked by SCORE: the % of their latency in\n"
	                   "profiles that differ (or exist on one side only),\n"
	                   "each at its larger share; 0 = like the others.\n"
	                   "With --json one object per host."),
	    OSP_OPT_END,
	};
	int next, rc = osp_opts_parse(&spec, opts, argc, argv, &next);
	if (rc == OSP_OPTS_HELP) {
		printf("Default thresholds:");
		for (unsigned m = 0; m < OSP_METRIC_COUNT; m++)
			printf(" %s %g", osp_metric_name((enum osp_metric)m),
			       osp_metric_default_threshold((enum osp_metric)m));
		printf("\n");
	}
	if (rc)
		return osp_opts_exit(rc);
	if (d.by)
		return diff_hosts(argc - next, argv + next, &d.o, d.json, d.ndrop ? d.drop : NULL,
		                  d.ndrop);
	if (next != argc - 2)
		return osp_usage_err("diff", "expected two files A and B");
	return diff_two(argv[next], argv[next + 1], &d);
}
