/* Following exec: a program may exec with an environment it built itself
 * (env -i, execve or posix_spawn with a custom envp). LD_PRELOAD and the
 * OSPROF_* variables seen at start are put back where missing, so the new
 * image is still profiled. A setuid program or one with a static libc still
 * escapes: the dynamic loader ignores LD_PRELOAD for the first and the second
 * has none. */
#include <stdlib.h>
#include <string.h>
#include <dlfcn.h>
#include "preload/preload.h"

#define MAX_SAVED 16
static char *saved[MAX_SAVED]; /* "NAME=value" copies taken at start */
static unsigned nsaved;
static char *self_path; /* this library, which LD_PRELOAD must name */

void osp_env_save(void)
{
	extern char **environ;
	Dl_info info;
	if (dladdr((void *)osp_env_save, &info) && info.dli_fname)
		self_path = strdup(info.dli_fname);
	for (char **e = environ; e && *e && nsaved < MAX_SAVED; e++)
		if (!strncmp(*e, "OSPROF_", 7) || !strncmp(*e, "LD_PRELOAD=", 11))
			saved[nsaved++] = strdup(*e);
}

static size_t name_len(const char *kv)
{
	const char *eq = strchr(kv, '=');
	return eq ? (size_t)(eq - kv) : strlen(kv);
}

static int preload_names_self(const char *kv)
{
	if (!self_path)
		return 1;
	const char *v = kv + 11;
	size_t n = strlen(self_path);
	for (const char *p = strstr(v, self_path); p; p = strstr(p + 1, self_path))
		if ((p == v || p[-1] == ':' || p[-1] == ' ') &&
		    (p[n] == 0 || p[n] == ':' || p[n] == ' '))
			return 1;
	return 0;
}

/* The entry of envp named like kv ("NAME=..."), or NULL. */
static char *const *env_find(char *const envp[], const char *kv)
{
	size_t n = name_len(kv);
	for (char *const *e = envp; e && *e; e++)
		if (name_len(*e) == n && !strncmp(*e, kv, n))
			return e;
	return NULL;
}

/* 1 when envp names every saved variable and preloads this library. A value
 * the program set itself is respected (e.g. a nested osprof run): only what
 * is missing is put back. */
static int env_complete(char *const envp[])
{
	for (unsigned i = 0; i < nsaved; i++) {
		char *const *e = env_find(envp, saved[i]);
		if (!e || (!strncmp(saved[i], "LD_PRELOAD=", 11) && !preload_names_self(*e)))
			return 0;
	}
	return 1;
}

char **osp_env_fix(char *const envp[])
{
	if (osp_pl.disabled || env_complete(envp))
		return (char **)envp;
	size_t n = 0;
	while (envp && envp[n])
		n++;
	char **out = malloc((n + nsaved + 1) * sizeof(*out));
	if (!out)
		return (char **)envp;
	char *const *theirs = NULL; /* envp's LD_PRELOAD entry */
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (!strncmp(envp[i], "LD_PRELOAD=", 11) && !preload_names_self(envp[i]))
			theirs = &envp[i]; /* replaced below */
		else
			out[k++] = envp[i];
	}
	for (unsigned j = 0; j < nsaved; j++) {
		int preload = !strncmp(saved[j], "LD_PRELOAD=", 11);
		if (!preload && env_find(envp, saved[j]))
			continue;
		if (preload && !theirs && env_find(envp, saved[j]))
			continue; /* theirs already names this library */
		char *kv = NULL;
		if (preload && theirs && (*theirs)[11]) {
			/* Keep what the program preloads, after our own library. */
			kv = malloc(strlen(saved[j]) + strlen(*theirs + 11) + 2);
			if (kv) {
				strcpy(kv, saved[j]);
				strcat(kv, ":");
				strcat(kv, *theirs + 11);
			}
		}
		out[k++] = kv ? kv : saved[j];
	}
	out[k] = NULL;
	return out;
}

void osp_env_free(char **fixed, char *const envp[])
{
	if (fixed == (char **)envp)
		return;
	for (char **e = fixed; *e; e++) {
		int keep = 0;
		for (unsigned j = 0; j < nsaved && !keep; j++)
			keep = *e == saved[j];
		for (char *const *o = envp; o && *o && !keep; o++)
			keep = *e == *o;
		if (!keep)
			free(*e);
	}
	free(fixed);
}
