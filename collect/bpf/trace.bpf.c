// SPDX-License-Identifier: GPL-2.0
/* osprof trace capture: one record per file-system system call, gathered
 * in per-CPU batches of OSP_TRACE_BATCH that go to the ring buffer whole
 * (and, with --layers, one ring record per ext4/page-cache event and block
 * request). The
 * per-syscall recipe (which argument is the fd, size, offset, flags) comes
 * from user space in trace_sc, so this program needs no syscall numbers. */
#include "vmlinux.h"
#include "osp_common.bpf.h"
#include "trace.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 trace_layers = 0;
const volatile __u64 wake_bytes = 1 << 20;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct osp_trace_sc);
	__uint(max_entries, OSP_TRACE_NR_SYSCALLS);
} trace_sc SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 32 << 20);
} trace_rb SEC(".maps");

/* A system call in flight: slot tid & tid_mask (osp_bpf_thread_slots(),
 * docs/bpf-infra.md). An array, not task storage: its lookup is inlined by
 * the verifier, so the exit of a call we do not record costs no helper
 * call. Two threads in flight in one slot (tids equal modulo its size, only
 * with a large pid_max) cost one counted drop. */
struct pending {
	__u64 ts, off, size, arg, ino;
	__u32 dev;
	__u32 tid; /* owner while in flight; 0 once recorded */
	__u16 op;
	__u8 flags;   /* OSP_SC_* of the call */
	__u8 pad[13]; /* 64 bytes: one cache line per slot */
};
OSP_ARRAY_MAP(trace_inflight, struct pending);

/* This CPU's records not yet in the ring (slot 0). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct osp_trace_batch);
	__uint(max_entries, 1);
} trace_batch SEC(".maps");

/* Bytes this CPU has submitted since it last woke the reader (slot 0). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1);
} trace_wake SEC(".maps");

/* fs spans (ext4_sync_file, ext4_da_write) in flight, by tid. */
struct fs_pending {
	__u64 ts, off, size, arg, ino;
	__u32 dev;
	__u16 op;
};
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH); /* spans never ended must not fill it */
	__type(key, __u32);
	__type(value, struct fs_pending);
	__uint(max_entries, 16384);
} trace_fs SEC(".maps");

/* Block requests in flight: issued by a target task, completed anywhere. */
struct blk_pending {
	__u64 ts, off, size;
	__u32 pid, tid, dev;
	__u16 op;
	char comm[16];
};
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH); /* spans never ended must not fill it */
	__type(key, __u64);
	__type(value, struct blk_pending);
	__uint(max_entries, 16384);
} trace_blk SEC(".maps");

/* Each hot-path helper has two flavours chosen by a constant `btf`: tp_btf
 * programs read kernel memory with direct (BTF-checked) loads, which cost a
 * fraction of the bpf_probe_read_kernel calls that BPF_CORE_READ makes in
 * the raw_tp fallback. The constant folds away after inlining. */
static __always_inline __u64 sc_arg(struct pt_regs *regs, __u32 i, const int btf)
{
#ifdef __TARGET_ARCH_x86
	if (btf) {
		switch (i) {
		case 0:
			return regs->di;
		case 1:
			return regs->si;
		case 2:
			return regs->dx;
		case 3:
			return regs->r10;
		case 4:
			return regs->r8;
		case 5:
			return regs->r9;
		}
		return 0;
	}
#endif
	switch (i) {
	case 0:
		return PT_REGS_PARM1_CORE_SYSCALL(regs);
	case 1:
		return PT_REGS_PARM2_CORE_SYSCALL(regs);
	case 2:
		return PT_REGS_PARM3_CORE_SYSCALL(regs);
	case 3:
		return PT_REGS_PARM4_CORE_SYSCALL(regs);
	case 4:
		return PT_REGS_PARM5_CORE_SYSCALL(regs);
	case 5:
#ifdef PT_REGS_PARM6_CORE_SYSCALL
		return PT_REGS_PARM6_CORE_SYSCALL(regs);
#elif defined(__TARGET_ARCH_x86)
		return BPF_CORE_READ(regs, r9); /* libbpf 1.1 has no PARM6 macro */
#else
		return 0;
#endif
	}
	return 0;
}

