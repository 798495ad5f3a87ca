/* Text, folded, JSON and state renderings of the DARC ftree. */
#include "rootcause/output.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <osprof/osprof.h>
#include <osprof/output.h>
#include <osprof/render.h>
#include "rootcause/peaks.h"

/* Nodes on root-cause paths: everything but pruned and plain candidates. */
static int shown(const struct rc_node *n)
{
	return n->status != RC_PRUNED && n->status != RC_MEASURED;
}

static double share(const struct rc_search *s, const struct rc_node *n)
{
	if (n->parent < 0)
		return 100.0;
	const struct rc_node *p = &s->nodes[n->parent];
	return p->rounds ? 100.0 * (double)n->maxcount / (double)p->rounds : 0;
}

static void status_text(const struct rc_node *n, char *buf, size_t len)
{
	switch (n->status) {
	case RC_DECIDED:
		snprintf(buf, len, "%s", n->self_cause ? "root cause found (own code, too)" : "");
		break;
	case RC_IRQ:
		if (n->irqn >= 1000)
			snprintf(buf, len, "softirq %u", n->irqn - 1000);
		else
			snprintf(buf, len, "IRQ %u", n->irqn);
		break;
	default:
		snprintf(buf, len, "%s", rc_status_name(n->status));
	}
}

void rc_count_probes(const struct rc_search *s, uint64_t counts[RC_PROBE_KINDS])
{
	memset(counts, 0, RC_PROBE_KINDS * sizeof(*counts));
	for (size_t i = 0; i < s->n; i++)
		if (s->nodes[i].kind == RC_N_CALL && s->nodes[i].site >= 0 &&
		    s->nodes[i].probe >= 0 && s->nodes[i].probe < RC_PROBE_KINDS)
			counts[s->nodes[i].probe]++;
}

static const char *probe_name(const struct rc_info *in, int probe)
{
	return probe == RC_PROBE_BREAK    ? "breakpoint"
	       : probe == RC_PROBE_UPROBE ? "uprobe"
	                                  : in->backend;
}

/* "N by trampoline, M by uprobe, K by breakpoint" (the uprobe backend's
 * sites are all uprobes: "N by uprobe, K by breakpoint"). */
static void probe_counts(FILE *out, const struct rc_search *s, const struct rc_info *in, int json)
{
	uint64_t pc[RC_PROBE_KINDS];
	rc_count_probes(s, pc);
	int fb = strcmp(in->backend, "uprobe") != 0;
	if (json) {
		fprintf(out, "\"%s\":%" PRIu64, in->backend, pc[RC_PROBE_NATIVE]);
		if (fb)
			fprintf(out, ",\"uprobe\":%" PRIu64, pc[RC_PROBE_UPROBE]);
		fprintf(out, ",\"breakpoint\":%" PRIu64, pc[RC_PROBE_BREAK]);
		return;
	}
	fprintf(out, "%" PRIu64 " by %s", pc[RC_PROBE_NATIVE], in->backend);
	if (fb)
		fprintf(out, ", %" PRIu64 " by uprobe", pc[RC_PROBE_UPROBE]);
	fprintf(out, ", %" PRIu64 " by breakpoint", pc[RC_PROBE_BREAK]);
}

static void tree_rec(FILE *out, const struct rc_search *s, int id, int indent)
{
	const struct rc_node *n = &s->nodes[id];
	char st[64], mean[32] = "";
	status_text(n, st, sizeof(st));
	if (n->lat_n)
		osp_format_ns(n->lat_sum / n->lat_n, mean, sizeof(mean));
	if (n->parent < 0)
		fprintf(out, "%s", n->name);
	else
		fprintf(out, "%*s-> %s", indent, "", n->name);
	if (n->where[0])
		fprintf(out, "  (at %s%s%s)", n->where, n->probe ? ", " : "",
		        n->probe ? probe_name(NULL, n->probe) : "");
	if (n->parent >= 0)
		fprintf(out, "  maxcount %" PRIu64 "/%" PRIu64 " = %.0f%%", n->maxcount,
		        s->nodes[n->parent].rounds, share(s, n));
	if (mean[0])
		fprintf(out, ", mean %s", mean);
	if (st[0])
		fprintf(out, "  [%s]", st);
	fputc('\n', out);
	for (size_t k = 0; k < n->nkids; k++)
		if (shown(&s->nodes[n->kids[k]]))
			tree_rec(out, s, n->kids[k], indent + 3);
}

