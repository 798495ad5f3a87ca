/* osprof rootcause, the room's API: cli/cmd_rootcause.c parses the options
 * into struct rc_opts and calls one of the two drivers, the user-space search
 * (DARC) of --func (rootcause/func.c) or the kernel-side attribution of
 * --syscall (rootcause/kernel.c). */
#ifndef OSPROF_RC_ROOTCAUSE_H
#define OSPROF_RC_ROOTCAUSE_H

#include <signal.h>
#include <sys/types.h>
#include "rootcause/search.h"

/* The progress line is the caller's (a terminal display): show(ctx, force,
 * line) redraws it, line NULL erases it. show NULL: no progress. */
struct rc_progress {
	void (*show)(void *ctx, int force, const char *line);
	void *ctx;
};

struct rc_opts {
	const char *func;    /* BIN:SYM */
	const char *syscall; /* NAME */
	pid_t pid;           /* -p, or the child started for CMD */
	char **cmd;          /* -- CMD ARGS */
	int peak;            /* 1-based; 0 = slowest */
	struct rc_params p;
	const char *state;
	const char *output; /* -o: profile set of the paths */
	/* Where CMD's stdout and stderr go: -1 inherited; else its stdout is
	 * dup'ed from this fd, and its stderr too when target_both. */
	int target_fd, target_both;
	int folded, json, verbose;
	int quiet;           /* -q: no progress line */
	const char *backend; /* "uprobe" or "trampoline" */
	int allow_loss;      /* --allow-loss */
	struct rc_progress progress;
	uint64_t lost; /* out: in-peak records lost (ring buffer full) */
};

/* --func: the DARC search; --syscall: kernel-side attribution. Each returns
 * an exit status (OSP_EXIT_*). */
int rc_func_run(struct rc_opts *o);
int rc_kernel_run(struct rc_opts *o);

#endif
