/* osprof netfs: both ends of a network file system, client ops split into
 * the server's time and the network's (analysis/netfs.c). */
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/options.h"
#include <osprof/analysis.h>

static const char usage_head[] =
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
    "Options:\n";

static const char usage_tail[] =
    "\n"
    "Exit status: 0 on success; 2 for a bad option or an unreadable file, or\n"
    "when no client operation is found.\n";

#define MAX_CLASSES 32

static const char *const server_layers[] = {"user", "syscall", NULL};

static const struct osp_opts_spec spec = {.cmd = "netfs", .head = usage_head, .tail = usage_tail};

int cmd_netfs(int argc, char **argv)
{
	struct osp_netfs_opts o = {0};
	int json = 0, optind;
	struct osp_option opts[] = {
	    OSP_OPT_FLAG(0, "json", &json, "NDJSON: one object per class"),
	    OSP_OPT_CHOICE(0, "server-layer", &o.server_layer, server_layers, "L",
	                   "take every class's server time from layer L (user\n"
	                   "or syscall)"),
	    OSP_OPT_STRING(0, "client-host", &o.client_host, "H",
	                   "with one file: the client's profiles have host=H"),
	    OSP_OPT_STRING(0, "server-host", &o.server_host, "H",
	                   "with one file: the server's profiles have host=H"),
	    OSP_OPT_END,
	};
	OSP_PARSE_OR_RETURN(osp_opts_parse(&spec, opts, argc, argv, &optind));
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