void rc_print_tree(FILE *out, const struct rc_search *s, const struct rc_info *in)
{
	char lo[32], hi[32];
	osp_format_ns(1ull << in->blo, lo, sizeof(lo));
	osp_format_ns((2ull << in->bhi) - 1, hi, sizeof(hi));
	fprintf(out, "\nroot-cause paths of peak %d of %s (buckets %d-%d: %s .. %s), backend %s\n",
	        in->peak, in->f0, in->blo, in->bhi, lo, hi, in->backend);
	char took[32];
	osp_format_ns(in->search_ns, took, sizeof(took));
	fprintf(out,
	        "in-peak f0 calls used: %" PRIu64 " of %" PRIu64 " f0 calls in %s of search, "
	        "decision time %u, maxcount %.0f%%%s\n",
	        s->used, in->search_calls, took, s->p.decision_time, s->p.maxcount_pct,
	        s->done ? "" : "  (search not finished)");
	fputs("call sites timed: ", out);
	probe_counts(out, s, in, 0);
	fprintf(out, "%s%s%s\n", in->f0_break ? "; f0 by breakpoint" : "",
	        in->fallback && in->fallback[0] ? "; where no jump fits: " : "",
	        in->fallback ? in->fallback : "");
	if (s->n)
		tree_rec(out, s, 0, 0);
}

static void folded_rec(FILE *out, const struct rc_search *s, int id, char *path, size_t len)
{
	const struct rc_node *n = &s->nodes[id];
	size_t at = strlen(path);
	snprintf(path + at, len - at, "%s%s", at ? ";" : "", n->name);
	for (char *p = path + at; *p; p++)
		if (*p == ' ')
			*p = '_'; /* flamegraph.pl splits on the last space */
	int kids = 0;
	for (size_t k = 0; k < n->nkids; k++)
		if (shown(&s->nodes[n->kids[k]])) {
			kids = 1;
			folded_rec(out, s, n->kids[k], path, len);
		}
	if (!kids || n->self_cause) {
		uint64_t w = n->parent < 0 ? n->self_votes : n->maxcount;
		if (kids)
			w = n->self_votes;
		fprintf(out, "%s %" PRIu64 "\n", path, w ? w : 1);
	}
	path[at] = 0;
}

void rc_print_folded(FILE *out, const struct rc_search *s)
{
	char path[8192] = "";
	if (s->n)
		folded_rec(out, s, 0, path, sizeof(path));
}

static void json_node(FILE *out, const struct rc_search *s, const struct rc_info *in, int id)
{
	const struct rc_node *n = &s->nodes[id];
	static const char *const kinds[] = {"f0", "call", "preemption", "irq"};
	fprintf(out, "{\"id\":%d,\"name\":\"", n->id);
	osp_json_string(out, n->name);
	fprintf(out, "\",\"kind\":\"%s\",\"site\":\"", kinds[n->kind]);
	osp_json_string(out, n->where);
	fprintf(out, "\",\"depth\":%d,\"status\":\"%s\",\"self_cause\":%s", n->depth,
	        rc_status_name(n->status), n->self_cause ? "true" : "false");
	fprintf(out, ",\"maxcount\":%" PRIu64 ",\"parent_votes\":%" PRIu64 ",\"share\":%.4f",
	        n->maxcount, n->parent >= 0 ? s->nodes[n->parent].rounds : n->rounds,
	        share(s, n) / 100.0);
	fprintf(out,
	        ",\"votes\":%" PRIu64 ",\"self_votes\":%" PRIu64 ",\"preempt_votes\":%" PRIu64
	        ",\"irq_votes\":%" PRIu64,
	        n->rounds, n->self_votes, n->pre_votes, n->irq_votes);
	fprintf(out, ",\"mean_ns\":%" PRIu64 ",\"calls\":%" PRIu64,
	        n->lat_n ? n->lat_sum / n->lat_n : 0, n->lat_n);
	if (n->kind == RC_N_IRQ)
		fprintf(out, ",\"irq\":%u", n->irqn);
	if (n->kind == RC_N_CALL || n->kind == RC_N_ROOT)
		fprintf(out, ",\"probe\":\"%s\"",
		        probe_name(in, n->kind == RC_N_ROOT ? (in->f0_break ? RC_PROBE_BREAK : 0)
		                                            : n->probe));
	if (n->callee)
		fprintf(out, ",\"address\":\"0x%" PRIx64 "\"", n->callee);
	fputs(",\"children\":[", out);
	int first = 1;
	for (size_t k = 0; k < n->nkids; k++) {
		if (!shown(&s->nodes[n->kids[k]]) && s->nodes[n->kids[k]].status != RC_PRUNED)
			continue;
		if (!first)
			fputc(',', out);
		first = 0;
		json_node(out, s, in, n->kids[k]);
	}
	fputs("]}", out);
}

