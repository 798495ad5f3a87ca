/* osprof merge: add profile sets, e.g. the same workload on many hosts. */
#include <stdlib.h>
#include <string.h>
#include <uthash.h>
#include "cli/cli.h"
#include "cli/options.h"

static const char usage_head[] =
    "usage: osprof merge [--combine-hosts] [--drop-slices] -o OUT FILE...\n\n"
    "Adds the profile sets FILE... into OUT: histograms of the same (layer, op,\n"
    "dimensions) are summed, lost and unpaired event counts are added, other\n"
    "metadata comes from the first file.\n"
    "Hosts: every file records the host it was measured on; merge keeps it as a\n"
    "dimension host=NAME of every profile (a profile that has a host dimension\n"
    "already, from an earlier merge, keeps it), so one merged file holds a fleet\n"
    "and `osprof diff --by host OUT` compares its hosts. A file with no recorded\n"
    "host adds its profiles as they are. OUT's `hosts` metadata counts the hosts.\n\n"
    "Options:\n";

static const char usage_tail[] =
    "\n"
    "Refused (status 2, no OUT), each with one line naming the file and why:\n"
    "different resolutions r; a sliced and an unsliced file, different slice\n"
    "lengths, or slices that start at different times (start_wall_ns more than\n"
    "1 % of a slice apart), unless --drop-slices; a key with no room for the host\n"
    "dimension; counts that would exceed 2^64-1 (never wrapped).\n";

struct host_seen {
	UT_hash_handle hh;
	char name[];
};

/* Counts distinct hosts: each file's own and those named by host dims. */
static int note_host(struct host_seen **seen, const char *h)
{
	struct host_seen *e;
	if (!h)
		return 0;
	HASH_FIND_STR(*seen, h, e);
	if (e)
		return 0;
	size_t len = strlen(h) + 1;
	if (!(e = malloc(sizeof(*e) + len)))
		return -1;
	memcpy(e->name, h, len);
	HASH_ADD_STR(*seen, name, e);
	return 0;
}

static int note_hosts(struct host_seen **seen, const struct osp_set *s)
{
	/* A merged file of several hosts names them in its dims; its own host
	 * metadata only says how many there were. */
	const char *n = osp_get_meta(s, "hosts");
	int rc = !n || !strcmp(n, "1") ? note_host(seen, osp_get_meta(s, "host")) : 0;
	for (size_t i = 0; i < s->n && !rc; i++)
		rc = note_host(seen, osp_profile_dim(s->profiles[i], "host"));
	return rc;
}

static void stamp_hosts(struct osp_set *dst, struct host_seen **seen, int combine)
{
	unsigned n = HASH_COUNT(*seen);
	struct host_seen *e, *tmp;
	if (n == 1)
		osp_set_meta(dst, "host", (*seen)->name);
	else if (n > 1)
		osp_set_metaf(dst, "host", "%u hosts%s", n, combine ? " combined" : "");
	osp_set_metaf(dst, "hosts", "%u", n);
	HASH_ITER(hh, *seen, e, tmp)
	{
		HASH_DEL(*seen, e);
		free(e);
	}
}

static const struct osp_opts_spec spec = {.cmd = "merge", .head = usage_head, .tail = usage_tail};

int cmd_merge(int argc, char **argv)
{
	const char *out = NULL;
	int combine = 0, drop_slices = 0, optind;
	struct osp_option opts[] = {
	    OSP_OPT_STRING('o', "output", &out, "OUT", "the merged profile set (required)"),
	    OSP_OPT_FLAG(0, "combine-hosts", &combine,
	                 "sum over hosts instead: no host dimension (and any\n"
	                 "host dimension of the inputs is removed)"),
	    OSP_OPT_FLAG(0, "drop-slices", &drop_slices,
	                 "keep the totals only, so sliced (-i) files can be\n"
	                 "merged with unsliced ones or with other slice lengths\n"
	                 "or start times"),
	    OSP_OPT_END,
	};
	OSP_PARSE_OR_RETURN(osp_opts_parse(&spec, opts, argc, argv, &optind));
	if (!out)
		return osp_usage_err("merge", "-o OUT is required");
	if (optind >= argc)
		return osp_usage_err("merge", "no input FILE");
	struct osp_set *first = NULL, *dst = NULL;
	struct host_seen *seen = NULL;
	int rc = OSP_EXIT_OK;
	char err[512];
	for (int i = optind; i < argc && rc == OSP_EXIT_OK; i++) {
		struct osp_set *s = osp_cli_load(argv[i]);
		if (!s) {
			rc = OSP_EXIT_USAGE;
			break;
		}
		if (drop_slices)
			osp_set_drop_slices(s);
		if (!dst && !(dst = osp_set_new(s->r))) {
			osp_err("merge: out of memory");
			rc = OSP_EXIT_FAIL;
		} else if (first && osp_set_merge_check(first, s, err, sizeof(err))) {
			fprintf(stderr, "osprof merge: %s and %s: %s%s\n", argv[optind], argv[i],
			        err,
			        !drop_slices && s->r == first->r ? " (--drop-slices merges totals)"
			                                         : "");
			rc = OSP_EXIT_USAGE;
		} else if (note_hosts(&seen, s)) {
			osp_err("merge: out of memory");
			rc = OSP_EXIT_FAIL;
		} else if (osp_set_merge_dim(dst, s, "host",
		                             combine ? NULL : osp_get_meta(s, "host"), err,
		                             sizeof(err))) {
			fprintf(stderr, "osprof merge: %s: %s\n", argv[i], err);
			rc = OSP_EXIT_USAGE;
		}
		if (!first) {
			first = s;
			dst->slice_ns = s->slice_ns;
		} else {
			osp_set_free(s);
		}
	}
	if (dst)
		stamp_hosts(dst, &seen, combine);
	if (rc == OSP_EXIT_OK) {
		osp_set_metaf(dst, "merged_from", "%d files", argc - optind);
		if (osp_set_save(dst, out, err, sizeof(err))) {
			fprintf(stderr, "osprof merge: %s\n", err);
			rc = OSP_EXIT_FAIL;
		}
	}
	osp_set_free(first);
	osp_set_free(dst);
	return rc;
}
