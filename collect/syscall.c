/* The syscall layer: every system call by name, latency from sys_enter to
 * sys_exit, aggregated in the kernel (collect/bpf/syscall.bpf.c). Options:
 * --by pid|tid|comm|fs, -i slices, --split preempt, --correlate/--peaks.
 * Documentation: docs/kernel-layers.md. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <osprof/clock.h>
#include "collect/bpf_common.h"
#include "collect/bpf_fast.h"
#include "collect/nest.h"
#include "collect/bpf/syscall.h"
#include "syscall.skel.h"

static const char *const sys_names[OSP_SYS_MAX] = {
#include "syscall_names.h"
};

/* System calls whose first (or second) argument is a file descriptor: --by fs
 * attributes them to that file's file system and device. */
static const char *const fd1_calls[] = {
    "read",
    "write",
    "close",
    "fstat",
    "lseek",
    "ioctl",
    "pread64",
    "pwrite64",
    "readv",
    "writev",
    "fcntl",
    "flock",
    "fsync",
    "fdatasync",
    "ftruncate",
    "getdents",
    "getdents64",
    "fchdir",
    "fchmod",
    "fchown",
    "fstatfs",
    "readahead",
    "fsetxattr",
    "fgetxattr",
    "flistxattr",
    "fremovexattr",
    "sync_file_range",
    "splice",
    "tee",
    "vmsplice",
    "fallocate",
    "preadv",
    "pwritev",
    "preadv2",
    "pwritev2",
    "sendto",
    "recvfrom",
    "sendmsg",
    "recvmsg",
    "sendmmsg",
    "recvmmsg",
    "shutdown",
    "bind",
    "connect",
    "listen",
    "accept",
    "accept4",
    "getsockname",
    "getpeername",
    "setsockopt",
    "getsockopt",
    "epoll_wait",
    "epoll_ctl",
    "epoll_pwait",
    "epoll_pwait2",
    "fadvise64",
    "syncfs",
    "copy_file_range",
    "fdatasync",
};

static const char *const corr_names[] = {"",       "req_bytes", "ret_bytes",
                                         "offset", "past_eof",  "errno"};

struct sys_state {
	struct syscall_bpf *skel;
	enum osp_attach_mode mode;
	int fast;
	struct osp_bpf_fast plain; /* the fast path's maps */
	struct osp_bpf_stats prev_stats;
	unsigned corr, corr_nr;
	unsigned last_dev;
	char last_dev_name[32];
	int exported; /* sys_inflight is the nesting parent of the other layers */
};

int osp_syscall_nr(const char *name)
{
	for (int i = 0; i < OSP_SYS_MAX; i++)
		if (sys_names[i] && !strcmp(sys_names[i], name))
			return i;
	return -1;
}

const char *osp_syscall_name(unsigned nr)
{
	return nr < OSP_SYS_MAX ? sys_names[nr] : NULL;
}

static const char *sys_name(unsigned nr, char *buf, size_t len)
{
	if (nr < OSP_SYS_MAX && sys_names[nr])
		return sys_names[nr];
	snprintf(buf, len, "sys_%u", nr);
	return buf;
}

static void set_flag(struct osp_sys_opts *o, const char *name, __u8 flag)
{
	int nr = osp_syscall_nr(name);
	if (nr >= 0)
		o->flags[nr] |= flag;
}

static int parse_by(const char *by, __u32 *code)
{
	static const struct {
		const char *name;
		__u32 code;
	} bys[] = {{"pid", OSP_SYS_BY_PID},
	           {"tid", OSP_SYS_BY_TID},
	           {"comm", OSP_SYS_BY_COMM},
	           {"fs", OSP_SYS_BY_FS},
	           {"dev", OSP_SYS_BY_FS}};
	*code = OSP_SYS_BY_NONE;
	if (!by)
		return 0;
	for (size_t i = 0; i < sizeof(bys) / sizeof(bys[0]); i++)
		if (!strcmp(by, bys[i].name)) {
			*code = bys[i].code;
			return 0;
		}
	fprintf(stderr, "osprof: --by %s: the syscall layer splits by pid, tid, comm or fs\n", by);
	return -EINVAL;
}

/* One endpoint of a --peaks range: a bucket number b = floor(r log2 ns) as
 * `osprof peaks` prints it (the file's bucket index minus one, so ranges copy
 * over unchanged), "zero" or "ovf", or a latency with a unit ("10us"), which
 * names the bucket holding it. */
