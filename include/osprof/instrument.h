/* Source instrumentation: a C program times its own operations, as OSprof's
 * POSIX profilers did. Link with -losprof.
 *
 *   OSP_PRE(lookup);
 *   r = lookup(key);
 *   OSP_POST(lookup);
 *
 * Each thread counts into its own histograms (no atomics on the hot path);
 * they are merged when the profile is written: at exit, to the file named by
 * $OSPROF_OUTPUT ("%p" in it replaced by the pid), else to stderr. */
#ifndef OSPROF_INSTRUMENT_H
#define OSPROF_INSTRUMENT_H

#include <stdint.h>
#include <osprof/clock.h>
#include <osprof/profile.h>

/* Registers (layer, op) once and returns its id (>= 1); thread-safe. */
int osp_op_register(const char *layer, const char *op);
/* Adds one latency sample to op `id` in the calling thread's histograms. */
void osp_op_record(int id, uint64_t ns);
/* Merges every thread's histograms into a new set (caller frees). */
struct osp_set *osp_instrument_snapshot(void);
/* Writes the merged profile now; 0 or -errno. */
int osp_instrument_flush(const char *path);

#define OSP_LAYER_APP "app"

#define OSP_PRE(op) uint64_t osp_t0_##op = osp_now_ns()
#define OSP_POST(op)                                                                               \
	do {                                                                                       \
		static int osp_id_##op;                                                            \
		int osp_i_ = __atomic_load_n(&osp_id_##op, __ATOMIC_RELAXED);                      \
		if (!osp_i_) {                                                                     \
			osp_i_ = osp_op_register(OSP_LAYER_APP, #op);                              \
			__atomic_store_n(&osp_id_##op, osp_i_, __ATOMIC_RELAXED);                  \
		}                                                                                  \
		osp_op_record(osp_i_, osp_now_ns() - osp_t0_##op);                                 \
	} while (0)

#endif