void rc_print_json(FILE *out, const struct rc_search *s, const struct rc_info *in)
{
	fputs("{\"version\":1,\"f0\":\"", out);
	osp_json_string(out, in->f0);
	fprintf(out, "\",\"backend\":\"%s\",\"finished\":%s", in->backend,
	        s->done ? "true" : "false");
	fprintf(out,
	        ",\"peak\":{\"number\":%d,\"bucket_lo\":%d,\"bucket_hi\":%d,\"lo_ns\":%" PRIu64
	        ",\"hi_ns\":%" PRIu64 "}",
	        in->peak, in->blo, in->bhi, (uint64_t)1 << in->blo,
	        (uint64_t)(2ull << in->bhi) - 1);
	fprintf(out,
	        ",\"params\":{\"decision_time\":%u,\"max_depth\":%u,\"maxcount_pct\":%g,"
	        "\"min_bucket\":%u,\"start_ops\":%u}",
	        s->p.decision_time, s->p.max_depth, s->p.maxcount_pct, s->p.min_bucket,
	        s->p.start_ops);
	fprintf(out,
	        ",\"in_peak_calls\":%" PRIu64 ",\"f0_calls\":%" PRIu64 ",\"search_calls\":%" PRIu64
	        ",\"search_ns\":%" PRIu64,
	        s->used, in->f0_calls, in->search_calls, in->search_ns);
	fputs(",\"histogram\":{\"unit\":\"log2_ns\",\"buckets\":[", out);
	for (int i = 0; i < RC_HBUCKETS; i++)
		fprintf(out, "%s%" PRIu64, i ? "," : "", in->hist ? in->hist[i] : 0);
	fputs("]},\"probes\":{", out);
	probe_counts(out, s, in, 1);
	fputc('}', out);
	if (in->fallback && in->fallback[0]) {
		fputs(",\"fallback\":\"", out);
		osp_json_string(out, in->fallback);
		fputc('"', out);
	}
	fputs(",\"tree\":", out);
	if (s->n)
		json_node(out, s, in, 0);
	else
		fputs("null", out);
	fputs("}\n", out);
}

void rc_print_hist(FILE *out, const char *f0, const uint64_t *hist, int n)
{
	struct osp_hist h;
	if (osp_hist_init(&h, 1))
		return;
	uint64_t total = 0;
	for (int i = 0; i < n; i++)
		if (hist[i]) {
			osp_hist_add_bucket(&h, 1 + (unsigned)i, hist[i]);
			total += hist[i];
			if (h.min == UINT64_MAX)
				h.min = 1ull << i;
			h.max = (2ull << i) - 1;
		}
	fprintf(out, "f0 %s: %" PRIu64 " calls\n", f0, total);
	osp_print_hist(out, &h, h.buckets, OSP_UNIT_NS, osp_pick_unit_div(&h));
	struct rc_peak pk[RC_MAX_PEAKS];
	int np = rc_find_peaks(hist, n, pk, RC_MAX_PEAKS);
	fputs("peaks:", out);
	for (int i = 0; i < np; i++) {
		char lo[32], hi[32];
		osp_format_ns(1ull << pk[i].lo, lo, sizeof(lo));
		osp_format_ns((2ull << pk[i].hi) - 1, hi, sizeof(hi));
		fprintf(out, "  %d: buckets %d-%d (%s .. %s) %" PRIu64 " calls%s", i + 1, pk[i].lo,
		        pk[i].hi, lo, hi, pk[i].count, i + 1 < np ? ";" : "");
	}
	fputc('\n', out);
	/* Fig. 3.4: bucket numbers with the peak number under each bucket. */
	int first = -1, last = -1;
	for (int i = 0; i < n; i++)
		if (hist[i]) {
			if (first < 0)
				first = i;
			last = i;
		}
	if (first < 0) {
		osp_hist_free(&h);
		return;
	}
	fputs("bin:   ", out);
	for (int i = first; i <= last; i++)
		fputc('0' + i % 10, out);
	fputs("\npeaks: ", out);
	for (int i = first; i <= last; i++) {
		char c = ' ';
		for (int k = 0; k < np; k++)
			if (i >= pk[k].lo && i <= pk[k].hi)
				c = (char)(k < 9 ? '1' + k : 'A' + k - 9);
		fputc(c, out);
	}
	fputc('\n', out);
	osp_hist_free(&h);
}

