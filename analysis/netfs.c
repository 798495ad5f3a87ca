/* osprof netfs: client operations split into server time and remainder.
 * Operations are grouped into RPC classes because the mapping is not one
 * to one: an SFTP or NFS open serves FUSE open, create and opendir alike,
 * a stat serves getattr and lookup, and one client read may issue several
 * server reads. Within a class the server's summed time is the server's
 * share; what is left of the client's time is the network's, the
 * protocol's and the client's queueing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <osprof/analysis.h>

#define MAX_NAMES 16

struct class_def {
	const char *name;
	const char *client[MAX_NAMES];
	const char *server[MAX_NAMES];
	int channel_io; /* server calls that also move the protocol's bytes */
	/* NFS procedures (v3 and v4 names) that serve the class: the rpc
	 * layer's names on both ends */
	const char *rpc[MAX_NAMES];
};

/* Client names are FUSE's (stack layer, fuse_OP round trips) and the VFS
 * members the fs layer times on nfs/nfs4 (read_iter, atomic_open, ...). */
static const struct class_def classes[] = {
    {"read", {"read", "read_iter"}, {"read", "pread64", "pread", "preadv", "readv"}, 1, {"READ"}},
    {"write",
     {"write", "write_iter"},
     {"write", "pwrite64", "pwrite", "pwritev", "writev"},
     1,
     {"WRITE"}},
    {"open",
     {"open", "create", "opendir", "atomic_open"},
     {"openat", "open", "open64", "openat64", "opendir", "fdopendir", "creat"},
     0,
     {"OPEN", "OPEN_NOATTR", "CREATE", "ACCESS"}},
    {"close", {"release", "releasedir", "flush"}, {"close", "closedir"}, 0, {"CLOSE"}},
    {"stat",
     {"getattr", "lookup"},
     {"newfstatat", "statx", "fstat", "lstat", "stat", "fstatat", "newlstat", "newstat", "newfstat",
      "stat64", "lstat64", "fstat64", "fstatat64"},
     0,
     {"GETATTR", "LOOKUP"}},
    {"fsync", {"fsync", "fsyncdir"}, {"fsync", "fdatasync"}, 0, {"COMMIT"}},
    {"readdir",
     {"readdir", "readdirplus", "iterate_shared"},
     {"getdents64", "getdents", "readdir", "readdir64"},
     0,
     {"READDIR", "READDIRPLUS"}},
    {"unlink", {"unlink"}, {"unlink", "unlinkat"}, 0, {"REMOVE"}},
    {"rmdir", {"rmdir"}, {"rmdir"}, 0, {"RMDIR", "REMOVE"}},
    {"mkdir", {"mkdir"}, {"mkdir", "mkdirat"}, 0, {"MKDIR", "CREATE"}},
    {"rename",
     {"rename", "rename2", "link"},
     {"rename", "renameat", "renameat2", "link", "linkat"},
     0,
     {"RENAME", "LINK"}},
    {"symlink",
     {"symlink", "readlink"},
     {"symlink", "symlinkat", "readlink", "readlinkat"},
     0,
     {"SYMLINK", "READLINK"}},
    {"setattr",
     {"setattr"},
     {"chmod", "fchmod", "fchmodat", "truncate", "ftruncate", "utimes", "utimensat", "futimens",
      "chown", "lchown", "fchown", "fchownat"},
     0,
     {"SETATTR"}},
    {"statfs", {"statfs"}, {"statfs", "fstatfs", "statvfs", "fstatvfs"}, 0, {"FSSTAT", "STATFS"}},
};
#define NCLASSES (sizeof(classes) / sizeof(classes[0]))

static int in_list(const char *const *list, const char *op)
{
	for (unsigned i = 0; i < MAX_NAMES && list[i]; i++)
		if (!strcmp(list[i], op))
			return 1;
	return 0;
}

static int host_ok(const struct osp_profile *p, const char *host)
{
	if (!host)
		return 1;
	const char *h = osp_profile_dim(p, "host");
	return h && !strcmp(h, host);
}

/* An fs-layer profile of an NFS mount (the VFS ops' fs=nfs|nfs4). */
static int nfs_profile(const struct osp_profile *p)
{
	const char *fs = osp_profile_dim(p, "fs");
	return !strcmp(p->layer, "fs") && fs && (!strcmp(fs, "nfs") || !strcmp(fs, "nfs4"));
}

/* The client's name of p's operation in mode (what client_mode chose):
 * stack ops as they are, the fs layer's FUSE round trips without their
 * fuse_ prefix, the fs layer's VFS ops on NFS as they are; NULL
 * otherwise. */
static const char *client_op(const struct osp_profile *p, const char *mode)
{
	if (!strcmp(mode, "nfs"))
		return nfs_profile(p) ? p->op : NULL;
	if (strcmp(p->layer, mode))
		return NULL;
	if (!strcmp(mode, "stack"))
		return p->op;
	return strncmp(p->op, "fuse_", 5) ? NULL : p->op + 5;
}

