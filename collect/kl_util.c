/* Helpers of the kernel layers (see kl_util.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "collect/bpf_common.h"
#include "collect/bpf/kl_types.h"
#include "collect/kl_util.h"

const char *kl_tp_mode_name(void)
{
	if (geteuid() != 0 || access("/sys/kernel/btf/vmlinux", R_OK) != 0)
		return "tp_btf (needs root)";
	/* the probe's failed load is expected on old kernels: keep libbpf quiet */
	libbpf_print_fn_t old = libbpf_set_print(NULL);
	const char *m = osp_attach_mode_name(osp_bpf_tp_mode());
	libbpf_set_print(old);
	return m;
}

struct closer {
	struct bpf_link **links;
	size_t n;
};

static void *close_some(void *arg)
{
	struct closer *c = arg;
	for (size_t i = 0; i < c->n; i++)
		bpf_link__destroy(c->links[i]);
	return NULL;
}

void kl_links_destroy(struct bpf_link **links, size_t n)
{
	enum { MAXT = 32 };
	pthread_t t[MAXT];
	struct closer c[MAXT];
	size_t nt = n < MAXT ? n : MAXT, started = 0, done = 0;
	for (size_t i = 0; i < nt; i++) {
		/* thread i closes links [done, done + share) */
		size_t share = (n - done) / (nt - i);
		c[i] = (struct closer){links + done, share};
		done += share;
		if (pthread_create(&t[i], NULL, close_some, &c[i]) == 0)
			started |= (size_t)1 << i;
		else
			close_some(&c[i]); /* no thread: close them here */
	}
	for (size_t i = 0; i < nt; i++)
		if (started & ((size_t)1 << i))
			pthread_join(t[i], NULL);
	free(links);
}

unsigned kl_by_code(const char *layer, const char *by, int caller_ok, int verbose)
{
	if (!by)
		return KL_BY_NONE;
	if (!strcmp(by, "pid"))
		return KL_BY_PID;
	if (!strcmp(by, "tid"))
		return KL_BY_TID;
	if (!strcmp(by, "comm"))
		return KL_BY_COMM;
	if (!strcmp(by, "caller") && caller_ok)
		return KL_BY_CALLER;
	if (verbose)
		fprintf(stderr, "osprof: %s: --by %s does not apply to this layer; not split\n",
		        layer, by);
	return KL_BY_NONE;
}

void kl_by_dims(unsigned code, const struct osp_hkey *k, struct osp_bpf_desc *d)
{
	char *b = d->buf + sizeof(d->buf) - 64;
	if (d->ndims >= OSP_MAX_DIMS)
		return;
	if (code == KL_BY_PID || code == KL_BY_TID) {
		snprintf(b, 64, "%llu", (unsigned long long)k->dim[0]);
		d->dims[d->ndims++] = (struct osp_dim){code == KL_BY_PID ? "pid" : "tid", b};
	} else if (code == KL_BY_COMM) {
		memcpy(b, k->dim, 16);
		b[16] = 0;
		/* comm is any bytes: keep it printable for the profile format */
		for (char *c = b; *c; c++)
			if ((unsigned char)*c < ' ' || *c == 0x7f)
				*c = '?';
		d->dims[d->ndims++] = (struct osp_dim){"comm", b[0] ? b : "?"};
	}
}
