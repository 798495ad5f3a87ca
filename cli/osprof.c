/* osprof: entry point and command dispatch (a builtin table as in git/perf). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/options.h"
#include "cli/term_safe.h"

struct osp_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct osp_command commands[] = {
#define OSP_CMD(name, summary) {#name, cmd_##name, summary},
#include "cli/commands.def"
#undef OSP_CMD
};

static void usage(FILE *out)
{
	fprintf(out, "usage: osprof COMMAND [OPTIONS] [ARGS]\n\n"
	             "Profiles operating-system and file-system operations through the\n"
	             "distributions of their latencies (log2 histograms).\n\n"
	             "Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(out,
	        "\nOptions:\n"
	        "  -h, --help     this list (also 'osprof help')\n"
	        "  -V, --version  print the version (also 'osprof version')\n"
	        "\nRun 'osprof COMMAND --help' for the options of one command.\n"
	        "Documentation: man osprof-COMMAND, README.md and docs/ in the source tree.\n");
}

/* The exit statuses every command shares, after its own --help text (the
 * man pages are generated from it). Commands that collect explain their
 * own, which add 3 for losses. */
static void exit_status_help(const char *name)
{
	static const char *const own[] = {"run", "record", "rootcause", "mount", "netfs", "serve"};
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (!strcmp(name, own[i]))
			return;
	fputs("\nExit status: 0 success; 1 an operation failed (e.g. an output file could\n"
	      "not be written); 2 bad usage, or an input file that cannot be read (one\n"
	      "line names it, FILE:LINE: for a malformed file)",
	      stdout);
	fputs(strcmp(name, "trace") ? ".\n"
	                            : "; 'trace record' adds 3: finished with dropped events.\n",
	      stdout);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return OSP_EXIT_USAGE;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
		usage(stdout);
		return OSP_EXIT_OK;
	}
	if (!strcmp(name, "--version") || !strcmp(name, "-V") || !strcmp(name, "version")) {
		printf("osprof %s\n", OSPROF_VERSION);
		return OSP_EXIT_OK;
	}
	/* plot may write PNG to stdout, and top's ncurses writes escape
	 * sequences to the descriptor: their stdout is left alone */
	osp_term_safe_streams(strcmp(name, "plot") && strcmp(name, "top"));
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name)) {
			int rc = commands[i].fn(argc - 1, argv + 1);
			if (rc == OSP_EXIT_OK && argc == 3 &&
			    (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h")))
				exit_status_help(name);
			return rc;
		}
	fprintf(stderr, "osprof: '%s' is not a command; see 'osprof --help'\n", name);
	return OSP_EXIT_USAGE;
}

struct osp_set *osp_cli_load(const char *path)
{
	char err[512];
	struct osp_set *s = NULL;
	if (osp_set_load(path, &s, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return NULL;
	}
	return s;
}

int osp_cli_resolution(const char *cmd, const char *flag, const char *arg, void *r)
{
	unsigned long long v;
	if (osp_opt_parse_uint(arg, 1, 16, &v) || !osp_resolution_valid((unsigned)v))
		return osp_usage_err(cmd, "%s: '%s' is not one of 1, 2, 4, 8, 16", flag, arg);
	*(unsigned *)r = (unsigned)v;
	return 0;
}
