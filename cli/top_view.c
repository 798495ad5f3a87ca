/* Drawing and keys of `osprof top`. */
#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <osprof/losses.h>
#include <osprof/render.h>
#include <osprof/sort.h>
#include "cli/top_view.h"

/* Profiles shown: those of the layer filter, ranked by total latency of the
 * cumulative set or of the last interval (c toggles). */
struct row {
	const struct osp_profile *p; /* in cum */
	const struct osp_profile *q; /* same key in last, or NULL */
	uint64_t key;
};

static int by_key(const void *x, const void *y)
{
	const struct row *a = x, *b = y;
	if (a->key != b->key)
		return a->key < b->key ? 1 : -1;
	if (a->p->hist.count != b->p->hist.count)
		return a->p->hist.count < b->p->hist.count ? 1 : -1;
	int c = strcmp(a->p->layer, b->p->layer);
	return c ? c : strcmp(a->p->op, b->p->op);
}

static size_t rows_of(const struct top_view *v, struct row **out)
{
	struct row *r = malloc((v->cum->n ? v->cum->n : 1) * sizeof(*r));
	size_t n = 0;
	if (!r) {
		*out = NULL;
		return 0;
	}
	for (size_t i = 0; i < v->cum->n; i++) {
		const struct osp_profile *p = v->cum->profiles[i];
		if (v->layer[0] && strcmp(p->layer, v->layer))
			continue;
		const struct osp_profile *q =
		    v->last ? osp_set_find(v->last, p->layer, p->op, p->dims, p->ndims) : NULL;
		uint64_t key = v->interval_mode ? (q ? q->hist.total : 0) : p->hist.total;
		r[n++] = (struct row){p, q, key};
	}
	osp_sort(r, n, sizeof(*r), by_key);
	*out = r;
	return n;
}

static void fit(char *buf, size_t w)
{
	if (strlen(buf) > w && w > 1) {
		buf[w - 1] = '~';
		buf[w] = '\0';
	}
}

static void header(const struct top_view *v, size_t nrows)
{
	char line[512], ts[16], iv[32];
	time_t t = time(NULL);
	strftime(ts, sizeof(ts), "%H:%M:%S", localtime(&t));
	attron(A_REVERSE);
	mvhline(0, 0, ' ', COLS);
	/* States first: a narrow terminal cuts the (long) source description. */
	snprintf(line, sizeof(line), " osprof top %s%s%s - every %s - %s", ts,
	         v->paused ? " [PAUSED]" : "", v->finished ? " [replay finished]" : "",
	         osp_render_value((double)v->interval_ns, OSP_UNIT_NS, iv, sizeof(iv)), v->what);
	mvaddnstr(0, 0, line, COLS);
	attroff(A_REVERSE);
	struct osp_losses lost;
	osp_losses_read(v->cum, &lost);
	char loss[128] = "";
	if (osp_losses_any(&lost))
		snprintf(loss, sizeof(loss), "   LOSSES: %llu lost, %llu unpaired events",
		         (unsigned long long)lost.lost_events,
		         (unsigned long long)(lost.live ? 0 : lost.unpaired_events));
	snprintf(line, sizeof(line),
	         " layer: %s   values: %s   profiles: %zu of %zu   refreshes: %u%s",
	         v->layer[0] ? v->layer : "all", v->interval_mode ? "last interval" : "cumulative",
	         nrows, v->cum->n, v->ticks, loss);
	mvaddnstr(1, 0, line, COLS);
}

