/* Reading a preload counter file. The file was written by a process we do not
 * trust to have finished (it may have been killed mid-update) nor, as a file
 * in a directory, to be ours at all: every field is checked before use and a
 * file is added to the set only once all of it has been validated. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "collect/user_file.h"
#include "preload/layout.h"

static int bad(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int cstr_ok(const char *s, size_t cap)
{
	return memchr(s, 0, cap) != NULL;
}

static int op_name_ok(const char *s)
{
	if (!memchr(s, 0, OSP_PF_NAME_LEN) || !*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

/* Offsets and sizes of the file, each checked against len without overflow. */
static int check_layout(const struct osp_pf_hdr *h, size_t len, unsigned r, char *err,
                        size_t errlen)
{
	uint64_t end;
	if (h->version != OSP_PF_VERSION)
		return bad(err, errlen, "unsupported version %u (this osprof reads %u)", h->version,
		           OSP_PF_VERSION);
	if (h->hdr_size < sizeof(*h) || h->hdr_size > len)
		return bad(err, errlen, "bad header size %u", h->hdr_size);
	if (!osp_resolution_valid(h->resolution))
		return bad(err, errlen, "bad resolution %u", h->resolution);
	if (h->resolution != r)
		return bad(err, errlen, "resolution %u, the profile set has %u", h->resolution, r);
	if (h->nbuckets != osp_nbuckets(r))
		return bad(err, errlen, "%u buckets, expected %u", h->nbuckets, osp_nbuckets(r));
	if (!h->nops || h->nops > OSP_PF_MAX_OPS)
		return bad(err, errlen, "bad op count %u", h->nops);
	if (!h->nslots || h->nslots > OSP_PF_MAX_SLOTS)
		return bad(err, errlen, "bad slot count %u", h->nslots);
	if (h->op_stride != (3 + (uint64_t)h->nbuckets) * 8)
		return bad(err, errlen, "bad op record size %llu",
		           (unsigned long long)h->op_stride);
	if (h->ops_off < h->hdr_size ||
	    __builtin_add_overflow(h->ops_off, (uint64_t)h->nops * OSP_PF_NAME_LEN, &end) ||
	    end > h->slots_off)
		return bad(err, errlen, "op table out of place");
	uint64_t need;
	if (__builtin_mul_overflow((uint64_t)h->nops, h->op_stride, &need) ||
	    __builtin_add_overflow(need, (uint64_t)OSP_PF_SLOT_HDR, &need) || h->slot_size < need)
		return bad(err, errlen, "slot size %llu too small",
		           (unsigned long long)h->slot_size);
	if (__builtin_mul_overflow(h->slot_size, (uint64_t)h->nslots, &end) ||
	    __builtin_add_overflow(end, h->slots_off, &end) || end > len || h->file_size > len)
		return bad(err, errlen, "truncated: %zu bytes, slots need %llu", len,
		           (unsigned long long)end);
	if (!cstr_ok(h->comm, sizeof(h->comm)) || !cstr_ok(h->exe, sizeof(h->exe)))
		return bad(err, errlen, "unterminated comm or exe");
	if (h->pid <= 0)
		return bad(err, errlen, "bad pid %d", h->pid);
	return 0;
}

/* Sum of a record's buckets, or -1 on overflow. */
static int record_count(const struct osp_pf_op *o, unsigned nb, uint64_t *count)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < nb; i++)
		if (__builtin_add_overflow(n, o->buckets[i], &n))
			return -1;
	*count = n;
	return 0;
}

/* Records are read in place: the caller's buffer and every offset were
 * checked to be 8-byte aligned. */
static const struct osp_pf_op *record_at(const char *base, const struct osp_pf_hdr *h,
                                         unsigned slot, unsigned op)
{
	return (const struct osp_pf_op *)(base + h->slots_off + (uint64_t)slot * h->slot_size +
	                                  OSP_PF_SLOT_HDR + (uint64_t)op * h->op_stride);
}

unsigned osp_pf_dims(const char *by, const struct osp_pf_hdr *h, const struct osp_pf_slot *s,
                     struct osp_dim *d, char *pid, char *tid)
{
	unsigned n = 0;
	const char *comm = h->comm[0] ? h->comm : "?";
	if (!by)
		return 0;
	snprintf(pid, 16, "%d", h->pid);
	if (s->shared)
		snprintf(tid, 16, "shared");
	else
		snprintf(tid, 16, "%d", s->tid);
	if (!strcmp(by, "pid") || !strcmp(by, "tid"))
		d[n++] = (struct osp_dim){"pid", pid};
	if (!strcmp(by, "tid"))
		d[n++] = (struct osp_dim){"tid", tid};
	if (!strcmp(by, "pid") || !strcmp(by, "tid") || !strcmp(by, "comm"))
		d[n++] = (struct osp_dim){"comm", (char *)comm};
	return n;
}

static void widen(struct osp_hist *dst, const struct osp_pf_op *o, unsigned nb, unsigned r)
{
	int first = -1, last = -1;
	for (unsigned i = 0; i < nb; i++)
		if (o->buckets[i]) {
			if (first < 0)
				first = (int)i;
			last = (int)i;
		}
	/* A process killed between the bucket increment and the min/max update
	 * leaves them behind its buckets: the buckets win. */
	uint64_t lo = osp_bucket_lo((unsigned)first, r), hi = osp_bucket_hi((unsigned)last, r);
	uint64_t mn = ~o->min_not, mx = o->max_ns;
	if (mn < lo || mn > hi)
		mn = lo;
	if (mx > hi || mx < lo)
		mx = hi;
	if (mn < dst->min)
		dst->min = mn;
	if (mx > dst->max)
		dst->max = mx;
}

