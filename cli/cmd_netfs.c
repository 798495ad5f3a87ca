/* osprof netfs: both ends of a network file system, client ops split into
 * the server's time and the network's (analysis/netfs.c). */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include <osprof/netfs.h>
#include <osprof/render.h>

static const char usage[] =
    "usage: osprof netfs [OPTIONS] CLIENT.osp SERVER.osp\n"
    "       osprof netfs [OPTIONS] --client-host H --server-host H BOTH.osp\n\n"
    "Splits each client operation of a network file system into the server's\n"
    "time for the RPCs it issued and the remainder: network, protocol and client\n"
    "queueing. Operations are grouped into RPC classes (read, write, open, close,\n"
    "stat, fsync, readdir, unlink, rmdir, mkdir, rename, symlink, setattr,\n"
    "statfs), since one server call can serve several client ops (an open serves\n"
    "open, create and opendir). Per class: client calls and mean, server calls per\n"
    "client call, the server's share of the client's total latency, the mean\n"
    "remainder, and three distributions: client, server and the remainder\n"
    "(estimated by quantile coupling: the client's latency at each 1 % rank less\n"
    "calls-per-op times the server's at the same rank). Client peaks that no\n"
    "server peak explains are the network's.\n\n"
    "Client profiles: layer stack ('osprof mount' over the client's mount point)\n"
    "or the fs layer's FUSE round trips (fuse_OP). Server profiles: 'osprof run -l\n"
    "user,syscall --by fs' of the server process (e.g. sftp-server); read and\n"
    "write come from syscall profiles of real file systems (the request\n"
    "channel's sockets and pipes left out), the rest from the user layer when\n"
    "present. One file holding both ends tells them apart by dimension host.\n\n"
    "Options:\n"
    "      --json              NDJSON: one object per class\n"
    "      --server-layer L    take every class's server time from layer L (user\n"
    "                          or syscall)\n"
    "      --client-host H     with one file: the client's profiles have host=H\n"
    "      --server-host H     with one file: the server's profiles have host=H\n"
    "  -h, --help              this text\n\n"
    "Exit status: 0 on success; 2 for a bad option or an unreadable file, or\n"
    "when no client operation is found.\n";

#define MAX_CLASSES 32

static void print_dist(const struct osp_netfs_class *c)
{
	const struct osp_hist *h[3] = {&c->client, &c->server, &c->remainder};
	int lo = -1, hi = -1;
	for (int k = 0; k < 3; k++) {
		int f = osp_hist_first(h[k]), l = osp_hist_last(h[k]);
		if (f >= 0 && (lo < 0 || f < lo))
			lo = f;
		if (l > hi)
			hi = l;
	}
	printf("  %-27s %10s %10s %12s\n", "latency", "client", "server", "remainder~");
	for (int b = lo; b >= 0 && b <= hi; b++) {
		char a[32], z[32], range[80];
		osp_format_ns(osp_bucket_lo((unsigned)b, c->client.r), a, sizeof(a));
		osp_format_ns(osp_bucket_hi((unsigned)b, c->client.r), z, sizeof(z));
		if (b == 0)
			snprintf(range, sizeof(range), "0");
		else
			snprintf(range, sizeof(range), "%s - %s", a, z);
		printf("  %-27s %10llu %10llu %12llu\n", range,
		       (unsigned long long)c->client.buckets[b],
		       (unsigned long long)c->server.buckets[b],
		       (unsigned long long)c->remainder.buckets[b]);
	}
	for (unsigned i = 0; i < c->net_peaks; i++) {
		char a[32], z[32];
		printf("  network peak: %s - %s (on the client only)\n",
		       osp_format_ns(c->net_peak_lo[i], a, sizeof(a)),
		       osp_format_ns(c->net_peak_hi[i], z, sizeof(z)));
	}
}

static double mean(const struct osp_hist *h)
{
	return h->count ? (double)h->total / (double)h->count : 0;
}

static void print_text(const char *client, const char *server, const struct osp_netfs_class *c,
                       int n)
{
	printf("osprof netfs: client %s, server %s\n\n", client, server);
	printf("%-8s %9s %11s %8s %11s %7s %12s %7s\n", "CLASS", "CALLS", "CLIENT MEAN", "RPCS/OP",
	       "SERVER MEAN", "SERVER", "REMAINDER", "LAYER");
	for (int i = 0; i < n; i++) {
		char cm[32], sm[32], rm[32];
		double r = c[i].remainder_ns;
		osp_format_ns((uint64_t)mean(&c[i].client), cm, sizeof(cm));
		osp_format_ns((uint64_t)mean(&c[i].server), sm, sizeof(sm));
		osp_format_ns((uint64_t)fabs(r), rm, sizeof(rm));
		printf("%-8s %9llu %11s %8.2f %11s %6.1f%% %s%11s %7s\n", c[i].name,
		       (unsigned long long)c[i].client.count, cm, c[i].rpcs_per_op, sm,
		       100 * c[i].server_share, r < 0 ? "-" : " ", rm, c[i].server_layer);
	}
	printf("(SERVER: the server's share of the client's total latency; REMAINDER: mean\n"
	       " per client call left to network, protocol and client queueing)\n");
	for (int i = 0; i < n; i++) {
		printf("\n%s:\n", c[i].name);
		print_dist(&c[i]);
	}
}