/* The histogram pane: osp_print_hist's bcc-style text, one line per row. */
static void hist_pane(const struct top_view *v, const struct row *r, int y0, int h)
{
	char title[600], label[512];
	const struct osp_profile *p = v->interval_mode ? r->q : r->p;
	osp_profile_label(r->p, label, sizeof(label));
	snprintf(title, sizeof(title), " %s (%s) ", label,
	         v->interval_mode ? "last interval" : "cumulative");
	mvhline(y0, 0, ACS_HLINE, COLS);
	attron(A_BOLD);
	mvaddnstr(y0, 2, title, COLS - 4);
	attroff(A_BOLD);
	if (!p || !p->hist.count) {
		mvaddstr(y0 + 1, 2, "no operations");
		return;
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return;
	osp_print_hist(f, &p->hist, p->hist.buckets, p->unit, 0);
	fclose(f);
	int y = y0 + 1;
	char *line = strtok(buf, "\n");
	for (; line && y < y0 + h; line = strtok(NULL, "\n"))
		mvaddnstr(y++, 0, line, COLS);
	if (line && h > 1) { /* more buckets than lines: say so on the last one */
		move(y0 + h - 1, 0);
		clrtoeol();
		addnstr("   ... more buckets below: a taller terminal shows them", COLS);
	}
	free(buf);
}

void top_view_draw(struct top_view *v)
{
	struct row *r;
	size_t n = rows_of(v, &r);
	erase();
	header(v, n);
	/* Keep the selection on the same profile while the ranking moves. */
	if (v->sel_key[0])
		for (size_t i = 0; i < n; i++) {
			char l[512];
			if (!strcmp(osp_profile_label(r[i].p, l, sizeof(l)), v->sel_key)) {
				v->sel = (int)i;
				break;
			}
		}
	if (v->sel >= (int)n)
		v->sel = n ? (int)n - 1 : 0;
	if (n)
		osp_profile_label(r[v->sel].p, v->sel_key, sizeof(v->sel_key));
	int table_h = (LINES - 4) / 2;
	if (table_h < 3)
		table_h = 3;
	if (v->sel < v->scroll)
		v->scroll = v->sel;
	if (v->sel >= v->scroll + table_h)
		v->scroll = v->sel - table_h + 1;
	/* The numbers always fit; OP and DIMS share what is left (an 80-column
	 * terminal folds the dimensions into the OP column). */
	int opw = COLS - 9 - 55, dimw = 0;
	if (opw >= 46) {
		dimw = opw - 27 > 40 ? 40 : opw - 27;
		opw = 26;
	} else if (opw < 10) {
		opw = 10;
	} else {
		opw--;
	}
	char line[1024];
	snprintf(line, sizeof(line), "%-8s %-*s %s%-*s%10s %10s %10s %10s %10s", "LAYER", opw,
	         dimw ? "OP" : "OP DIMS", dimw ? "" : "", dimw, dimw ? "DIMS" : "", "COUNT",
	         "RATE/s", "TOTAL", "MEAN", "P99");
	attron(A_BOLD | A_UNDERLINE);
	mvaddnstr(2, 0, line, COLS);
	attroff(A_BOLD | A_UNDERLINE);
	for (int k = 0; k < table_h && v->scroll + k < (int)n; k++) {
		const struct row *w = &r[v->scroll + k];
		const struct osp_profile *p = v->interval_mode ? w->q : w->p;
		uint64_t cnt = p ? p->hist.count : 0, tot = p ? p->hist.total : 0;
		uint64_t qc = w->q ? w->q->hist.count : 0;
		char dims[128] = "", op[256], t1[24], t2[24], t3[24], rate[24];
		for (unsigned d = 0; d < w->p->ndims; d++)
			snprintf(dims + strlen(dims), sizeof(dims) - strlen(dims), "%s%s=%s",
			         d ? " " : "", w->p->dims[d].name, w->p->dims[d].value);
		if (dimw)
			snprintf(op, sizeof(op), "%s", w->p->op);
		else
			snprintf(op, sizeof(op), "%s%s%s", w->p->op, dims[0] ? " " : "", dims);
		fit(op, (size_t)opw);
		fit(dims, (size_t)(dimw > 1 ? dimw - 1 : 1));
		snprintf(rate, sizeof(rate), "%.0f",
		         v->last_secs > 0 ? (double)qc / v->last_secs : 0.0);
		snprintf(line, sizeof(line), "%-8.8s %-*s %-*s%10llu %10s %10s %10s %10s",
		         w->p->layer, opw, op, dimw, dimw ? dims : "", (unsigned long long)cnt,
		         rate, osp_render_value((double)tot, w->p->unit, t1, sizeof(t1)),
		         osp_render_value(cnt ? (double)tot / (double)cnt : 0, w->p->unit, t2,
		                          sizeof(t2)),
		         osp_render_value(p && cnt ? (double)osp_hist_quantile(&p->hist, 0.99) : 0,
		                          w->p->unit, t3, sizeof(t3)));
		if (v->scroll + k == v->sel)
			attron(A_REVERSE);
		mvhline(3 + k, 0, ' ', COLS);
		mvaddnstr(3 + k, 0, line, COLS);
		if (v->scroll + k == v->sel)
			attroff(A_REVERSE);
	}
	if (!n)
		mvaddstr(3, 2,
		         v->cum->n ? "no profiles in this layer (l: next layer)"
		                   : "waiting for operations...");
	int pane = 3 + table_h;
	if (n)
		hist_pane(v, &r[v->sel], pane, LINES - pane - 1);
	else
		mvhline(pane, 0, ACS_HLINE, COLS);
	attron(A_REVERSE);
	mvhline(LINES - 1, 0, ' ', COLS);
	mvaddnstr(LINES - 1, 0,
	          v->status[0]
	              ? v->status
	              : " q quit  Up/Down select  l/L layer  p pause  c cumulative/interval"
	                "  w write  z zero",
	          COLS);
	attroff(A_REVERSE);
	free(r);
	refresh();
}

/* Layers present in cum, in first-seen order; next after (or before) cur. */
static void step_layer(struct top_view *v, int dir)
{
	const char *names[64];
	int n = 0, cur = -1;
	for (size_t i = 0; i < v->cum->n && n < 64; i++) {
		int seen = 0;
		for (int k = 0; k < n; k++)
			seen |= !strcmp(names[k], v->cum->profiles[i]->layer);
		if (!seen)
			names[n++] = v->cum->profiles[i]->layer;
	}
	for (int k = 0; k < n; k++)
		if (!strcmp(names[k], v->layer))
			cur = k;
	/* Cycle: all -> first layer -> ... -> last layer -> all. */
	int next = cur + dir;
	if (cur < 0)
		next = dir > 0 ? 0 : n - 1;
	if (next < 0 || next >= n)
		v->layer[0] = '\0';
	else
		snprintf(v->layer, sizeof(v->layer), "%s", names[next]);
	v->sel = 0;
	v->scroll = 0;
	v->sel_key[0] = '\0';
}

enum top_action top_view_key(struct top_view *v, int key)
{
	v->status[0] = '\0';
	switch (key) {
	case 'q':
	case 'Q':
		return TOP_QUIT;
	case KEY_UP:
	case 'k':
		if (v->sel > 0)
			v->sel--;
		break;
	case KEY_DOWN:
	case 'j':
		v->sel++;
		break;
	case KEY_PPAGE:
		v->sel = v->sel > 10 ? v->sel - 10 : 0;
		break;
	case KEY_NPAGE:
		v->sel += 10;
		break;
	case KEY_HOME:
		v->sel = 0;
		break;
	case KEY_END:
		v->sel = 1 << 30;
		break;
	case 'l':
		step_layer(v, 1);
		return TOP_REDRAW;
	case 'L':
		step_layer(v, -1);
		return TOP_REDRAW;
	case 'p':
	case ' ':
		v->paused = !v->paused;
		snprintf(v->status, sizeof(v->status), " %s",
		         v->paused ? "paused: p resumes" : "resumed");
		return TOP_REDRAW;
	case 'c':
		v->interval_mode = !v->interval_mode;
		return TOP_REDRAW;
	case 'z':
		return TOP_ZERO;
	case 'w': {
		char err[160];
		if (osp_set_save(v->cum, v->out_path, err, sizeof(err)) < 0)
			snprintf(v->status, sizeof(v->status), " write failed: %s", err);
		else
			snprintf(v->status, sizeof(v->status), " wrote %zu profiles to %s",
			         v->cum->n, v->out_path);
		return TOP_REDRAW;
	}
	case KEY_RESIZE:
		return TOP_REDRAW;
	default:
		return TOP_NONE;
	}
	/* Selection moved by a key: follow the row, not the previous label. */
	v->sel_key[0] = '\0';
	return TOP_REDRAW;
}
