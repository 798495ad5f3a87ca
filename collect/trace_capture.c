/* User side of trace capture: the syscall recipes, loading and attaching
 * trace.bpf.c, and draining its ring buffer into a trace writer. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <osprof/clock.h>
#include "collect/bpf_common.h"
#include "collect/bpf/trace.h"
#include "collect/trace_capture.h"
#include "trace.skel.h"

#define N OSP_SC_NONE
/* How each system call is recorded: fd, size, offset and flag arguments. */
static const struct {
	int nr;
	struct osp_trace_sc sc;
} recipes[] = {
#define R(sys, op, fd, size, off, arg, fl)                                                         \
	{                                                                                          \
		SYS_##sys,                                                                         \
		{                                                                                  \
			OSP_TOP_##op, fd, size, off, arg, fl, 0                                    \
		}                                                                                  \
	}
    R(read, READ, 0, 2, N, N, OSP_SC_POS),
    R(write, WRITE, 0, 2, N, N, OSP_SC_POS),
    R(pread64, PREAD64, 0, 2, 3, N, 0),
    R(pwrite64, PWRITE64, 0, 2, 3, N, 0),
    R(readv, READV, 0, N, N, 2, OSP_SC_POS),
    R(writev, WRITEV, 0, N, N, 2, OSP_SC_POS),
    R(preadv, PREADV, 0, N, 3, 2, 0),
    R(pwritev, PWRITEV, 0, N, 3, 2, 0),
    R(preadv2, PREADV2, 0, N, 3, 2, 0),
    R(pwritev2, PWRITEV2, 0, N, 3, 2, 0),
    R(open, OPEN, N, N, N, 1, OSP_SC_RETFD),
    R(openat, OPENAT, N, N, N, 2, OSP_SC_RETFD),
    R(openat2, OPENAT2, N, N, N, 2, OSP_SC_RETFD | OSP_SC_HOWPTR),
    R(creat, CREAT, N, N, N, 1, OSP_SC_RETFD),
    R(close, CLOSE, 0, N, N, N, 0),
    R(lseek, LSEEK, 0, N, 1, 2, 0),
    R(fsync, FSYNC, 0, N, N, N, 0),
    R(fdatasync, FDATASYNC, 0, N, N, N, 0),
    R(sync_file_range, SYNC_FILE_RANGE, 0, 2, 1, 3, 0),
    R(sync, SYNC, N, N, N, N, 0),
    R(syncfs, SYNCFS, 0, N, N, N, 0),
    R(stat, STAT, N, N, N, N, 0),
    R(lstat, LSTAT, N, N, N, N, 0),
    R(fstat, FSTAT, 0, N, N, N, 0),
    R(newfstatat, NEWFSTATAT, N, N, N, 3, 0),
    R(statx, STATX, N, N, N, 2, 0),
    R(statfs, STATFS, N, N, N, N, 0),
    R(fstatfs, FSTATFS, 0, N, N, N, 0),
    R(access, ACCESS, N, N, N, 1, 0),
    R(faccessat, FACCESSAT, N, N, N, 2, 0),
    R(faccessat2, FACCESSAT2, N, N, N, 2, 0),
    R(getdents, GETDENTS, 0, 2, N, N, OSP_SC_POS),
    R(getdents64, GETDENTS64, 0, 2, N, N, OSP_SC_POS),
    R(unlink, UNLINK, N, N, N, N, 0),
    R(unlinkat, UNLINKAT, N, N, N, 2, 0),
    R(rename, RENAME, N, N, N, N, 0),
    R(renameat, RENAMEAT, N, N, N, N, 0),
    R(renameat2, RENAMEAT2, N, N, N, 4, 0),
    R(mkdir, MKDIR, N, N, N, 1, 0),
    R(mkdirat, MKDIRAT, N, N, N, 2, 0),
    R(rmdir, RMDIR, N, N, N, N, 0),
    R(link, LINK, N, N, N, N, 0),
    R(linkat, LINKAT, N, N, N, 4, 0),
    R(symlink, SYMLINK, N, N, N, N, 0),
    R(symlinkat, SYMLINKAT, N, N, N, N, 0),
    R(readlink, READLINK, N, 2, N, N, 0),
    R(readlinkat, READLINKAT, N, 3, N, N, 0),
    R(truncate, TRUNCATE, N, 1, N, N, 0),
    R(ftruncate, FTRUNCATE, 0, 1, N, N, 0),
    R(fallocate, FALLOCATE, 0, 3, 2, 1, 0),
    R(fadvise64, FADVISE64, 0, 2, 1, 3, 0),
    R(mmap, MMAP, 4, 1, 5, 2, OSP_SC_ANONCHK),
    R(sendfile, SENDFILE, 1, 3, N, N, 0),
    R(copy_file_range, COPY_FILE_RANGE, 0, 4, N, N, 0),
    R(chmod, CHMOD, N, N, N, 1, 0),
    R(fchmod, FCHMOD, 0, N, N, 1, 0),
    R(fchmodat, FCHMODAT, N, N, N, 2, 0),
    R(chown, CHOWN, N, N, N, N, 0),
    R(fchown, FCHOWN, 0, N, N, N, 0),
    R(fchownat, FCHOWNAT, N, N, N, N, 0),
    R(utimensat, UTIMENSAT, N, N, N, 3, 0),
    R(flock, FLOCK, 0, N, N, 1, 0),
#undef R
};
#undef N