/* ---- state file ---- */

static void addr_of(const struct rc_search *s, uint64_t rt, const char **path, uint64_t *vaddr)
{
	*path = "-";
	*vaddr = 0;
	for (size_t i = 0; rt && i < s->space->n; i++)
		if (rt >= s->space->mods[i].start && rt < s->space->mods[i].end) {
			*path = s->space->mods[i].elf->path;
			*vaddr = rt - s->space->mods[i].bias;
		}
}

int rc_state_save(const char *path, const struct rc_search *s, const struct rc_info *in)
{
	struct osp_output out;
	char err[512];
	int rc = osp_output_open(&out, path, err, sizeof(err));
	if (rc < 0)
		return rc;
	FILE *f = out.f;
	fprintf(f, "osprof-rootcause-state 1\nf0\t%s\npeak\t%d\t%d\nhist", in->f0, in->blo,
	        in->bhi);
	for (int i = 0; i < RC_HBUCKETS; i++)
		fprintf(f, "\t%" PRIu64, in->hist ? in->hist[i] : 0);
	fputc('\n', f);
	for (size_t i = 0; i < s->n; i++) {
		const struct rc_node *n = &s->nodes[i];
		const char *sp = "-", *cp;
		uint64_t sv = 0, cv;
		if (n->site >= 0)
			addr_of(s, s->sites[n->site].rt, &sp, &sv);
		addr_of(s, n->callee, &cp, &cv);
		fprintf(f,
		        "node\t%d\t%d\t%d\t%d\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
		        "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%u\t%d\t%s\t%" PRIx64
		        "\t%s\t%" PRIx64 "\t%s\t%s\n",
		        n->id, n->parent, n->kind, n->status, n->maxcount, n->self_votes,
		        n->pre_votes, n->irq_votes, n->rounds, n->lat_sum, n->lat_n, n->irqn,
		        n->self_cause, sp, sv, cp, cv, n->where[0] ? n->where : "-", n->name);
	}
	if (ferror(f)) {
		osp_output_abort(&out);
		return -EIO;
	}
	return osp_output_commit(&out, err, sizeof(err));
}

static int bad(const char *path, int line, const char *what)
{
	fprintf(stderr, "%s:%d: %s\n", path, line, what);
	return -EINVAL;
}

/* Splits line at tabs into at most max fields; returns the count. */
static int split(char *line, char **f, int max)
{
	int n = 0;
	line[strcspn(line, "\n")] = 0;
	while (n < max) {
		f[n++] = line;
		char *t = strchr(line, '\t');
		if (!t)
			break;
		*t = 0;
		line = t + 1;
	}
	return n;
}

static int parse_u64(const char *s, int base, uint64_t *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, base);
	if (errno || end == s || *end || *s == '-')
		return -1;
	*v = x;
	return 0;
}

