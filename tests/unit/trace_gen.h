/* Random but realistic file-system event streams for the trace tests:
 * threads from a pool, files from a pool, sequential runs, repeats, errors,
 * zero fields and block requests, so that every flag case of the codec fires. */
#ifndef OSPROF_TEST_TRACE_GEN_H
#define OSPROF_TEST_TRACE_GEN_H

#include <stdint.h>
#include <string.h>
#include <osprof/trace.h>
#include "tests/progs/xorshift.h"

struct trace_gen {
	uint64_t rng, ts;
	struct osp_trace_event last;
	uint64_t file_off[8];
};

static inline uint64_t tg_rand(struct trace_gen *g)
{
	return xorshift64(&g->rng);
}

static inline void tg_init(struct trace_gen *g, uint64_t seed)
{
	memset(g, 0, sizeof(*g));
	g->rng = seed * 2654435761u + 88172645463325252ull;
	g->ts = 1000000000ull;
}

static inline void tg_next(struct trace_gen *g, struct osp_trace_event *ev)
{
	static const char *const comms[] = {"postmark", "fio", "bash", "kworker/u4:1",
	                                    "a-very-long-command-name"};
	uint64_t r = tg_rand(g);
	memset(ev, 0, sizeof(*ev));
	unsigned t = (unsigned)(tg_rand(g) % 6);
	ev->pid = 100 + t / 2;
	ev->tid = ev->pid + t % 2 * 1000;
	strncpy(ev->comm, comms[t % 5], OSP_TRACE_COMM_LEN - 1);
	if (r % 97 == 0) /* an anonymous record: all groups absent but op */
		ev->pid = ev->tid = 0, ev->comm[0] = 0;
	g->ts += r % 5 == 0 ? 0 : tg_rand(g) % 20000;
	ev->ts_ns = r % 211 == 0 ? 0 : g->ts;
	if (r % 13 == 0 && g->ts > 5000) /* out of order: another CPU */
		ev->ts_ns = g->ts - tg_rand(g) % 5000;
	unsigned f = (unsigned)(tg_rand(g) % 8);
	ev->dev = f < 6 ? (8u << 20 | 1) : (254u << 20 | 3);
	ev->ino = 1000 + f;
	ev->lat_ns = r % 7 == 0 ? g->last.lat_ns : tg_rand(g) % (r % 3 ? 5000 : 50000000);
	switch (tg_rand(g) % 10) {
	case 0:
	case 1:
	case 2:
	case 3: /* sequential reads/writes */
		ev->op = tg_rand(g) % 2 ? OSP_TOP_READ : OSP_TOP_WRITE;
		ev->size = tg_rand(g) % 4 ? 4096 : 65536;
		ev->off = g->file_off[f];
		ev->ret = tg_rand(g) % 9 ? (int64_t)ev->size : (int64_t)(tg_rand(g) % ev->size);
		g->file_off[f] += (uint64_t)ev->ret;
		break;
	case 4: /* random pread */
		ev->op = OSP_TOP_PREAD64;
		ev->size = 1 + tg_rand(g) % 100000;
		ev->off = tg_rand(g) >> (tg_rand(g) % 64);
		ev->ret = tg_rand(g) % 5 ? (int64_t)ev->size : -(int64_t)(1 + tg_rand(g) % 130);
		break;
	case 5:
		ev->op = OSP_TOP_OPENAT;
		ev->arg = tg_rand(g) % 2 ? 0x241 : 0;
		ev->ret = 3 + (int64_t)(tg_rand(g) % 10);
		break;
	case 6:
		ev->op = tg_rand(g) % 2 ? OSP_TOP_CLOSE : OSP_TOP_FSYNC;
		break;
	case 7:
		ev->op = OSP_TOP_NEWFSTATAT;
		ev->dev = 0, ev->ino = 0;
		ev->ret = tg_rand(g) % 3 ? 0 : -2;
		break;
	case 8: /* a block request, sequential on the device */
		ev->op = tg_rand(g) % 2 ? OSP_TOP_BLK_READ : OSP_TOP_BLK_WRITE;
		ev->ino = 0;
		ev->size = 4096u << (tg_rand(g) % 4);
		ev->off = tg_rand(g) % 3 ? g->last.off + g->last.size : tg_rand(g) % (1ull << 40);
		ev->ret = 0;
		break;
	default: /* extremes */
		ev->op = (uint16_t)(1 + tg_rand(g) % 0xfffe);
		ev->off = UINT64_MAX - tg_rand(g) % 3;
		ev->size = tg_rand(g);
		ev->ret = tg_rand(g) % 2 ? INT64_MIN : INT64_MAX;
		ev->arg = UINT64_MAX;
		ev->lat_ns = UINT64_MAX;
		ev->ino = UINT64_MAX;
		ev->dev = UINT32_MAX;
		ev->pid = UINT32_MAX;
		ev->tid = 1;
		break;
	}
	if (r % 89 == 0) /* an unknown operation */
		ev->op = 0;
	if (r % 31 == 0) /* a repeat of the previous record (seed 004: paired ops) */
		*ev = g->last;
	g->last = *ev;
}

static inline int tg_equal(const struct osp_trace_event *a, const struct osp_trace_event *b)
{
	return a->ts_ns == b->ts_ns && a->lat_ns == b->lat_ns && a->pid == b->pid &&
	       a->tid == b->tid && a->op == b->op && a->dev == b->dev && a->ino == b->ino &&
	       a->off == b->off && a->size == b->size && a->ret == b->ret && a->arg == b->arg &&
	       !strncmp(a->comm, b->comm, OSP_TRACE_COMM_LEN - 1);
}

#endif
