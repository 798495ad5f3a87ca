/* The record codec of seed 004: a 16-bit word of 2-bit flags, one per field
 * group, then only the groups flagged PRESENT (or the short form of a
 * derived one). Repeated and sequential fields cost no bytes at all. */
#include <string.h>
#include "trace/internal.h"

static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* Returns bytes used or 0 when malformed/too long. */
static size_t get_varint(const uint8_t *p, size_t len, uint64_t *v)
{
	uint64_t r = 0;
	for (size_t i = 0; i < len && i < 10; i++) {
		if (i == 9 && p[i] > 1)
			return 0;
		r |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			*v = r;
			return i + 1;
		}
	}
	return 0;
}

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}
static int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static struct osp_trace_tid_state *tid_cache(struct osp_trace_codec *c, uint32_t tid)
{
	return &c->tids[(tid * 2654435761u) >> 24];
}

static struct osp_trace_file_state *file_slot(struct osp_trace_codec *c, uint32_t dev, uint64_t ino,
                                              uint32_t layer)
{
	uint64_t h = (ino ^ ((uint64_t)dev << 32) ^ layer) * 0x9e3779b97f4a7c15ull;
	return &c->files[(h >> 40) % OSP_TRACE_FILE_CACHE];
}

void osp_trace_codec_reset(struct osp_trace_codec *c)
{
	uint64_t saved[OSP_TG_NR][4];
	memcpy(saved, c->flag_count, sizeof(saved));
	memset(c, 0, sizeof(*c));
	memcpy(c->flag_count, saved, sizeof(saved));
}

/* A record moves the file's sequential cursor when it is a transfer. */
static void advance_file(struct osp_trace_codec *c, const struct osp_trace_event *ev)
{
	if (!osp_trace_op_is_io(ev->op) || (ev->dev == 0 && ev->ino == 0))
		return;
	uint32_t layer = osp_trace_op_layer(ev->op);
	struct osp_trace_file_state *f = file_slot(c, ev->dev, ev->ino, layer);
	uint64_t done = osp_trace_op_layer(ev->op) == OSP_TL_BLOCK ? ev->size
	                : ev->ret > 0                              ? (uint64_t)ev->ret
	                                                           : 0;
	f->dev = ev->dev;
	f->layer = layer;
	f->ino = ev->ino;
	f->next_off = ev->off + done;
	f->size = ev->size;
}

static void remember(struct osp_trace_codec *c, const struct osp_trace_event *ev)
{
	advance_file(c, ev);
	if (ev->tid) {
		struct osp_trace_tid_state *t = tid_cache(c, ev->tid);
		t->pid = ev->pid;
		t->tid = ev->tid;
		memcpy(t->comm, ev->comm, sizeof(t->comm));
	}
	c->prev = *ev;
	c->have_prev = 1;
}

static int comm_eq(const char *a, const char *b)
{
	return !strncmp(a, b, OSP_TRACE_COMM_LEN);
}

/* The flag of a group of one value v: absent when v is 0, the same as the
 * previous record's, or present, written as w at out + *n. */
static unsigned put_value(uint64_t v, int same, uint64_t w, uint8_t *out, size_t *n)
{
	if (v == 0)
		return OSP_TF_ABSENT;
	if (same)
		return OSP_TF_SAME;
	*n += put_varint(out + *n, w);
	return OSP_TF_PRESENT;
}