int osp_pf_view_init(struct osp_pf_view *v, const void *buf, size_t len, unsigned r, char *err,
                     size_t errlen)
{
	const char *base = buf;
	if (len < sizeof(v->h))
		return bad(err, errlen, "truncated header (%zu bytes)", len);
	memcpy(&v->h, base, sizeof(v->h));
	static const char zero[OSP_PF_MAGIC_LEN];
	if (!memcmp(v->h.magic, zero, OSP_PF_MAGIC_LEN)) {
		snprintf(err, errlen, "the process ended before it recorded anything");
		return OSP_PF_UNSTARTED;
	}
	if (memcmp(v->h.magic, OSP_PF_MAGIC, OSP_PF_MAGIC_LEN))
		return bad(err, errlen, "not an osprof preload file (bad magic)");
	if (check_layout(&v->h, len, r, err, errlen))
		return -1;
	if ((uintptr_t)base % 8 || v->h.slots_off % 8 || v->h.slot_size % 8 || v->h.ops_off % 8)
		return bad(err, errlen, "misaligned slots");
	for (unsigned op = 0; op < v->h.nops; op++)
		if (!op_name_ok(base + v->h.ops_off + (uint64_t)op * OSP_PF_NAME_LEN))
			return bad(err, errlen, "bad name of op %u", op);
	v->base = base;
	return 0;
}

const struct osp_pf_slot *osp_pf_view_slot(const struct osp_pf_view *v, unsigned slot)
{
	return (const void *)(v->base + v->h.slots_off + (uint64_t)slot * v->h.slot_size);
}

const struct osp_pf_op *osp_pf_view_rec(const struct osp_pf_view *v, unsigned slot, unsigned op)
{
	return record_at(v->base, &v->h, slot, op);
}

const char *osp_pf_view_op(const struct osp_pf_view *v, unsigned op)
{
	return v->base + v->h.ops_off + (uint64_t)op * OSP_PF_NAME_LEN;
}

int osp_pf_load(const void *buf, size_t len, struct osp_set *set, const char *by,
                struct osp_pf_info *info, char *err, size_t errlen)
{
	struct osp_pf_view v;
	int rc = osp_pf_view_init(&v, buf, len, set->r, err, errlen);
	if (rc)
		return rc;
	const char *base = v.base, *names = base + v.h.ops_off;
	struct osp_pf_hdr h = v.h;

	/* Pass 1: validate every claimed slot and total the counts, so that a
	 * malformed file adds nothing. */
	uint64_t ops = 0;
	for (unsigned sl = 0; sl < h.nslots; sl++) {
		const struct osp_pf_slot *s =
		    (const void *)(base + h.slots_off + (uint64_t)sl * h.slot_size);
		if (s->state > 1 || s->shared > 1)
			return bad(err, errlen, "slot %u: bad state", sl);
		if (!s->state)
			continue;
		for (unsigned op = 0; op < h.nops; op++) {
			uint64_t n;
			if (record_count(record_at(base, &h, sl, op), h.nbuckets, &n) ||
			    __builtin_add_overflow(ops, n, &ops))
				return bad(err, errlen, "slot %u op %u: count overflows", sl, op);
		}
	}

	/* Pass 2: add. */
	for (unsigned sl = 0; sl < h.nslots; sl++) {
		const struct osp_pf_slot *s =
		    (const void *)(base + h.slots_off + (uint64_t)sl * h.slot_size);
		if (!s->state)
			continue;
		for (unsigned op = 0; op < h.nops; op++) {
			const struct osp_pf_op *o = record_at(base, &h, sl, op);
			uint64_t n = 0;
			record_count(o, h.nbuckets, &n);
			if (!n)
				continue;
			struct osp_dim d[3];
			char pid[16], tid[16];
			unsigned nd = osp_pf_dims(by, &h, s, d, pid, tid);
			struct osp_profile *p = osp_set_get(
			    set, OSP_LAYER_USER, names + (uint64_t)op * OSP_PF_NAME_LEN, d, nd);
			if (!p)
				return bad(err, errlen, "out of memory");
			if (__builtin_add_overflow(p->hist.count, n, &(uint64_t){0}))
				return bad(err, errlen, "op %u: count overflows the profile", op);
			for (unsigned i = 0; i < h.nbuckets; i++)
				osp_hist_add_bucket(&p->hist, i, o->buckets[i]);
			p->hist.total += o->total_ns;
			widen(&p->hist, o, h.nbuckets, h.resolution);
		}
	}
	if (info) {
		memset(info, 0, sizeof(*info));
		info->pid = h.pid;
		info->ppid = h.ppid;
		info->exited = !!(h.flags & OSP_PF_EXITED);
		info->ended = !!(h.flags & (OSP_PF_EXITED | OSP_PF_EXEC | OSP_PF_UEXIT));
		memcpy(info->comm, h.comm, sizeof(info->comm));
		memcpy(info->exe, h.exe, sizeof(info->exe));
		info->ops = ops;
	}
	return 0;
}