/* stack, fs (FUSE round trips), nfs (fs layer on an NFS mount) or NULL. */
static const char *client_mode(const struct osp_set *s, const char *host)
{
	int fs = 0, nfs = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (!host_ok(s->profiles[i], host) || s->profiles[i]->unit != OSP_UNIT_NS)
			continue;
		if (!strcmp(s->profiles[i]->layer, "stack"))
			return "stack";
		fs |= client_op(s->profiles[i], "fs") != NULL;
		nfs |= nfs_profile(s->profiles[i]);
	}
	return fs ? "fs" : nfs ? "nfs" : NULL;
}

/* An rpc-layer profile of an NFS procedure of class d, on side (client or
 * server), time=execute. */
static int nfs_rpc(const struct osp_profile *p, const struct class_def *d, const char *side)
{
	const char *sd = osp_profile_dim(p, "side"), *t = osp_profile_dim(p, "time"),
	           *prog = osp_profile_dim(p, "prog");
	return !strcmp(p->layer, "rpc") && p->unit == OSP_UNIT_NS && sd && !strcmp(sd, side) && t &&
	       !strcmp(t, "execute") && prog && !strcmp(prog, "nfs") && in_list(d->rpc, p->op);
}

/* The rpc layer's calls of class d on one side into h (h NULL: counted
 * only); their number. */
static uint64_t add_rpcs(const struct osp_set *s, const struct class_def *d, const char *side,
                         const char *host, struct osp_hist *h)
{
	uint64_t n = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct osp_profile *p = s->profiles[i];
		if (!host_ok(p, host) || !nfs_rpc(p, d, side))
			continue;
		if (h)
			osp_hist_merge(h, &p->hist);
		n += p->hist.count;
	}
	return n;
}

/* A server profile that moves the request channel's bytes, not a file's. */
static int channel_fs(const char *fs)
{
	static const char *const chan[] = {"sockfs", "pipefs", "anon_inodefs", "devpts", NULL};
	return in_list(chan, fs);
}

static int has_layer(const struct osp_set *s, const char *layer, const char *host)
{
	for (size_t i = 0; i < s->n; i++)
		if (host_ok(s->profiles[i], host) && !strcmp(s->profiles[i]->layer, layer))
			return 1;
	return 0;
}

/* Adds the server profiles of class d from layer into h; the number added. */
static unsigned add_server(const struct osp_set *s, const struct class_def *d, const char *layer,
                           int files_only, const char *host, struct osp_hist *h)
{
	unsigned n = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct osp_profile *p = s->profiles[i];
		if (!host_ok(p, host) || p->unit != OSP_UNIT_NS || strcmp(p->layer, layer) ||
		    !in_list(d->server, p->op))
			continue;
		const char *fs = osp_profile_dim(p, "fs");
		if (files_only && (!fs || channel_fs(fs)))
			continue;
		osp_hist_merge(h, &p->hist);
		n++;
	}
	return n;
}

static void pick_server(const struct osp_set *s, const struct class_def *d,
                        const struct osp_netfs_opts *o, struct osp_netfs_class *c)
{
	const char *host = o->server_host;
	if (c->nfs) { /* nfsd's time per request, from the rpc layer */
		c->server_layer = "rpc";
		add_rpcs(s, d, "server", host, &c->server);
		return;
	}
	if (o->server_layer) {
		c->server_layer = o->server_layer;
		add_server(s, d, o->server_layer,
		           d->channel_io && !strcmp(o->server_layer, "syscall"), host, &c->server);
		return;
	}
	/* The syscall layer split --by fs tells file reads from the channel's;
	 * elsewhere the user layer's libc calls hold all the server did. */
	if (d->channel_io && add_server(s, d, "syscall", 1, host, &c->server)) {
		c->server_layer = "syscall";
		return;
	}
	c->server_layer = has_layer(s, "user", host) ? "user" : "syscall";
	add_server(s, d, c->server_layer, 0, host, &c->server);
}

/* Remainder by quantile coupling, at 1 % ranks. */
static void couple(struct osp_netfs_class *c)
{
	uint64_t n = c->client.count;
	for (unsigned k = 0; k < 100 && n; k++) {
		uint64_t calls = (k + 1) * n / 100 - k * n / 100;
		if (!calls)
			continue;
		double q = (k + 0.5) / 100.0;
		double cv = (double)osp_hist_quantile(&c->client, q);
		double sv = c->server.count ? (double)osp_hist_quantile(&c->server, q) : 0;
		double r = cv - c->rpcs_per_op * sv;
		uint64_t v = r > 0 ? (uint64_t)r : 0;
		osp_hist_add_bucket(&c->remainder, osp_bucket_index(v, c->remainder.r), calls);
		c->remainder.total += v * calls;
		if (v < c->remainder.min)
			c->remainder.min = v;
		if (v > c->remainder.max)
			c->remainder.max = v;
	}
}