/* Binds a saved site (module path + vaddr) to the running process. */
static int bind_site(struct rc_search *s, const char *path, uint64_t vaddr)
{
	for (size_t i = 0; i < s->space->n; i++) {
		struct rc_module *m = &s->space->mods[i];
		if (strcmp(m->elf->path, path))
			continue;
		const struct rc_sym *sym = rc_elf_at(m->elf, vaddr);
		struct rc_site *v = NULL;
		int ns = sym ? rc_callsites(m->elf, sym, &v) : 0;
		for (int k = 0; k < ns; k++) {
			if (v[k].addr != vaddr)
				continue;
			struct rc_site_rec *r = realloc(s->sites, (s->nsites + 1) * sizeof(*r));
			if (!r)
				break;
			s->sites = r;
			if (!v[k].indirect)
				v[k].target = v[k].target;
			s->sites[s->nsites] = (struct rc_site_rec){
			    .id = s->next_site++, .rt = vaddr + m->bias, .s = v[k], .m = m};
			free(v);
			return (int)s->nsites++;
		}
		free(v);
	}
	return -1;
}

static uint64_t bind_addr(struct rc_search *s, const char *path, uint64_t vaddr)
{
	for (size_t i = 0; i < s->space->n; i++)
		if (!strcmp(s->space->mods[i].elf->path, path))
			return vaddr + s->space->mods[i].bias;
	return 0;
}

int rc_state_load(const char *path, struct rc_search *s, struct rc_state *st)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -errno;
	}
	char line[4096], *fl[80];
	int ln = 0, rc = 0, have_f0 = 0, have_peak = 0;
	memset(st, 0, sizeof(*st));
	while (!rc && fgets(line, sizeof(line), f)) {
		ln++;
		if (ln == 1) {
			if (strcmp(line, "osprof-rootcause-state 1\n"))
				rc =
				    bad(path, ln, "not an osprof rootcause state file (version 1)");
			continue;
		}
		int nf = split(line, fl, 80);
		if (!strcmp(fl[0], "f0") && nf == 2) {
			snprintf(st->f0, sizeof(st->f0), "%s", fl[1]);
			have_f0 = 1;
		} else if (!strcmp(fl[0], "peak") && nf == 3) {
			uint64_t a = 0, b = 0;
			if (parse_u64(fl[1], 10, &a) || parse_u64(fl[2], 10, &b) || a > b ||
			    b >= RC_HBUCKETS)
				rc = bad(path, ln, "bad peak buckets");
			st->blo = (int)a;
			st->bhi = (int)b;
			have_peak = 1;
		} else if (!strcmp(fl[0], "hist") && nf == RC_HBUCKETS + 1) {
			for (int i = 0; i < RC_HBUCKETS && !rc; i++)
				if (parse_u64(fl[i + 1], 10, &st->hist[i]))
					rc = bad(path, ln, "bad histogram count");
		} else if (!strcmp(fl[0], "node") && nf == 20) {
			uint64_t v[13], sv, cv;
			for (int i = 0; i < 13 && !rc; i++) {
				const char *x = fl[i + 1];
				if (i == 1 && !strcmp(x, "-1"))
					x = "18446744073709551615";
				if (parse_u64(x, 10, &v[i]))
					rc = bad(path, ln, "bad number in node line");
			}
			if (rc)
				break;
			if (parse_u64(fl[15], 16, &sv) || parse_u64(fl[17], 16, &cv)) {
				rc = bad(path, ln, "bad address in node line");
				break;
			}
			int parent = v[1] == UINT64_MAX ? -1 : (int)v[1];
			if (v[0] != s->n || (parent < 0) != (s->n == 0) ||
			    (parent >= 0 && (uint64_t)parent >= s->n) || v[2] > RC_N_IRQ ||
			    v[3] > RC_IRQ) {
				rc = bad(path, ln,
				         "node ids must be 0,1,2,... with earlier parents");
				break;
			}
			int id = rc_node_new(s, parent, (int)v[2], fl[19]);
			if (id < 0) {
				rc = -ENOMEM;
				break;
			}
			struct rc_node *n = &s->nodes[id];
			n->status = (int)v[3];
			n->maxcount = v[4];
			n->self_votes = v[5];
			n->pre_votes = v[6];
			n->irq_votes = v[7];
			n->rounds = v[8];
			n->lat_sum = v[9];
			n->lat_n = v[10];
			n->irqn = (uint32_t)v[11];
			n->self_cause = v[12] != 0;
			if (strcmp(fl[18], "-"))
				snprintf(n->where, sizeof(n->where), "%s", fl[18]);
			if (strcmp(fl[16], "-"))
				n->callee = bind_addr(s, fl[16], cv);
			if (parent < 0) {
				n->slot = 0;
			} else if (strcmp(fl[14], "-") && n->kind == RC_N_CALL) {
				n->site = bind_site(s, fl[14], sv);
				if (n->site < 0 &&
				    (n->status == RC_FRONTIER || n->status == RC_DECIDED)) {
					rc = bad(path, ln,
					         "call site not found in the running process");
					break;
				}
			}
		} else {
			rc = bad(path, ln, "unknown or malformed line");
		}
	}
	fclose(f);
	if (!rc && (!have_f0 || !have_peak || !s->n))
		rc = bad(path, ln, "incomplete state (needs f0, peak and nodes)");
	return rc;
}

