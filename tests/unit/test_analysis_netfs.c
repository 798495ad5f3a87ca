/* osprof netfs on sets built in memory: client ops grouped into RPC
 * classes, server time taken from the right layer (file reads from syscall
 * profiles split --by fs, the channel's socket reads left out), shares and
 * remainders exact, a client-only peak named the network's; NFS: fs-layer
 * ops on nfs4 against the rpc layer's server calls. */
#include <math.h>
#include <stdlib.h>
#include <osprof/analysis.h>
#include "tests/unit/check.h"

#define NEAR(a, b, eps) CHECK(fabs((a) - (b)) <= (eps))

static void put(struct osp_set *s, const char *layer, const char *op, const char *fs, uint64_t v,
                unsigned n)
{
	struct osp_dim d = {"fs", (char *)fs};
	struct osp_profile *p = osp_set_get(s, layer, op, fs ? &d : NULL, fs ? 1 : 0);
	for (unsigned i = 0; i < n; i++)
		osp_profile_add(s, p, v, 0);
}

static const struct osp_netfs_class *find(const struct osp_netfs_class *c, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(c[i].name, name))
			return &c[i];
	return NULL;
}

static void test_split(void)
{
	struct osp_set *cl = osp_set_new(1), *sv = osp_set_new(1);
	/* Client: 10 fsyncs of 50 ms, 4 opens + 4 creates of 1 ms, 8 getattr. */
	put(cl, "stack", "fsync", "fuse.sshfs", 50000000, 10);
	put(cl, "stack", "open", "fuse.sshfs", 1000000, 4);
	put(cl, "stack", "create", "fuse.sshfs", 1000000, 4);
	put(cl, "stack", "getattr", "fuse.sshfs", 500000, 8);
	/* Server: fsync 40 ms in user, openat 100 us, and reads of the
	 * channel that must not count as file reads. */
	put(sv, "user", "fsync", NULL, 40000000, 10);
	put(sv, "syscall", "fsync", "ext4", 1000, 10);
	put(sv, "user", "openat", NULL, 100000, 8);
	put(sv, "syscall", "read", "sockfs", 5000, 100);
	struct osp_netfs_class c[32];
	char err[128];
	struct osp_netfs_opts o = {0};
	int n = osp_netfs_split(cl, sv, &o, c, 32, err, sizeof(err));
	CHECK_EQ_U64(n, 3);
	CHECK_STR(c[0].name, "fsync"); /* the largest client total first */
	const struct osp_netfs_class *f = find(c, n, "fsync"), *op = find(c, n, "open"),
	                             *st = find(c, n, "stat");
	CHECK(f && op && st);
	if (f && op && st) {
		CHECK_STR(f->server_layer, "user");
		NEAR(f->rpcs_per_op, 1.0, 1e-9);
		NEAR(f->server_share, 0.8, 1e-9);
		NEAR(f->remainder_ns, 10e6, 1);
		CHECK_EQ_U64(f->remainder.count, 10);
		CHECK_EQ_U64(op->client.count, 8); /* open and create: one class */
		NEAR(op->server_share, 0.1, 1e-9);
		CHECK_EQ_U64(st->server.count, 0);
		NEAR(st->remainder_ns, 500000, 1);
	}
	osp_netfs_free(c, (unsigned)n);
	/* --server-layer syscall: the fsync's syscall time alone. */
	o.server_layer = "syscall";
	n = osp_netfs_split(cl, sv, &o, c, 32, err, sizeof(err));
	f = find(c, n, "fsync");
	CHECK(f && f->server.total == 10000);
	osp_netfs_free(c, (unsigned)n);
	osp_set_free(cl);
	osp_set_free(sv);
}

static void test_reads_and_peaks(void)
{
	struct osp_set *cl = osp_set_new(1), *sv = osp_set_new(1);
	/* 100 client reads of ~10 us, 50 more at ~5 ms the server never saw. */
	put(cl, "fs", "fuse_read", "fuse", 10000, 100);
	put(cl, "fs", "fuse_read", "fuse", 5000000, 50);
	put(sv, "syscall", "pread64", "ext4", 8000, 150);
	put(sv, "syscall", "read", "sockfs", 2000, 400);
	put(sv, "user", "read", NULL, 2000, 550);
	struct osp_netfs_class c[32];
	char err[128];
	struct osp_netfs_opts o = {0};
	int n = osp_netfs_split(cl, sv, &o, c, 32, err, sizeof(err));
	CHECK_EQ_U64(n, 1);
	if (n == 1) {
		CHECK_STR(c[0].name, "read");
		CHECK_STR(c[0].server_layer, "syscall");
		CHECK_EQ_U64(c[0].server.count, 150); /* the channel's reads left out */
		CHECK_EQ_U64(c[0].net_peaks, 1);
		CHECK(c[0].net_peak_lo[0] >= 4000000 && c[0].net_peak_hi[0] <= 6000000);
		osp_netfs_free(c, 1);
	}
	/* No client ops: an error, not an empty table. */
	CHECK(osp_netfs_split(sv, sv, &o, c, 32, err, sizeof(err)) < 0);
	CHECK(strstr(err, "no client operations") != NULL);
	osp_set_free(cl);
	osp_set_free(sv);
}

/* An rpc-layer profile: procedure op on side, time=execute. */
static void put_rpc(struct osp_set *s, const char *op, const char *side, uint64_t v, unsigned n)
{
	struct osp_dim d[4] = {
	    {"prog", "nfs"}, {"side", (char *)side}, {"time", "execute"}, {"vers", "4"}};
	struct osp_profile *p = osp_set_get(s, "rpc", op, d, 4);
	for (unsigned i = 0; i < n; i++)
		osp_profile_add(s, p, v, 0);
}

/* NFS: the fs layer's VFS ops on nfs4 against nfsd's calls. The server
 * served twice as many READs as this client issued (another client): the
 * share counts its mean once per client RPC. */
static void test_nfs(void)
{
	struct osp_set *cl = osp_set_new(1), *sv = osp_set_new(1);
	put(cl, "fs", "read_iter", "nfs4", 10000000, 10);
	put(cl, "fs", "nfs_getattr", "nfs", 1000, 10); /* a tracepoint pair: not an op */
	put(cl, "fs", "read_iter", "ext4", 1000, 10);  /* another file system */
	put_rpc(cl, "READ", "client", 9000000, 10);
	put_rpc(sv, "READ", "server", 2000000, 20);
	put_rpc(sv, "WRITE", "server", 2000000, 5);
	struct osp_netfs_class c[32];
	char err[128];
	struct osp_netfs_opts o = {0};
	int n = osp_netfs_split(cl, sv, &o, c, 32, err, sizeof(err));
	CHECK_EQ_U64(n, 1);
	const struct osp_netfs_class *r = find(c, n, "read");
	CHECK(r != NULL);
	if (r) {
		CHECK(r->nfs);
		CHECK_STR(r->server_layer, "rpc");
		CHECK_EQ_U64(r->client.count, 10);
		CHECK_EQ_U64(r->client_rpcs, 10);
		CHECK_EQ_U64(r->server.count, 20);
		NEAR(r->rpcs_per_op, 1.0, 1e-9);
		NEAR(r->server_share, 0.2, 1e-9);
		NEAR(r->remainder_ns, 8e6, 1);
	}
	osp_netfs_free(c, (unsigned)n);
	osp_set_free(cl);
	osp_set_free(sv);
}

int main(void)
{
	RUN(test_split);
	RUN(test_reads_and_peaks);
	RUN(test_nfs);
	CHECK_EXIT();
}
