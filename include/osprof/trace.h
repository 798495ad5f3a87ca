/* Traces: every file-system operation of a run, one record each, in compact
 * segmented files (the VFS Interceptor format of seed 004; docs/trace-format.md).
 *
 *   codec   one event <-> a few bytes: 2-bit flags per field group say
 *           absent / present / same as previous record / derived (sequential)
 *   writer  records -> blocks (optionally zstd) -> segments rotated by time
 *           or size; a manager keeps the directory within a disk budget
 *   reader  segments -> events; a segment cut short reads back up to its
 *           last complete block, with a warning */
#ifndef OSPROF_TRACE_H
#define OSPROF_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct osp_set;

#define OSP_TRACE_VERSION  1
#define OSP_TRACE_COMM_LEN 16
#define OSP_TRACE_EXT      ".ospt"

/* Where an event was seen. */
enum osp_trace_layer { OSP_TL_SYSCALL = 0, OSP_TL_FS = 1, OSP_TL_BLOCK = 2, OSP_TL_NR };

/* Operations. Values are stable: they are stored in trace files. */
#define OSP_TRACE_OPS(X)                                                                           \
	X(NONE, "none", SYSCALL)                                                                   \
	X(OPEN, "open", SYSCALL)                                                                   \
	X(OPENAT, "openat", SYSCALL)                                                               \
	X(OPENAT2, "openat2", SYSCALL)                                                             \
	X(CREAT, "creat", SYSCALL)                                                                 \
	X(CLOSE, "close", SYSCALL)                                                                 \
	X(READ, "read", SYSCALL)                                                                   \
	X(WRITE, "write", SYSCALL)                                                                 \
	X(PREAD64, "pread64", SYSCALL)                                                             \
	X(PWRITE64, "pwrite64", SYSCALL)                                                           \
	X(READV, "readv", SYSCALL)                                                                 \
	X(WRITEV, "writev", SYSCALL)                                                               \
	X(PREADV, "preadv", SYSCALL)                                                               \
	X(PWRITEV, "pwritev", SYSCALL)                                                             \
	X(PREADV2, "preadv2", SYSCALL)                                                             \
	X(PWRITEV2, "pwritev2", SYSCALL)                                                           \
	X(LSEEK, "lseek", SYSCALL)                                                                 \
	X(FSYNC, "fsync", SYSCALL)                                                                 \
	X(FDATASYNC, "fdatasync", SYSCALL)                                                         \
	X(SYNC_FILE_RANGE, "sync_file_range", SYSCALL)                                             \
	X(SYNC, "sync", SYSCALL)                                                                   \
	X(SYNCFS, "syncfs", SYSCALL)                                                               \
	X(STAT, "stat", SYSCALL)                                                                   \
	X(LSTAT, "lstat", SYSCALL)                                                                 \
	X(FSTAT, "fstat", SYSCALL)                                                                 \
	X(NEWFSTATAT, "newfstatat", SYSCALL)                                                       \
	X(STATX, "statx", SYSCALL)                                                                 \
	X(STATFS, "statfs", SYSCALL)                                                               \
	X(FSTATFS, "fstatfs", SYSCALL)                                                             \
	X(ACCESS, "access", SYSCALL)                                                               \
	X(FACCESSAT, "faccessat", SYSCALL)                                                         \
	X(FACCESSAT2, "faccessat2", SYSCALL)                                                       \
	X(GETDENTS, "getdents", SYSCALL)                                                           \
	X(GETDENTS64, "getdents64", SYSCALL)                                                       \
	X(UNLINK, "unlink", SYSCALL)                                                               \
	X(UNLINKAT, "unlinkat", SYSCALL)                                                           \
	X(RENAME, "rename", SYSCALL)                                                               \
	X(RENAMEAT, "renameat", SYSCALL)                                                           \
	X(RENAMEAT2, "renameat2", SYSCALL)                                                         \
	X(MKDIR, "mkdir", SYSCALL)                                                                 \
	X(MKDIRAT, "mkdirat", SYSCALL)                                                             \
	X(RMDIR, "rmdir", SYSCALL)                                                                 \
	X(LINK, "link", SYSCALL)                                                                   \
	X(LINKAT, "linkat", SYSCALL)                                                               \
	X(SYMLINK, "symlink", SYSCALL)                                                             \
	X(SYMLINKAT, "symlinkat", SYSCALL)                                                         \
	X(READLINK, "readlink", SYSCALL)                                                           \
	X(READLINKAT, "readlinkat", SYSCALL)                                                       \
	X(TRUNCATE, "truncate", SYSCALL)                                                           \
	X(FTRUNCATE, "ftruncate", SYSCALL)                                                         \
	X(FALLOCATE, "fallocate", SYSCALL)                                                         \
	X(FADVISE64, "fadvise64", SYSCALL)                                                         \
	X(MMAP, "mmap", SYSCALL)                                                                   \
	X(SENDFILE, "sendfile", SYSCALL)                                                           \
	X(COPY_FILE_RANGE, "copy_file_range", SYSCALL)                                             \
	X(CHMOD, "chmod", SYSCALL)                                                                 \
	X(FCHMOD, "fchmod", SYSCALL)                                                               \
	X(FCHMODAT, "fchmodat", SYSCALL)                                                           \
	X(CHOWN, "chown", SYSCALL)                                                                 \
	X(FCHOWN, "fchown", SYSCALL)                                                               \
	X(FCHOWNAT, "fchownat", SYSCALL)                                                           \
	X(UTIMENSAT, "utimensat", SYSCALL)                                                         \
	X(FLOCK, "flock", SYSCALL)                                                                 \
	X(FS_SYNC_FILE, "ext4_sync_file", FS)                                                      \
	X(FS_DA_WRITE, "ext4_da_write", FS)                                                        \
	X(FS_PAGECACHE_ADD, "filemap_add_to_page_cache", FS)                                       \
	X(BLK_READ, "rq_read", BLOCK)                                                              \
	X(BLK_WRITE, "rq_write", BLOCK)                                                            \
	X(BLK_FLUSH, "rq_flush", BLOCK)                                                            \
	X(BLK_OTHER, "rq_other", BLOCK)