static int parse_peak_end(const char *s, unsigned r, __u32 *out)
{
	char *end;
	unsigned nb = osp_nbuckets(r);
	if (!strcmp(s, "zero") || !strcmp(s, "ovf")) {
		*out = s[0] == 'z' ? 0 : nb - 1;
		return 0;
	}
	unsigned long v = strtoul(s, &end, 10);
	if (end != s && *end == '\0') {
		/* b runs 0 .. nb - 3; nb - 2 is the overflow bucket, as
		 * `peaks --json` numbers it. */
		if (*s == '-' || v + 1 >= nb)
			return -EINVAL;
		*out = (__u32)v + 1;
		return 0;
	}
	uint64_t ns;
	if (end == s || osp_parse_duration(s, &ns))
		return -EINVAL;
	*out = osp_bucket_index(ns, r);
	return 0;
}

int osp_parse_peaks(const char *arg, unsigned r, __u32 *lo, __u32 *hi, unsigned max, unsigned *n)
{
	char buf[512];
	if (!arg || strlen(arg) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, arg);
	*n = 0;
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (*n == max)
			return -E2BIG;
		char *dash = strchr(tok, '-');
		if (dash)
			*dash = '\0';
		if (parse_peak_end(tok, r, &lo[*n]) ||
		    parse_peak_end(dash ? dash + 1 : tok, r, &hi[*n]) || lo[*n] > hi[*n])
			return -EINVAL;
		(*n)++;
	}
	return *n ? 0 : -EINVAL;
}

static int parse_correlate(const struct osp_session *s, struct osp_sys_opts *o)
{
	if (!s->correlate) {
		if (s->peaks) {
			fprintf(stderr, "osprof: --peaks needs --correlate OP:VALUE\n");
			return -EINVAL;
		}
		return 0;
	}
	char op[64];
	const char *colon = strchr(s->correlate, ':');
	if (!colon || (size_t)(colon - s->correlate) >= sizeof(op)) {
		fprintf(stderr, "osprof: --correlate %s: expected OP:VALUE, e.g. read:req_bytes\n",
		        s->correlate);
		return -EINVAL;
	}
	memcpy(op, s->correlate, (size_t)(colon - s->correlate));
	op[colon - s->correlate] = '\0';
	int nr = osp_syscall_nr(op);
	if (nr < 0) {
		fprintf(stderr, "osprof: --correlate %s: '%s' is not a system call\n", s->correlate,
		        op);
		return -EINVAL;
	}
	o->corr_nr = (__u32)nr;
	for (unsigned i = 1; i < sizeof(corr_names) / sizeof(corr_names[0]); i++)
		if (!strcmp(colon + 1, corr_names[i]))
			o->corr = i;
	if (!o->corr) {
		fprintf(stderr,
		        "osprof: --correlate %s: value must be req_bytes, ret_bytes, offset, "
		        "past_eof or errno\n",
		        s->correlate);
		return -EINVAL;
	}
	if (!s->peaks) {
		fprintf(
		    stderr,
		    "osprof: --correlate needs --peaks RANGES (bucket ranges, e.g. 10-12,20-24)\n");
		return -EINVAL;
	}
	if (osp_parse_peaks(s->peaks, s->r, o->peak_lo, o->peak_hi, OSP_SYS_PEAKS, &o->npeaks)) {
		fprintf(stderr,
		        "osprof: --peaks %s: expected up to %d ranges LO-HI of bucket numbers "
		        "as 'osprof peaks' prints them (0..%u, zero, ovf) or latencies "
		        "(10us-50us)\n",
		        s->peaks, OSP_SYS_PEAKS, osp_nbuckets(s->r) - 3);
		return -EINVAL;
	}
	return 0;
}

static void fill_flags(struct osp_sys_opts *o)
{
	for (size_t i = 0; i < sizeof(fd1_calls) / sizeof(fd1_calls[0]); i++)
		set_flag(o, fd1_calls[i], OSP_SYSF_FD1);
	set_flag(o, "sendfile", OSP_SYSF_FD2);
	static const char *const pos4[] = {"pread64", "pwrite64", "preadv",
	                                   "pwritev", "preadv2",  "pwritev2"};
	for (size_t i = 0; i < sizeof(pos4) / sizeof(pos4[0]); i++)
		set_flag(o, pos4[i], OSP_SYSF_POS4);
	set_flag(o, "exit", OSP_SYSF_NORETURN);
	set_flag(o, "exit_group", OSP_SYSF_NORETURN);
	set_flag(o, "fork", OSP_SYSF_FORK);
	set_flag(o, "vfork", OSP_SYSF_FORK);
	set_flag(o, "clone", OSP_SYSF_FORK);
	set_flag(o, "clone3", OSP_SYSF_FORK);
}

static void sys_destroy(struct osp_session *s, int slot)
{
	struct sys_state *st = s->layer_state[slot];
	if (!st)
		return;
	if (st->exported)
		osp_nest_export_sys(-1);
	syscall_bpf__destroy(st->skel);
	osp_bpf_fast_free(&st->plain);
	free(st);
	s->layer_state[slot] = NULL;
	osp_bpf_common_release(s);
}