size_t osp_trace_encode(struct osp_trace_codec *c, const struct osp_trace_event *ev, uint8_t *out)
{
	const struct osp_trace_event *pv = &c->prev;
	unsigned fl[OSP_TG_NR];
	size_t n = 2;
	int hp = c->have_prev;

	fl[OSP_TG_OP] = put_value(ev->op, hp && ev->op == pv->op, ev->op, out, &n);
	/* time: delta to the previous record's start (zigzag: CPUs interleave) */
	fl[OSP_TG_TIME] = put_value(ev->ts_ns, hp && ev->ts_ns == pv->ts_ns,
	                            zigzag((int64_t)(ev->ts_ns - (hp ? pv->ts_ns : 0))), out, &n);
	/* task */
	struct osp_trace_tid_state *ts = tid_cache(c, ev->tid);
	if (ev->pid == 0 && ev->tid == 0 && ev->comm[0] == 0)
		fl[OSP_TG_TASK] = OSP_TF_ABSENT;
	else if (hp && ev->pid == pv->pid && ev->tid == pv->tid && comm_eq(ev->comm, pv->comm))
		fl[OSP_TG_TASK] = OSP_TF_SAME;
	else if (ev->tid && ts->tid == ev->tid && ts->pid == ev->pid &&
	         comm_eq(ts->comm, ev->comm)) {
		fl[OSP_TG_TASK] = OSP_TF_SEQ; /* a thread seen before in this block */
		n += put_varint(out + n, ev->tid);
	} else {
		fl[OSP_TG_TASK] = OSP_TF_PRESENT;
		size_t cl = strnlen(ev->comm, OSP_TRACE_COMM_LEN - 1);
		n += put_varint(out + n, ev->pid);
		n += put_varint(out + n, zigzag((int64_t)ev->tid - (int64_t)ev->pid));
		out[n++] = (uint8_t)cl;
		memcpy(out + n, ev->comm, cl);
		n += cl;
	}
	/* file */
	if (ev->dev == 0 && ev->ino == 0)
		fl[OSP_TG_FILE] = OSP_TF_ABSENT;
	else if (hp && ev->dev == pv->dev && ev->ino == pv->ino)
		fl[OSP_TG_FILE] = OSP_TF_SAME;
	else {
		fl[OSP_TG_FILE] = OSP_TF_PRESENT;
		n += put_varint(out + n, ev->dev);
		n += put_varint(out + n, ev->ino);
	}
	/* position: sequential to the previous I/O on that file costs nothing */
	uint32_t layer = osp_trace_op_layer(ev->op);
	struct osp_trace_file_state *f = file_slot(c, ev->dev, ev->ino, layer);
	if (ev->off == 0 && ev->size == 0)
		fl[OSP_TG_POS] = OSP_TF_ABSENT;
	else if (hp && ev->off == pv->off && ev->size == pv->size)
		fl[OSP_TG_POS] = OSP_TF_SAME;
	else if (osp_trace_op_is_io(ev->op) && (ev->dev || ev->ino) && f->dev == ev->dev &&
	         f->ino == ev->ino && f->layer == layer && f->next_off == ev->off &&
	         f->size == ev->size)
		fl[OSP_TG_POS] = OSP_TF_SEQ;
	else {
		fl[OSP_TG_POS] = OSP_TF_PRESENT;
		n += put_varint(out + n, ev->off);
		n += put_varint(out + n, ev->size);
	}
	/* return value: "all bytes done" is the common derived case */
	if (ev->ret == 0)
		fl[OSP_TG_RET] = OSP_TF_ABSENT;
	else if (hp && ev->ret == pv->ret)
		fl[OSP_TG_RET] = OSP_TF_SAME;
	else if (ev->ret > 0 && (uint64_t)ev->ret == ev->size)
		fl[OSP_TG_RET] = OSP_TF_SEQ;
	else {
		fl[OSP_TG_RET] = OSP_TF_PRESENT;
		n += put_varint(out + n, zigzag(ev->ret));
	}
	fl[OSP_TG_LAT] = put_value(ev->lat_ns, hp && ev->lat_ns == pv->lat_ns, ev->lat_ns, out, &n);
	fl[OSP_TG_ARG] = put_value(ev->arg, hp && ev->arg == pv->arg, ev->arg, out, &n);

	unsigned word = 0;
	for (int g = 0; g < OSP_TG_NR; g++) {
		word |= fl[g] << (2 * g);
		c->flag_count[g][fl[g]]++;
	}
	out[0] = (uint8_t)word;
	out[1] = (uint8_t)(word >> 8);
	remember(c, ev);
	return n;
}

#define GET(var)                                                                                   \
	do {                                                                                       \
		size_t k_ = get_varint(p + n, len - n, &(var));                                    \
		if (!k_)                                                                           \
			return -1;                                                                 \
		n += k_;                                                                           \
	} while (0)

/* The task group (pid, tid, comm) of a record at p + *pn; -1 if malformed. */
static int decode_task(struct osp_trace_codec *c, unsigned flag, const uint8_t *p, size_t len,
                       size_t *pn, struct osp_trace_event *ev)
{
	const struct osp_trace_event *pv = &c->prev;
	uint64_t v, w;
	size_t n = *pn;
	if (flag == OSP_TF_SAME) {
		ev->pid = pv->pid;
		ev->tid = pv->tid;
		memcpy(ev->comm, pv->comm, sizeof(ev->comm));
	} else if (flag == OSP_TF_SEQ) {
		GET(v);
		if (v == 0 || v > 0xffffffffu)
			return -1;
		struct osp_trace_tid_state *t = tid_cache(c, (uint32_t)v);
		if (t->tid != v)
			return -1;
		ev->pid = t->pid;
		ev->tid = t->tid;
		memcpy(ev->comm, t->comm, sizeof(ev->comm));
	} else if (flag == OSP_TF_PRESENT) {
		GET(v);
		GET(w);
		if (v > 0xffffffffu || n >= len)
			return -1;
		/* pid < 2^32 and any delta: the sum cannot overflow in 64 bits
		 * unless the delta is hostile, so add as unsigned and range-check */
		int64_t tid = (int64_t)(v + (uint64_t)unzigzag(w));
		if (tid < 0 || tid > 0xffffffffll)
			return -1;
		ev->pid = (uint32_t)v;
		ev->tid = (uint32_t)tid;
		size_t cl = p[n++];
		if (cl >= OSP_TRACE_COMM_LEN || cl > len - n || memchr(p + n, 0, cl))
			return -1;
		memcpy(ev->comm, p + n, cl);
		n += cl;
	}
	*pn = n;
	return 0;
}

