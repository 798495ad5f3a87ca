/* The per-process counter file written by libosprof-preload.so and read by
 * the user layer (collect/user_file.c). One file per process image in
 * $OSPROF_PRELOAD_DIR, named PID-N.ospu; the file is mapped MAP_SHARED, so
 * every completed operation is in the page cache even if the process is
 * killed by SIGKILL. All integers are native-endian (the file never leaves
 * the machine). Full description: docs/preload.md. */
#ifndef OSPROF_PRELOAD_LAYOUT_H
#define OSPROF_PRELOAD_LAYOUT_H

#include <stdint.h>

#define OSP_PF_MAGIC     "OSPRLD\0\1"
#define OSP_PF_MAGIC_LEN 8
#define OSP_PF_VERSION   1
#define OSP_PF_NAME_LEN  32 /* op name table entry, NUL padded */
#define OSP_PF_COMM_LEN  16
#define OSP_PF_EXE_LEN   256
#define OSP_PF_SLOT_HDR  64 /* bytes before the first op record of a slot */
#define OSP_PF_MAX_OPS   4096
#define OSP_PF_MAX_SLOTS 65536
#define OSP_PF_SUFFIX    ".ospu"

/* flags */
#define OSP_PF_EXITED 1u /* the process ran its exit handlers */
#define OSP_PF_EXEC   2u /* the image was replaced by exec */
#define OSP_PF_UEXIT  4u /* the process called _exit or _Exit */
/* None of them set: the process was killed by a signal (or is running). */

/* Offsets are from the start of the file. */
struct osp_pf_hdr {
	char magic[OSP_PF_MAGIC_LEN]; /* written last, once the rest is valid */
	uint32_t version;
	uint32_t hdr_size;   /* sizeof(struct osp_pf_hdr) */
	uint32_t resolution; /* r of every histogram */
	uint32_t nbuckets;   /* osp_nbuckets(r) */
	uint32_t nops;
	uint32_t nslots;    /* the last slot is shared (see below) */
	uint64_t ops_off;   /* nops names of OSP_PF_NAME_LEN bytes */
	uint64_t slots_off; /* first slot */
	uint64_t slot_size; /* bytes per slot */
	uint64_t op_stride; /* bytes per op record: (3 + nbuckets) * 8 */
	uint64_t file_size;
	int32_t pid;
	int32_t ppid;
	uint64_t start_mono_ns; /* CLOCK_MONOTONIC when the image started */
	uint64_t start_wall_ns; /* CLOCK_REALTIME, same instant */
	uint64_t end_mono_ns;   /* set by the exit handler, 0 if killed */
	uint64_t tsc_mult;      /* ns = cycles * tsc_mult >> 32; 0: clock_gettime */
	uint32_t slots_claimed; /* next free slot; may exceed nslots */
	uint32_t flags;
	char comm[OSP_PF_COMM_LEN]; /* NUL terminated */
	char exe[OSP_PF_EXE_LEN];   /* NUL terminated, may be truncated */
};

/* Slot header. A thread claims slot i (one atomic add on slots_claimed) the
 * first time it makes an interposed call and is its only writer afterwards.
 * Threads beyond nslots - 1 share the last slot, which is updated with
 * atomic adds and has shared = 1. */
struct osp_pf_slot {
	uint32_t state; /* 1 once claimed */
	int32_t tid;
	uint32_t shared;
	uint32_t pad[13];
};

/* Per (slot, op): the count is the sum of the buckets, so it is exact by
 * construction. min is stored complemented so that a zero-filled record
 * means "empty" (min = UINT64_MAX). */
struct osp_pf_op {
	uint64_t total_ns;
	uint64_t min_not; /* ~min */
	uint64_t max_ns;
	uint64_t buckets[];
};

_Static_assert(sizeof(struct osp_pf_slot) == OSP_PF_SLOT_HDR, "slot header size");

#endif
