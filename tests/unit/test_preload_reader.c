/* The preload counter-file reader: a well-formed image gives exact counts
 * with the dimensions --by asks for; every class of damage is refused with a
 * reason and adds nothing; min/max torn by a kill are repaired from the
 * buckets. */
#include <stdlib.h>
#include <string.h>
#include "collect/user_file.c"
#include "tests/unit/check.h"

#define NOPS   3
#define NSLOTS 3

struct image {
	uint64_t words[8192]; /* 8-byte aligned backing store */
	size_t len;
	struct osp_pf_hdr *h;
};

static struct osp_pf_op *rec(struct image *im, unsigned slot, unsigned op)
{
	char *base = (char *)im->words;
	return (struct osp_pf_op *)(base + im->h->slots_off + slot * im->h->slot_size +
	                            OSP_PF_SLOT_HDR + op * im->h->op_stride);
}

static struct osp_pf_slot *slot_at(struct image *im, unsigned slot)
{
	return (struct osp_pf_slot *)((char *)im->words + im->h->slots_off +
	                              slot * im->h->slot_size);
}

/* Two threads and the shared slot; op 0 "read": 3 + 2 + 1 samples. */
static void build(struct image *im, unsigned r)
{
	memset(im, 0, sizeof(*im));
	struct osp_pf_hdr *h = im->h = (struct osp_pf_hdr *)im->words;
	h->version = OSP_PF_VERSION;
	h->hdr_size = sizeof(*h);
	h->resolution = r;
	h->nbuckets = osp_nbuckets(r);
	h->nops = NOPS;
	h->nslots = NSLOTS;
	h->ops_off = sizeof(*h);
	h->slots_off = h->ops_off + NOPS * OSP_PF_NAME_LEN;
	h->op_stride = (3 + (uint64_t)h->nbuckets) * 8;
	h->slot_size = OSP_PF_SLOT_HDR + NOPS * h->op_stride;
	h->file_size = h->slots_off + NSLOTS * h->slot_size;
	h->pid = 77;
	h->ppid = 1;
	h->flags = OSP_PF_EXITED;
	strcpy(h->comm, "db");
	strcpy(h->exe, "/usr/bin/db");
	memcpy(h->magic, OSP_PF_MAGIC, OSP_PF_MAGIC_LEN);
	const char *names[NOPS] = {"read", "pread64", "__open_2"};
	for (unsigned i = 0; i < NOPS; i++)
		strcpy((char *)im->words + h->ops_off + i * OSP_PF_NAME_LEN, names[i]);
	im->len = h->file_size;
	unsigned b100 = osp_bucket_index(100, r), b5000 = osp_bucket_index(5000, r);
	for (unsigned s = 0; s < NSLOTS; s++) {
		slot_at(im, s)->state = 1;
		slot_at(im, s)->tid = 100 + (int)s;
	}
	slot_at(im, NSLOTS - 1)->shared = 1;
	struct osp_pf_op *o = rec(im, 0, 0);
	o->buckets[b100] = 2;
	o->buckets[b5000] = 1;
	o->total_ns = 5200;
	o->min_not = ~100ull;
	o->max_ns = 5000;
	o = rec(im, 1, 0);
	o->buckets[b100] = 2;
	o->total_ns = 200;
	o->min_not = ~100ull;
	o->max_ns = 100;
	o = rec(im, 2, 0);
	o->buckets[b100] = 1;
	o->total_ns = 100;
	o->min_not = ~100ull;
	o->max_ns = 100;
	o = rec(im, 1, 2);
	o->buckets[b5000] = 4;
	o->total_ns = 20000;
	o->min_not = ~5000ull;
	o->max_ns = 5000;
}

static int load(struct image *im, unsigned r, const char *by, struct osp_set **out, char *err)
{
	*out = osp_set_new(r);
	struct osp_pf_info info;
	return osp_pf_load(im->words, im->len, *out, by, &info, err, 256);
}

static void test_exact_merged(void)
{
	static struct image im;
	build(&im, 1);
	struct osp_set *s;
	char err[256] = "";
	CHECK(load(&im, 1, NULL, &s, err) == 0);
	struct osp_profile *p = osp_set_find(s, "user", "read", NULL, 0);
	CHECK(p && p->hist.count == 6 && p->hist.total == 5500);
	CHECK(p && p->hist.min == 100 && p->hist.max == 5000);
	CHECK(p && osp_hist_check(&p->hist) == 0);
	p = osp_set_find(s, "user", "__open_2", NULL, 0);
	CHECK(p && p->hist.count == 4);
	CHECK(osp_set_find(s, "user", "pread64", NULL, 0) == NULL); /* no samples */
	CHECK_EQ_U64(s->n, 2);
	osp_set_free(s);
}