/* Weak: kernels before 6.2 have no bpf_rdonly_cast. User space sets
 * have_rdonly_cast from the kernel's BTF; where it is 0 the call is dead code
 * the verifier removes, and the probe read serves instead. */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;
const volatile __u32 have_rdonly_cast = 0;

struct file_info {
	__u64 ino, pos;
	__u32 dev;
};

/* fd of task t (NULL in the raw_tp flavour: the current task) -> device,
 * inode and position; 0 if fd is open. The tp_btf flavour reads the fd
 * table with direct loads only: the slot fds[fd] is a plain pointer the
 * verifier cannot type, so it is cast to a struct kiocb, whose first
 * member is a struct file * (bpf_rdonly_cast is inlined, and the load is
 * fault-checked like every untrusted BTF load). */
static __always_inline int fd_info(struct task_struct *t, long fd, struct file_info *fi,
                                   const int btf)
{
	struct file *f = NULL;
	if (fd < 0)
		return -1;
	/* The cast needs ki_filp first in struct kiocb (true since 4.x); the
	 * offset is relocated at load, so another layout takes the probe read. */
	if (btf && have_rdonly_cast && bpf_core_field_offset(struct kiocb, ki_filp) == 0) {
		struct fdtable *fdt = t->files->fdt;
		if (fd >= fdt->max_fds)
			return -1;
		struct kiocb *slot = bpf_rdonly_cast((struct file **)fdt->fd + fd,
		                                     bpf_core_type_id_kernel(struct kiocb));
		f = slot->ki_filp;
		if (!f)
			return -1;
		struct inode *in = f->f_inode;
		fi->ino = in->i_ino;
		fi->dev = in->i_sb->s_dev;
		fi->pos = f->f_pos;
		return 0;
	}
	t = (struct task_struct *)bpf_get_current_task();
	struct fdtable *fdt = BPF_CORE_READ(t, files, fdt);
	if (!fdt || fd >= BPF_CORE_READ(fdt, max_fds))
		return -1;
	struct file **fds = BPF_CORE_READ(fdt, fd);
	bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]);
	if (!f)
		return -1;
	struct inode *in = BPF_CORE_READ(f, f_inode);
	fi->ino = BPF_CORE_READ(in, i_ino);
	fi->dev = BPF_CORE_READ(in, i_sb, s_dev);
	fi->pos = BPF_CORE_READ(f, f_pos);
	return 0;
}

/* Wake the reader only when this CPU has put wake_bytes in the ring since
 * its last wakeup: a wakeup per event costs more than the event, and a
 * per-CPU count is an inlined load where bpf_ringbuf_query is a helper
 * call. The reader also drains the ring on a 100 ms timer. bytes: the
 * record about to be submitted. */
static __always_inline __u64 submit_flags(__u64 bytes)
{
	__u32 zero = 0;
	__u64 *b = bpf_map_lookup_elem(&trace_wake, &zero);
	if (!b)
		return BPF_RB_NO_WAKEUP;
	__u64 v = *b + bytes + 8; /* + the ring's record header */
	if (v < wake_bytes) {
		*b = v;
		return BPF_RB_NO_WAKEUP;
	}
	*b = 0;
	return BPF_RB_FORCE_WAKEUP;
}

static __always_inline void lost_add(__u64 n)
{
	__u32 k = OSP_STAT_LOST;
	__u64 *c = bpf_map_lookup_elem(&osp_stats, &k);
	if (c)
		__sync_fetch_and_add(c, n);
}

/* Puts one record into the ring by itself (fs and block events). */
static __always_inline void emit_one(struct osp_trace_rec *r)
{
	if (bpf_ringbuf_output(&trace_rb, r, sizeof(*r), submit_flags(sizeof(*r))))
		lost_add(1);
}

/* pid << 32 | tid of the current task; in the tp_btf flavour read from t
 * (the same global ids as bpf_get_current_pid_tgid, without its call). */