static int sys_prepare(struct osp_session *s, int slot)
{
	int rc = osp_bpf_check("syscall");
	if (rc)
		return rc;
	struct sys_state *st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	if ((rc = osp_bpf_common_acquire(s))) {
		free(st);
		return rc;
	}
	s->layer_state[slot] = st;
	struct osp_sys_opts o;
	memset(&o, 0, sizeof(o));
	__u32 by;
	if ((rc = parse_by(s->by, &by)) || (rc = parse_correlate(s, &o))) {
		s->bad_input = 1;
		goto fail;
	}
	fill_flags(&o);
	st->corr = o.corr;
	st->corr_nr = o.corr_nr;
	st->skel = syscall_bpf__open();
	if (!st->skel) {
		rc = -errno;
		fprintf(stderr, "osprof: syscall: cannot open BPF object: %s\n", strerror(errno));
		goto fail;
	}
	struct syscall_bpf *k = st->skel;
	if ((rc = OSP_BPF_SETUP(k, s)))
		goto fail;
	k->rodata->osp_cfg.by = by;
	memcpy((void *)&k->rodata->sys_opts, &o, sizeof(o));
	const struct osp_bpf_cfg *cfg = (const struct osp_bpf_cfg *)&k->rodata->osp_cfg;
	st->fast = !by && !cfg->slice_ns && !cfg->split_preempt && !o.corr;
	bpf_map__set_max_entries(k->maps.sys_inflight, osp_bpf_thread_slots());
	if ((rc = osp_bpf_fast_init(&st->plain, k->maps.sys_fast, k->maps.sys_minmax, OSP_SYS_MAX,
	                            s->r, st->fast)))
		goto fail;
	/* --by on a whole system: many processes x calls x buckets. */
	bpf_map__set_max_entries(k->maps.sys_hists, st->fast ? 1 : osp_bpf_hist_entries(65536));
	st->mode = osp_bpf_tp_mode();
	osp_bpf_pick(k->progs.sys_enter_btf, k->progs.sys_enter_raw, st->mode);
	osp_bpf_pick(k->progs.sys_exit_btf, k->progs.sys_exit_raw, st->mode);
	if ((rc = syscall_bpf__load(k))) {
		fprintf(stderr, "osprof: syscall: cannot load BPF programs (%s): %s\n",
		        osp_attach_mode_name(st->mode), strerror(-rc));
		goto fail;
	}
	/* The layers prepared next (fs, block, lock) read each thread's call in
	 * flight from this map: measured nesting at no cost here. */
	osp_nest_export_sys(bpf_map__fd(k->maps.sys_inflight));
	st->exported = 1;
	return 0;
fail:
	sys_destroy(s, slot);
	return rc;
}

static int sys_attach(struct osp_session *s, int slot)
{
	struct sys_state *st = s->layer_state[slot];
	int rc = osp_bpf_common_start(s);
	if (rc)
		return rc;
	struct syscall_bpf *k = st->skel;
	int btf = st->mode == OSP_ATTACH_TP_BTF;
	if (s->root_pid > 0) {
		__u32 slot = (__u32)s->root_pid & (osp_bpf_thread_slots() - 1);
		struct osp_sys_inflight e = {.start = OSP_SYS_SKIP, .tid = (__u32)s->root_pid};
		bpf_map__update_elem(k->maps.sys_inflight, &slot, sizeof(slot), &e, sizeof(e), 0);
	}
	struct bpf_link *le =
	    bpf_program__attach(btf ? k->progs.sys_enter_btf : k->progs.sys_enter_raw);
	if (!le)
		goto err;
	*(btf ? &k->links.sys_enter_btf : &k->links.sys_enter_raw) = le;
	struct bpf_link *lx =
	    bpf_program__attach(btf ? k->progs.sys_exit_btf : k->progs.sys_exit_raw);
	if (!lx)
		goto err;
	*(btf ? &k->links.sys_exit_btf : &k->links.sys_exit_raw) = lx;
	osp_bpf_note_attach(s, "syscall", "sys_enter", st->mode);
	osp_bpf_note_attach(s, "syscall", "sys_exit", st->mode);
	return 0;
err:
	rc = -errno;
	fprintf(stderr, "osprof: syscall: cannot attach to sys_enter/sys_exit (%s): %s\n",
	        osp_attach_mode_name(st->mode), strerror(errno));
	return rc;
}

static const char *dev_name(struct sys_state *st, unsigned dev)
{
	if (dev == st->last_dev && st->last_dev_name[0])
		return st->last_dev_name;
	unsigned maj = dev >> 20, min = dev & 0xfffff;
	char path[96], line[128];
	snprintf(st->last_dev_name, sizeof(st->last_dev_name), "%u:%u", maj, min);
	st->last_dev = dev;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent", maj, min);
	FILE *f = fopen(path, "r");
	if (!f)
		return st->last_dev_name;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "DEVNAME=", 8)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(st->last_dev_name, sizeof(st->last_dev_name), "%.31s", line + 8);
		}
	fclose(f);
	return st->last_dev_name;
}

