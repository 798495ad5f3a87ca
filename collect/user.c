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
#include "collect/helper_path.h"
#include "collect/layer.h"
#include "collect/user_elf.h"
#include "collect/user_file.h"
#include "collect/user_slices.h"
#include "preload/layout.h"

static const char *const interposed[] = {
#define OSP_OP(name) #name,
#include "preload/ops.def"
#undef OSP_OP
};
#define NINTERPOSED (sizeof(interposed) / sizeof(interposed[0]))

struct user_state {
	char dir[PATH_MAX];
	struct osp_user_slices *slices; /* -i: sampler running since attach */
};

/* $OSPROF_PRELOAD_LIB, else libosprof-preload.so next to this osprof or in
 * its installed location (collect/helper_path.h). */
static int find_library(char *out, size_t len)
{
	const char *env = getenv("OSPROF_PRELOAD_LIB");
	if (env && *env) {
		snprintf(out, len, "%s", env);
		if (access(out, R_OK))
			return -errno;
	} else {
		int rc = osp_helper_path("libosprof-preload.so", out, len);
		if (rc < 0)
			return rc;
	}
	/* The child may chdir before it execs more programs. */
	char abs[PATH_MAX];
	if (realpath(out, abs))
		snprintf(out, len, "%s", abs);
	return 0;
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

static void user_destroy(struct osp_session *s, int slot);

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
	if (strpbrk(lib, " :")) {
		fprintf(stderr,
		        "osprof: user layer: %s: LD_PRELOAD cannot carry a path with a "
		        "space or colon; install or copy the library elsewhere\n",
		        lib);
		return -EINVAL;
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
		rc = rc ? rc : -errno;
		fprintf(stderr, "osprof: user layer: cannot set the environment: %s\n",
		        strerror(-rc));
		user_destroy(s, slot); /* run destroys only the layers that prepared */
		return rc;
	}
	/* Programs instrumented with OSP_PRE/OSP_POST write their "app" profile
	 * here at exit; collect() adds it to the set. */
	char app[PATH_MAX + 32];
	snprintf(app, sizeof(app), "%s/app-%%p.osp", st->dir);
	if (!getenv("OSPROF_OUTPUT"))
		setenv("OSPROF_OUTPUT", app, 1);
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
			osp_meta_add_u64(s->set, "user_static", 1);
			osp_set_meta(s->set, "user_static_paths", path);
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
	if (rc < 0)
		fprintf(stderr, "osprof: user layer: %s: %s\n", name, err);
	return rc;
}

/* Adds the profiles of an instrumented program's app-PID.osp file, with pid
 * and comm dimensions as for the interposed calls. */
static int load_app(struct osp_session *s, const char *dir, const char *name)
{
	char err[512], path[2 * PATH_MAX];
	struct osp_set *app = NULL;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int rc = osp_set_load(path, &app, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "osprof: user layer: %s\n", err);
		return -1;
	}
	const char *pid = osp_get_meta(app, "pid"), *comm = osp_get_meta(app, "comm");
	rc = 0;
	for (size_t i = 0; i < app->n && !rc; i++) {
		const struct osp_profile *ap = app->profiles[i];
		struct osp_dim d[OSP_MAX_DIMS];
		unsigned nd = 0;
		for (unsigned k = 0; k < ap->ndims && nd < OSP_MAX_DIMS - 2; k++)
			d[nd++] = ap->dims[k];
		int by_pid = s->by && (!strcmp(s->by, "pid") || !strcmp(s->by, "tid"));
		if (by_pid && pid)
			d[nd++] = (struct osp_dim){"pid", (char *)pid};
		if (s->by && (by_pid || !strcmp(s->by, "comm")))
			d[nd++] = (struct osp_dim){"comm", (char *)(comm ? comm : "?")};
		struct osp_profile *p = osp_set_get(s->set, ap->layer, ap->op, d, nd);
		if (!p || osp_hist_merge(&p->hist, &ap->hist)) {
			fprintf(stderr, "osprof: user layer: %s: resolution %u differs from %u\n",
			        name, app->r, s->set->r);
			rc = -1;
		}
	}
	osp_set_free(app);
	return rc;
}

/* A note left by the preload before exec'ing an image it cannot follow
 * (preload/exec_check.c): "static PATH" or "setuid PATH". Counted in
 * user_static/user_setuid (the top-level command's static check stores the
 * path in user_static_path) and said once per note on stderr. */