static __always_inline __u64 cur_pid_tgid(struct task_struct *t, const int btf)
{
	if (btf)
		return (__u64)(__u32)t->tgid << 32 | (__u32)t->pid;
	return bpf_get_current_pid_tgid();
}

static __always_inline struct osp_trace_sc *recipe(__u64 id)
{
	if (id >= OSP_TRACE_NR_SYSCALLS)
		return NULL;
	__u32 nr = (__u32)id;
	struct osp_trace_sc *sc = bpf_map_lookup_elem(&trace_sc, &nr);
	return sc && sc->op ? sc : NULL;
}

static __always_inline int on_enter(struct pt_regs *regs, long id, const int btf)
{
	struct osp_trace_sc *sc = recipe((__u64)id);
	if (!sc)
		return 0;
	struct task_struct *t = btf ? bpf_get_current_task_btf() : NULL;
	__u64 pt = cur_pid_tgid(t, btf);
	if (!osp_target_pid(pt))
		return 0;
	__u32 tid = (__u32)pt, slot = tid & osp_cfg.tid_mask;
	struct pending *p = bpf_map_lookup_elem(&trace_inflight, &slot);
	if (!p)
		return 0;
	if (p->tid && p->tid != tid)
		lost_add(1); /* another thread's call in flight here (or a stale entry) */
	p->tid = 0;          /* until complete */
	p->op = sc->op;
	p->flags = sc->flags;
	p->off = sc->off_arg < 6 ? sc_arg(regs, sc->off_arg, btf) : 0;
	p->size = sc->size_arg < 6 ? sc_arg(regs, sc->size_arg, btf) : 0;
	p->arg = sc->arg_arg < 6 ? sc_arg(regs, sc->arg_arg, btf) : 0;
	p->dev = 0;
	p->ino = 0;
	if (sc->flags & OSP_SC_HOWPTR) {
		__u64 how = 0;
		bpf_probe_read_user(&how, sizeof(how), (void *)p->arg);
		p->arg = how;
	}
	if (sc->fd_arg < 6) {
		long fd = (long)sc_arg(regs, sc->fd_arg, btf);
		struct file_info fi;
		if ((sc->flags & OSP_SC_ANONCHK) && (fd < 0 || (sc_arg(regs, 3, btf) & 0x20)))
			return 0; /* anonymous mapping: not file I/O */
		if (!fd_info(t, fd, &fi, btf)) {
			p->dev = fi.dev;
			p->ino = fi.ino;
			if (sc->flags & OSP_SC_POS)
				p->off = fi.pos;
		}
	}
	p->tid = tid;
	p->ts = bpf_ktime_get_ns(); /* last: entry work is not part of the call */
	return 0;
}

static __always_inline int on_exit(struct pt_regs *regs, long ret, const int btf)
{
	struct task_struct *t = NULL;
#ifdef __TARGET_ARCH_x86
	/* Calls we do not record leave before any helper call. */
	if (btf && !recipe(regs->orig_ax))
		return 0;
#endif
	if (btf)
		t = bpf_get_current_task_btf();
	__u64 pt = cur_pid_tgid(t, btf);
	__u32 tid = (__u32)pt, slot = tid & osp_cfg.tid_mask;
	struct pending *p = bpf_map_lookup_elem(&trace_inflight, &slot);
	if (!p || p->tid != tid)
		return 0; /* not a call we saw enter */
	p->tid = 0;
	__u64 now = bpf_ktime_get_ns();
	__u32 zero = 0;
	struct osp_trace_batch *b = bpf_map_lookup_elem(&trace_batch, &zero);
	if (!b)
		return 0;
	b->busy = 1;
	asm volatile("" ::: "memory"); /* busy is set before the batch changes */
	__u32 n = b->n;
	if (n >= OSP_TRACE_BATCH)
		n = 0;
	struct osp_trace_rec *r = &b->rec[n];
	r->ts = p->ts;
	r->lat = now - p->ts;
	r->op = p->op;
	r->dev = p->dev;
	r->ino = p->ino;
	r->off = p->off;
	r->size = p->size;
	r->arg = p->arg;
	r->pid = pt >> 32;
	r->tid = tid;
	r->pad = 0;
	r->ret = ret;
	struct file_info fi;
	if ((p->flags & OSP_SC_RETFD) && !fd_info(t, ret, &fi, btf)) {
		r->dev = fi.dev;
		r->ino = fi.ino;
	}
	if (btf) {
		/* Two loads instead of bpf_get_current_comm's call and copy loop. */
		__u64 *c = (__u64 *)r->comm;
		c[0] = *(__u64 *)&t->comm[0];
		c[1] = *(__u64 *)&t->comm[8];
	} else {
		bpf_get_current_comm(r->comm, sizeof(r->comm));
	}
	if (++n == OSP_TRACE_BATCH) {
		if (bpf_ringbuf_output(&trace_rb, b->rec, sizeof(b->rec),
		                       submit_flags(sizeof(b->rec))))
			lost_add(OSP_TRACE_BATCH);
		n = 0;
	}
	b->n = n;
	asm volatile("" ::: "memory");
	b->busy = 0;
	return 0;
}