enum osp_trace_op {
#define OSP_TRACE_OP_ENUM(id, name, layer) OSP_TOP_##id,
	OSP_TRACE_OPS(OSP_TRACE_OP_ENUM)
#undef OSP_TRACE_OP_ENUM
	    OSP_TOP_NR
};

/* Name of op ("read"), or NULL when out of range. */
const char *osp_trace_op_name(unsigned op);
/* Op with that name, or -1. */
int osp_trace_op_parse(const char *name);
/* Layer of op (OSP_TL_*). */
enum osp_trace_layer osp_trace_op_layer(unsigned op);
const char *osp_trace_layer_name(enum osp_trace_layer l);
/* 1 for ops that move bytes at a file offset (read/write families). */
int osp_trace_op_is_io(unsigned op);

/* One operation. Times are CLOCK_MONOTONIC ns (bpf_ktime_get_ns). For block
 * events dev/off/size are the request's device, byte offset and length;
 * ino is 0. `arg` carries flags: open flags, lseek whence, mmap prot, ... */
struct osp_trace_event {
	uint64_t ts_ns;  /* start */
	uint64_t lat_ns; /* end - start */
	uint32_t pid, tid;
	uint16_t op;
	uint32_t dev; /* kernel dev_t: major << 20 | minor */
	uint64_t ino;
	uint64_t off;
	uint64_t size; /* bytes asked for */
	int64_t ret;   /* return value (bytes done, fd, -errno) */
	uint64_t arg;
	char comm[OSP_TRACE_COMM_LEN]; /* NUL-terminated */
};

/* ---- codec ------------------------------------------------------------- */

/* Field groups of a record, each with a 2-bit flag. */
enum osp_trace_group {
	OSP_TG_OP = 0, /* op */
	OSP_TG_TIME,   /* ts: delta to previous record */
	OSP_TG_TASK,   /* pid, tid, comm */
	OSP_TG_FILE,   /* dev, ino */
	OSP_TG_POS,    /* off, size */
	OSP_TG_RET,    /* ret */
	OSP_TG_LAT,    /* lat */
	OSP_TG_ARG,    /* arg */
	OSP_TG_NR
};
/* Flag values (seed 004, Fig. 3). */
enum { OSP_TF_ABSENT = 0, OSP_TF_PRESENT = 1, OSP_TF_SAME = 2, OSP_TF_SEQ = 3 };

#define OSP_TRACE_MAX_RECORD 128 /* upper bound of one encoded record */
#define OSP_TRACE_FILE_CACHE 512
#define OSP_TRACE_TID_CACHE  256

/* Per (file, layer): a system call and the fs events it causes interleave,
 * and each level is sequential on its own. */
