/* rpc layer: Sun RPC round trips by procedure, client side (execute and
 * rtt per call, as /proc/self/mountstats counts them) and server side
 * (nfsd's time per request), from the sunrpc and nfsd tracepoints. One layer
 * for both ends rather than an nfsd layer of its own: the server's event is
 * sunrpc's too (svc_stats_latency serves every kernel RPC service), the
 * two ends share the procedure names `osprof netfs` pairs, and a machine
 * that is both client and server gets both in one run, told apart by the
 * dimension side. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "collect/bpf_layer.h"
#include "collect/bpf/kl_types.h"
#include "collect/kl_util.h"
#include "rpc.skel.h"

/* sunrpc and nfsd are modules (or built in with parameters): either way
 * /sys/module names them once their tracepoints exist. */
#define SUNRPC_MOD "/sys/module/sunrpc"
#define NFSD_MOD   "/sys/module/nfsd"

static const char no_sunrpc[] = "this kernel has no sunrpc (no " SUNRPC_MOD
                                "): build it with CONFIG_SUNRPC, or load it (modprobe "
                                "sunrpc; mounting NFS loads it)";

static const char *prog_name(unsigned prog)
{
	switch (prog) {
	case 100000:
		return "rpcbind";
	case 100003:
		return "nfs";
	case 100005:
		return "mount";
	case 100021:
		return "nlockmgr";
	case 100024:
		return "status";
	case 100227:
		return "nfsacl";
	default:
		return NULL;
	}
}

OSP_BPF_SKEL_OPENER(rpc)

static int desc(void *ctx, const struct osp_hkey *k, struct osp_bpf_desc *d)
{
	struct rpc_bpf *skel = ((struct osp_bpf_layer_state *)ctx)->k.skel;
	struct kl_rpc_name n = {0};
	__u64 key = k->dim[0];
	if (k->op > KL_RPC_RTT || k->aux > KL_RPC_SERVER)
		return 1;
	if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.rpc_names), &key, &n) || !n.name[0])
		snprintf(n.name, sizeof(n.name), "unknown");
	n.name[sizeof(n.name) - 1] = 0;
	for (char *c = n.name; *c; c++) /* names are the kernel's: keep them printable */
		if ((unsigned char)*c <= ' ')
			*c = '?';
	unsigned prog = (unsigned)(k->dim[1] >> 32), vers = (unsigned)k->dim[1];
	const char *pn = prog_name(prog);
	char *p = d->buf;
	size_t left = sizeof(d->buf);
	int w = snprintf(p, left, "%s", n.name);
	d->op = p;
	p += w + 1, left -= (size_t)w + 1;
	if (pn)
		w = snprintf(p, left, "%s", pn);
	else
		w = snprintf(p, left, "%u", prog);
	d->dims[d->ndims++] = (struct osp_dim){"prog", p};
	p += w + 1, left -= (size_t)w + 1;
	snprintf(p, left, "%u", vers);
	d->dims[d->ndims++] = (struct osp_dim){"vers", p};
	d->dims[d->ndims++] =
	    (struct osp_dim){"side", (char *)(k->aux == KL_RPC_SERVER ? "server" : "client")};
	d->dims[d->ndims++] =
	    (struct osp_dim){"time", (char *)(k->op == KL_RPC_RTT ? "rtt" : "execute")};
	return 0;
}

/* Without nfsd (a client-only machine) the compound naming programs have
 * nothing to attach to: the server side then names v4 calls COMPOUND. */
static int configure(struct osp_session *s, struct osp_bpf_layer_state *st)
{
	(void)s;
	if (access(SUNRPC_MOD, F_OK)) {
		fprintf(stderr, "osprof: -l rpc: %s\n", no_sunrpc);
		return -ENOENT;
	}
	if (access(NFSD_MOD, F_OK)) {
		struct bpf_program *p;
		bpf_object__for_each_program(
		    p, st->k.obj) if (strstr(bpf_program__name(p), "compound"))
		    bpf_program__set_autoload(p, 0);
	}
	return 0;
}

static int rpc_list_own(FILE *out, int verbose)
{
	if (access(SUNRPC_MOD, F_OK)) {
		fprintf(out, "rpc      unavailable here: %s\n", no_sunrpc);
		return 0;
	}
	fprintf(out,
	        "rpc      Sun RPC (NFS) calls by procedure, client and server side, via %s%s\n",
	        kl_tp_mode_name(), access(NFSD_MOD, F_OK) ? " (no nfsd here: client side)" : "");
	if (verbose)
		fprintf(out,
		        "  client  rpc_stats_latency: time=execute (task start to end) and rtt\n"
		        "          (transmit to reply), the calls /proc/self/mountstats counts\n"
		        "  server  svc_stats_latency: request received to reply sent; an NFSv4\n"
		        "          COMPOUND is named after its first op past SEQUENCE/PUTFH\n"
		        "          (nfsd_compound_status)\n");
	return 0;
}

OSP_BPF_LAYER(rpc, NULL,
              "Sun RPC (NFS) round trips by procedure: client execute and rtt, server time",
              .tps = "rpc_stats_latency,svc_stats_latency,nfsd_compound,nfsd_compound_status",
              .hist = "rpc_hist", .no_by = "split by procedure, program, version and side",
              .configure = configure, .desc = desc, .list_own = rpc_list_own);
