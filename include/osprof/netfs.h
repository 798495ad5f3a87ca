/* Network file systems seen from both ends (osprof netfs): each client
 * operation's latency split into the server's time for the RPCs it issued
 * and the remainder -- network, protocol and client queueing. Client
 * profiles come from layer `stack` (osprof mount over the client's mount)
 * or from the fs layer's FUSE round trips (fuse_OP); server profiles from
 * the user and syscall layers of the server process. */
#ifndef OSPROF_NETFS_H
#define OSPROF_NETFS_H

#include <stdint.h>
#include <osprof/hist.h>
#include <osprof/profile.h>

/* One class of RPCs: the client ops that issue them and the server calls
 * that serve them (e.g. read: client read; server read, pread64). */
struct osp_netfs_class {
	const char *name;
	struct osp_hist client, server; /* summed over the class's profiles */
	const char *server_layer;       /* where the server time came from */
	/* Quantile coupling of the two distributions (client quantile minus
	 * RPCs-per-op times the server quantile at the same rank, at 1 % steps,
	 * clamped at 0): an estimate of the remainder's distribution, with
	 * client.count calls. */
	struct osp_hist remainder;
	double rpcs_per_op;  /* server calls per client call */
	double server_share; /* of the client's total latency, 0..1 (may exceed 1) */
	double remainder_ns; /* mean per client call */
	unsigned net_peaks;  /* client peaks no server peak overlaps */
	uint64_t net_peak_lo[8], net_peak_hi[8];
};

struct osp_netfs_opts {
	/* Server layer to take every class from ("user", "syscall"); NULL:
	 * per class -- read and write from syscall profiles split --by fs
	 * (file systems only: the request channel's sockets and pipes are
	 * left out), everything else from user when present. */
	const char *server_layer;
	/* One set holding both ends: profiles with dim host=client_host and
	 * host=server_host; NULL when client and server are separate sets. */
	const char *client_host, *server_host;
};

/* Fills out[0..max) with the classes that have client calls, largest client
 * total first; returns their number, or -1 with err filled (resolutions
 * differ, no client profile). Free with osp_netfs_free. */
int osp_netfs_split(const struct osp_set *client, const struct osp_set *server,
                    const struct osp_netfs_opts *o, struct osp_netfs_class *out, unsigned max,
                    char *err, size_t errlen);
void osp_netfs_free(struct osp_netfs_class *c, unsigned n);

#endif
