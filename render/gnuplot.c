/* gnuplot scripts with their data inline (datablocks), so one file both
 * documents and reproduces a plot: the same panels as render/svg.c in a
 * multiplot, heat maps as boxxyerror cells coloured by a log palette. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <osprof/render.h>
#include "render/vmodel.h"

#define ROW_H 260
/* Label geometry of the pngcairo terminal at 900 px: plot area width
 * (without the 10- and 14-character margins), character width (generous:
 * the default font is ~9.5 px), height of one lane of labels as a fraction
 * of the ~145 px plot area of a panel. */
#define GP_PLOT_W 660.0
#define GP_CHAR_W 10.0
#define GP_LANE_H 0.11

/* gnuplot single-quoted string: only the quote itself needs doubling. */
static void gp_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	}
	fputc('\'', f);
}

static void xtics(FILE *f, const struct osp_set *s, enum osp_unit u, int blo, int bhi)
{
	char lb[32];
	int n = 0;
	fprintf(f, "set xtics (");
	if (blo < 1)
		fprintf(f, "\"0\" 0.5"), n++;
	double step = u == OSP_UNIT_BYTES ? 1024 : 10;
	for (double v = 1; v < 1e20; v *= step) {
		double b = osp_vm_xpos(v, s->r);
		if (b < blo || b > bhi + 1)
			continue;
		fprintf(f, "%s\"%s\" %.3f", n++ ? ", " : "", osp_render_value(v, u, lb, sizeof(lb)),
		        b);
	}
	fprintf(f, ")\n");
}

static void datablock(FILE *f, long i, const struct osp_profile *p, const struct osp_profile *pb)
{
	const struct osp_hist *h = &p->hist;
	fprintf(f, "$p%ld << EOD\n# bucket lo_ns count_a count_b latency_a\n", i);
	for (unsigned k = 0; k < h->nbuckets; k++) {
		uint64_t cb = pb ? pb->hist.buckets[k] : 0;
		if (!h->buckets[k] && !cb)
			continue;
		fprintf(f, "%u %llu %llu %llu %.6g\n", k,
		        (unsigned long long)osp_bucket_lo(k, h->r),
		        (unsigned long long)h->buckets[k], (unsigned long long)cb,
		        (double)h->buckets[k] * osp_bucket_mid(k, h->r));
	}
	fprintf(f, "EOD\n");
	if (p->nslices) {
		fprintf(f, "$h%ld << EOD\n# bucket slice count\n", i);
		for (size_t j = 0; j < p->nslices; j++)
			for (unsigned k = 0; k < h->nbuckets; k++)
				if (p->slices[j].buckets[k])
					fprintf(f, "%u %llu %llu\n", k,
					        (unsigned long long)p->slices[j].index,
					        (unsigned long long)p->slices[j].buckets[k]);
		fprintf(f, "EOD\n");
	}
}

