/* Options shared by the collecting commands (run, record, top): parsed once
 * here so every command spells and documents them the same way. */
#ifndef OSPROF_CLI_COLLECT_OPTS_H
#define OSPROF_CLI_COLLECT_OPTS_H

#include "collect/layer.h"

struct osp_collect_opts {
	const char *layers; /* -l, comma-separated; NULL = defaults */
	unsigned r;
	uint64_t interval_ns; /* -i: slice length (run) or print interval (record) */
	uint64_t duration_ns; /* -d */
	const char *output;   /* -o */
	const char *by, *split, *funcs, *fs_types, *fs_ops, *uprobes, *correlate, *peaks;
	const char *cgroup, *comm;
	pid_t *pids;
	size_t npids;
	int all, verbose;
	int quiet;      /* -q: no progress line */
	int allow_loss; /* --allow-loss: losses do not change the exit status */
};

/* Help text for the shared options, to embed in each command's --help. */
extern const char osp_collect_opts_help[];

/* Parses argv from index 1 up to the first non-option or "--"; *next is the
 * index of the first remaining argument. Returns 0, 1 if --help was printed
 * (with usage_head first), or 2 after a one-line error naming the flag.
 * `targets` allows -a -p -c --comm (record, top). */
int osp_collect_parse(const char *cmd, const char *usage_head, int targets, int argc, char **argv,
                      struct osp_collect_opts *o, int *next);

/* Takes a command's own option `--NAME VALUE` or `--NAME=VALUE` out of argv
 * (before the shared parser sees it) and returns VALUE, the last one given,
 * or NULL. Stops at "--". */
const char *osp_cli_take_opt(int *argc, char **argv, const char *name);
/* 1 if argv names -o/--output (top and serve write a file only then). */
int osp_cli_explicit_output(int argc, char **argv);

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

#endif
