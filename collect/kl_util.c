/* Helpers of the kernel layers (see kl_util.h). */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "collect/bpf_common.h"
#include "collect/kl_util.h"

const char *kl_tp_mode_name(void)
{
	if (geteuid() != 0 || access("/sys/kernel/btf/vmlinux", R_OK) != 0)
		return "tp_btf (raw_tp fallback)";
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