static void panel(FILE *f, const struct osp_set *s, long i, const struct osp_profile *p,
                  const struct osp_profile *pb, const struct osp_plot_opts *o,
                  const struct osp_vm_totals *tot, int blo, int bhi)
{
	struct osp_vm_stats st;
	struct osp_vm_note nt[OSP_VM_MAX_NOTES];
	char label[512], t1[32], t2[32], t3[32], title[700];
	osp_vm_stats(p, tot, &st);
	unsigned nn = osp_vm_notes(s, p, nt, OSP_VM_MAX_NOTES);
	osp_profile_label(p, label, sizeof(label));
	if (st.count)
		snprintf(title, sizeof(title),
		         "%s: %llu ops, total %s (%.1f%% of %s), p50 %s, p99 %s", label,
		         (unsigned long long)st.count,
		         osp_render_value((double)st.total, p->unit, t1, 32), 100 * st.share,
		         p->layer, osp_render_value((double)st.p50, p->unit, t2, 32),
		         osp_render_value((double)st.p99, p->unit, t3, 32));
	else if (pb && pb->hist.count)
		snprintf(title, sizeof(title), "%s: only in B, %llu ops", label,
		         (unsigned long long)pb->hist.count);
	else
		snprintf(title, sizeof(title), "%s: no samples", label);
	fprintf(f, "\n# --- %s\nunset object; unset label; unset arrow\n", label);
	fprintf(f, "set title ");
	gp_str(f, title);
	fprintf(f, " noenhanced\nset xrange [%d:%d]\nset yrange [0.5:*]\nset logscale y\n", blo,
	        bhi + 1);
	fprintf(f, "set autoscale ymax\n");
	fprintf(f, "set ylabel 'count (log)'\nset xlabel '%s (log2 buckets, r=%u)'\n",
	        p->unit == OSP_UNIT_NS ? "latency" : osp_unit_name(p->unit), s->r);
	xtics(f, s, p->unit, blo, bhi);
	/* Peak labels stack in lanes from the top (osp_vm_lanes), placed in
	 * pixels: the plot area is about GP_PLOT_W px across. */
	char ptext[OSP_VM_MAX_PEAKS][48];
	double plo[OSP_VM_MAX_PEAKS] = {0}, phi[OSP_VM_MAX_PEAKS] = {0};
	unsigned plane[OSP_VM_MAX_PEAKS] = {0}, nlanes = 0;
	unsigned np = st.npeaks < OSP_VM_MAX_PEAKS ? st.npeaks : OSP_VM_MAX_PEAKS;
	double px_per_bucket = GP_PLOT_W / (double)(bhi + 1 - blo);
	for (unsigned k = 0; k < np; k++) {
		const struct osp_vm_peak *pk = &st.peaks[k];
		snprintf(ptext[k], sizeof(ptext[k]), "P%u %s %.0f%%", k + 1,
		         osp_render_value(pk->mean, p->unit, t1, 32), 100 * pk->share_ops);
		double c = ((pk->lo + pk->hi + 1) / 2.0 - blo) * px_per_bucket;
		double w = (double)strlen(ptext[k]) * GP_CHAR_W;
		plo[k] = c - w / 2;
		phi[k] = c + w / 2;
	}
	nlanes = osp_vm_lanes(plo, phi, np, plane);
	for (unsigned k = 0; k < np; k++) {
		const struct osp_vm_peak *pk = &st.peaks[k];
		fprintf(f,
		        "set object %u rect from %u, graph 0 to %u, graph 1 fc rgb '#f4d35e' "
		        "fs solid 0.3 noborder behind\n",
		        k + 1, pk->lo, pk->hi + 1);
		fprintf(f, "set label %u '%s' at %.2f, graph %.2f center\n", k + 1, ptext[k],
		        (pk->lo + pk->hi + 1) / 2.0, 0.95 - GP_LANE_H * plane[k]);
	}
	/* The key (A/B, latency) goes under the last lane of peak labels, never
	 * over one; the headroom above the bars holds both. */
	fprintf(f, "set key at graph 0.99, graph %.2f right top\n",
	        0.95 - GP_LANE_H * nlanes + GP_LANE_H / 2);
	fprintf(f, "set offsets 0, 0, graph %.2f, 0\n", 0.25 + GP_LANE_H * (nlanes + 1));
	for (unsigned k = 0; k < nn; k++) {
		double b = osp_vm_xpos(nt[k].value, s->r);
		fprintf(f, "set arrow %u from %.3f, graph 0 to %.3f, graph 1 nohead dt 2\n", k + 1,
		        b, b);
		fprintf(f, "set label %u ", 20 + k);
		gp_str(f, nt[k].label);
		fprintf(f, " at %.3f, graph %.2f left noenhanced\n", b, 0.1 + 0.08 * k);
	}
	if (o->total_axis)
		fprintf(f, "set y2tics\nset logscale y2\nset y2label 'latency per bucket (ns)'\n");
	else
		fprintf(f, "unset y2tics\nunset y2label\n");
	if (!st.count && !(pb && pb->hist.count)) {
		/* Nothing to draw: an empty frame with a message keeps the stack aligned. */
		fprintf(f,
		        "set label 40 'no samples' at graph 0.5, graph 0.5 center\n"
		        "plot [%d:%d] [1:10] NaN notitle\n",
		        blo, bhi + 1);
		return;
	}
	fprintf(f,
	        "plot $p%ld using ($1+0.5):3:(1.0) with boxes fs solid 0.8 lc rgb '#3b6fb6' "
	        "title %s",
	        i, pb ? "'A'" : "''");
	if (pb)
		fprintf(f,
		        ", $p%ld using ($1+0.5):4:(1.0) with boxes fs empty lw 2 lc rgb "
		        "'#e07b00' title 'B'",
		        i);
	if (o->total_axis)
		fprintf(f,
		        ", $p%ld using ($1+0.5):5 axes x1y2 with linespoints lc rgb '#b0306a' "
		        "title 'latency'",
		        i);
	fprintf(f, "\n");
	if (o->heatmap >= 0 && p->nslices) {
		fprintf(f,
		        "unset object; unset label; unset arrow; unset y2tics; unset y2label\n"
		        "set offsets 0, 0, 0, 0\n"
		        "set title 'time slices (%s each), colour: count' noenhanced\n"
		        "unset logscale y\nset yrange [*:*] reverse\nset ylabel 'time (s)'\n"
		        "set logscale cb\nset palette defined (0 '#440154', 1 '#3b528b', 2 "
		        "'#21918c', 3 '#5ec962', 4 '#fde725')\n",
		        osp_render_value((double)s->slice_ns, OSP_UNIT_NS, t1, 32));
		fprintf(f,
		        "plot $h%ld using ($1+0.5):($2*%.9g+%.9g):(0.5):(%.9g):3 with "
		        "boxxyerror fs solid lc palette notitle\nset yrange [*:*] noreverse\n",
		        i, (double)s->slice_ns / 1e9, (double)s->slice_ns / 2e9,
		        (double)s->slice_ns / 2e9);
	}
}

