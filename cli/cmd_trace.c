/* osprof trace: record file-system operations into compact segmented trace
 * files, and read them back (dump, stats, profile, export). */
#include <string.h>
#include "cli/cli.h"
#include "cli/trace_cmds.h"

static const char usage[] =
    "usage: osprof trace SUBCOMMAND [OPTIONS]\n\n"
    "Records every file-system operation (system calls, and optionally ext4 and\n"
    "block-layer events) with its time, thread, file, offset, size, result and\n"
    "latency into compressed trace segments, and reads them back. A profile says\n"
    "there is a peak at 4 ms; a trace lists the operations in it.\n\n"
    "Subcommands:\n"
    "  record   capture into a directory of segments (-w DIR)\n"
    "  dump     print events one per line, with filters\n"
    "  stats    per-operation counts, bytes, sequential share, compression, drops\n"
    "  profile  build the latency profile set (.osp) of a trace\n"
    "  export   Chrome/Perfetto JSON, heatmap lines, per-thread event trees\n\n"
    "Run 'osprof trace SUBCOMMAND --help' for its options.\n"
    "Format: docs/trace-format.md; guide: docs/trace.md.\n";

int cmd_trace(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage, stderr);
		return OSP_EXIT_USAGE;
	}
	const char *sub = argv[1];
	if (!strcmp(sub, "--help") || !strcmp(sub, "-h") || !strcmp(sub, "help")) {
		fputs(usage, stdout);
		return OSP_EXIT_OK;
	}
	static const struct {
		const char *name;
		int (*fn)(int, char **);
	} subs[] = {
	    {"record", trace_cmd_record}, {"dump", trace_cmd_dump},
	    {"stats", trace_cmd_stats},   {"profile", trace_cmd_profile},
	    {"export", trace_cmd_export},
	};
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++)
		if (!strcmp(subs[i].name, sub))
			return subs[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "osprof trace: '%s' is not a subcommand; see 'osprof trace --help'\n", sub);
	return OSP_EXIT_USAGE;
}