static void load_escape(struct osp_session *s, int dirfd, const char *name)
{
	char line[4200];
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t n = fd >= 0 ? read(fd, line, sizeof(line) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return;
	line[n] = 0;
	line[strcspn(line, "\n")] = 0;
	char *path = strchr(line, ' ');
	if (!path)
		return;
	*path++ = 0;
	int setuid = !strcmp(line, "setuid");
	fprintf(stderr,
	        "osprof: user layer: a process of the tree ran %s, which is %s: its operations "
	        "are not profiled\n",
	        path,
	        setuid ? "setuid/setgid (the loader ignores LD_PRELOAD)" : "statically linked");
	osp_meta_add_u64(s->set, setuid ? "user_setuid" : "user_static", 1);
	const char *key = setuid ? "user_setuid_paths" : "user_static_paths";
	const char *old = osp_get_meta(s->set, key);
	if (!old)
		osp_set_meta(s->set, key, path);
	else if (!strstr(old, path))
		osp_set_metaf(s->set, key, "%s:%s", old, path);
}

/* With -i, slices come from sampling the counter files while CMD runs. */
static int user_attach(struct osp_session *s, int slot)
{
	struct user_state *st = s->layer_state[slot];
	if (!st || !s->slice_ns)
		return 0;
	st->slices = osp_user_slices_start(st->dir, s->r, s->slice_ns, s->by);
	if (!st->slices) {
		int rc = -errno;
		fprintf(stderr, "osprof: user layer: cannot start the slice sampler: %s\n",
		        strerror(errno));
		return rc;
	}
	return 0;
}

static int user_collect(struct osp_session *s, int slot, int reset)
{
	struct user_state *st = s->layer_state[slot];
	if (!st)
		return -EINVAL;
	int slices_rc = 0;
	if (st->slices) {
		slices_rc = osp_user_slices_stop(st->slices, s->set);
		st->slices = NULL;
		if (slices_rc)
			fprintf(stderr,
			        "osprof: user layer: out of memory: time slices incomplete\n");
	}
	DIR *d = opendir(st->dir);
	if (!d) {
		fprintf(stderr, "osprof: user layer: %s: %s\n", st->dir, strerror(errno));
		return -errno;
	}
	uint64_t killed = 0, bad = 0;
	size_t npids = 0, cap = 0;
	int *pids = NULL; /* one entry per distinct pid: images of one pid are one process */
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name), sl = strlen(OSP_PF_SUFFIX);
		if (!strncmp(e->d_name, "escape-", 7)) {
			load_escape(s, dirfd(d), e->d_name);
			if (reset)
				unlinkat(dirfd(d), e->d_name, 0);
			continue;
		}
		if (!strncmp(e->d_name, "app-", 4) && n > 8 && !strcmp(e->d_name + n - 4, ".osp")) {
			if (load_app(s, st->dir, e->d_name))
				bad++;
			else
				osp_meta_add_u64(s->set, "app_processes", 1);
			if (reset)
				unlinkat(dirfd(d), e->d_name, 0);
			continue;
		}
		if (n <= sl || strcmp(e->d_name + n - sl, OSP_PF_SUFFIX))
			continue;
		struct osp_pf_info info;
		int lrc = load_file(s, dirfd(d), e->d_name, &info);
		if (lrc == OSP_PF_UNSTARTED) { /* nothing recorded, nothing lost */
			osp_meta_add_u64(s->set, "user_unstarted", 1);
			if (reset)
				unlinkat(dirfd(d), e->d_name, 0);
			continue;
		}
		if (lrc) {
			bad++;
			continue;
		}
		size_t i = 0;
		while (i < npids && pids[i] != info.pid)
			i++;
		if (i == npids) {
			if (npids == cap) {
				int *grown = realloc(pids, (cap ? 2 * cap : 64) * sizeof(*pids));
				if (grown) {
					pids = grown;
					cap = cap ? 2 * cap : 64;
				}
			}
			if (npids < cap)
				pids[npids++] = info.pid;
		}
		if (!info.ended)
			killed++;
		if (reset)
			unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
	free(pids);
	osp_meta_add_u64(s->set, "user_processes", npids);
	if (killed)
		osp_meta_add_u64(s->set, "user_killed", killed);
	if (bad)
		osp_meta_add_u64(s->set, "user_bad_files", bad);
	return bad ? -EIO : slices_rc;
}

static void user_destroy(struct osp_session *s, int slot)
{
	struct user_state *st = s->layer_state[slot];
	if (!st)
		return;
	if (st->slices)
		osp_user_slices_stop(st->slices, NULL);
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
	        "user     %zu libc file, directory, mapping and process functions via "
	        "LD_PRELOAD (no root); --by pid|tid|comm\n",
	        NINTERPOSED);
	if (!ok)
		fprintf(out, "  library NOT FOUND at %s: set OSPROF_PRELOAD_LIB\n", lib);
	if (!verbose)
		return 0;
	if (ok)
		fprintf(out, "  library: %s\n", lib);
	int col = 80;
	for (size_t i = 0; i < NINTERPOSED; i++) {
		int w = (int)strlen(interposed[i]) + 1;
		if (col + w > 78) {
			fprintf(out, "%s ", i ? "\n" : "");
			col = 1;
		}
		fprintf(out, " %s", interposed[i]);
		col += w;
	}
	fprintf(out, "\n");
	return 0;
}

const struct osp_layer osp_layer_user = {
    .name = "user",
    .by = "pid,tid,comm",
    .summary = "libc file, directory and process calls via LD_PRELOAD (no root)",
    OSP_LAYER_STEPS(user),
};
