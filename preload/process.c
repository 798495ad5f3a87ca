/* The per-process counter file: created when a process image starts (or a
 * fork child first runs), mapped MAP_SHARED so counts survive SIGKILL, and
 * carved into per-thread slots. Layout: preload/layout.h, docs/preload.md.
 *
 * Everything here uses raw system calls: inside this library a call to open()
 * or mmap() would bind to our own interposers. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "preload/preload.h"

struct osp_preload osp_pl = {.disabled = 1};
__thread char *osp_tls_slot __attribute__((tls_model("initial-exec")));

const char *const osp_op_names[OSP_NOPS] = {
#define OSP_OP(name) #name,
#include "preload/ops.def"
#undef OSP_OP
};

static char dir[4096];
static size_t map_len;

static long sys_open(const char *path, int flags, int mode)
{
	return syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}

static void *sys_mmap(size_t len, int fd)
{
	long p = syscall(SYS_mmap, NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	return p < 0 && p > -4096 ? NULL : (void *)p;
}

static unsigned env_uint(const char *name, unsigned def, unsigned lo, unsigned hi)
{
	const char *s = getenv(name);
	if (!s || !*s)
		return def;
	char *end;
	unsigned long v = strtoul(s, &end, 10);
	return *end || v < lo || v > hi ? def : (unsigned)v;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

/* Creates PID-N.ospu (N counts the images one pid has had: exec keeps the pid
 * but starts a new image with its own file) and maps it. */
static int file_create(void)
{
	struct osp_pf_hdr h;
	memset(&h, 0, sizeof(h));
	unsigned nb = osp_nbuckets(osp_pl.r);
	h.version = OSP_PF_VERSION;
	h.hdr_size = sizeof(h);
	h.resolution = osp_pl.r;
	h.nbuckets = nb;
	h.nops = OSP_NOPS;
	h.nslots = osp_pl.nslots;
	h.ops_off = align_up(sizeof(h), 64);
	h.slots_off = align_up(h.ops_off + (uint64_t)OSP_NOPS * OSP_PF_NAME_LEN, 4096);
	h.op_stride = (3 + (uint64_t)nb) * 8;
	/* Page-aligned slots: two threads never write the same cache line. */
	h.slot_size = align_up(OSP_PF_SLOT_HDR + OSP_NOPS * h.op_stride, 4096);
	h.file_size = h.slots_off + h.slot_size * h.nslots;
	h.pid = (int32_t)syscall(SYS_getpid);
	h.ppid = (int32_t)syscall(SYS_getppid);
	h.start_mono_ns = osp_now_ns();
	h.start_wall_ns = osp_wall_ns();
	h.tsc_mult = osp_pl.tsc.usable ? osp_pl.tsc.mult : 0;
	prctl(PR_GET_NAME, h.comm, 0, 0, 0);
	h.comm[OSP_PF_COMM_LEN - 1] = 0;
	long n = syscall(SYS_readlink, "/proc/self/exe", h.exe, sizeof(h.exe) - 1);
	h.exe[n > 0 ? n : 0] = 0;

	char path[4200];
	long fd = -1;
	for (unsigned k = 0; k < 1000 && fd < 0; k++) {
		snprintf(path, sizeof(path), "%s/%d-%u%s", dir, h.pid, k, OSP_PF_SUFFIX);
		fd = sys_open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0)
		return -1;
	char *base = NULL;
	if (syscall(SYS_ftruncate, fd, h.file_size) == 0)
		base = sys_mmap(h.file_size, (int)fd);
	syscall(SYS_close, fd);
	if (!base)
		return -1;
	for (unsigned i = 0; i < OSP_NOPS; i++)
		strncpy(base + h.ops_off + (uint64_t)i * OSP_PF_NAME_LEN, osp_op_names[i],
		        OSP_PF_NAME_LEN - 1);
	struct osp_pf_slot *shared =
	    (struct osp_pf_slot *)(base + h.slots_off + (h.nslots - 1) * h.slot_size);
	shared->state = 1;
	shared->shared = 1;
	memcpy(base, &h, sizeof(h));
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(base, OSP_PF_MAGIC, OSP_PF_MAGIC_LEN);

	osp_pl.slots_off = h.slots_off;
	osp_pl.slot_size = h.slot_size;
	osp_pl.op_stride = h.op_stride;
	map_len = h.file_size;
	__atomic_store_n(&osp_pl.base, base, __ATOMIC_RELEASE);
	return 0;
}