int osp_render_gnuplot(FILE *f, const struct osp_set *a, const struct osp_plot_opts *o,
                       const char *term, const char *output, char *err, size_t errlen)
{
	const struct osp_profile **v = NULL;
	struct osp_set *extra = NULL;
	long n = osp_vm_select_plot(a, o, &v, &extra, err, errlen);
	if (n < 0)
		return -1;
	int blo, bhi;
	osp_vm_plot_range(a, o->b, v, n, &blo, &bhi);
	long rows = 0;
	for (long i = 0; i < n; i++)
		rows += 1 + (o->heatmap >= 0 && v[i]->nslices ? 1 : 0);
	fprintf(f, "# osprof plot: gnuplot script, data inline. Run: gnuplot -p FILE\n");
	if (term)
		fprintf(f, "set terminal %s size 900,%ld\n", term, (rows ? rows : 1) * ROW_H);
	else
		fprintf(f, "# set terminal pngcairo size 900,%ld\n", (rows ? rows : 1) * ROW_H);
	if (output) {
		fprintf(f, "set output ");
		gp_str(f, output);
		fprintf(f, "\n");
	}
	fprintf(f, "set encoding utf8\nset grid xtics ytics lc rgb '#dddddd'\nset boxwidth 0.9 "
	           "relative\n"
	           "set lmargin 10\nset rmargin 14\n");
	if (n == 0) {
		fprintf(f, "set label 'no profiles in this set' at graph 0.5, graph 0.5 center\n"
		           "plot [0:1] [0:1] NaN notitle\n");
		return osp_vm_plot_done(f, v, extra, err, errlen);
	}
	for (long i = 0; i < n; i++)
		datablock(f, i, v[i], osp_vm_twin(o->b, v[i]));
	fprintf(f, "set multiplot layout %ld,1\n", rows);
	struct osp_vm_totals tot;
	osp_vm_totals(a, &tot);
	for (long i = 0; i < n; i++)
		panel(f, a, i, v[i], osp_vm_twin(o->b, v[i]), o, &tot, blo, bhi);
	fprintf(f, "unset multiplot\n");
	return osp_vm_plot_done(f, v, extra, err, errlen);
}
