/* The user layer: LD_PRELOAD interposition on libc (libosprof-preload.so),
 * no privileges needed. prepare() points the command's environment at the
 * library and a private directory; each process image the command creates
 * leaves one counter file there, which collect() reads (collect/user_file.c).
 * Design and file layout: docs/preload.md. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <osprof/clock.h>
#include "collect/layer.h"
#include "collect/user_elf.h"
#include "collect/user_file.h"
#include "preload/layout.h"

static const char *const interposed[] = {
#define OSP_OP(name) #name,
#include "preload/ops.def"
#undef OSP_OP
};
#define NINTERPOSED (sizeof(interposed) / sizeof(interposed[0]))

struct user_state {
	char dir[PATH_MAX];
};

/* $OSPROF_PRELOAD_LIB, else libosprof-preload.so next to this osprof. */
static int find_library(char *out, size_t len)
{
	const char *env = getenv("OSPROF_PRELOAD_LIB");
	if (env && *env) {
		snprintf(out, len, "%s", env);
	} else {
		char self[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n <= 0)
			return -errno;
		self[n] = 0;
		char *slash = strrchr(self, '/');
		if (slash)
			*slash = 0;
		if (snprintf(out, len, "%s/libosprof-preload.so", self) >= (int)len)
			return -ENAMETOOLONG;
	}
	return access(out, R_OK) ? -errno : 0;
}

/* An osprof built with AddressSanitizer has an instrumented preload library,
 * which loads only if the ASan runtime comes first in the process. */
static int find_asan(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	if (info->dlpi_name && strstr(info->dlpi_name, "/libasan.so")) {
		snprintf(data, PATH_MAX, "%s", info->dlpi_name);
		return 1;
	}
	return 0;
}

static int set_preload(const char *lib)
{
	char asan[PATH_MAX] = "";
	dl_iterate_phdr(find_asan, asan);
	const char *old = getenv("LD_PRELOAD");
	size_t len = strlen(asan) + strlen(lib) + (old ? strlen(old) : 0) + 3;
	char *v = malloc(len);
	if (!v)
		return -ENOMEM;
	snprintf(v, len, "%s%s%s%s%s", asan, *asan ? ":" : "", lib, old && *old ? ":" : "",
	         old && *old ? old : "");
	int rc = setenv("LD_PRELOAD", v, 1);
	free(v);
	if (*asan && !getenv("ASAN_OPTIONS"))
		setenv("ASAN_OPTIONS", "detect_leaks=0", 1); /* leaks of CMD are not ours */
	return rc ? -errno : 0;
}

static int user_prepare(struct osp_session *s, int slot)
{
	if (s->npids || s->cgroup || s->comm || s->all) {
		fprintf(stderr,
		        "osprof: user layer: works only with 'osprof run' (it needs "
		        "LD_PRELOAD at exec); use the syscall layer for running processes\n");
		return -EINVAL;
	}
	char lib[PATH_MAX];
	int rc = find_library(lib, sizeof(lib));
	if (rc) {
		fprintf(stderr, "osprof: user layer: cannot read %s: %s (set OSPROF_PRELOAD_LIB)\n",
		        lib, strerror(-rc));
		return rc;
	}
	struct user_state *st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	const char *tmp = getenv("TMPDIR");
	snprintf(st->dir, sizeof(st->dir), "%s/osprof-user.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(st->dir)) {
		rc = -errno;
		fprintf(stderr, "osprof: user layer: cannot create %s: %s\n", st->dir,
		        strerror(errno));
		free(st);
		return rc;
	}
	s->layer_state[slot] = st;

	/* One calibration here spares every process of the tree its own. */
	struct osp_tsc tsc;
	osp_tsc_calibrate(&tsc);
	char mult[32], r[16];
	snprintf(mult, sizeof(mult), "%llu", tsc.usable ? (unsigned long long)tsc.mult : 0ull);
	snprintf(r, sizeof(r), "%u", s->r);
	if ((rc = set_preload(lib)) || setenv("OSPROF_PRELOAD_DIR", st->dir, 1) ||
	    setenv("OSPROF_RESOLUTION", r, 1) || setenv("OSPROF_TSC_MULT", mult, 1)) {
		fprintf(stderr, "osprof: user layer: cannot set the environment: %s\n",
		        strerror(rc ? -rc : errno));
		return rc ? rc : -errno;
	}
	osp_set_meta(s->set, "user_preload", lib);
	osp_set_meta(s->set, "user_clock", tsc.usable ? "tsc" : "monotonic");
	if (s->verbose)
		fprintf(stderr, "osprof: user: LD_PRELOAD=%s, %zu libc functions, clock %s\n", lib,
		        NINTERPOSED, tsc.usable ? "tsc" : "clock_gettime");

	if (s->argv && s->argv[0]) {
		char path[PATH_MAX];
		if (osp_elf_resolve(s->argv[0], path, sizeof(path)) == 0 &&
		    osp_elf_is_static(path) == 1) {
			fprintf(stderr,
			        "osprof: %s is statically linked: the user layer cannot interpose "
			        "on it\n",
			        s->argv[0]);
			osp_set_meta(s->set, "user_static", path);
		}
	}
	return 0;
}

