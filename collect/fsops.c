/* The generic fs layer: loading, attaching and reading (fsops.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "collect/bpf_common.h"
#include "collect/bpf/kl_types.h"
#include "collect/fsops.h"
#include "collect/fsops_discover.h"
#include "collect/kl_util.h"
#include "fsops.skel.h"

#define KPROBE_PMU "/sys/bus/event_source/devices/kprobe/type"

struct fsops_probe {
	struct fsops_fn fn;
	enum osp_attach_mode mode;
	size_t obj;    /* index in fsops.objs */
	unsigned slot; /* its program pair there */
	struct bpf_link *links[2];
};

struct fsops {
	unsigned by;
	struct fsops_found found;
	struct fsops_probe *v; /* the functions loaded; op id = index */
	size_t n;
	struct fsops_bpf **objs; /* objs[0] owns the shared maps */
	size_t nobjs;
	struct osp_bpf_stats *stats; /* per object */
	char refused[512];           /* functions no mode could load, for one line */
};

/* The first mode to try: fentry unless OSPROF_ATTACH=kprobe asks for the
 * fallback (tests use it to compare both). */
static int kprobe_forced(void)
{
	const char *e = getenv("OSPROF_ATTACH");
	return e && !strcmp(e, "kprobe");
}

static struct bpf_program *prog(struct fsops_bpf *k, const char *kind, unsigned slot)
{
	char name[32];
	snprintf(name, sizeof(name), "fo_%s_%u", kind, slot);
	return bpf_object__find_program_by_name(k->obj, name);
}

/* Loads fns[0..n) (n <= FSOPS_SLOTS) into one object in mode m, as op ids
 * first_id.. ; appends it to f->objs. 0 or -errno. */
static int load_obj(struct osp_session *s, struct fsops *f, const struct fsops_fn *fns, unsigned n,
                    enum osp_attach_mode m, size_t first_id)
{
	struct fsops_bpf **objs = realloc(f->objs, (f->nobjs + 1) * sizeof(*objs));
	if (!objs)
		return -ENOMEM;
	f->objs = objs;
	struct osp_bpf_stats *st = realloc(f->stats, (f->nobjs + 1) * sizeof(*st));
	if (!st)
		return -ENOMEM;
	f->stats = st;
	memset(&st[f->nobjs], 0, sizeof(*st));
	struct fsops_bpf *k = fsops_bpf__open();
	if (!k)
		return -errno;
	int rc = OSP_BPF_SETUP(k, s);
	if (rc)
		goto fail;
	((struct osp_bpf_cfg *)&k->rodata->osp_cfg)->by = f->by;
	struct bpf_program *p;
	bpf_object__for_each_program(p, k->obj)
	{
		bpf_program__set_autoload(p, false);
	}
	int fentry = m == OSP_ATTACH_FENTRY;
	for (unsigned j = 0; j < n; j++) {
		k->rodata->slot_func[j] = (__u32)(first_id + j);
		k->rodata->slot_arg[j] = fns[j].arg_idx;
		k->rodata->slot_kind[j] = fns[j].kind;
		struct bpf_program *in = prog(k, fentry ? "fentry" : "kprobe", j);
		struct bpf_program *out = prog(k, fentry ? "fexit" : "kretprobe", j);
		bpf_program__set_autoload(in, true);
		bpf_program__set_autoload(out, true);
		if (fentry) {
			bpf_program__set_attach_target(in, 0, fns[j].name);
			bpf_program__set_attach_target(out, 0, fns[j].name);
		}
	}
	if (f->nobjs) { /* every object shares the first one's maps */
		struct fsops_bpf *o = f->objs[0];
		if ((rc = bpf_map__reuse_fd(k->maps.fsops_stacks,
		                            bpf_map__fd(o->maps.fsops_stacks))) ||
		    (rc = bpf_map__reuse_fd(k->maps.fsops_hist, bpf_map__fd(o->maps.fsops_hist))) ||
		    (rc = bpf_map__reuse_fd(k->maps.fsops_types, bpf_map__fd(o->maps.fsops_types))))
			goto fail;
	} else {
		bpf_map__set_max_entries(k->maps.fsops_stacks, osp_bpf_thread_slots());
	}
	if ((rc = fsops_bpf__load(k)))
		goto fail;
	f->objs[f->nobjs++] = k;
	return 0;
fail:
	fsops_bpf__destroy(k);
	return rc;
}