static void test_dims(void)
{
	static struct image im;
	build(&im, 4);
	struct osp_set *s;
	char err[256] = "";
	CHECK(load(&im, 4, "tid", &s, err) == 0);
	struct osp_dim d[3] = {{"pid", "77"}, {"tid", "100"}, {"comm", "db"}};
	struct osp_profile *p = osp_set_find(s, "user", "read", d, 3);
	CHECK(p && p->hist.count == 3);
	d[1].value = "shared";
	p = osp_set_find(s, "user", "read", d, 3);
	CHECK(p && p->hist.count == 1);
	osp_set_free(s);
	CHECK(load(&im, 4, "pid", &s, err) == 0);
	struct osp_dim pd[2] = {{"pid", "77"}, {"comm", "db"}};
	p = osp_set_find(s, "user", "read", pd, 2);
	CHECK(p && p->hist.count == 6);
	osp_set_free(s);
}

/* Each mutation must be refused, leave the set empty and say why. */
static void refused(struct image *im, unsigned r, const char *what, const char *want)
{
	struct osp_set *s;
	char err[256] = "";
	int rc = load(im, r, "pid", &s, err);
	if (rc != -1 || s->n != 0 || !strstr(err, want)) {
		fprintf(stderr, "%s: rc %d, %zu profiles, err \"%s\" (want \"%s\")\n", what, rc,
		        s->n, err, want);
		check_failed_ = 1;
	}
	osp_set_free(s);
}

static void test_damage(void)
{
	static struct image im;
	build(&im, 1);
	im.len = 100;
	refused(&im, 1, "short", "truncated header");
	build(&im, 1);
	im.len -= 8;
	refused(&im, 1, "truncated slots", "truncated");
	build(&im, 1);
	im.h->magic[0] = 'X';
	refused(&im, 1, "magic", "bad magic");
	/* a process killed before its preload wrote the magic (last) recorded
	 * nothing: not damage, and nothing is added */
	build(&im, 1);
	memset(im.h->magic, 0, OSP_PF_MAGIC_LEN);
	struct osp_set *s;
	char err[256] = "";
	CHECK(load(&im, 1, NULL, &s, err) == OSP_PF_UNSTARTED);
	CHECK_EQ_U64(s->n, 0);
	osp_set_free(s);
	build(&im, 1);
	im.h->version = 2;
	refused(&im, 1, "version", "unsupported version");
	build(&im, 2);
	refused(&im, 1, "resolution mismatch", "resolution 2");
	build(&im, 1);
	im.h->resolution = 3;
	refused(&im, 1, "bad r", "bad resolution");
	build(&im, 1);
	im.h->nbuckets = 10;
	refused(&im, 1, "nbuckets", "buckets");
	build(&im, 1);
	im.h->nslots = 0;
	refused(&im, 1, "nslots", "slot count");
	build(&im, 1);
	im.h->nslots = 0xffffffffu;
	refused(&im, 1, "nslots huge", "slot count");
	build(&im, 1);
	im.h->slot_size = UINT64_MAX / 2;
	refused(&im, 1, "slot size overflow", "truncated");
	build(&im, 1);
	im.h->slot_size = 8;
	refused(&im, 1, "slot size small", "too small");
	build(&im, 1);
	im.h->ops_off = UINT64_MAX - 10;
	refused(&im, 1, "ops_off", "op table");
	build(&im, 1);
	memset(im.h->comm, 'a', sizeof(im.h->comm));
	refused(&im, 1, "comm", "unterminated");
	build(&im, 1);
	strcpy((char *)im.words + im.h->ops_off, "re ad");
	refused(&im, 1, "op name", "bad name");
	build(&im, 1);
	slot_at(&im, 1)->state = 9;
	refused(&im, 1, "slot state", "bad state");
	build(&im, 1);
	rec(&im, 1, 1)->buckets[3] = UINT64_MAX;
	rec(&im, 1, 1)->buckets[4] = 2;
	refused(&im, 1, "count overflow", "overflows");
}

/* A process killed between its bucket increment and its min/max update. */
static void test_torn_minmax(void)
{
	static struct image im;
	build(&im, 1);
	struct osp_pf_op *o = rec(&im, 0, 1);
	unsigned b = osp_bucket_index(3000, 1);
	o->buckets[b] = 1;
	o->min_not = 0; /* min = UINT64_MAX */
	o->max_ns = 0;
	struct osp_set *s;
	char err[256] = "";
	CHECK(load(&im, 1, NULL, &s, err) == 0);
	struct osp_profile *p = osp_set_find(s, "user", "pread64", NULL, 0);
	CHECK(p && p->hist.count == 1);
	CHECK(p && p->hist.min == osp_bucket_lo(b, 1) && p->hist.max == osp_bucket_hi(b, 1));
	osp_set_free(s);
}

int main(void)
{
	RUN(test_exact_merged);
	RUN(test_dims);
	RUN(test_damage);
	RUN(test_torn_minmax);
	CHECK_EXIT();
}
