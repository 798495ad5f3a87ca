/* osprof rootcause: options shared by the user-space search (DARC) and the
 * kernel-side attribution for --syscall (rootcause/kernel.c). */
#ifndef OSPROF_RC_ROOTCAUSE_H
#define OSPROF_RC_ROOTCAUSE_H

#include <signal.h>
#include <sys/types.h>
#include "rootcause/search.h"

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
	uint64_t lost;       /* out: in-peak records lost (ring buffer full) */
};

/* Forks CMD held at a gate; rc_child_release lets it exec. env: extra
 * "K=V" strings (NULL-terminated) or NULL; its output as o->target_fd. */
pid_t rc_child_start(const struct rc_opts *o, char **env, int *gate);
void rc_child_release(int gate);
/* 1 while the target runs (reaps a child of ours). */
int rc_target_alive(pid_t pid, int is_child, int *status);

/* --syscall: kernel-side attribution; returns an exit status. */
int rc_kernel_run(struct rc_opts *o);

#endif
