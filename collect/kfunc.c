/* fs --func: fentry/fexit, else kprobe/kretprobe (see kfunc.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "collect/bpf_common.h"
#include "collect/kfunc.h"
#include "collect/kl_util.h"
#include "kfunc.skel.h"

#define KPROBE_PMU "/sys/bus/event_source/devices/kprobe/type"

struct kfunc {
	char *name;
	unsigned id;
	enum osp_attach_mode mode;
	struct kfunc_bpf *skel;
	struct bpf_link *links[2];
	struct osp_bpf_stats stats;
};

struct kfuncs {
	unsigned by; /* KL_BY_* */
	size_t n;
	struct kfunc *v;
};

/* 1 if sym is a function in /proc/kallsyms. */
static int kallsyms_has(const char *sym)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	if (!f)
		return 0;
	char line[512], type, name[256];
	unsigned long long addr;
	int found = 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 &&
		    (type == 't' || type == 'T') && !strcmp(name, sym))
			found = 1;
	fclose(f);
	return found;
}

/* Opens and loads one flavour; 0 or -errno with the reason in why. */
static int load(struct osp_session *s, struct kfunc *f, unsigned by, int fentry, char *why,
                size_t len)
{
	struct kfunc_bpf *k = kfunc_bpf__open();
	if (!k) {
		snprintf(why, len, "cannot open the BPF object: %s", strerror(errno));
		return -errno;
	}
	int rc = OSP_BPF_SETUP(k, s);
	if (rc) {
		snprintf(why, len, "cannot share the filter maps: %s", strerror(-rc));
		kfunc_bpf__destroy(k);
		return rc;
	}
	k->rodata->kfunc_id = f->id;
	((struct osp_bpf_cfg *)&k->rodata->osp_cfg)->by = by;
	bpf_program__set_autoload(k->progs.kf_fentry, fentry);
	bpf_program__set_autoload(k->progs.kf_fexit, fentry);
	bpf_program__set_autoload(k->progs.kf_kprobe, !fentry);
	bpf_program__set_autoload(k->progs.kf_kretprobe, !fentry);
	if (fentry) {
		bpf_program__set_attach_target(k->progs.kf_fentry, 0, f->name);
		bpf_program__set_attach_target(k->progs.kf_fexit, 0, f->name);
	}
	rc = kfunc_bpf__load(k);
	if (rc) {
		snprintf(why, len, "refused at BPF load: %s", strerror(-rc));
		kfunc_bpf__destroy(k);
		return rc;
	}
	f->skel = k;
	f->mode = fentry ? OSP_ATTACH_FENTRY : OSP_ATTACH_KPROBE;
	return 0;
}

/* Tries fentry, then kprobe. On failure both reasons are in why[]. */
static int probe(struct osp_session *s, struct kfunc *f, unsigned by, char why[2][160])
{
	if (load(s, f, by, 1, why[0], sizeof(why[0])) == 0)
		return 0;
	if (access(KPROBE_PMU, F_OK) != 0) {
		snprintf(why[1], sizeof(why[1]), "not in this kernel: %s is missing", KPROBE_PMU);
		return -EOPNOTSUPP;
	}
	return load(s, f, by, 0, why[1], sizeof(why[1]));
}

int kfuncs_prepare(struct osp_session *s, const char *list, unsigned first_id, unsigned by,
                   struct kfuncs **out)
{
	struct kfuncs *k = calloc(1, sizeof(*k));
	char *dup = strdup(list), *save = NULL;
	int rc = 0, refused = 0;
	if (!k || !dup) {
		free(k);
		free(dup);
		return -ENOMEM;
	}
	k->by = by;
	for (char *sym = strtok_r(dup, ",", &save); sym; sym = strtok_r(NULL, ",", &save)) {
		if (!kallsyms_has(sym)) {
			fprintf(stderr,
			        "osprof: --func %s: no kernel function of that name in "
			        "/proc/kallsyms\n",
			        sym);
			s->bad_input = 1;
			rc = -EINVAL;
			break;
		}
		struct kfunc *v = realloc(k->v, (k->n + 1) * sizeof(*v));
		if (!v) {
			rc = -ENOMEM;
			break;
		}
		k->v = v;
		struct kfunc *f = &k->v[k->n++];
		memset(f, 0, sizeof(*f));
		f->name = strdup(sym);
		f->id = first_id + (unsigned)(k->n - 1);
		char why[2][160] = {"", ""};
		if (!f->name) {
			rc = -ENOMEM;
			break;
		}
		if (probe(s, f, by, why)) {
			/* Degrade: this function is left out, the rest goes on. */
			fprintf(stderr,
			        "osprof: --func %s: cannot time kernel functions here: tried "
			        "fentry/fexit (%s) and kprobe/kretprobe (%s); going on without it "
			        "(a kernel with BPF trampolines or CONFIG_KPROBES would time it)\n",
			        sym, why[0], why[1]);
			free(f->name);
			k->n--;
			refused++;
		}
	}
	if (!rc && k->n == 0 && refused) {
		kfuncs_free(k);
		free(dup);
		*out = NULL;
		return 0;
	}
	if (!rc && k->n == 0) {
		fprintf(stderr, "osprof: --func: empty function list\n");
		s->bad_input = 1;
		rc = -EINVAL;
	}
	free(dup);
	if (rc) {
		kfuncs_free(k);
		return rc;
	}
	*out = k;
	return 0;
}