struct osp_trace_file_state {
	uint32_t dev;
	uint32_t layer;
	uint64_t ino;
	uint64_t next_off; /* offset the next sequential I/O would start at */
	uint64_t size;     /* its size */
};

struct osp_trace_tid_state {
	uint32_t pid, tid;
	char comm[OSP_TRACE_COMM_LEN];
};

/* Encoder and decoder share this state and evolve it identically. It is
 * reset at each block so that every block decodes on its own. */
struct osp_trace_codec {
	struct osp_trace_event prev;
	int have_prev;
	struct osp_trace_file_state files[OSP_TRACE_FILE_CACHE];
	struct osp_trace_tid_state tids[OSP_TRACE_TID_CACHE]; /* threads seen in the block */
	uint64_t flag_count[OSP_TG_NR][4]; /* statistics: how often each flag was used */
};

void osp_trace_codec_reset(struct osp_trace_codec *c);
/* Encodes ev at out (room for OSP_TRACE_MAX_RECORD); returns its length. */
size_t osp_trace_encode(struct osp_trace_codec *c, const struct osp_trace_event *ev, uint8_t *out);
/* Decodes one record from p[0..len); returns bytes used or -1 if malformed. */
long osp_trace_decode(struct osp_trace_codec *c, const uint8_t *p, size_t len,
                      struct osp_trace_event *ev);

/* Raw fixed-size record (the baseline of docs/trace-format.md and bench/). */
#define OSP_TRACE_RAW_SIZE 86
void osp_trace_raw_pack(const struct osp_trace_event *ev, uint8_t out[OSP_TRACE_RAW_SIZE]);

/* ---- segments ---------------------------------------------------------- */

/* Facts about the host, stored at the top of every segment. */
struct osp_trace_host {
	char hostname[128];
	char kernel[200];
	unsigned cpus;
	uint64_t mem_bytes;
	char disks[512];        /* "vda:21474836480 vdb:..." (name:bytes) */
	uint64_t start_wall_ns; /* CLOCK_REALTIME when the segment opened */
	uint64_t start_mono_ns; /* CLOCK_MONOTONIC at the same moment */
	char target[256];       /* what was traced ("-a", "-p 12", "-- cmd") */
	char attach[160];       /* how the probes attached ("syscall:tp_btf,fs:raw_tp") */
	uint32_t seq;           /* segment number, from 1 */
};
/* Fills hostname, kernel, cpus, memory, disks and start times. */
void osp_trace_host_probe(struct osp_trace_host *h);

struct osp_trace_writer_opts {
	const char *dir;              /* working directory for segments (created) */
	const char *archive;          /* closed segments go here instead of being deleted */
	uint64_t rotate_ns;           /* -G: 0 = no time rotation */
	uint64_t rotate_bytes;        /* -C: 0 = no size rotation */
	uint64_t max_disk;            /* --max-disk: 0 = unlimited */
	int zstd;                     /* compress each block with zstd */
	int zstd_level;               /* 0 = default (1) */
	size_t block_bytes;           /* encoded bytes per block; 0 = 256 KiB */
	uint64_t flush_ns;            /* a block older than this is flushed; 0 = 1 s */
	const char *target;           /* stored in headers */
	uint64_t (*now)(void);        /* clock (CLOCK_MONOTONIC ns); tests inject one */
	void (*log)(const char *msg); /* warnings (segment deleted, disk full); NULL = stderr */
};

struct osp_trace_writer_stats {
	uint64_t events;   /* written to disk */
	uint64_t dropped;  /* lost: ring buffer, disk full, budget */
	uint64_t segments; /* opened */
	uint64_t blocks;
	uint64_t raw_bytes;  /* encoded bytes before zstd */
	uint64_t disk_bytes; /* bytes written to segments */
	uint64_t deleted, archived;
};

struct osp_trace_writer;
/* NULL with a message in err when dir cannot be created or opened. */
struct osp_trace_writer *osp_trace_writer_open(const struct osp_trace_writer_opts *o, char *err,
                                               size_t errlen);
/* Adds one event (buffered). 0, or -errno on a failure that was counted as drops. */
int osp_trace_writer_add(struct osp_trace_writer *w, const struct osp_trace_event *ev);
/* Counts n events lost before they reached the writer (ring buffer). */
void osp_trace_writer_drop(struct osp_trace_writer *w, uint64_t n);
/* Time-driven work: flush an old block, rotate by -G. Call periodically. */
int osp_trace_writer_tick(struct osp_trace_writer *w);
/* Flushes and closes the open segment; starts a new one at the next event. */
int osp_trace_writer_rotate(struct osp_trace_writer *w);
/* Flushes, closes, frees. Returns 0 or the first -errno met. */
/* The attach modes of the probes (chosen at load, after the writer opened),
 * stored in the header of every segment opened from now on. */