/* Records fns[0..n) as loaded in the last object, slots 0.. */
static void add_probes(struct fsops *f, const struct fsops_fn *fns, unsigned n,
                       enum osp_attach_mode m)
{
	for (unsigned j = 0; j < n; j++) {
		struct fsops_probe *p = &f->v[f->n++];
		memset(p, 0, sizeof(*p));
		p->fn = fns[j];
		p->mode = m;
		p->obj = f->nobjs - 1;
		p->slot = j;
	}
}

static void add_name(char *buf, size_t len, const char *name)
{
	size_t l = strlen(buf);
	if (l + strlen(name) + 8 < len)
		snprintf(buf + l, len - l, "%s%s", l ? ", " : "", name);
	else if (l + 6 < len && !strstr(buf, ", ..."))
		snprintf(buf + l, len - l, ", ...");
}

static void types_of(const struct fsops_found *fd, char *buf, size_t len)
{
	buf[0] = 0;
	for (size_t i = 0; i < fd->nfs; i++)
		add_name(buf, len, fd->fs[i].type);
}

int fsops_prepare(struct osp_session *s, unsigned by, struct fsops **out)
{
	*out = NULL;
	const char *off = getenv("OSPROF_FSOPS");
	if (off && !strcmp(off, "off"))
		return 0;
	struct fsops *f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->by = by;
	int rc = fsops_discover(s->fs_types, 1, &f->found);
	if (rc) {
		free(f);
		return rc;
	}
	char types[256];
	types_of(&f->found, types, sizeof(types));
	if (*f->found.unseen)
		fprintf(stderr, "osprof: fs: cannot read the VFS ops of %s\n", f->found.unseen);
	if (!f->found.nfs || !f->found.nfn) {
		if (s->fs_types)
			fprintf(
			    stderr, "osprof: fs: --fs %s: no mounted file system of %s to time\n",
			    s->fs_types, strchr(s->fs_types, ',') ? "these types" : "that type");
		fsops_free(f);
		return 0;
	}
	f->v = calloc(f->found.nfn, sizeof(*f->v));
	if (!f->v) {
		fsops_free(f);
		return -ENOMEM;
	}
	/* fentry first (cheaper per call), kprobe where the kernel refuses it.
	 * Functions go FSOPS_SLOTS to an object; a group the kernel refuses is
	 * retried one function at a time, each in the other mode if need be,
	 * and a function no mode loads is left out, named once. Whether the
	 * kernel takes fentry at all is told by the first function alone. */
	int have_kprobe = access(KPROBE_PMU, F_OK) == 0, fentry_ok = !kprobe_forced();
	char why_fentry[96] = "not tried: OSPROF_ATTACH=kprobe", why_kprobe[96] = "";
	if (!have_kprobe)
		snprintf(why_kprobe, sizeof(why_kprobe), "not in this kernel: no %s", KPROBE_PMU);
	struct rlimit nofile; /* each object holds a dozen descriptors */
	if (!getrlimit(RLIMIT_NOFILE, &nofile) && nofile.rlim_cur < nofile.rlim_max) {
		nofile.rlim_cur = nofile.rlim_max;
		setrlimit(RLIMIT_NOFILE, &nofile);
	}
	libbpf_print_fn_t old = libbpf_set_print(NULL);
	const struct fsops_fn *fns = f->found.fn;
	size_t nfn = f->found.nfn;
	if (fentry_ok && (rc = load_obj(s, f, fns, 1, OSP_ATTACH_FENTRY, 0))) {
		fentry_ok = 0; /* the kernel refuses fentry itself */
		snprintf(why_fentry, sizeof(why_fentry), "refused at BPF load: %s", strerror(-rc));
	} else if (fentry_ok) {
		add_probes(f, fns, 1, OSP_ATTACH_FENTRY);
		fns++, nfn--;
	}
	enum osp_attach_mode mode = fentry_ok ? OSP_ATTACH_FENTRY : OSP_ATTACH_KPROBE;
	if (!fentry_ok && !have_kprobe)
		nfn = 0;
	while (nfn) {
		unsigned g = nfn < FSOPS_SLOTS ? (unsigned)nfn : FSOPS_SLOTS;
		if ((rc = load_obj(s, f, fns, g, mode, f->n)) == 0) {
			add_probes(f, fns, g, mode);
		} else if (rc == -ENOMEM) {
			break;
		} else {
			for (unsigned j = 0; j < g; j++) {
				enum osp_attach_mode m = mode;
				int r = load_obj(s, f, fns + j, 1, m, f->n);
				if (r && m == OSP_ATTACH_FENTRY && have_kprobe)
					r = load_obj(s, f, fns + j, 1, m = OSP_ATTACH_KPROBE, f->n);
				if (r && !*why_kprobe && m == OSP_ATTACH_KPROBE)
					snprintf(why_kprobe, sizeof(why_kprobe), "refused: %s",
					         strerror(-r));
				if (r && s->verbose)
					fprintf(stderr, "osprof: fs: %s (%s): refused: %s\n",
					        fns[j].name, fns[j].op, strerror(-r));
				if (r)
					add_name(f->refused, sizeof(f->refused), fns[j].name);
				else
					add_probes(f, fns + j, 1, m);
			}
			rc = 0;
		}
		fns += g, nfn -= g;
	}
	libbpf_set_print(old);
	if (rc == -ENOMEM) {
		fsops_free(f);
		return rc;
	}
	if (!f->n) {
		fprintf(stderr,
		        "osprof: fs: cannot see the VFS operations of %s here: fentry/fexit %s, "
		        "kprobe/kretprobe %s; a kernel with BPF trampolines (fentry) or "
		        "CONFIG_KPROBES would time them (tracepoint pairs only)\n",
		        types, why_fentry, why_kprobe);
		fsops_free(f);
		return 0;
	}
	if (*f->refused)
		fprintf(stderr, "osprof: fs: going on without %s (no attach mode loads them)\n",
		        f->refused);
	/* the profiled types: their file_system_type addresses in the map */
	int tfd = bpf_map__fd(f->objs[0]->maps.fsops_types);
	for (size_t i = 0; i < f->found.nfs; i++) {
		__u32 ix = (__u32)i;
		if (bpf_map_update_elem(tfd, &f->found.fs[i].s_type, &ix, 0)) {
			rc = -errno;
			fsops_free(f);
			return rc;
		}
	}
	if (s->verbose)
		fprintf(stderr, "osprof: fs: %zu VFS op functions of %s\n", f->n, types);
	*out = f;
	return 0;
}

