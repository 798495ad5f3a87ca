/* Uprobes on call sites (see uprobe_sites.h). */
#include <errno.h>
#include <stdlib.h>
#include "rootcause/bpf/rootcause.h"
#include "rootcause/uprobe_sites.h"

struct rc_usite_links {
	uint32_t id;
	struct bpf_link *enter, *ret;
};

static struct bpf_link *attach(struct bpf_program *p, pid_t pid, const char *path, uint64_t off,
                               uint64_t cookie)
{
	LIBBPF_OPTS(bpf_uprobe_opts, o, .bpf_cookie = cookie);
	return bpf_program__attach_uprobe_opts(p, pid, path, (size_t)off, &o);
}

int rc_usites_add(struct rc_usites *u, uint32_t id, const struct rc_site *s, const char *path,
                  uint64_t off, uint64_t rt)
{
	struct rc_bsite bs = {
	    .kind = (unsigned char)((s->tail ? RC_K_TAIL : 0) | (s->indirect ? RC_K_IND : 0)),
	    .is_mem = s->is_mem,
	    .base = s->base,
	    .index = s->index,
	    .scale = s->scale,
	    .disp = s->disp,
	    .next_ip = rt + s->len};
	if (bpf_map__update_elem(u->sites, &id, sizeof(id), &bs, sizeof(bs), BPF_ANY))
		return -errno;
	struct rc_usite_links *l = realloc(u->links, (u->n + 1) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	u->links = l;
	l = &u->links[u->n];
	*l = (struct rc_usite_links){.id = id};
	l->enter = attach(u->enter, u->pid, path, off, id);
	if (!l->enter)
		return -errno;
	/* Tail jumps end when the enclosing call returns: no return probe. */
	if (!s->tail) {
		l->ret = attach(u->ret, u->pid, path, off + s->len, id);
		if (!l->ret) {
			int e = -errno;
			bpf_link__destroy(l->enter);
			return e;
		}
	}
	u->n++;
	return 0;
}

int rc_usites_del(struct rc_usites *u, uint32_t id)
{
	for (size_t i = 0; i < u->n; i++) {
		if (u->links[i].id != id)
			continue;
		bpf_link__destroy(u->links[i].enter);
		bpf_link__destroy(u->links[i].ret);
		u->links[i] = u->links[--u->n];
		bpf_map__delete_elem(u->sites, &id, sizeof(id), 0);
		return 0;
	}
	return -ENOENT;
}

void rc_usites_free(struct rc_usites *u)
{
	for (size_t i = 0; i < u->n; i++) {
		bpf_link__destroy(u->links[i].enter);
		bpf_link__destroy(u->links[i].ret);
	}
	free(u->links);
	u->links = NULL;
	u->n = 0;
}
