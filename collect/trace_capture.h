/* Live capture of file-system operations into a trace writer: the eBPF side
 * is collect/bpf/trace.bpf.c; targets and the fork-following filter come
 * from the shared infrastructure (docs/bpf-infra.md). */
#ifndef OSPROF_COLLECT_TRACE_CAPTURE_H
#define OSPROF_COLLECT_TRACE_CAPTURE_H

#include <osprof/trace.h>
#include "collect/layer.h"

struct osp_trace_capture;

/* Checks root/BTF, loads the programs (targets from s). layers: OSP_TRACE_L_*
 * bits; rb_bytes: ring buffer size (power of two; 0 = 32 MiB). 0 or -errno
 * after one line on stderr. */
int osp_trace_capture_open(struct osp_trace_capture **out, struct osp_session *s, unsigned layers,
                           size_t rb_bytes);
/* Seeds the target filter (s->root_pid known) and attaches. */
int osp_trace_capture_attach(struct osp_trace_capture *c, struct osp_session *s);
/* Readable when the ring buffer asks to be read (wait on it with osp_wait,
 * no longer than 100 ms: producers signal only when much is waiting). */
int osp_trace_capture_fd(const struct osp_trace_capture *c);
/* Moves buffered events into w without waiting; events the kernel could
 * not buffer are passed to w as drops. The per-CPU batches are flushed
 * every 100 ms, and at once with drain. Returns events moved or -errno. */
long osp_trace_capture_poll(struct osp_trace_capture *c, struct osp_trace_writer *w, int drain);
/* Events lost in the kernel so far: ring buffer full, in-flight slot taken
 * by another thread, or a program run the kernel skipped (recursion). */
uint64_t osp_trace_capture_lost(const struct osp_trace_capture *c);
/* Detaches the programs (no new events); buffered ones can still be polled. */
void osp_trace_capture_detach(struct osp_trace_capture *c);
void osp_trace_capture_close(struct osp_trace_capture *c, struct osp_session *s);

#endif