/* Attaches p in its mode; 0 or -errno with no link left behind. */
static int attach_one(struct fsops *f, struct fsops_probe *p)
{
	struct fsops_bpf *b = f->objs[p->obj];
	/* exits first: an entry whose exit probe is not there yet stays open */
	if (p->mode == OSP_ATTACH_FENTRY) {
		p->links[1] = bpf_program__attach(prog(b, "fexit", p->slot));
		p->links[0] = p->links[1] ? bpf_program__attach(prog(b, "fentry", p->slot)) : NULL;
	} else {
		p->links[1] =
		    bpf_program__attach_kprobe(prog(b, "kretprobe", p->slot), true, p->fn.name);
		p->links[0] = p->links[1] ? bpf_program__attach_kprobe(prog(b, "kprobe", p->slot),
		                                                       false, p->fn.name)
		                          : NULL;
	}
	if (p->links[0])
		return 0;
	int rc = errno ? -errno : -EINVAL;
	bpf_link__destroy(p->links[1]);
	p->links[1] = NULL;
	return rc;
}

int fsops_attach(struct osp_session *s, struct fsops *f)
{
	char failed[512] = "", why[96] = "";
	size_t ok = 0;
	for (size_t i = 0; i < f->n; i++) {
		struct fsops_probe *p = &f->v[i];
		int rc = attach_one(f, p);
		if (rc && p->mode == OSP_ATTACH_FENTRY && access(KPROBE_PMU, F_OK) == 0) {
			/* a function the trampolines refuse: its kprobe may do */
			libbpf_print_fn_t pr = libbpf_set_print(NULL);
			if (!load_obj(s, f, &p->fn, 1, OSP_ATTACH_KPROBE, i)) {
				p->obj = f->nobjs - 1;
				p->slot = 0;
				p->mode = OSP_ATTACH_KPROBE;
				rc = attach_one(f, p);
			}
			libbpf_set_print(pr);
		}
		if (rc) {
			/* Some functions the kernel's trampolines or kprobes refuse
			 * (ENOTSUPP 524, a blacklisted symbol): left out. */
			if (!*why)
				snprintf(why, sizeof(why), "%s: %s", osp_attach_mode_name(p->mode),
				         rc == -524 ? "not supported for this function"
				                    : strerror(-rc));
			add_name(failed, sizeof(failed), p->fn.name);
			continue;
		}
		ok++;
		char t[192];
		snprintf(t, sizeof(t), "%s (%s)", p->fn.name, p->fn.op);
		osp_bpf_note_attach(s, "fs", t, p->mode);
	}
	if (*failed)
		fprintf(stderr, "osprof: fs: cannot attach to %s (%s); going on without them\n",
		        failed, why);
	if (!ok) {
		fprintf(stderr, "osprof: fs: no VFS op function could be attached\n");
		return -ENOENT;
	}
	return 0;
}

