/* SVG plots drawn natively: one panel per profile (log2 buckets on x, log
 * count on y, peaks shaded, optional latency-per-bucket axis and B overlay),
 * stacked by total latency, with a heat map (time x bucket) for sliced
 * profiles as in seed 001 Fig. 9. Elements carry classes and data-*
 * attributes (bar, bar-b, peak, note, cell) so tests and scripts can read
 * the plot back. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <osprof/render.h>
#include "render/vmodel.h"

#define W          760
#define ML         70 /* left margin: count axis */
#define MR         80 /* right margin: latency axis */
#define PLOT_H     170
#define TITLE_H    34
#define AXIS_H     42
#define HEAT_MAX_H 180
#define GAP        14

static const char *const COL_A = "#3b6fb6", *const COL_B = "#e07b00", *const COL_TOT = "#b0306a";

struct frame {
	double x0, y0, w, h; /* plot area in SVG units */
	double blo, bhi;     /* bucket coordinate range shown */
	double ymax;         /* log10 of the top of the count axis */
	unsigned r;
	enum osp_unit unit;
};

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			/* Control bytes are not allowed in XML 1.0. */
			if ((unsigned char)*s >= 0x20 || *s == '\t' || *s == '\n')
				fputc(*s, f);
		}
	}
}

static double fx(const struct frame *fr, double b)
{
	return fr->x0 + (b - fr->blo) / (fr->bhi - fr->blo) * fr->w;
}

/* Count axis: log10, bottom at 0.5 so that a single operation is visible. */
static double fy(const struct frame *fr, double count)
{
	double l = count > 0 ? log10(count) : log10(0.5);
	double lo = log10(0.5);
	return fr->y0 + fr->h - (l - lo) / (fr->ymax - lo) * fr->h;
}

/* Viridis-like ramp, t in [0,1]. */
static void heat_colour(double t, char *buf, size_t len)
{
	static const double stops[5][3] = {
	    {68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
	if (t < 0)
		t = 0;
	if (t > 1)
		t = 1;
	double p = t * 4;
	int i = p >= 4 ? 3 : (int)p;
	double u = p - i;
	snprintf(buf, len, "#%02x%02x%02x",
	         (int)(stops[i][0] + u * (stops[i + 1][0] - stops[i][0])),
	         (int)(stops[i][1] + u * (stops[i + 1][1] - stops[i][1])),
	         (int)(stops[i][2] + u * (stops[i + 1][2] - stops[i][2])));
}

static void x_axis(FILE *f, const struct frame *fr, double ybase)
{
	char lb[32];
	fprintf(f, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
	        fr->x0, ybase, fr->x0 + fr->w, ybase);
	if (fr->blo < 1) {
		fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">0</text>\n", fx(fr, 0.5),
		        ybase + 14);
	}
	/* Decimal ticks (1ns, 10ns, ... or 1B, 10B, ...) at their true place. */
	double step = fr->unit == OSP_UNIT_BYTES ? 1024 : 10;
	double last_x = -1e9;
	for (double v = 1; v < 1e20; v *= step) {
		double b = osp_vm_xpos(v, fr->r);
		if (b < fr->blo || b > fr->bhi)
			continue;
		double x = fx(fr, b);
		fprintf(f,
		        "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		        x, fr->y0, x, ybase + 4);
		if (x - last_x < 38)
			continue; /* too dense at r=1 with a wide range */
		last_x = x;
		fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", x, ybase + 14,
		        osp_render_value(v, fr->unit, lb, sizeof(lb)));
	}
	unsigned ovf = osp_nbuckets(fr->r) - 1;
	if (fr->bhi > ovf)
		fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">ovf</text>\n",
		        fx(fr, ovf + 0.5), ybase + 14);
}