void osp_trace_writer_set_attach(struct osp_trace_writer *w, const char *modes);
int osp_trace_writer_close(struct osp_trace_writer *w, struct osp_trace_writer_stats *st);
void osp_trace_writer_get_stats(const struct osp_trace_writer *w,
                                struct osp_trace_writer_stats *st);

/* ---- reading ----------------------------------------------------------- */

struct osp_trace_reader_stats {
	uint64_t events, blocks, dropped;
	uint64_t raw_bytes;  /* encoded bytes (before zstd) */
	uint64_t disk_bytes; /* file bytes consumed */
	int zstd_blocks;
	int truncated; /* stopped early at a cut or corrupt block */
};

struct osp_trace_reader;
/* Opens a segment; NULL with "FILE: what is wrong" in err. */
struct osp_trace_reader *osp_trace_reader_open(const char *path, char *err, size_t errlen);
/* Reads from f (not closed by the reader) named name in messages. */
struct osp_trace_reader *osp_trace_reader_fopen(FILE *f, const char *name, char *err,
                                                size_t errlen);
const struct osp_trace_host *osp_trace_reader_host(const struct osp_trace_reader *r);
/* 1 with an event, 0 at the end. At a cut or corrupt block it ends early and
 * osp_trace_reader_warning() says where. */
int osp_trace_reader_next(struct osp_trace_reader *r, struct osp_trace_event *ev);
const char *osp_trace_reader_warning(const struct osp_trace_reader *r);
void osp_trace_reader_get_stats(const struct osp_trace_reader *r,
                                struct osp_trace_reader_stats *st);
void osp_trace_reader_close(struct osp_trace_reader *r);

/* Segment files of a path: the file itself, or the *.ospt files of a
 * directory in name (= time) order. 0 or -1 with a message in err. */
int osp_trace_list(const char *path, char ***paths, size_t *n, char *err, size_t errlen);
void osp_trace_list_free(char **paths, size_t n);

/* ---- walking a trace ---------------------------------------------------- */

/* Which events a walk visits (all fields off: every event). */
struct osp_trace_filter {
	int has_pid;
	uint32_t pid; /* matches pid or tid */
	int has_ops;
	unsigned char ops[OSP_TOP_NR]; /* 1 = wanted */
	int has_ino, has_dev;
	uint64_t ino;
	uint32_t dev;
	uint64_t min_lat;
};
int osp_trace_filter_match(const struct osp_trace_filter *f, const struct osp_trace_event *ev);

/* Summary of a walk. */
struct osp_trace_totals {
	uint64_t events, matched, dropped, blocks, raw_bytes, disk_bytes;
	uint64_t segments, truncated, zstd_blocks;
	uint64_t first_ts, last_end;
	struct osp_trace_host host; /* of the first segment */
};

/* Calls fn for each event of a segment file or a directory of them that
 * matches f (f NULL: every event; fn NULL: totals only), in file order.
 * Returns 0, the non-zero value fn returned, or -1 with err set (a bad path,
 * no segments, not a trace). A segment cut short or corrupt is read up to
 * its last good block and counted in t->truncated; warn(text) is told each
 * time (warn may be NULL). */
typedef int (*osp_trace_visit_fn)(void *ctx, const struct osp_trace_event *ev);
typedef void (*osp_trace_warn_fn)(const char *text);
int osp_trace_walk(const char *path, const struct osp_trace_filter *f, osp_trace_visit_fn fn,
                   void *ctx, osp_trace_warn_fn warn, struct osp_trace_totals *t, char *err,
                   size_t errlen);

/* The profile set of a trace: one histogram per (layer, op) -- layer syscall
 * with op = the system call (the keys and counts of `osprof run -l
 * syscall`), fs and block -- at resolution r, with time slices of slice_ns
 * (0: none) and, with by "pid" or "comm", one profile per process. Metadata
 * from the segments' host stamps; dropped events are lost_events. NULL with
 * err set on a bad trace or ENOMEM; t gets the walk's totals. */
struct osp_set *osp_trace_profile(const char *path, const struct osp_trace_filter *f, unsigned r,
                                  uint64_t slice_ns, const char *by, osp_trace_warn_fn warn,
                                  struct osp_trace_totals *t, char *err, size_t errlen);

#endif