static void json_hist(const char *name, const struct osp_hist *h)
{
	printf(",\"%s\":{\"count\":%llu,\"total_ns\":%llu,\"buckets\":[", name,
	       (unsigned long long)h->count, (unsigned long long)h->total);
	int first = 1;
	for (unsigned b = 0; b < h->nbuckets; b++)
		if (h->buckets[b]) {
			printf("%s{\"index\":%u,\"lo_ns\":%llu,\"hi_ns\":%llu,\"count\":%llu}",
			       first ? "" : ",", b, (unsigned long long)osp_bucket_lo(b, h->r),
			       (unsigned long long)osp_bucket_hi(b, h->r),
			       (unsigned long long)h->buckets[b]);
			first = 0;
		}
	printf("]}");
}

static void print_json(const struct osp_netfs_class *c, int n)
{
	for (int i = 0; i < n; i++) {
		printf("{\"type\":\"netfs\",\"class\":\"");
		osp_json_string(stdout, c[i].name);
		printf("\",\"server_layer\":\"%s\",\"rpcs_per_op\":%.4f,\"server_share\":%.4f,"
		       "\"remainder_mean_ns\":%.0f",
		       c[i].server_layer, c[i].rpcs_per_op, c[i].server_share, c[i].remainder_ns);
		json_hist("client", &c[i].client);
		json_hist("server", &c[i].server);
		json_hist("remainder_estimate", &c[i].remainder);
		printf(",\"network_peaks\":[");
		for (unsigned k = 0; k < c[i].net_peaks; k++)
			printf("%s{\"lo_ns\":%llu,\"hi_ns\":%llu}", k ? "," : "",
			       (unsigned long long)c[i].net_peak_lo[k],
			       (unsigned long long)c[i].net_peak_hi[k]);
		printf("]}\n");
	}
}

enum { OPT_JSON = 256, OPT_LAYER, OPT_CHOST, OPT_SHOST };

int cmd_netfs(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"json", no_argument, 0, OPT_JSON},
	    {"server-layer", required_argument, 0, OPT_LAYER},
	    {"client-host", required_argument, 0, OPT_CHOST},
	    {"server-host", required_argument, 0, OPT_SHOST},
	    {"help", no_argument, 0, 'h'},
	    {0, 0, 0, 0},
	};
	struct osp_netfs_opts o = {0};
	int json = 0, c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_JSON:
			json = 1;
			break;
		case OPT_LAYER:
			if (strcmp(optarg, "user") && strcmp(optarg, "syscall"))
				return osp_usage_err("netfs",
				                     "--server-layer: '%s' is not user or "
				                     "syscall",
				                     optarg);
			o.server_layer = optarg;
			break;
		case OPT_CHOST:
			o.client_host = optarg;
			break;
		case OPT_SHOST:
			o.server_host = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return OSP_EXIT_OK;
		case ':':
			return osp_usage_err("netfs", "%s needs an argument", argv[optind - 1]);
		default:
			return osp_usage_err("netfs", "unknown option '%s'", argv[optind - 1]);
		}
	}
	int nfiles = argc - optind;
	if (nfiles == 1 && (!o.client_host || !o.server_host))
		return osp_usage_err("netfs", "one file needs --client-host and --server-host");
	if (nfiles != 1 && nfiles != 2)
		return osp_usage_err("netfs", "expected CLIENT.osp SERVER.osp");
	const char *cpath = argv[optind], *spath = argv[optind + nfiles - 1];
	struct osp_set *cs = osp_cli_load(cpath);
	if (!cs)
		return OSP_EXIT_USAGE;
	struct osp_set *ss = nfiles == 2 ? osp_cli_load(spath) : cs;
	if (!ss) {
		osp_set_free(cs);
		return OSP_EXIT_USAGE;
	}
	struct osp_netfs_class cls[MAX_CLASSES];
	char err[256];
	int n = osp_netfs_split(cs, ss, &o, cls, MAX_CLASSES, err, sizeof(err));
	int rc = OSP_EXIT_OK;
	if (n < 0) {
		fprintf(stderr, "osprof netfs: %s: %s\n", cpath, err);
		rc = OSP_EXIT_USAGE;
	} else if (json) {
		print_json(cls, n);
	} else {
		print_text(cpath, spath, cls, n);
	}
	if (n > 0)
		osp_netfs_free(cls, (unsigned)n);
	if (ss != cs)
		osp_set_free(ss);
	osp_set_free(cs);
	return rc;
}
