/* Generic steps of a one-skeleton, one-histogram-map layer (bpf_layer.h). */
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "collect/bpf_layer.h"
#include "collect/kl_util.h"

/* Objects that carry raw_tp twins load the twin of the mode this kernel
 * gets (osp_bpf_tp_mode); objects without them need tp_btf. */
static enum osp_attach_mode pick_flavours(struct bpf_object *obj)
{
	struct bpf_program *p;
	int twins = 0;
	bpf_object__for_each_program(p, obj) twins +=
	    !strncmp(bpf_program__section_name(p), "raw_tp/", 7);
	if (!twins)
		return OSP_ATTACH_TP_BTF;
	enum osp_attach_mode m = osp_bpf_tp_mode();
	bpf_object__for_each_program(p, obj)
	{
		const char *sec = bpf_program__section_name(p);
		if (!strncmp(sec, "tp_btf/", 7))
			bpf_program__set_autoload(p, m == OSP_ATTACH_TP_BTF);
		else if (!strncmp(sec, "raw_tp/", 7))
			bpf_program__set_autoload(p, m != OSP_ATTACH_TP_BTF);
	}
	return m;
}

static int prepare(const struct osp_bpf_layer *l, struct osp_session *s, int slot)
{
	int rc = osp_bpf_check(l->name);
	if (rc)
		return rc;
	struct osp_bpf_layer_state *st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->l = l;
	s->layer_state[slot] = st;
	if ((rc = osp_bpf_common_acquire(s)))
		return rc;
	st->acquired = 1;
	if ((rc = l->open(&st->k))) {
		fprintf(stderr, "osprof: %s: cannot open the BPF object: %s\n", l->name,
		        strerror(-rc));
		return rc;
	}
	osp_bpf_cfg_fill(s, st->k.cfg);
	if ((rc = osp_bpf_share_maps(st->k.obj)))
		return rc;
	st->mode = pick_flavours(st->k.obj);
	if (l->by_task)
		st->by = kl_by_code(l->name, s->by, l->by_caller, s->verbose);
	else if (s->by && s->verbose && (!l->by_own || strcmp(s->by, l->by_own)))
		fprintf(stderr, "osprof: %s: --by %s does not apply (%s); not split\n", l->name,
		        s->by, l->no_by);
	if (l->configure && (rc = l->configure(s, st)))
		return rc;
	st->k.cfg->by = st->by;
	if ((rc = bpf_object__load_skeleton(st->k.sk))) {
		fprintf(stderr, "osprof: %s: cannot load the BPF object (%s %s): %s\n", l->name,
		        osp_attach_mode_name(st->mode), l->tps, strerror(-rc));
		return rc;
	}
	return 0;
}

int osp_bpf_layer_prepare(const struct osp_bpf_layer *l, struct osp_session *s, int slot)
{
	int rc = prepare(l, s, slot);
	if (rc)
		osp_bpf_layer_destroy(s, slot);
	return rc;
}

int osp_bpf_layer_attach(struct osp_session *s, int slot)
{
	struct osp_bpf_layer_state *st = s->layer_state[slot];
	const struct osp_bpf_layer *l = st->l;
	int rc = osp_bpf_common_start(s);
	if (rc)
		return rc;
	if ((rc = bpf_object__attach_skeleton(st->k.sk))) {
		fprintf(stderr, "osprof: %s: cannot attach to %s (%s): %s\n", l->name, l->tps,
		        osp_attach_mode_name(st->mode), strerror(-rc));
		return rc;
	}
	for (const char *tp = l->tps; *tp;) {
		char name[64];
		size_t n = strcspn(tp, ",");
		snprintf(name, sizeof(name), "%.*s", (int)n, tp);
		osp_bpf_note_attach(s, l->name, name, st->mode);
		tp += n + (tp[n] == ',');
	}
	return 0;
}

int osp_bpf_layer_collect(struct osp_session *s, int slot, int reset)
{
	struct osp_bpf_layer_state *st = s->layer_state[slot];
	const struct osp_bpf_layer *l = st->l;
	int rc = l->before_read ? l->before_read(st) : 0;
	if (!rc) {
		struct bpf_map *m = bpf_object__find_map_by_name(st->k.obj, l->hist);
		rc = m ? osp_bpf_read_hists(s, bpf_map__fd(m), l->name, l->desc, st, reset)
		       : -ENOENT;
	}
	if (!rc)
		rc = osp_bpf_read_stats(s, st->k.obj, &st->stats);
	if (rc)
		fprintf(stderr, "osprof: %s: cannot read the histograms: %s\n", l->name,
		        strerror(-rc));
	return rc;
}

void osp_bpf_layer_destroy(struct osp_session *s, int slot)
{
	struct osp_bpf_layer_state *st = s->layer_state[slot];
	if (!st)
		return;
	if (st->k.sk) { /* what NAME_bpf__destroy does */
		bpf_object__destroy_skeleton(st->k.sk);
		free(st->k.skel);
	}
	if (st->priv && st->l->free_priv)
		st->l->free_priv(st->priv);
	if (st->acquired)
		osp_bpf_common_release(s);
	free(st);
	s->layer_state[slot] = NULL;
}

int osp_bpf_layer_list(const struct osp_bpf_layer *l, FILE *out, int verbose)
{
	if (l->list_own)
		return l->list_own(out, verbose);
	int root = geteuid() == 0 && access("/sys/kernel/btf/vmlinux", R_OK) == 0;
	const char *mode = !l->tp_btf_only ? kl_tp_mode_name()
	                   : root          ? "tp_btf"
	                                   : "tp_btf (needs root)";
	fprintf(out, l->list_line, mode);
	fputc('\n', out);
	if (verbose && l->list_more)
		fputs(l->list_more, out);
	return 0;
}
