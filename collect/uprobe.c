/* uprobe layer: latency of user functions named by --uprobe BIN:SYM[,...]
 * (a SYM without BIN: uses the previous BIN), through uprobe/uretprobe. One
 * entry and one return program serve every function; the attach cookie is
 * the function's index. Probes are set on the file for every process and
 * filtered in the kernel by the session's target. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "collect/bpf_common.h"
#include "collect/bpf/kl_types.h"
#include "collect/kl_util.h"
#include "uprobe.skel.h"

struct ufunc {
	char *bin; /* as given; libbpf resolves names without '/' in PATH */
	char *sym;
	const char *base; /* basename of bin, the profile's bin= dimension */
};

struct uprobe_state {
	struct uprobe_bpf *skel;
	size_t n;
	struct ufunc *f;
	struct bpf_link **links;
	size_t nlinks;
	struct osp_bpf_stats stats;
	unsigned by; /* KL_BY_* */
	int acquired;
};

static void uprobe_destroy(struct osp_session *s, int slot)
{
	struct uprobe_state *st = s->layer_state[slot];
	if (!st)
		return;
	kl_links_destroy(st->links, st->nlinks);
	uprobe_bpf__destroy(st->skel);
	for (size_t i = 0; i < st->n; i++) {
		free(st->f[i].bin);
		free(st->f[i].sym);
	}
	free(st->f);
	if (st->acquired)
		osp_bpf_common_release(s);
	free(st);
	s->layer_state[slot] = NULL;
}

