/* osprof netfs: both ends of a network file system, client ops split into
 * the server's time and the network's (analysis/netfs.c). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include <osprof/analysis.h>

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
    "present. One file holding both ends tells them apart by dimension host.\n"
    "NFS: client ops from the fs layer on an nfs/nfs4 mount ('osprof run -l\n"
    "fs,rpc --fs nfs4', the rpc layer adding the client's own RPCs per class),\n"
    "server time from the rpc layer's side=server calls ('osprof record --comm\n"
    "nfsd -l rpc'), matched by NFS procedure (READ, WRITE, GETATTR, ...). With\n"
    "the client's own RPCs, RPCS/OP counts them and the server's share is the\n"
    "server's mean once per such call (nfsd also serves other processes).\n\n"
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
		osp_print_netfs_json(stdout, cls, n);
	} else {
		osp_print_netfs(stdout, cpath, spath, cls, n);
	}
	if (n > 0)
		osp_netfs_free(cls, (unsigned)n);
	if (ss != cs)
		osp_set_free(ss);
	osp_set_free(cs);
	return rc;
}