int kfuncs_attach(struct osp_session *s, struct kfuncs *k)
{
	for (size_t i = 0; i < k->n; i++) {
		struct kfunc *f = &k->v[i];
		struct kfunc_bpf *b = f->skel;
		if (f->mode == OSP_ATTACH_FENTRY) {
			f->links[0] = bpf_program__attach(b->progs.kf_fentry);
			f->links[1] = f->links[0] ? bpf_program__attach(b->progs.kf_fexit) : NULL;
		} else {
			f->links[0] =
			    bpf_program__attach_kprobe(b->progs.kf_kprobe, false, f->name);
			f->links[1] =
			    f->links[0]
			        ? bpf_program__attach_kprobe(b->progs.kf_kretprobe, true, f->name)
			        : NULL;
		}
		if (!f->links[1]) {
			int rc = -errno;
			fprintf(stderr, "osprof: --func %s: cannot attach (%s): %s\n", f->name,
			        osp_attach_mode_name(f->mode), strerror(errno));
			return rc ? rc : -EINVAL;
		}
		osp_bpf_note_attach(s, "fs", f->name, f->mode);
	}
	return 0;
}

struct kdesc {
	struct kfunc *f;
	unsigned by;
};

static int desc(void *ctx, const struct osp_hkey *hk, struct osp_bpf_desc *d)
{
	struct kdesc *c = ctx;
	d->op = c->f->name;
	if (hk->flags & OSP_HK_PREEMPTED) {
		d->dims[0] = (struct osp_dim){"state", "preempted"};
		d->ndims = 1;
	}
	kl_by_dims(c->by, hk, d);
	return 0;
}

int kfuncs_collect(struct osp_session *s, struct kfuncs *k, int reset)
{
	for (size_t i = 0; i < k->n; i++) {
		struct kfunc *f = &k->v[i];
		struct kdesc c = {f, k->by};
		int rc = osp_bpf_read_hists(s, bpf_map__fd(f->skel->maps.kf_hist), "fs", desc, &c,
		                            reset);
		if (!rc)
			rc = osp_bpf_read_stats(s, f->skel->obj, &f->stats);
		if (rc)
			return rc;
	}
	return 0;
}

void kfuncs_free(struct kfuncs *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n; i++) {
		bpf_link__destroy(k->v[i].links[1]);
		bpf_link__destroy(k->v[i].links[0]);
		kfunc_bpf__destroy(k->v[i].skel);
		free(k->v[i].name);
	}
	free(k->v);
	free(k);
}

void kfuncs_list(FILE *out)
{
	const char *kp = access(KPROBE_PMU, F_OK) == 0 ? NULL : "not in this kernel";
	if (geteuid() != 0) {
		fprintf(out,
		        "  --func   fentry/fexit, else kprobe/kretprobe%s (probing needs root)\n",
		        kp ? " (not in this kernel)" : "");
		return;
	}
	/* A real load tells whether fentry is refused, as it is on some kernels;
	 * libbpf's own complaint about the refusal is not for the user. */
	libbpf_print_fn_t old = libbpf_set_print(NULL);
	struct kfunc_bpf *k = kfunc_bpf__open();
	char fe[128] = "cannot open the BPF object";
	int fentry_ok = 0;
	if (k) {
		bpf_program__set_autoload(k->progs.kf_kprobe, false);
		bpf_program__set_autoload(k->progs.kf_kretprobe, false);
		bpf_program__set_attach_target(k->progs.kf_fentry, 0, "vfs_read");
		bpf_program__set_attach_target(k->progs.kf_fexit, 0, "vfs_read");
		/* the filter maps are not shared here: a private copy is fine */
		bpf_map__set_max_entries(k->maps.osp_follow, 1);
		bpf_map__set_max_entries(k->maps.osp_pseq, 1);
		int rc = kfunc_bpf__load(k);
		fentry_ok = rc == 0;
		snprintf(fe, sizeof(fe), "refused at BPF load: %s", strerror(-rc));
		kfunc_bpf__destroy(k);
	}
	libbpf_set_print(old);
	if (fentry_ok)
		fprintf(out, "  --func   kernel functions via fentry/fexit\n");
	else if (!kp)
		fprintf(out, "  --func   kernel functions via kprobe/kretprobe (fentry/fexit %s)\n",
		        fe);
	else
		fprintf(out, "  --func   unavailable here: fentry/fexit %s; kprobe/kretprobe %s\n",
		        fe, kp);
}