struct osp_trace_capture {
	struct trace_bpf *k;
	struct ring_buffer *rb;
	struct bpf_link *links[16];
	int nlinks;
	enum osp_attach_mode mode;
	unsigned layers;
	int acquired;
	struct osp_trace_writer *w; /* target of the ring-buffer callback */
	long moved;
	uint64_t lost_seen;
	uint64_t flushed_ns; /* last flush of the per-CPU batches */
	int ncpu;
};

/* One ring-buffer record holds one event (fs, block) or a batch of system
 * calls (struct osp_trace_rec each). */
static int on_event(void *ctx, void *data, size_t len)
{
	struct osp_trace_capture *c = ctx;
	for (const struct osp_trace_rec *r = data; len >= sizeof(*r); r++, len -= sizeof(*r)) {
		struct osp_trace_event ev = {
		    .ts_ns = r->ts,
		    .lat_ns = r->lat,
		    .pid = r->pid,
		    .tid = r->tid,
		    .op = r->op,
		    .dev = r->dev,
		    .ino = r->ino,
		    .off = r->off,
		    .size = r->size,
		    .ret = r->ret,
		    .arg = r->arg,
		};
		memcpy(ev.comm, r->comm, sizeof(ev.comm) - 1);
		osp_trace_writer_add(c->w, &ev);
		c->moved++;
	}
	return 0;
}

/* Opens, configures and loads trace.bpf.c with the programs of mode m;
 * 0 or -errno (c->k is NULL on failure). */
static int load(struct osp_trace_capture *c, struct osp_session *s, size_t rb_bytes,
                enum osp_attach_mode m)
{
	c->mode = m;
	c->k = trace_bpf__open();
	if (!c->k) {
		int rc = -errno;
		fprintf(stderr, "osprof trace: cannot open the trace BPF object: %s\n",
		        strerror(errno));
		return rc;
	}
	struct trace_bpf *k = c->k;
	int rc = OSP_BPF_SETUP(k, s);
	if (rc)
		goto fail;
	unsigned layers = c->layers;
	k->rodata->trace_layers = layers;
	k->rodata->have_rdonly_cast = (__u32)osp_btf_has_func("bpf_rdonly_cast");
	k->rodata->op_sync_file = OSP_TOP_FS_SYNC_FILE;
	k->rodata->op_da_write = OSP_TOP_FS_DA_WRITE;
	k->rodata->op_pagecache = OSP_TOP_FS_PAGECACHE_ADD;
	k->rodata->op_blk_read = OSP_TOP_BLK_READ;
	k->rodata->op_blk_write = OSP_TOP_BLK_WRITE;
	k->rodata->op_blk_flush = OSP_TOP_BLK_FLUSH;
	k->rodata->op_blk_other = OSP_TOP_BLK_OTHER;
	if (rb_bytes)
		bpf_map__set_max_entries(k->maps.trace_rb, (__u32)rb_bytes);
	else
		rb_bytes = 32u << 20;
	/* Each CPU wakes the reader after wake_bytes of its own: together they
	 * leave at most a quarter of the ring waiting between wakeups. */
	size_t wake = rb_bytes / 4 / (size_t)c->ncpu;
	k->rodata->wake_bytes = wake > 4096 ? wake : 4096;
	bpf_map__set_max_entries(k->maps.trace_inflight, osp_bpf_thread_slots());
	struct bpf_program *pairs[][2] = {
	    {k->progs.trace_enter_btf, k->progs.trace_enter_raw},
	    {k->progs.trace_exit_btf, k->progs.trace_exit_raw},
	    {k->progs.fs_sync_enter_btf, k->progs.fs_sync_enter_raw},
	    {k->progs.fs_sync_exit_btf, k->progs.fs_sync_exit_raw},
	    {k->progs.fs_wbegin_btf, k->progs.fs_wbegin_raw},
	    {k->progs.fs_wend_btf, k->progs.fs_wend_raw},
	    {k->progs.fs_pcache_btf, k->progs.fs_pcache_raw},
	    {k->progs.blk_issue_btf, k->progs.blk_issue_raw},
	    {k->progs.blk_done_btf, k->progs.blk_done_raw},
	};
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		osp_bpf_pick(pairs[i][0], pairs[i][1], m);
		int want =
		    i < 2 || (i < 7 ? (layers & OSP_TRACE_L_FS) : (layers & OSP_TRACE_L_BLOCK));
		if (!want) {
			bpf_program__set_autoload(pairs[i][0], false);
			bpf_program__set_autoload(pairs[i][1], false);
		}
	}
	if ((rc = trace_bpf__load(k)) == 0)
		return 0;