static void count_axis(FILE *f, const struct frame *fr)
{
	fprintf(f, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
	        fr->x0, fr->y0, fr->x0, fr->y0 + fr->h);
	for (int e = 0; e <= (int)fr->ymax; e++) {
		double y = fy(fr, pow(10, e));
		fprintf(f,
		        "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		        fr->x0 - 4, y, fr->x0 + fr->w, y);
		fprintf(f, "<text class=\"ytick\" x=\"%.1f\" y=\"%.1f\">%.0f</text>\n", fr->x0 - 6,
		        y + 4, pow(10, e));
	}
	fprintf(f,
	        "<text class=\"label\" transform=\"translate(%.1f,%.1f) rotate(-90)\">count "
	        "(log)</text>\n",
	        fr->x0 - 48, fr->y0 + fr->h / 2);
}

static void bars(FILE *f, const struct frame *fr, const struct osp_hist *h, const char *cls,
                 int outline)
{
	for (unsigned i = 0; i < h->nbuckets; i++) {
		uint64_t c = h->buckets[i];
		if (!c)
			continue;
		double x = fx(fr, i), w = fx(fr, i + 1) - x, y = fy(fr, (double)c);
		fprintf(f,
		        "<rect class=\"%s\" data-bucket=\"%u\" data-count=\"%llu\" x=\"%.2f\" "
		        "y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"%s/>\n",
		        cls, i, (unsigned long long)c, x + (outline ? 0 : 0.5), y,
		        w > 1.5 && !outline ? w - 1 : w, fr->y0 + fr->h - y,
		        outline ? " fill=\"none\"" : "");
	}
}

/* Latency spent in each bucket (count x bucket middle) on a right log axis. */
static void total_axis(FILE *f, const struct frame *fr, const struct osp_hist *h)
{
	double lo = INFINITY, hi = 0;
	for (unsigned i = 0; i < h->nbuckets; i++)
		if (h->buckets[i]) {
			double t = (double)h->buckets[i] * osp_bucket_mid(i, h->r);
			if (t > 0 && t < lo)
				lo = t;
			if (t > hi)
				hi = t;
		}
	if (hi <= 0)
		return;
	double elo = floor(log10(lo)), ehi = ceil(log10(hi));
	if (ehi <= elo)
		ehi = elo + 1;
	char lb[32];
	double xr = fr->x0 + fr->w;
	fprintf(f, "<g class=\"total-axis\">\n");
	fprintf(f, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", xr,
	        fr->y0, xr, fr->y0 + fr->h);
	for (double e = elo; e <= ehi; e++) {
		double y = fr->y0 + fr->h - (e - elo) / (ehi - elo) * fr->h;
		fprintf(f, "<text class=\"ttick\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", xr + 6, y + 4,
		        osp_render_value(pow(10, e), fr->unit, lb, sizeof(lb)));
	}
	fprintf(f,
	        "<text class=\"label\" transform=\"translate(%.1f,%.1f) rotate(90)\">latency "
	        "per bucket</text>\n",
	        xr + 66, fr->y0 + fr->h / 2);
	fprintf(f, "<path class=\"total\" stroke=\"%s\" d=\"", COL_TOT);
	char cmd = 'M';
	for (unsigned i = 0; i < h->nbuckets; i++) {
		if (!h->buckets[i]) {
			cmd = 'M'; /* no line across empty buckets */
			continue;
		}
		double t = (double)h->buckets[i] * osp_bucket_mid(i, h->r);
		double l = t > 0 ? log10(t) : elo;
		fprintf(f, "%c%.1f %.1f ", cmd, fx(fr, i + 0.5),
		        fr->y0 + fr->h - (l - elo) / (ehi - elo) * fr->h);
		cmd = 'L';
	}
	fprintf(f, "\"/>\n</g>\n");
}

/* Bands go under the bars, labels (drawn later, text only) over them. */
static void peaks(FILE *f, const struct frame *fr, const struct osp_vm_stats *st, int labels)
{
	char lb[32], text[OSP_VM_MAX_PEAKS][48];
	double lo[OSP_VM_MAX_PEAKS] = {0}, hi[OSP_VM_MAX_PEAKS] = {0};
	unsigned lane[OSP_VM_MAX_PEAKS] = {0};
	unsigned np = st->npeaks < OSP_VM_MAX_PEAKS ? st->npeaks : OSP_VM_MAX_PEAKS;
	for (unsigned k = 0; labels && k < np; k++) {
		const struct osp_vm_peak *p = &st->peaks[k];
		double c = (fx(fr, p->lo) + fx(fr, p->hi + 1)) / 2;
		snprintf(text[k], sizeof(text[k]), "P%u %s %.0f%%", k + 1,
		         osp_render_value(p->mean, fr->unit, lb, sizeof(lb)), 100 * p->share_ops);
		double w = (double)strlen(text[k]) * OSP_VM_CHAR_W;
		lo[k] = c - w / 2;
		hi[k] = c + w / 2;
	}
	if (labels)
		osp_vm_lanes(lo, hi, np, lane);
	for (unsigned k = 0; k < np; k++) {
		const struct osp_vm_peak *p = &st->peaks[k];
		double x1 = fx(fr, p->lo), x2 = fx(fr, p->hi + 1);
		if (!labels) {
			fprintf(f,
			        "<g class=\"peak\" data-lo=\"%u\" data-hi=\"%u\" "
			        "data-count=\"%llu\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			        "height=\"%.1f\"/></g>\n",
			        p->lo, p->hi, (unsigned long long)p->count, x1, fr->y0, x2 - x1,
			        fr->h);
			continue;
		}
		fprintf(
		    f,
		    "<text class=\"peak-label\" x=\"%.1f\" y=\"%.1f\" data-w=\"%.1f\">%s</text>\n",
		    (x1 + x2) / 2, fr->y0 + 11 + 11 * lane[k], hi[k] - lo[k], text[k]);
	}
}

/* Notes stand at the bottom of the frame, stacked upwards where their texts
 * would overlap (osp_vm_lanes). */
static void notes(FILE *f, const struct frame *fr, const struct osp_vm_note *n, unsigned nn)
{
	double lo[OSP_VM_MAX_NOTES] = {0}, hi[OSP_VM_MAX_NOTES] = {0};
	unsigned lane[OSP_VM_MAX_NOTES] = {0};
	if (nn > OSP_VM_MAX_NOTES)
		nn = OSP_VM_MAX_NOTES;
	for (unsigned k = 0; k < nn; k++) {
		lo[k] = fx(fr, osp_vm_xpos(n[k].value, fr->r)) + 3;
		hi[k] = lo[k] + (double)strlen(n[k].label) * OSP_VM_CHAR_W;
	}
	osp_vm_lanes(lo, hi, nn, lane);
	for (unsigned k = 0; k < nn; k++) {
		double b = osp_vm_xpos(n[k].value, fr->r);
		if (b < fr->blo || b > fr->bhi)
			continue;
		double x = fx(fr, b);
		fprintf(f,
		        "<g class=\"note\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
		        "<text x=\"%.1f\" y=\"%.1f\" data-w=\"%.1f\">",
		        x, fr->y0, x, fr->y0 + fr->h, x + 3, fr->y0 + fr->h - 4 - 11 * lane[k],
		        hi[k] - lo[k]);
		xml_text(f, n[k].label);
		fprintf(f, "</text></g>\n");
	}
}

/* Rows: slices in time order (missing slices stay blank); colour: log count. */
static double heatmap(FILE *f, const struct frame *fr, const struct osp_set *s,
                      const struct osp_profile *p, double y)
{
	if (!p->nslices)
		return y;
	uint64_t first = p->slices[0].index, last = p->slices[p->nslices - 1].index;
	double rows = (double)(last - first + 1);
	double rh = HEAT_MAX_H / rows;
	if (rh > 12)
		rh = 12;
	double hh = rh * rows;
	double lmax = log10((double)osp_vm_slice_max(p) + 1);
	char col[16], lb[32];
	fprintf(f, "<g class=\"heatmap\" data-slices=\"%zu\">\n", p->nslices);
	fprintf(f,
	        "<rect class=\"heat-bg\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n",
	        fr->x0, y, fr->w, hh);
	for (size_t i = 0; i < p->nslices; i++) {
		const struct osp_slice *sl = &p->slices[i];
		double ry = y + (double)(sl->index - first) * rh;
		for (unsigned b = 0; b < p->hist.nbuckets; b++) {
			if (!sl->buckets[b])
				continue;
			heat_colour(log10((double)sl->buckets[b] + 1) / (lmax > 0 ? lmax : 1), col,
			            sizeof(col));
			fprintf(f,
			        "<rect class=\"cell\" data-slice=\"%llu\" data-bucket=\"%u\" "
			        "data-count=\"%llu\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
			        "height=\"%.2f\" fill=\"%s\"/>\n",
			        (unsigned long long)sl->index, b,
			        (unsigned long long)sl->buckets[b], fx(fr, b), ry,
			        fx(fr, b + 1) - fx(fr, b), rh, col);
		}
	}
	/* Time axis: a few labels down the left side. */
	unsigned nl = rows < 5 ? (unsigned)rows : 5;
	for (unsigned k = 0; k < nl; k++) {
		uint64_t idx = first + (uint64_t)((rows - 1) * k / (nl > 1 ? nl - 1 : 1));
		fprintf(f, "<text class=\"ytick\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", fr->x0 - 6,
		        y + (double)(idx - first) * rh + rh / 2 + 4,
		        osp_render_value((double)(idx * s->slice_ns), OSP_UNIT_NS, lb, sizeof(lb)));
	}
	fprintf(
	    f, "<text class=\"label\" transform=\"translate(%.1f,%.1f) rotate(-90)\">time</text>\n",
	    fr->x0 - 48, y + hh / 2);
	/* Colour legend on the right. */
	for (int k = 0; k < 10; k++) {
		heat_colour(k / 9.0, col, sizeof(col));
		fprintf(f,
		        "<rect class=\"legend\" x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"%.1f\" "
		        "fill=\"%s\"/>\n",
		        fr->x0 + fr->w + 8, y + hh - (k + 1) * hh / 10, hh / 10, col);
	}
	fprintf(f, "<text class=\"ttick\" x=\"%.1f\" y=\"%.1f\">%llu</text>\n", fr->x0 + fr->w + 22,
	        y + 10, (unsigned long long)osp_vm_slice_max(p));
	fprintf(f, "<text class=\"ttick\" x=\"%.1f\" y=\"%.1f\">1</text>\n", fr->x0 + fr->w + 22,
	        y + hh);
	fprintf(f, "</g>\n");
	x_axis(f, fr, y + hh);
	return y + hh + AXIS_H - 14;
}

static void title(FILE *f, const struct osp_profile *p, const struct osp_profile *pb,
                  const struct osp_vm_stats *st, double y)
{
	char label[512], t1[32], t2[32], t3[32], t4[32];
	fprintf(f, "<text class=\"title\" x=\"%d\" y=\"%.1f\">", ML, y + 14);
	xml_text(f, osp_profile_label(p, label, sizeof(label)));
	fprintf(f, "</text>\n<text class=\"sub\" x=\"%d\" y=\"%.1f\">", ML, y + 28);
	if (!st->count && pb && pb->hist.count)
		fprintf(f, "only in B: %llu ops, total %s", (unsigned long long)pb->hist.count,
		        osp_render_value((double)pb->hist.total, pb->unit, t1, 32));
	else if (!st->count)
		fprintf(f, "no samples");
	else
		fprintf(f, "%llu ops, total %s (%.1f%% of %s), mean %s, p50 %s, p99 %s",
		        (unsigned long long)st->count,
		        osp_render_value((double)st->total, p->unit, t1, 32), 100 * st->share,
		        p->layer, osp_render_value((double)st->mean, p->unit, t2, 32),
		        osp_render_value((double)st->p50, p->unit, t3, 32),
		        osp_render_value((double)st->p99, p->unit, t4, 32));
	fprintf(f, "</text>\n");
}

static double panel(FILE *f, const struct osp_set *s, const struct osp_profile *p,
                    const struct osp_plot_opts *o, const struct osp_vm_totals *tot, int blo,
                    int bhi, double y)
{
	struct osp_vm_stats st;
	struct osp_vm_note nt[OSP_VM_MAX_NOTES];
	osp_vm_stats(p, tot, &st);
	unsigned nn = osp_vm_notes(s, p, nt, OSP_VM_MAX_NOTES);
	const struct osp_profile *pb = osp_vm_twin(o->b, p);
	char label[512];
	fprintf(f, "<g class=\"profile\" data-label=\"");
	xml_text(f, osp_profile_label(p, label, sizeof(label)));
	fprintf(f, "\" data-count=\"%llu\" data-peaks=\"%u\">\n", (unsigned long long)st.count,
	        st.npeaks);
	title(f, p, pb, &st, y);
	uint64_t maxc = 1;
	for (unsigned i = 0; i < p->hist.nbuckets; i++)
		if (p->hist.buckets[i] > maxc)
			maxc = p->hist.buckets[i];
	if (pb)
		for (unsigned i = 0; i < pb->hist.nbuckets; i++)
			if (pb->hist.buckets[i] > maxc)
				maxc = pb->hist.buckets[i];
	struct frame fr = {.x0 = ML,
	                   .y0 = y + TITLE_H,
	                   .w = W - ML - MR,
	                   .h = PLOT_H,
	                   .blo = blo,
	                   .bhi = bhi + 1,
	                   .ymax = ceil(log10((double)maxc) + 0.4), /* room for labels */
	                   .r = s->r,
	                   .unit = p->unit};
	if (fr.ymax < 1)
		fr.ymax = 1;
	fprintf(f, "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n",
	        fr.x0, fr.y0, fr.w, fr.h);
	count_axis(f, &fr);
	peaks(f, &fr, &st, 0);
	bars(f, &fr, &p->hist, "bar", 0);
	if (pb)
		bars(f, &fr, &pb->hist, "bar-b", 1);
	peaks(f, &fr, &st, 1);
	if (o->total_axis)
		total_axis(f, &fr, &p->hist);
	notes(f, &fr, nt, nn);
	if (!st.count && !(pb && pb->hist.count))
		fprintf(f, "<text class=\"empty\" x=\"%.1f\" y=\"%.1f\">no samples</text>\n",
		        fr.x0 + fr.w / 2, fr.y0 + fr.h / 2);
	x_axis(f, &fr, fr.y0 + fr.h);
	double yend = fr.y0 + fr.h + AXIS_H - 14;
	if (o->heatmap >= 0 && p->nslices)
		yend = heatmap(f, &fr, s, p, yend + 6);
	fprintf(f, "<text class=\"xlabel\" x=\"%.1f\" y=\"%.1f\">%s (log2 buckets, r=%u)</text>\n",
	        fr.x0 + fr.w / 2, yend, p->unit == OSP_UNIT_NS ? "latency" : osp_unit_name(p->unit),
	        s->r);
	fprintf(f, "</g>\n");
	return yend + GAP;
}

int osp_render_svg(FILE *f, const struct osp_set *a, const struct osp_plot_opts *o, char *err,
                   size_t errlen)
{
	const struct osp_profile **v = NULL;
	struct osp_set *extra = NULL;
	long n = osp_vm_select_plot(a, o, &v, &extra, err, errlen);
	if (n < 0)
		return -1;
	if (o->heatmap > 0 && !a->slice_ns) {
		snprintf(err, errlen,
		         "--heatmap: the profile set is not time-sliced (record with -i)");
		free(v);
		osp_set_free(extra);
		return -1;
	}
	int blo, bhi;
	osp_vm_plot_range(a, o->b, v, n, &blo, &bhi);
	/* at least two octaves */
	while (bhi - blo < 2 * (int)a->r)
		bhi++;
	struct osp_vm_totals tot;
	osp_vm_totals(a, &tot);
	/* Height is known only after drawing; panels are fixed-size except the
	 * heat map, so compute it first. */
	double h = 40 + (o->b ? 18 : 0);
	for (long i = 0; i < n; i++) {
		h += TITLE_H + PLOT_H + AXIS_H - 14 + GAP;
		if (o->heatmap >= 0 && v[i]->nslices) {
			double rows = (double)(v[i]->slices[v[i]->nslices - 1].index -
			                       v[i]->slices[0].index + 1);
			double rh = HEAT_MAX_H / rows > 12 ? 12 : HEAT_MAX_H / rows;
			h += 6 + rh * rows + AXIS_H - 14;
		}
	}
	if (n == 0)
		h += 60;
	fprintf(f,
	        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" "
	        "viewBox=\"0 0 %d %.0f\" font-family=\"sans-serif\" font-size=\"11\">\n",
	        W, h, W, h);
	fprintf(f,
	        "<style>.axis{stroke:#333}.grid{stroke:#ddd}.frame{fill:#fff;stroke:#bbb}"
	        ".bar{fill:%s}.bar-b{stroke:%s;stroke-width:1.5}.total{fill:none;stroke-width:1.5}"
	        ".peak rect{fill:#f4d35e;opacity:.3}.peak-label{fill:#7a5c00;text-anchor:middle}"
	        ".note line{stroke:#555;stroke-dasharray:4 3}.note text{fill:#333}"
	        ".tick,.xlabel,.empty{text-anchor:middle}.ytick{text-anchor:end}"
	        ".title{font-weight:bold;font-size:13px}.sub{fill:#444}.label{fill:#444;text-"
	        "anchor:middle}"
	        ".heat-bg{fill:#f4f4f4}.legend{stroke:none}</style>\n",
	        COL_A, COL_B);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n");
	double y = 8;
	if (o->b) {
		fprintf(f,
		        "<g class=\"legend-ab\"><rect x=\"%d\" y=\"8\" width=\"12\" height=\"10\" "
		        "fill=\"%s\"/><text x=\"%d\" y=\"17\">A: ",
		        ML, COL_A, ML + 16);
		xml_text(f, o->name_a ? o->name_a : "A");
		fprintf(f,
		        "</text><rect x=\"%d\" y=\"8\" width=\"12\" height=\"10\" fill=\"none\" "
		        "stroke=\"%s\" stroke-width=\"1.5\"/><text x=\"%d\" y=\"17\">B: ",
		        ML + 330, COL_B, ML + 346);
		xml_text(f, o->name_b ? o->name_b : "B");
		fprintf(f, "</text></g>\n");
		y += 18;
	}
	if (n == 0)
		fprintf(
		    f, "<text class=\"empty\" x=\"%d\" y=\"%.0f\">no profiles in this set</text>\n",
		    W / 2, y + 30);
	for (long i = 0; i < n; i++)
		y = panel(f, a, v[i], o, &tot, blo, bhi, y);
	fprintf(f, "</svg>\n");
	return osp_vm_plot_done(f, v, extra, err, errlen);
}