static int load_file(struct osp_session *s, int dirfd, const char *name, struct osp_pf_info *info)
{
	char err[256];
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -1;
	int rc = osp_pf_load(map, (size_t)st.st_size, s->set, s->by, info, err, sizeof(err));
	munmap(map, (size_t)st.st_size);
	if (rc)
		fprintf(stderr, "osprof: user layer: %s: %s\n", name, err);
	return rc;
}

static int user_collect(struct osp_session *s, int slot, int reset)
{
	struct user_state *st = s->layer_state[slot];
	if (!st)
		return -EINVAL;
	DIR *d = opendir(st->dir);
	if (!d) {
		fprintf(stderr, "osprof: user layer: %s: %s\n", st->dir, strerror(errno));
		return -errno;
	}
	uint64_t procs = 0, killed = 0, bad = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name), sl = strlen(OSP_PF_SUFFIX);
		if (n <= sl || strcmp(e->d_name + n - sl, OSP_PF_SUFFIX))
			continue;
		struct osp_pf_info info;
		if (load_file(s, dirfd(d), e->d_name, &info)) {
			bad++;
			continue;
		}
		/* A fork child that only exec'd leaves an empty file: it is one
		 * process with the image that follows. */
		if (info.ops || !info.exited)
			procs++;
		if (!info.exited)
			killed++;
		if (reset)
			unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
	osp_meta_add_u64(s->set, "user_processes", procs);
	if (killed)
		osp_meta_add_u64(s->set, "user_killed", killed);
	if (bad)
		osp_meta_add_u64(s->set, "user_bad_files", bad);
	return bad ? -EIO : 0;
}

static void user_destroy(struct osp_session *s, int slot)
{
	struct user_state *st = s->layer_state[slot];
	if (!st)
		return;
	DIR *d = opendir(st->dir);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)))
			if (e->d_name[0] != '.')
				unlinkat(dirfd(d), e->d_name, 0);
		closedir(d);
	}
	rmdir(st->dir);
	free(st);
	s->layer_state[slot] = NULL;
}

static int user_list(FILE *out, int verbose)
{
	char lib[PATH_MAX];
	int ok = find_library(lib, sizeof(lib)) == 0;
	fprintf(out,
	        "user: LD_PRELOAD interposition on libc, no privileges (attach mode: preload%s)\n",
	        ok ? "" : "; library NOT FOUND, set OSPROF_PRELOAD_LIB");
	if (verbose)
		fprintf(out, "  library: %s\n", lib);
	fprintf(out, "  %zu functions:", NINTERPOSED);
	int col = 80;
	for (size_t i = 0; i < NINTERPOSED; i++) {
		int w = (int)strlen(interposed[i]) + 1;
		if (col + w > 78) {
			fprintf(out, "\n   ");
			col = 3;
		}
		fprintf(out, " %s", interposed[i]);
		col += w;
	}
	fprintf(out, "\n");
	return 0;
}

const struct osp_layer osp_layer_user = {
    .name = "user",
    .summary = "libc file, directory and process calls via LD_PRELOAD (no root)",
    .needs_root = 0,
    .list = user_list,
    .prepare = user_prepare,
    .collect = user_collect,
    .destroy = user_destroy,
};
