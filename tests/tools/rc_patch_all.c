/* Live coverage of the trampoline backend: starts BIN under the agent with
 * f0 = F0, then instruments every call site of every function named in
 * NAMES at once (each timed, at any depth below f0), lets BIN run, removes
 * everything, lets it run again, and stops it through STOPFILE. Prints how
 * each site was probed (trampoline / breakpoint / failed) and exits with
 * BIN's exit status (the test runs a BIN that checks its own results).
 * Usage: rc_patch_all BIN F0 NAMES STOPFILE [ARGS...] (BIN's arguments;
 * OSPROF_DARC_AGENT names the agent). */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "rootcause/backend.h"
#include "rootcause/callsites.h"
#include "rootcause/elfsym.h"
#include "rootcause/procmaps.h"

static uint64_t f0_calls(struct rc_backend *be)
{
	uint64_t h[RC_HBUCKETS], n = 0;
	if (be->ops->read_hist(be, h))
		return 0;
	for (int i = 0; i < RC_HBUCKETS; i++)
		n += h[i];
	return n;
}

/* Waits (without a fixed sleep) until BIN made `more` f0 calls; 0 if it
 * did within 60 s. */
static int progress(struct rc_backend *be, pid_t pid, uint64_t more)
{
	uint64_t want = f0_calls(be) + more;
	for (int i = 0; i < 60000; i++) {
		if (f0_calls(be) >= want)
			return 0;
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return -1;
		be->ops->poll(be, NULL, NULL);
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	}
	return -1;
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: rc_patch_all BIN F0 NAMES STOPFILE [ARGS...]\n");
		return 2;
	}
	char bin[4096];
	const char *stop = argv[4];
	if (!realpath(argv[1], bin)) { /* the agent matches /proc/self/maps */
		perror(argv[1]);
		return 2;
	}
	struct rc_elf *e;
	char err[256];
	if (rc_elf_open(bin, &e, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	const struct rc_sym *f0 = rc_elf_find(e, argv[2]);
	FILE *nf = fopen(argv[3], "r");
	if (!f0 || !nf) {
		fprintf(stderr, "rc_patch_all: no %s in %s, or %s unreadable\n", argv[2], bin,
		        argv[3]);
		return 2;
	}
	struct rc_backend *be = rc_tramp_new();
	char **env;
	if (!be || rc_tramp_env(be, &env) || be->ops->attach_f0(be, bin, 0, f0->addr))
		return 1;
	int gate[2];
	if (pipe(gate))
		return 1;
	pid_t pid = fork();
	if (pid == 0) {
		char c;
		close(gate[1]);
		if (read(gate[0], &c, 1) != 1)
			_exit(127);
		for (int i = 0; env[i]; i++)
			putenv(env[i]);
		char **args = calloc((size_t)argc, sizeof(*args));
		args[0] = bin;
		for (int i = 5; i < argc; i++)
			args[i - 4] = argv[i];
		args[argc - 4] = (char *)stop;
		execv(bin, args);
		_exit(127);
	}
	close(gate[0]);
	rc_tramp_set_pid(be, pid);
	if (write(gate[1], "x", 1) != 1)
		return 1;
	close(gate[1]);
	/* The agent is up once f0 is patched: its first f0 calls count. */
	if (progress(be, pid, 10)) {
		fprintf(stderr, "rc_patch_all: %s made no f0 calls\n", bin);
		return 1;
	}
	struct rc_space sp = {0};
	rc_space_load(&sp, pid, err, sizeof(err));
	uint64_t bias = 0;
	for (size_t i = 0; i < sp.n; i++)
		if (sp.mods[i].elf && !strcmp(sp.mods[i].elf->path, e->path))
			bias = sp.mods[i].bias;
	/* Every site under f0 is timed at any depth: (slot 0 or 1, site) -> 1. */
	unsigned long n[4] = {0}; /* trampoline, breakpoint, uprobe, failed */
	uint32_t id = 1;
	char name[512];
	while (fgets(name, sizeof(name), nf)) {
		name[strcspn(name, "\n")] = 0;
		const struct rc_sym *s = rc_elf_find(e, name);
		struct rc_site *v = NULL;
		int ns = s && !s->got ? rc_callsites(e, s, &v) : 0;
		for (int j = 0; j < ns; j++, id++) {
			uint64_t off = 0; /* the file offset, for the uprobe fallback */
			rc_elf_off(e, v[j].addr, &off);
			int rc = be->ops->add_site(be, id, &v[j], bin, off, v[j].addr + bias);
			n[rc < 0 ? 3 : rc]++;
			if (rc < 0)
				printf("%s+0x%llx %s: failed: %s\n", name,
				       (unsigned long long)(v[j].addr - s->addr), v[j].text,
				       strerror(-rc));
			be->ops->add_edge(be, 0, id, 1);
			be->ops->add_edge(be, 1, id, 1);
		}
		free(v);
	}
	fclose(nf);
	printf("sites %lu: trampoline %lu, breakpoint %lu, uprobe %lu, failed %lu\n",
	       n[0] + n[1] + n[2] + n[3], n[0], n[1], n[2], n[3]);
	fflush(stdout);
	int ok = !progress(be, pid, 500);
	for (uint32_t i = 1; i < id; i++)
		be->ops->del_site(be, i);
	ok = ok && !progress(be, pid, 100);
	FILE *sf = fopen(stop, "w");
	if (sf)
		fclose(sf);
	int st = 0;
	if (waitpid(pid, &st, 0) != pid)
		return 1;
	be->ops->destroy(be);
	rc_space_free(&sp);
	rc_elf_close(e);
	if (!ok)
		fprintf(stderr, "rc_patch_all: %s stopped making progress\n", bin);
	if (WIFSIGNALED(st))
		fprintf(stderr, "rc_patch_all: %s killed by signal %d\n", bin, WTERMSIG(st));
	return ok && WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
