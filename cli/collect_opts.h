/* Options shared by the collecting commands (run, record, top): parsed once
 * here so every command spells and documents them the same way. */
#ifndef OSPROF_CLI_COLLECT_OPTS_H
#define OSPROF_CLI_COLLECT_OPTS_H

#include "collect/layer.h"
#include "cli/options.h"

struct osp_collect_opts {
	const char *layers; /* -l, comma-separated; NULL = defaults */
	unsigned r;
	uint64_t interval_ns; /* -i: slice length (run) or print interval (record) */
	uint64_t duration_ns; /* -d */
	const char *output;   /* -o (default osprof.osp) */
	int output_given;     /* -o was on the command line */
	const char *by, *split, *funcs, *fs_types, *fs_ops, *uprobes, *correlate, *peaks;
	const char *cgroup, *comm;
	struct osp_pids pids;
	int all, verbose;
	int quiet;       /* -q: no progress line */
	int probe_time;  /* --probe-time: the kernel times the programs */
	int allow_loss;  /* --allow-loss: losses do not change the exit status */
	double max_loss; /* --max-loss: nor do this fraction of the calls recorded */
};

/* How one collecting command takes the shared options. */
struct osp_collect_spec {
	const char *cmd;
	const char *head;             /* --help before the option list (ends with its heading) */
	int targets;                  /* -a -p -c --comm (record, top, serve) */
	const struct osp_option *own; /* the command's own options, listed first; or NULL */
	int check_output;             /* -o must be writable: 1 always, 2 when given */
};

/* Parses argv from index 1 up to the first non-option or "--"; *next is the
 * index of the first remaining argument. Returns 0, OSP_OPTS_HELP after
 * --help, or OSP_EXIT_USAGE after a one-line error naming the flag. */
int osp_collect_parse(const struct osp_collect_spec *c, int argc, char **argv,
                      struct osp_collect_opts *o, int *next);
/* -a, -p, -c and --comm exclude each other; none given means -a. 0 or
 * OSP_EXIT_USAGE after the message. */
int osp_collect_one_target(const char *cmd, struct osp_collect_opts *o);

/* Resolves o->layers (or the defaults: syscall,fs,block,lock as root when
 * compiled in, else user) into layers[]; 0 or 2 after an error. */
/* Checks that -o can be written (directory exists and is writable, the
 * target is no directory) before anything is attached or started: one line
 * and OSP_EXIT_USAGE when not, else 0. */
int osp_collect_check_output(const char *cmd, const char *output);
int osp_collect_layers(const char *cmd, const struct osp_collect_opts *o,
                       const struct osp_layer **layers, int *nlayers);

/* Fills a session (and its new set, stamped with host facts) from options. */
int osp_collect_session(struct osp_session *s, const struct osp_collect_opts *o,
                        const struct osp_layer **layers, int nlayers);
/* Writes set to output and says so: status, or 1 after the error line. */
int osp_collect_save(const char *cmd, const struct osp_set *set, const char *output, int status);
/* The end of a collecting command: writes set to output (NULL: not at all)
 * and says so, then the loss line (cli/losses.h). Returns status, 1 when
 * the file cannot be written, or 3 for losses. */
int osp_collect_finish(const char *cmd, const struct osp_set *set, const char *output,
                       const struct osp_collect_opts *o, int status);

#endif
