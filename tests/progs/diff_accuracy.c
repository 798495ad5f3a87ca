/* Accuracy of the diff metrics on a labelled corpus (tests/data/corpus):
 * false-positive and false-negative rates of every metric at its default
 * threshold, alone and inside the three-phase selection of `osprof diff`.
 *
 *   diff_accuracy DIR [--sweep METRIC]
 * prints one row per metric; --sweep prints the error rates of METRIC over
 * thresholds 0..100 (how the defaults were chosen, docs/analysis.md).
 * Exit status 0; 2 on bad usage or unreadable corpus. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <osprof/analysis.h>

struct pair {
	struct osp_set *a, *b;
	char layer[160], op[160], fa[256], fb[256];
	int differs; /* label */
	double score[OSP_METRIC_COUNT];
	int pipeline[OSP_METRIC_COUNT]; /* verdict differs per metric */
};

static struct osp_set *load(const char *dir, const char *name)
{
	char path[4096], err[512];
	struct osp_set *s = NULL;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (osp_set_load(path, &s, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return NULL;
	}
	return s;
}

static int pipeline_differs(const struct pair *p, enum osp_metric m, double thr)
{
	struct osp_diff_opts o;
	struct osp_diff d;
	char err[256];
	osp_diff_opts_default(&o);
	o.metric = m;
	o.threshold = thr;
	if (osp_diff_sets(p->a, p->b, &o, &d, err, sizeof(err)))
		return -1;
	int v = 0;
	for (size_t i = 0; i < d.n; i++) {
		const struct osp_profile *q = d.e[i].a ? d.e[i].a : d.e[i].b;
		if (!strcmp(q->layer, p->layer) && !strcmp(q->op, p->op))
			v = d.e[i].verdict == OSP_VERDICT_DIFFERS;
	}
	osp_diff_free(&d);
	return v;
}

static void rates(const struct pair *v, size_t n, enum osp_metric m, double thr, int pipeline,
                  double *fp, double *fn, double *err)
{
	size_t same = 0, diff = 0, nfp = 0, nfn = 0;
	for (size_t i = 0; i < n; i++) {
		int says = pipeline ? v[i].pipeline[m] : v[i].score[m] >= thr;
		if (v[i].differs) {
			diff++;
			nfn += !says;
		} else {
			same++;
			nfp += says;
		}
	}
	*fp = same ? 100.0 * (double)nfp / (double)same : 0;
	*fn = diff ? 100.0 * (double)nfn / (double)diff : 0;
	*err = n ? 100.0 * (double)(nfp + nfn) / (double)n : 0;
}

int main(int argc, char **argv)
{
	if (argc != 2 && !(argc == 4 && !strcmp(argv[2], "--sweep"))) {
		fprintf(stderr, "usage: diff_accuracy DIR [--sweep METRIC]\n");
		return 2;
	}
	const char *dir = argv[1];
	enum osp_metric sweep = OSP_METRIC_COUNT;
	if (argc == 4 && osp_metric_parse(argv[3], &sweep)) {
		fprintf(stderr, "diff_accuracy: unknown metric '%s'\n", argv[3]);
		return 2;
	}
	char path[4096], line[1024];
	snprintf(path, sizeof(path), "%s/labels", dir);
	FILE *f = fopen(path, "r");
	if (!f) {
		perror(path);
		return 2;
	}
	struct pair *v = NULL;
	size_t n = 0, cap = 0;
	while (fgets(line, sizeof(line), f)) {
		char fa[256], fb[256], prof[160], label[16];
		if (line[0] == '#' ||
		    sscanf(line, "%255s %255s %159s %15s", fa, fb, prof, label) != 4)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			v = realloc(v, cap * sizeof(*v));
			if (!v)
				return 1;
		}
		struct pair *p = &v[n];
		memset(p, 0, sizeof(*p));
		char *colon = strchr(prof, ':');
		if (!colon)
			continue;
		*colon = '\0';
		snprintf(p->layer, sizeof(p->layer), "%s", prof);
		snprintf(p->op, sizeof(p->op), "%s", colon + 1);
		p->differs = !strcmp(label, "differs");
		snprintf(p->fa, sizeof(p->fa), "%s", fa);
		snprintf(p->fb, sizeof(p->fb), "%s", fb);
		p->a = load(dir, fa);
		p->b = load(dir, fb);
		if (!p->a || !p->b)
			return 2;
		const struct osp_profile *pa = osp_set_find(p->a, p->layer, p->op, NULL, 0);
		const struct osp_profile *pb = osp_set_find(p->b, p->layer, p->op, NULL, 0);
		if (!pa || !pb) {
			fprintf(stderr, "%s: %s:%s missing in %s or %s\n", path, p->layer, p->op,
			        fa, fb);
			return 2;
		}
		struct osp_scores sc;
		osp_compare_hists(&pa->hist, &pb->hist, NULL, &sc);
		memcpy(p->score, sc.score, sizeof(p->score));
		for (unsigned m = 0; m < OSP_METRIC_COUNT; m++)
			p->pipeline[m] = pipeline_differs(p, (enum osp_metric)m, -1);
		n++;
	}
	fclose(f);
	size_t ndiff = 0;
	for (size_t i = 0; i < n; i++)
		ndiff += v[i].differs;
	if (sweep != OSP_METRIC_COUNT) {
		printf("%-10s %9s | %6s %6s %6s | %6s %6s %6s\n", "METRIC", "THRESHOLD", "FP%",
		       "FN%", "ERR%", "FP%", "FN%", "ERR%");
		printf("%-10s %9s | %20s | %20s\n", "", "", "metric alone", "3-phase selection");
		for (int t = 0; t <= 100; t += 2) {
			double fp, fn, err, pfp, pfn, perr;
			rates(v, n, sweep, t, 0, &fp, &fn, &err);
			for (size_t i = 0; i < n; i++)
				v[i].pipeline[sweep] = pipeline_differs(&v[i], sweep, t);
			rates(v, n, sweep, t, 1, &pfp, &pfn, &perr);
			printf("%-10s %9d | %6.1f %6.1f %6.1f | %6.1f %6.1f %6.1f\n",
			       osp_metric_name(sweep), t, fp, fn, err, pfp, pfn, perr);
		}
		return 0;
	}
	printf("corpus %s: %zu labelled pairs (%zu differ, %zu same)\n", dir, n, ndiff, n - ndiff);
	printf("%-10s %9s | %6s %6s %6s | %6s %6s %6s\n", "METRIC", "THRESHOLD", "FP%", "FN%",
	       "ERR%", "FP%", "FN%", "ERR%");
	printf("%-10s %9s | %20s | %20s\n", "", "", "metric alone", "3-phase selection");
	for (unsigned m = 0; m < OSP_METRIC_COUNT; m++) {
		double thr = osp_metric_default_threshold((enum osp_metric)m);
		double fp, fn, err, pfp, pfn, perr;
		rates(v, n, (enum osp_metric)m, thr, 0, &fp, &fn, &err);
		rates(v, n, (enum osp_metric)m, thr, 1, &pfp, &pfn, &perr);
		printf("%-10s %9g | %6.1f %6.1f %6.1f | %6.1f %6.1f %6.1f\n",
		       osp_metric_name((enum osp_metric)m), thr, fp, fn, err, pfp, pfn, perr);
	}
	/* The misclassified pairs of the default pipeline, to look at. */
	if (getenv("DIFF_ACCURACY_VERBOSE"))
		for (size_t i = 0; i < n; i++)
			if (v[i].pipeline[OSP_METRIC_EMD] != v[i].differs)
				printf("  %s: %s %s %s:%s (EMD %.0f)\n", v[i].differs ? "FN" : "FP",
				       v[i].fa, v[i].fb, v[i].layer, v[i].op,
				       v[i].score[OSP_METRIC_EMD]);
	for (size_t i = 0; i < n; i++) {
		osp_set_free(v[i].a);
		osp_set_free(v[i].b);
	}
	free(v);
	return 0;
}