fail:
	trace_bpf__destroy(c->k);
	c->k = NULL;
	return rc;
}

int osp_trace_capture_open(struct osp_trace_capture **out, struct osp_session *s, unsigned layers,
                           size_t rb_bytes)
{
	struct osp_trace_capture *c = calloc(1, sizeof(*c));
	int rc;
	*out = NULL;
	if (!c)
		return -ENOMEM;
	c->layers = layers;
	if ((rc = osp_bpf_common_acquire(s)))
		goto fail;
	c->acquired = 1;
	c->ncpu = libbpf_num_possible_cpus();
	if (c->ncpu <= 0)
		c->ncpu = 1;
	/* tp_btf where this kernel loads these programs (not only the probe's
	 * empty one: a kernel may lack a kfunc or BTF type they use), else the
	 * raw_tp twins; the mode reaches the metadata at attach. */
	enum osp_attach_mode m = osp_bpf_tp_mode();
	rc = load(c, s, rb_bytes, m);
	if (rc && m == OSP_ATTACH_TP_BTF) {
		int first = rc;
		if (!(rc = load(c, s, rb_bytes, OSP_ATTACH_RAW_TP)))
			fprintf(stderr,
			        "osprof trace: this kernel refuses the tp_btf trace programs (%s): "
			        "recording through raw_tp (same records, more per-event cost)\n",
			        strerror(-first));
	}
	if (rc) {
		fprintf(stderr, "osprof trace: cannot load the trace BPF programs (%s): %s\n",
		        osp_attach_mode_name(c->mode), strerror(-rc));
		goto fail;
	}
	struct trace_bpf *k = c->k;
	for (size_t i = 0; i < sizeof(recipes) / sizeof(recipes[0]); i++) {
		__u32 nr = (__u32)recipes[i].nr;
		if (nr < OSP_TRACE_NR_SYSCALLS &&
		    (rc = bpf_map__update_elem(k->maps.trace_sc, &nr, sizeof(nr), &recipes[i].sc,
		                               sizeof(recipes[i].sc), 0))) {
			fprintf(stderr, "osprof trace: cannot fill the syscall table: %s\n",
			        strerror(-rc));
			goto fail;
		}
	}
	*out = c;
	return 0;
fail:
	osp_trace_capture_close(c, s);
	return rc < 0 ? rc : -EINVAL;
}

static int attach(struct osp_trace_capture *c, struct osp_session *s, struct bpf_program *btf,
                  struct bpf_program *raw, const char *layer, const char *target)
{
	struct bpf_program *p = c->mode == OSP_ATTACH_TP_BTF ? btf : raw;
	struct bpf_link *l = bpf_program__attach(p);
	if (!l) {
		int rc = -errno;
		fprintf(stderr, "osprof trace: cannot attach to %s (%s): %s\n", target,
		        osp_attach_mode_name(c->mode), strerror(errno));
		return rc;
	}
	c->links[c->nlinks++] = l;
	osp_bpf_note_attach(s, layer, target, c->mode);
	return 0;
}

/* Each tracepoint's twins (OSP_TP_TWINS), attached in the flavour loaded,
 * for the layers recorded. */
static int attach_all(struct osp_trace_capture *c, struct osp_session *s)
{
	struct trace_bpf *k = c->k;
	int rc;
	/* bit: the OSP_TRACE_L_* that wants them, 0 always; layer: the name
	 * their attach mode is noted under */
#define TP(bit, layer, tp, prog)                                                                   \
	{                                                                                          \
		bit, layer, #tp, k->progs.prog##_btf, k->progs.prog##_raw                          \
	}
	const struct {
		unsigned bit;
		const char *layer, *tp;
		struct bpf_program *btf, *raw;
	} tps[] = {
	    TP(0, "syscall", sys_enter, trace_enter),
	    TP(0, "syscall", sys_exit, trace_exit),
	    TP(OSP_TRACE_L_FS, "fs", ext4_sync_file_enter, fs_sync_enter),
	    TP(OSP_TRACE_L_FS, "fs", ext4_sync_file_exit, fs_sync_exit),
	    TP(OSP_TRACE_L_FS, "fs", ext4_da_write_begin, fs_wbegin),
	    TP(OSP_TRACE_L_FS, "fs", ext4_da_write_end, fs_wend),
	    TP(OSP_TRACE_L_FS, "fs", mm_filemap_add_to_page_cache, fs_pcache),
	    TP(OSP_TRACE_L_BLOCK, "block", block_rq_issue, blk_issue),
	    TP(OSP_TRACE_L_BLOCK, "block", block_rq_complete, blk_done),
	};
#undef TP
	for (size_t i = 0; i < sizeof(tps) / sizeof(tps[0]); i++)
		if ((!tps[i].bit || (c->layers & tps[i].bit)) &&
		    (rc = attach(c, s, tps[i].btf, tps[i].raw, tps[i].layer, tps[i].tp)))
			return rc;
	return 0;
}