/* Splits "BIN:SYM,SYM,BIN2:SYM" into functions; -EINVAL after one line. */
static int parse(struct uprobe_state *st, const char *spec)
{
	char *dup = strdup(spec), *save = NULL;
	const char *bin = NULL;
	int rc = 0;
	if (!dup)
		return -ENOMEM;
	for (char *it = strtok_r(dup, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
		char *colon = strrchr(it, ':');
		const char *sym = it;
		if (colon) {
			*colon = 0;
			bin = it;
			sym = colon + 1;
		}
		if (!bin || !*bin || !*sym) {
			fprintf(stderr, "osprof: --uprobe '%s': expected BIN:SYM[,SYM...]\n", spec);
			rc = -EINVAL;
			break;
		}
		int blank = 0;
		for (const char *c = sym; *c; c++)
			blank |= (unsigned char)*c <= ' ' || *c == 0x7f;
		if (blank) {
			fprintf(stderr, "osprof: --uprobe %s:%s: a symbol name has no blanks\n",
			        bin, sym);
			rc = -EINVAL;
			break;
		}
		if (strchr(bin, '/') && access(bin, R_OK) != 0) {
			fprintf(stderr, "osprof: --uprobe %s:%s: %s: %s\n", bin, sym, bin,
			        strerror(errno));
			rc = -ENOENT;
			break;
		}
		struct ufunc *f = realloc(st->f, (st->n + 1) * sizeof(*f));
		if (!f) {
			rc = -ENOMEM;
			break;
		}
		st->f = f;
		f = &st->f[st->n];
		f->bin = strdup(bin);
		f->sym = strdup(sym);
		if (!f->bin || !f->sym) {
			free(f->bin);
			free(f->sym);
			rc = -ENOMEM;
			break;
		}
		const char *sl = strrchr(f->bin, '/');
		f->base = sl ? sl + 1 : f->bin;
		st->n++;
	}
	free(dup);
	if (!rc && st->n == 0) {
		fprintf(stderr, "osprof: --uprobe: no function given (BIN:SYM[,SYM...])\n");
		rc = -EINVAL;
	}
	return rc;
}

static int uprobe_prepare_(struct osp_session *s, int slot)
{
	if (!s->uprobes) {
		fprintf(stderr, "osprof: the uprobe layer needs --uprobe BIN:SYM[,SYM...]\n");
		return -EINVAL;
	}
	int rc = osp_bpf_check("uprobe");
	if (rc)
		return rc;
	struct uprobe_state *st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	s->layer_state[slot] = st;
	if ((rc = parse(st, s->uprobes))) {
		s->bad_input = rc != -ENOMEM;
		return rc;
	}
	if ((rc = osp_bpf_common_acquire(s)))
		return rc;
	st->acquired = 1;
	if (!(st->skel = uprobe_bpf__open())) {
		rc = -errno;
		fprintf(stderr, "osprof: uprobe: cannot open the BPF object: %s\n",
		        strerror(errno));
		return rc;
	}
	if ((rc = OSP_BPF_SETUP(st->skel, s)))
		return rc;
	st->by = kl_by_code("uprobe", s->by, 0, s->verbose);
	((struct osp_bpf_cfg *)&st->skel->rodata->osp_cfg)->by = st->by;
	if ((rc = uprobe_bpf__load(st->skel))) {
		fprintf(stderr, "osprof: uprobe: cannot load the BPF object: %s\n", strerror(-rc));
		return rc;
	}
	if (!(st->links = calloc(2 * st->n, sizeof(*st->links))))
		return -ENOMEM;
	return 0;
}

/* A layer whose prepare fails is not destroyed by its caller: clean up here. */
static int uprobe_prepare(struct osp_session *s, int slot)
{
	int rc = uprobe_prepare_(s, slot);
	if (rc)
		uprobe_destroy(s, slot);
	return rc;
}

static int attach_one(struct uprobe_state *st, size_t i, int ret)
{
	struct ufunc *f = &st->f[i];
	LIBBPF_OPTS(bpf_uprobe_opts, o, .func_name = f->sym, .retprobe = ret, .bpf_cookie = i);
	struct bpf_program *p = ret ? st->skel->progs.up_return : st->skel->progs.up_entry;
	struct bpf_link *l = bpf_program__attach_uprobe_opts(p, -1, f->bin, 0, &o);
	if (!l) {
		int e = errno;
		if (e == ENOENT)
			fprintf(stderr,
			        "osprof: --uprobe %s:%s: no function %s in %s (or %s not found)\n",
			        f->bin, f->sym, f->sym, f->bin, f->bin);
		else
			fprintf(stderr, "osprof: --uprobe %s:%s: cannot attach %s: %s\n", f->bin,
			        f->sym, ret ? "uretprobe" : "uprobe", strerror(e));
		return -e;
	}
	st->links[st->nlinks++] = l;
	return 0;
}

static int uprobe_attach(struct osp_session *s, int slot)
{
	struct uprobe_state *st = s->layer_state[slot];
	int rc = osp_bpf_common_start(s);
	/* returns first, as in the fs layer: no entry without its return probe */
	for (size_t i = 0; i < st->n && !rc; i++)
		rc = attach_one(st, i, 1);
	for (size_t i = 0; i < st->n && !rc; i++)
		rc = attach_one(st, i, 0);
	s->bad_input = rc == -ENOENT; /* a symbol that is not in the binary */
	for (size_t i = 0; i < st->n && !rc; i++) {
		char t[512];
		snprintf(t, sizeof(t), "%s:%s", st->f[i].bin, st->f[i].sym);
		osp_bpf_note_attach(s, "uprobe", t, OSP_ATTACH_UPROBE);
	}
	return rc;
}

static int desc(void *ctx, const struct osp_hkey *k, struct osp_bpf_desc *d)
{
	struct uprobe_state *st = ctx;
	if (k->op >= st->n)
		return 1;
	d->op = st->f[k->op].sym;
	d->dims[d->ndims++] = (struct osp_dim){"bin", (char *)st->f[k->op].base};
	if (k->flags & OSP_HK_PREEMPTED)
		d->dims[d->ndims++] = (struct osp_dim){"state", "preempted"};
	kl_by_dims(st->by, k, d);
	return 0;
}

static int uprobe_collect(struct osp_session *s, int slot, int reset)
{
	struct uprobe_state *st = s->layer_state[slot];
	int rc =
	    osp_bpf_read_hists(s, bpf_map__fd(st->skel->maps.up_hist), "uprobe", desc, st, reset);
	if (!rc)
		rc = osp_bpf_read_stats(s, st->skel->obj, &st->stats);
	if (rc)
		fprintf(stderr, "osprof: uprobe: cannot read the histograms: %s\n", strerror(-rc));
	return rc;
}

static int uprobe_list(FILE *out, int verbose)
{
	fprintf(out, "uprobe   user functions, --uprobe BIN:SYM[,SYM...], via uprobe/uretprobe%s\n",
	        geteuid() == 0 ? "" : " (needs root)");
	if (verbose)
		fprintf(out, "  one program pair for all functions, cookie = function index;\n"
		             "  BIN a path or a library name (libc.so.6)\n");
	return 0;
}

const struct osp_layer osp_layer_uprobe = {
    .name = "uprobe",
    .by = "pid,tid,comm",
    .summary = "user functions in any binary or library (--uprobe BIN:SYM[,...])",
    .needs_root = 1,
    OSP_LAYER_STEPS(uprobe),
};