/* Client peaks that no server peak overlaps (a client call's latency is at
 * least its server time: a server peak one bucket to the left still
 * explains it). */
static void network_peaks(struct osp_netfs_class *c)
{
	struct osp_peak cp[32], sp[32];
	unsigned nc = osp_find_peaks(&c->client, NULL, cp, 32);
	unsigned ns = c->server.count ? osp_find_peaks(&c->server, NULL, sp, 32) : 0;
	nc = nc > 32 ? 32 : nc;
	ns = ns > 32 ? 32 : ns;
	for (unsigned i = 0; i < nc; i++) {
		int explained = 0;
		for (unsigned j = 0; j < ns && !explained; j++)
			explained = sp[j].first <= cp[i].last && sp[j].last + 1 >= cp[i].first;
		if (explained || c->net_peaks >= 8)
			continue;
		c->net_peak_lo[c->net_peaks] = cp[i].lo_ns;
		c->net_peak_hi[c->net_peaks] = cp[i].hi_ns;
		c->net_peaks++;
	}
}

/* The client profiled its own RPCs (layer rpc, side=client). */
static int has_client_rpcs(const struct osp_set *s, const char *host)
{
	for (size_t i = 0; i < s->n; i++) {
		const char *side = osp_profile_dim(s->profiles[i], "side");
		if (host_ok(s->profiles[i], host) && !strcmp(s->profiles[i]->layer, "rpc") &&
		    side && !strcmp(side, "client"))
			return 1;
	}
	return 0;
}

static int by_client_total(const void *a, const void *b)
{
	const struct osp_netfs_class *x = a, *y = b;
	return x->client.total < y->client.total ? 1 : x->client.total > y->client.total ? -1 : 0;
}

int osp_netfs_split(const struct osp_set *client, const struct osp_set *server,
                    const struct osp_netfs_opts *o, struct osp_netfs_class *out, unsigned max,
                    char *err, size_t errlen)
{
	if (client->r != server->r) {
		snprintf(err, errlen, "resolutions differ (client %u, server %u)", client->r,
		         server->r);
		return -1;
	}
	const char *cl = client_mode(client, o->client_host);
	if (!cl) {
		snprintf(err, errlen,
		         "no client operations: expected layer stack (osprof mount), fs "
		         "fuse_* round trips or fs ops with fs=nfs|nfs4%s%s",
		         o->client_host ? " with host=" : "", o->client_host ? o->client_host : "");
		return -1;
	}
	int client_rpc = has_client_rpcs(client, o->client_host);
	unsigned n = 0;
	for (unsigned k = 0; k < NCLASSES && n < max; k++) {
		struct osp_netfs_class *c = &out[n];
		memset(c, 0, sizeof(*c));
		c->name = classes[k].name;
		if (osp_hist_init(&c->client, client->r) || osp_hist_init(&c->server, client->r) ||
		    osp_hist_init(&c->remainder, client->r)) {
			osp_netfs_free(out, n + 1);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		for (size_t i = 0; i < client->n; i++) {
			const struct osp_profile *p = client->profiles[i];
			const char *op = client_op(p, cl);
			if (op && p->unit == OSP_UNIT_NS && host_ok(p, o->client_host) &&
			    in_list(classes[k].client, op))
				osp_hist_merge(&c->client, &p->hist);
		}
		if (!c->client.count) {
			osp_netfs_free(c, 1);
			continue;
		}
		c->nfs = !strcmp(cl, "nfs");
		if (c->nfs)
			c->client_rpcs =
			    add_rpcs(client, &classes[k], "client", o->client_host, NULL);
		pick_server(server, &classes[k], o, c);
		/* The server's time for this client's calls: all its calls of the
		 * class, or, when the client profiled its own RPCs, their number
		 * times the server's mean (the server also serves other processes
		 * and clients: osprof's own GETATTRs, other mounts). */
		int own = c->nfs && client_rpc;
		double calls = own ? (double)c->client_rpcs : (double)c->server.count;
		double stot = (double)c->server.total;
		if (own)
			stot = c->server.count ? stot / (double)c->server.count * calls : 0;
		c->rpcs_per_op = calls / (double)c->client.count;
		c->server_share = c->client.total ? stot / (double)c->client.total : 0;
		c->remainder_ns = ((double)c->client.total - stot) / (double)c->client.count;
		couple(c);
		network_peaks(c);
		n++;
	}
	qsort(out, n, sizeof(out[0]), by_client_total);
	return (int)n;
}

void osp_netfs_free(struct osp_netfs_class *c, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		osp_hist_free(&c[i].client);
		osp_hist_free(&c[i].server);
		osp_hist_free(&c[i].remainder);
	}
}