int osp_trace_capture_attach(struct osp_trace_capture *c, struct osp_session *s)
{
	struct trace_bpf *k = c->k;
	int rc = osp_bpf_common_start(s);
	if (rc)
		return rc;
	c->rb = ring_buffer__new(bpf_map__fd(k->maps.trace_rb), on_event, c, NULL);
	if (!c->rb) {
		rc = -errno;
		fprintf(stderr, "osprof trace: cannot map the ring buffer: %s\n", strerror(errno));
		return rc;
	}
	return attach_all(c, s);
}

uint64_t osp_trace_capture_lost(const struct osp_trace_capture *c)
{
	int ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0 || !c->k)
		return 0;
	/* A run the kernel skipped (the program already running on that CPU,
	 * e.g. a block completion interrupting one) is an event lost too. */
	__u64 *v = calloc((size_t)ncpu, sizeof(__u64)), sum = osp_bpf_obj_misses(c->k->obj);
	__u32 key = OSP_STAT_LOST;
	if (v && !bpf_map__lookup_elem(c->k->maps.osp_stats, &key, sizeof(key), v,
	                               sizeof(__u64) * (size_t)ncpu, 0))
		for (int i = 0; i < ncpu; i++)
			sum += v[i];
	free(v);
	return sum;
}

/* Moves every CPU's partial batch of system calls into the ring buffer by
 * running the flush program on that CPU. */
static int flush_batches(struct osp_trace_capture *c)
{
	int fd = bpf_program__fd(c->k->progs.trace_flush);
	for (int cpu = 0; cpu < c->ncpu; cpu++) {
		LIBBPF_OPTS(bpf_test_run_opts, o, .flags = BPF_F_TEST_RUN_ON_CPU,
		            .cpu = (__u32)cpu);
		/* retval 1: the flush interrupted an append on that CPU, which
		 * completes as soon as the interrupt returns. */
		for (int tries = 0; tries < 1000; tries++) {
			int rc = bpf_prog_test_run_opts(fd, &o);
			if (rc == -ENXIO)
				break; /* CPU offline: it has not run since the last flush */
			if (rc < 0)
				return rc;
			if (o.retval != 1)
				break;
		}
	}
	return 0;
}

int osp_trace_capture_fd(const struct osp_trace_capture *c)
{
	return ring_buffer__epoll_fd(c->rb);
}

long osp_trace_capture_poll(struct osp_trace_capture *c, struct osp_trace_writer *w, int drain)
{
	c->w = w;
	c->moved = 0;
	/* Producers wake the fd only when much is waiting; the caller's
	 * timeout plus the consume below picks up the rest. The zero-timeout
	 * poll is what clears the epoll fd's readiness the caller waits on. */
	int rc = ring_buffer__poll(c->rb, 0);
	if (rc < 0 && rc != -EINTR)
		return rc;
	uint64_t now = osp_now_ns();
	if (drain || now - c->flushed_ns >= 100000000ull) {
		if ((rc = flush_batches(c)) < 0)
			return rc;
		c->flushed_ns = now;
	}
	rc = ring_buffer__consume(c->rb);
	if (rc < 0 && rc != -EINTR)
		return rc;
	uint64_t lost = osp_trace_capture_lost(c);
	if (lost > c->lost_seen) {
		osp_trace_writer_drop(w, lost - c->lost_seen);
		c->lost_seen = lost;
	}
	return c->moved;
}

void osp_trace_capture_detach(struct osp_trace_capture *c)
{
	while (c->nlinks > 0)
		bpf_link__destroy(c->links[--c->nlinks]);
}

void osp_trace_capture_close(struct osp_trace_capture *c, struct osp_session *s)
{
	if (!c)
		return;
	osp_trace_capture_detach(c);
	ring_buffer__free(c->rb);
	trace_bpf__destroy(c->k);
	if (c->acquired)
		osp_bpf_common_release(s);
	free(c);
}