static int desc(void *ctx, const struct osp_hkey *k, struct osp_bpf_desc *d)
{
	struct fsops *f = ctx;
	if (k->op >= f->n || k->aux >= f->found.nfs)
		return 1;
	d->op = f->v[k->op].fn.op;
	d->dims[d->ndims++] = (struct osp_dim){"fs", f->found.fs[k->aux].type};
	if (k->flags & OSP_HK_PREEMPTED)
		d->dims[d->ndims++] = (struct osp_dim){"state", "preempted"};
	kl_by_dims(f->by, k, d);
	return 0;
}

int fsops_collect(struct osp_session *s, struct fsops *f, int reset)
{
	int rc =
	    osp_bpf_read_hists(s, bpf_map__fd(f->objs[0]->maps.fsops_hist), "fs", desc, f, reset);
	for (size_t i = 0; i < f->nobjs && !rc; i++)
		rc = osp_bpf_read_stats(s, f->objs[i]->obj, &f->stats[i]);
	return rc;
}

void fsops_free(struct fsops *f)
{
	if (!f)
		return;
	for (size_t i = f->n; i-- > 0;) {
		bpf_link__destroy(f->v[i].links[0]);
		bpf_link__destroy(f->v[i].links[1]);
	}
	for (size_t i = f->nobjs; i-- > 0;)
		fsops_bpf__destroy(f->objs[i]);
	free(f->objs);
	free(f->stats);
	free(f->v);
	fsops_found_free(&f->found);
	free(f);
}

/* For list: the mode the first function of the first file system loads
 * with here, or why none does (a real load, nothing attached). */
void fsops_list(FILE *out, int verbose)
{
	struct fsops_found fd;
	char types[256] = "", mode[160] = "";
	if (geteuid() != 0) {
		snprintf(mode, sizeof(mode), "unknown: probing needs root");
	} else if (fsops_discover(NULL, 1, &fd) == 0) {
		types_of(&fd, types, sizeof(types));
		struct osp_session s = {0};
		struct fsops f = {0};
		int rc = -ENOENT;
		libbpf_print_fn_t old = libbpf_set_print(NULL);
		/* private copies of the common maps: acquire/release them */
		if (fd.nfn && !osp_bpf_common_acquire(&s)) {
			if (!kprobe_forced() &&
			    !(rc = load_obj(&s, &f, fd.fn, 1, OSP_ATTACH_FENTRY, 0)))
				snprintf(mode, sizeof(mode), "fentry");
			else if (access(KPROBE_PMU, F_OK) == 0 &&
			         !(rc = load_obj(&s, &f, fd.fn, 1, OSP_ATTACH_KPROBE, 0)))
				snprintf(mode, sizeof(mode), "kprobe (fentry %s)",
				         kprobe_forced() ? "not tried: OSPROF_ATTACH=kprobe"
				                         : "refused");
			else
				snprintf(mode, sizeof(mode),
				         "unavailable: fentry/fexit refused at BPF load (%s), "
				         "kprobe/kretprobe %s",
				         strerror(-rc),
				         access(KPROBE_PMU, F_OK) ? "not in this kernel"
				                                  : "refused");
			for (size_t i = 0; i < f.nobjs; i++)
				fsops_bpf__destroy(f.objs[i]);
			free(f.objs);
			osp_bpf_common_release(&s);
		} else if (!fd.nfn) {
			snprintf(mode, sizeof(mode), "unavailable: no ops functions found");
		}
		libbpf_set_print(old);
		fprintf(out, "  vfs ops  %zu functions of the ops tables of %s%s%s\n", fd.nfn,
		        *types ? types : "(no file system mounted)",
		        strncmp(mode, "unavailable", 11) ? " via " : ": ", mode);
		for (size_t i = 0; verbose && i < fd.nfn; i++)
			fprintf(out, "    %-16s %s\n", fd.fn[i].op, fd.fn[i].name);
		fsops_found_free(&fd);
		return;
	} else {
		snprintf(mode, sizeof(mode), "unavailable: discovery failed");
	}
	fprintf(out, "  vfs ops  %s\n", mode);
}
