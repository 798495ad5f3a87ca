/* The trampoline backend's uprobe fallback (see tramp_uprobe.h). */
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rc_fallback.skel.h"
#include "rootcause/bpf/rootcause.h"
#include "rootcause/tramp_uprobe.h"
#include "rootcause/uprobe_sites.h"

struct rc_tfb {
	struct rc_fallback_bpf *skel;
	struct rc_usites sites;
};

static int quiet_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level, (void)fmt, (void)ap;
	return 0;
}

struct rc_tfb *rc_tfb_new(char *why, size_t len)
{
	if (geteuid() != 0) {
		snprintf(why, len, "uprobes need root");
		return NULL;
	}
	struct rc_tfb *f = calloc(1, sizeof(*f));
	if (!f) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	/* A kernel without uprobes or BTF is a reason, not an error. */
	libbpf_print_fn_t old = libbpf_set_print(quiet_libbpf);
	f->skel = rc_fallback_bpf__open_and_load();
	int err = f->skel ? 0 : -errno;
	libbpf_set_print(old);
	int fd = f->skel ? bpf_map__fd(f->skel->maps.cells) : -1;
	/* CMD inherits the cells: no close-on-exec. */
	if (!err && fcntl(fd, F_SETFD, 0))
		err = -errno;
	if (err) {
		snprintf(why, len, "uprobe programs not loaded: %s", strerror(-err));
		rc_tfb_free(f);
		return NULL;
	}
	f->sites = (struct rc_usites){.sites = f->skel->maps.sites,
	                              .enter = f->skel->progs.rc_fb_enter,
	                              .ret = f->skel->progs.rc_fb_return,
	                              .pid = -1};
	return f;
}

int rc_tfb_fd(const struct rc_tfb *f)
{
	return bpf_map__fd(f->skel->maps.cells);
}

int rc_tfb_add_site(struct rc_tfb *f, uint32_t id, const struct rc_site *s, const char *path,
                    uint64_t off, uint64_t rt)
{
	return rc_usites_add(&f->sites, id, s, path, off, rt);
}

int rc_tfb_del_site(struct rc_tfb *f, uint32_t id)
{
	return rc_usites_del(&f->sites, id);
}

int rc_tfb_edge(struct rc_tfb *f, uint32_t parent, uint32_t site, uint32_t slot)
{
	struct rc_ckey k = {parent, site};
	struct bpf_map *m = f->skel->maps.children;
	int rc = slot == UINT32_MAX
	             ? bpf_map__delete_elem(m, &k, sizeof(k), 0)
	             : bpf_map__update_elem(m, &k, sizeof(k), &slot, sizeof(slot), BPF_ANY);
	return rc ? -errno : 0;
}

void rc_tfb_free(struct rc_tfb *f)
{
	if (!f)
		return;
	rc_usites_free(&f->sites);
	rc_fallback_bpf__destroy(f->skel);
	free(f);
}