/* Puts this CPU's partial batch into the ring. Run by user space on each
 * CPU (BPF_F_TEST_RUN_ON_CPU) every 100 ms and when recording stops; never
 * attached. Returns 1 if it interrupted an append: the caller retries. */
SEC("raw_tp")
int trace_flush(void *ctx)
{
	__u32 zero = 0;
	struct osp_trace_batch *b = bpf_map_lookup_elem(&trace_batch, &zero);
	if (!b)
		return 0;
	if (b->busy)
		return 1;
	__u32 n = b->n;
	if (!n || n > OSP_TRACE_BATCH)
		return 0;
	if (bpf_ringbuf_output(&trace_rb, b->rec, n * sizeof(b->rec[0]), BPF_RB_NO_WAKEUP))
		lost_add(n);
	b->n = 0;
	return 0;
}

OSP_TP_TWINS_BTF(sys_enter, trace_enter, struct pt_regs *regs, long id)
{
	return on_enter(regs, id, btf);
}

OSP_TP_TWINS_BTF(sys_exit, trace_exit, struct pt_regs *regs, long ret)
{
	return on_exit(regs, ret, btf);
}

/* ---- fs events (--layers fs) ---- */

static __always_inline void emit_fs(struct fs_pending *fp, __u64 now, long ret)
{
	__u64 pt = bpf_get_current_pid_tgid();
	struct osp_trace_rec r = {
	    .ts = fp->ts,
	    .lat = now - fp->ts,
	    .pid = pt >> 32,
	    .tid = (__u32)pt,
	    .op = fp->op,
	    .dev = fp->dev,
	    .ino = fp->ino,
	    .off = fp->off,
	    .size = fp->size,
	    .arg = fp->arg,
	    .ret = ret,
	};
	bpf_get_current_comm(r.comm, sizeof(r.comm));
	emit_one(&r);
}

static __always_inline int fs_begin(__u16 op, struct inode *in, __u64 off, __u64 size, __u64 arg)
{
	if (!(trace_layers & OSP_TRACE_L_FS) || !osp_target())
		return 0;
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fs_pending fp = {
	    .ts = bpf_ktime_get_ns(), .off = off, .size = size, .arg = arg, .op = op};
	fp.ino = BPF_CORE_READ(in, i_ino);
	fp.dev = BPF_CORE_READ(in, i_sb, s_dev);
	bpf_map_update_elem(&trace_fs, &tid, &fp, BPF_ANY);
	return 0;
}

static __always_inline int fs_end(long ret)
{
	if (!(trace_layers & OSP_TRACE_L_FS))
		return 0;
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fs_pending *fp = bpf_map_lookup_elem(&trace_fs, &tid);
	if (!fp)
		return 0;
	emit_fs(fp, bpf_ktime_get_ns(), ret);
	bpf_map_delete_elem(&trace_fs, &tid);
	return 0;
}

/* Op numbers of the fs and block events, set by user space (enum osp_trace_op). */
const volatile __u16 op_sync_file = 0, op_da_write = 0, op_pagecache = 0;
const volatile __u16 op_blk_read = 0, op_blk_write = 0, op_blk_flush = 0, op_blk_other = 0;