long osp_trace_decode(struct osp_trace_codec *c, const uint8_t *p, size_t len,
                      struct osp_trace_event *ev)
{
	const struct osp_trace_event *pv = &c->prev;
	int hp = c->have_prev;
	uint64_t v;
	size_t n = 2;
	if (len < 2)
		return -1;
	unsigned word = p[0] | (unsigned)p[1] << 8;
	unsigned fl[OSP_TG_NR];
	for (int g = 0; g < OSP_TG_NR; g++)
		fl[g] = (word >> (2 * g)) & 3;
	/* SAME needs a previous record; SEQ exists only for task, pos and ret. */
	for (int g = 0; g < OSP_TG_NR; g++) {
		if (fl[g] == OSP_TF_SAME && !hp)
			return -1;
		if (fl[g] == OSP_TF_SEQ && g != OSP_TG_TASK && g != OSP_TG_POS && g != OSP_TG_RET)
			return -1;
	}
	memset(ev, 0, sizeof(*ev));

	if (fl[OSP_TG_OP] == OSP_TF_SAME)
		ev->op = pv->op;
	else if (fl[OSP_TG_OP] == OSP_TF_PRESENT) {
		GET(v);
		if (v == 0 || v > 0xffff)
			return -1;
		ev->op = (uint16_t)v;
	}

	if (fl[OSP_TG_TIME] == OSP_TF_SAME)
		ev->ts_ns = pv->ts_ns;
	else if (fl[OSP_TG_TIME] == OSP_TF_PRESENT) {
		GET(v);
		ev->ts_ns = (hp ? pv->ts_ns : 0) + (uint64_t)unzigzag(v);
		if (ev->ts_ns == 0)
			return -1;
	}

	if (decode_task(c, fl[OSP_TG_TASK], p, len, &n, ev))
		return -1;

	if (fl[OSP_TG_FILE] == OSP_TF_SAME) {
		ev->dev = pv->dev;
		ev->ino = pv->ino;
	} else if (fl[OSP_TG_FILE] == OSP_TF_PRESENT) {
		GET(v);
		if (v > 0xffffffffu)
			return -1;
		ev->dev = (uint32_t)v;
		GET(ev->ino);
	}

	if (fl[OSP_TG_POS] == OSP_TF_SAME) {
		ev->off = pv->off;
		ev->size = pv->size;
	} else if (fl[OSP_TG_POS] == OSP_TF_SEQ) {
		uint32_t layer = osp_trace_op_layer(ev->op);
		struct osp_trace_file_state *f = file_slot(c, ev->dev, ev->ino, layer);
		if (!osp_trace_op_is_io(ev->op) || !(ev->dev || ev->ino) || f->dev != ev->dev ||
		    f->ino != ev->ino || f->layer != layer)
			return -1;
		ev->off = f->next_off;
		ev->size = f->size;
	} else if (fl[OSP_TG_POS] == OSP_TF_PRESENT) {
		GET(ev->off);
		GET(ev->size);
	}

	if (fl[OSP_TG_RET] == OSP_TF_SAME)
		ev->ret = pv->ret;
	else if (fl[OSP_TG_RET] == OSP_TF_SEQ) {
		if (ev->size == 0 || ev->size > INT64_MAX)
			return -1;
		ev->ret = (int64_t)ev->size;
	} else if (fl[OSP_TG_RET] == OSP_TF_PRESENT) {
		GET(v);
		ev->ret = unzigzag(v);
	}

	if (fl[OSP_TG_LAT] == OSP_TF_SAME)
		ev->lat_ns = pv->lat_ns;
	else if (fl[OSP_TG_LAT] == OSP_TF_PRESENT)
		GET(ev->lat_ns);

	if (fl[OSP_TG_ARG] == OSP_TF_SAME)
		ev->arg = pv->arg;
	else if (fl[OSP_TG_ARG] == OSP_TF_PRESENT)
		GET(ev->arg);

	for (int g = 0; g < OSP_TG_NR; g++)
		c->flag_count[g][fl[g]]++;
	remember(c, ev);
	return (long)n;
}

void osp_trace_raw_pack(const struct osp_trace_event *ev, uint8_t out[OSP_TRACE_RAW_SIZE])
{
	uint8_t *p = out;
	ospt_put64(p, ev->ts_ns), p += 8;
	ospt_put64(p, ev->lat_ns), p += 8;
	ospt_put32(p, ev->pid), p += 4;
	ospt_put32(p, ev->tid), p += 4;
	p[0] = (uint8_t)ev->op, p[1] = (uint8_t)(ev->op >> 8), p += 2;
	ospt_put32(p, ev->dev), p += 4;
	ospt_put64(p, ev->ino), p += 8;
	ospt_put64(p, ev->off), p += 8;
	ospt_put64(p, ev->size), p += 8;
	ospt_put64(p, (uint64_t)ev->ret), p += 8;
	ospt_put64(p, ev->arg), p += 8;
	memcpy(p, ev->comm, OSP_TRACE_COMM_LEN);
}