char *osp_slot_claim(void)
{
	char *base = __atomic_load_n(&osp_pl.base, __ATOMIC_ACQUIRE);
	if (!base)
		return NULL;
	struct osp_pf_hdr *h = (struct osp_pf_hdr *)base;
	uint32_t i = __atomic_fetch_add(&h->slots_claimed, 1, __ATOMIC_RELAXED);
	if (i >= osp_pl.nslots - 1)
		i = osp_pl.nslots - 1;
	char *slot = base + osp_pl.slots_off + (uint64_t)i * osp_pl.slot_size;
	struct osp_pf_slot *s = (struct osp_pf_slot *)slot;
	if (!s->shared) {
		s->tid = (int32_t)syscall(SYS_gettid);
		__atomic_store_n(&s->state, 1, __ATOMIC_RELEASE);
	}
	osp_tls_slot = slot;
	return slot;
}

void osp_rec_shared(char *slot, unsigned op, uint64_t ns)
{
	struct osp_pf_op *o =
	    (struct osp_pf_op *)(slot + OSP_PF_SLOT_HDR + (uint64_t)op * osp_pl.op_stride);
	__atomic_fetch_add(&o->buckets[osp_bucket_index(ns, osp_pl.r)], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&o->total_ns, ns, __ATOMIC_RELAXED);
	uint64_t cur = __atomic_load_n(&o->min_not, __ATOMIC_RELAXED);
	while (~ns > cur && !__atomic_compare_exchange_n(&o->min_not, &cur, ~ns, 1,
	                                                 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	cur = __atomic_load_n(&o->max_ns, __ATOMIC_RELAXED);
	while (ns > cur && !__atomic_compare_exchange_n(&o->max_ns, &cur, ns, 1, __ATOMIC_RELAXED,
	                                                __ATOMIC_RELAXED))
		;
}

void osp_rec_span(char *slot, unsigned op, uint64_t t0, uint64_t t1)
{
	osp_rec(slot, op, t1 - t0);
}

void osp_preload_child(void)
{
	char *old = osp_pl.base;
	osp_pl.base = NULL;
	osp_tls_slot = NULL;
	/* The parent's counters must never see the child's operations. */
	if (old)
		syscall(SYS_munmap, old, map_len);
	if (!osp_pl.disabled && file_create())
		osp_pl.disabled = 1;
}

void osp_preload_flag(uint32_t flag, int set)
{
	char *base = __atomic_load_n(&osp_pl.base, __ATOMIC_ACQUIRE);
	if (!base)
		return;
	struct osp_pf_hdr *h = (struct osp_pf_hdr *)base;
	if (set)
		__atomic_or_fetch(&h->flags, flag, __ATOMIC_RELEASE);
	else
		__atomic_and_fetch(&h->flags, ~flag, __ATOMIC_RELEASE);
}

const char *osp_preload_dir(void)
{
	return dir[0] ? dir : NULL;
}

static void fork_child(void)
{
	osp_preload_child();
}

__attribute__((constructor)) static void preload_init(void)
{
	const char *d = getenv("OSPROF_PRELOAD_DIR");
	osp_env_save();
	if (!d || !*d || strlen(d) >= sizeof(dir))
		return; /* loaded outside `osprof run`: interposers pass through */
	strcpy(dir, d);
	osp_pl.r = env_uint("OSPROF_RESOLUTION", 1, 1, OSP_MAX_RESOLUTION);
	if (!osp_resolution_valid(osp_pl.r))
		osp_pl.r = 1;
	osp_pl.nslots = env_uint("OSPROF_PRELOAD_SLOTS", 128, 2, OSP_PF_MAX_SLOTS);
	/* osprof measures the TSC rate once and passes it down, so that short
	 * processes of a big tree do not each spend 2 ms calibrating. */
	const char *m = getenv("OSPROF_TSC_MULT");
	if (m && *m) {
		char *end;
		unsigned long long v = strtoull(m, &end, 10);
		if (!*end && v) {
			osp_pl.tsc.mult = v;
			osp_pl.tsc.usable = 1;
		}
	}
	if (!osp_pl.tsc.usable && !(m && !strcmp(m, "0")))
		osp_tsc_calibrate(&osp_pl.tsc);
	if (file_create()) {
		static const char msg[] = "osprof: preload: cannot create the counter file in "
		                          "$OSPROF_PRELOAD_DIR; this process is not profiled\n";
		syscall(SYS_write, 2, msg, sizeof(msg) - 1);
		return;
	}
	osp_pl.disabled = 0;
	pthread_atfork(NULL, NULL, fork_child);
	for (unsigned i = 0; i < OSP_NOPS; i++)
		osp_real(i);
}

__attribute__((destructor)) static void preload_fini(void)
{
	char *base = osp_pl.base;
	if (!base)
		return;
	struct osp_pf_hdr *h = (struct osp_pf_hdr *)base;
	h->end_mono_ns = osp_now_ns();
	/* comm may have been changed by prctl since the start. */
	prctl(PR_GET_NAME, h->comm, 0, 0, 0);
	__atomic_or_fetch(&h->flags, OSP_PF_EXITED, __ATOMIC_RELEASE);
}