/* ---- profile set ---- */

struct osp_ctx {
	struct osp_set *set;
	const struct rc_info *in;
	char op[256];
	int rc;
};

static void osp_rec(struct osp_ctx *c, const struct rc_search *s, int id, char *path, size_t len)
{
	const struct rc_node *n = &s->nodes[id];
	size_t at = strlen(path);
	snprintf(path + at, len - at, "%s%s", at ? ";" : "", n->name);
	int kids = 0;
	for (size_t k = 0; k < n->nkids; k++)
		if (shown(&s->nodes[n->kids[k]])) {
			kids = 1;
			osp_rec(c, s, n->kids[k], path, len);
		}
	if ((!kids || n->self_cause) && n->hist.nbuckets) {
		char peak[16], st[64];
		snprintf(peak, sizeof(peak), "%d", c->in->peak);
		status_text(n, st, sizeof(st));
		struct osp_dim d[3] = {{"path", path}, {"peak", peak}, {"status", st}};
		struct osp_profile *p = osp_set_get(c->set, "rootcause", c->op, d, 3);
		if (!p || osp_hist_merge(&p->hist, &n->hist))
			c->rc = -ENOMEM;
	}
	path[at] = 0;
}

int rc_write_osp(const char *file, const struct rc_search *s, const struct rc_info *in)
{
	struct osp_ctx c = {.set = osp_set_new(1), .in = in};
	if (!c.set)
		return -ENOMEM;
	const char *colon = strrchr(in->f0, ':');
	snprintf(c.op, sizeof(c.op), "%s", colon ? colon + 1 : in->f0);
	osp_set_stamp_host(c.set);
	osp_set_meta(c.set, "command", "osprof rootcause");
	osp_set_meta(c.set, "rootcause_f0", in->f0);
	osp_set_meta(c.set, "rootcause_backend", in->backend);
	osp_set_metaf(c.set, "rootcause_peak", "%d buckets %d-%d", in->peak, in->blo, in->bhi);
	struct osp_profile *f0 = osp_set_get(c.set, "rootcause", c.op, NULL, 0);
	if (!f0) {
		osp_set_free(c.set);
		return -ENOMEM;
	}
	for (int i = 0; in->hist && i < RC_HBUCKETS && i < OSP_LOG_SPAN; i++)
		if (in->hist[i]) {
			osp_hist_add_bucket(&f0->hist, 1 + (unsigned)i, in->hist[i]);
			/* only buckets were kept: the total is estimated */
			f0->hist.total +=
			    (uint64_t)((double)in->hist[i] * osp_bucket_mid(1 + (unsigned)i, 1));
			if (f0->hist.min == UINT64_MAX)
				f0->hist.min = 1ull << i;
			f0->hist.max = (2ull << i) - 1;
		}
	char path[8192] = "";
	if (s->n)
		osp_rec(&c, s, 0, path, sizeof(path));
	char err[512];
	int rc = c.rc ? c.rc : osp_set_save(c.set, file, err, sizeof(err));
	if (rc)
		fprintf(stderr, "osprof rootcause: -o %s: %s\n", file,
		        c.rc ? strerror(-c.rc) : err);
	osp_set_free(c.set);
	return rc ? -EIO : 0;
}