static __always_inline int sync_file_enter(struct file *f, int datasync)
{
	return fs_begin(op_sync_file, BPF_CORE_READ(f, f_inode), 0, 0, datasync);
}

OSP_TP_TWINS(ext4_sync_file_enter, fs_sync_enter, struct file *f, int datasync)
{
	return sync_file_enter(f, datasync);
}

OSP_TP_TWINS(ext4_sync_file_exit, fs_sync_exit, struct inode *in, int ret)
{
	return fs_end(ret);
}

OSP_TP_TWINS(ext4_da_write_begin, fs_wbegin, struct inode *in, loff_t pos, unsigned int len)
{
	return fs_begin(op_da_write, in, pos, len, 0);
}

OSP_TP_TWINS(ext4_da_write_end, fs_wend, struct inode *in, loff_t pos, unsigned int len,
             unsigned int copied)
{
	return fs_end(copied);
}

/* A page entering the page cache: a miss being filled (a point event). */
static __always_inline int pagecache_add(struct folio *folio)
{
	if (!(trace_layers & OSP_TRACE_L_FS) || !osp_target())
		return 0;
	struct inode *in = BPF_CORE_READ(folio, mapping, host);
	struct fs_pending fp = {.ts = bpf_ktime_get_ns(), .op = op_pagecache, .size = 4096};
	fp.off = BPF_CORE_READ(folio, index) * 4096;
	fp.ino = BPF_CORE_READ(in, i_ino);
	fp.dev = BPF_CORE_READ(in, i_sb, s_dev);
	emit_fs(&fp, fp.ts, 0);
	return 0;
}

OSP_TP_TWINS(mm_filemap_add_to_page_cache, fs_pcache, struct folio *folio)
{
	return pagecache_add(folio);
}

/* ---- block requests (--layers block) ---- */

static __always_inline int rq_issue(struct request *rq)
{
	if (!(trace_layers & OSP_TRACE_L_BLOCK) || !osp_target())
		return 0;
	__u64 key = (__u64)rq, pt = bpf_get_current_pid_tgid();
	struct blk_pending b = {.ts = bpf_ktime_get_ns(), .pid = pt >> 32, .tid = (__u32)pt};
	__u32 opf = BPF_CORE_READ(rq, cmd_flags) & 0xff;
	b.op = opf == 0   ? op_blk_read
	       : opf == 1 ? op_blk_write
	       : opf == 2 ? op_blk_flush
	                  : op_blk_other;
	b.off = BPF_CORE_READ(rq, __sector) * 512;
	b.size = BPF_CORE_READ(rq, __data_len);
	struct gendisk *d = BPF_CORE_READ(rq, q, disk);
	b.dev = (__u32)BPF_CORE_READ(d, major) << 20 | (__u32)BPF_CORE_READ(d, first_minor);
	bpf_get_current_comm(b.comm, sizeof(b.comm));
	bpf_map_update_elem(&trace_blk, &key, &b, BPF_ANY);
	return 0;
}

static __always_inline int rq_complete(struct request *rq, int error)
{
	if (!(trace_layers & OSP_TRACE_L_BLOCK))
		return 0;
	__u64 key = (__u64)rq;
	struct blk_pending *b = bpf_map_lookup_elem(&trace_blk, &key);
	if (!b)
		return 0;
	struct osp_trace_rec r = {
	    .ts = b->ts,
	    .lat = bpf_ktime_get_ns() - b->ts,
	    .pid = b->pid,
	    .tid = b->tid,
	    .op = b->op,
	    .dev = b->dev,
	    .off = b->off,
	    .size = b->size,
	    .ret = -(long)error,
	};
	__builtin_memcpy(r.comm, b->comm, sizeof(r.comm));
	emit_one(&r);
	bpf_map_delete_elem(&trace_blk, &key);
	return 0;
}

OSP_TP_TWINS(block_rq_issue, blk_issue, struct request *rq)
{
	return rq_issue(rq);
}

OSP_TP_TWINS(block_rq_complete, blk_done, struct request *rq, int error, unsigned int nr_bytes)
{
	return rq_complete(rq, error);
}