static void add_dim(struct osp_bpf_desc *d, size_t *used, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void add_dim(struct osp_bpf_desc *d, size_t *used, const char *name, const char *fmt, ...)
{
	va_list ap;
	char *dst = d->buf + *used;
	size_t room = sizeof(d->buf) - *used;
	va_start(ap, fmt);
	int n = vsnprintf(dst, room, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= room || d->ndims == OSP_MAX_DIMS)
		return;
	for (char *c = dst; *c; c++)
		if ((unsigned char)*c < ' ')
			*c = '?';
	d->dims[d->ndims].name = (char *)name;
	d->dims[d->ndims].value = dst;
	d->ndims++;
	*used += (size_t)n + 1;
}

static int describe(void *ctx, const struct osp_hkey *k, struct osp_bpf_desc *d)
{
	struct sys_state *st = ctx;
	size_t used = 0;
	unsigned nr = k->op & 0xffff;
	static char namebuf[32];
	d->op = sys_name(nr, namebuf, sizeof(namebuf));
	if (k->op & OSP_SYS_CORR_OP) {
		add_dim(d, &used, "corr", "%s", corr_names[st->corr]);
		add_dim(d, &used, "peak", "%u", k->aux);
		d->unit = st->corr == OSP_CORR_PAST_EOF || st->corr == OSP_CORR_ERRNO
		              ? OSP_UNIT_COUNT
		              : OSP_UNIT_BYTES;
		return 0;
	}
	switch (st->skel->rodata->osp_cfg.by) {
	case OSP_SYS_BY_PID:
		add_dim(d, &used, "pid", "%llu", (unsigned long long)k->dim[0]);
		break;
	case OSP_SYS_BY_TID:
		add_dim(d, &used, "tid", "%llu", (unsigned long long)k->dim[0]);
		break;
	case OSP_SYS_BY_COMM: {
		char comm[17] = {0};
		memcpy(comm, k->dim, 16);
		add_dim(d, &used, "comm", "%s", comm[0] ? comm : "?");
		break;
	}
	case OSP_SYS_BY_FS:
		if (k->dim[0]) {
			struct osp_sys_fsname n = {{0}};
			__u64 type = k->dim[0];
			bpf_map_lookup_elem(bpf_map__fd(st->skel->maps.sys_fsnames), &type, &n);
			n.name[sizeof(n.name) - 1] = '\0';
			add_dim(d, &used, "fs", "%s", n.name[0] ? n.name : "?");
			add_dim(d, &used, "dev", "%s", dev_name(st, (unsigned)k->dim[1]));
		}
		break;
	}
	if (k->flags & OSP_HK_PREEMPTED)
		add_dim(d, &used, "state", "preempted");
	return 0;
}

static int sys_collect(struct osp_session *s, int slot, int reset)
{
	struct sys_state *st = s->layer_state[slot];
	int rc = st->fast ? osp_bpf_fast_read(s, &st->plain, "syscall", describe, st, reset)
	                  : osp_bpf_read_hists(s, bpf_map__fd(st->skel->maps.sys_hists), "syscall",
	                                       describe, st, reset);
	if (rc) {
		fprintf(stderr, "osprof: syscall: cannot read histograms: %s\n", strerror(-rc));
		return rc;
	}
	return osp_bpf_read_stats(s, st->skel->obj, reset ? &st->prev_stats : NULL);
}

static int sys_list(FILE *out, int verbose)
{
	unsigned n = 0;
	for (int i = 0; i < OSP_SYS_MAX; i++)
		n += sys_names[i] != NULL;
	int ok = geteuid() == 0 && access("/sys/kernel/btf/vmlinux", R_OK) == 0;
	const char *mode = ok ? osp_attach_mode_name(osp_bpf_tp_mode()) : "tp_btf (needs root)";
	fprintf(out,
	        "syscall  %u system calls: sys_enter -> sys_exit via %s; --by pid|tid|comm|fs\n", n,
	        mode);
	if (verbose)
		for (int i = 0; i < OSP_SYS_MAX; i++)
			if (sys_names[i])
				fprintf(out, "  %-24s %d\n", sys_names[i], i);
	return 0;
}

const struct osp_layer osp_layer_syscall = {
    .name = "syscall",
    .by = "pid,tid,comm,fs",
    .summary = "system calls by name, latency sys_enter -> sys_exit (eBPF)",
    .needs_root = 1,
    OSP_LAYER_STEPS(sys),
};
