/* The DARC search engine (rootcause/search.c) driven by a fake backend and
 * synthetic in-peak records: call-site discovery on this very binary, maxcount
 * voting, self time, decisions, probe removal, max depth, min bucket, the
 * preemption pseudo node, folded output and the state file round trip. */
#include <stdlib.h>
#include <unistd.h>
#include "rootcause/output.h"
#include "rootcause/peaks.h"
#include "rootcause/search.h"
#include "tests/unit/check.h"

#define NOINL __attribute__((noinline, noclone, used))
static volatile unsigned sink; /* unsigned: no UBSan overflow calls */

NOINL void u_leaf_a(void)
{
	sink++;
}
NOINL void u_leaf_b(void)
{
	sink += 2;
}
NOINL void u_mid(void)
{
	u_leaf_a();
	u_leaf_b();
	sink++;
}
NOINL void u_f0(void)
{
	u_mid();
	u_leaf_b();
	sink++;
}

/* Fake backend: remembers live sites and edges. */
struct fake {
	struct rc_backend b;
	int live_sites, adds, dels;
	uint64_t gen;
	struct {
		uint32_t parent, site, slot;
		int on;
	} e[256];
	int ne;
};

static int f_attach(struct rc_backend *b, const char *p, uint64_t o, uint64_t r)
{
	(void)b, (void)p, (void)o, (void)r;
	return 0;
}
static int f_add_site(struct rc_backend *b, uint32_t id, const struct rc_site *s, const char *p,
                      uint64_t o, uint64_t r)
{
	(void)id, (void)s, (void)p, (void)o, (void)r;
	struct fake *f = (struct fake *)b;
	f->live_sites++, f->adds++;
	return 0;
}
static int f_del_site(struct rc_backend *b, uint32_t id)
{
	(void)id;
	struct fake *f = (struct fake *)b;
	f->live_sites--, f->dels++;
	return 0;
}
static int f_add_edge(struct rc_backend *b, uint32_t parent, uint32_t site, uint32_t slot)
{
	struct fake *f = (struct fake *)b;
	f->e[f->ne].parent = parent, f->e[f->ne].site = site, f->e[f->ne].slot = slot;
	f->e[f->ne++].on = 1;
	return 0;
}
static int f_del_edge(struct rc_backend *b, uint32_t parent, uint32_t site)
{
	struct fake *f = (struct fake *)b;
	for (int i = 0; i < f->ne; i++)
		if (f->e[i].on && f->e[i].parent == parent && f->e[i].site == site)
			f->e[i].on = 0;
	return 0;
}
static int f_set_peak(struct rc_backend *b, uint64_t lo, uint64_t hi, uint64_t gen)
{
	(void)lo, (void)hi;
	((struct fake *)b)->gen = gen;
	return 0;
}
static const struct rc_backend_ops fake_ops = {.name = "fake",
                                               .attach_f0 = f_attach,
                                               .add_site = f_add_site,
                                               .del_site = f_del_site,
                                               .add_edge = f_add_edge,
                                               .del_edge = f_del_edge,
                                               .set_peak = f_set_peak};

static struct fake fk;
static struct rc_space space;
static struct rc_search S;

static void setup(unsigned max_depth, unsigned min_bucket)
{
	memset(&fk, 0, sizeof(fk));
	fk.b.ops = &fake_ops;
	struct rc_params p;
	rc_params_default(&p);
	p.max_depth = max_depth;
	p.min_bucket = min_bucket;
	rc_search_init(&S, &p, &fk.b, &space);
	rc_search_root(&S, "u_f0", (uint64_t)(uintptr_t)u_f0);
	rc_search_start(&S, 1000, 1u << 20);
}

static int child(int parent, const char *name)
{
	for (size_t k = 0; k < S.nodes[parent].nkids; k++) {
		int c = S.nodes[parent].kids[k];
		if (!strcmp(S.nodes[c].name, name) && S.nodes[c].status != RC_PRUNED)
			return c;
	}
	return -1;
}

/* Sends n records of the current generation; lat[] by node id. */
static void feed(int n, uint64_t f0, const int *ids, const uint64_t *lat, int nids, int pre_id,
                 uint64_t pre)
{
	for (int i = 0; i < n; i++) {
		struct rc_event *e = calloc(1, sizeof(*e));
		e->f0_lat = f0;
		e->gen = fk.gen;
		for (int k = 0; k < nids; k++)
			if (ids[k] >= 0 && S.nodes[ids[k]].slot >= 0)
				e->lat[S.nodes[ids[k]].slot] = lat[k];
		if (pre_id >= 0 && S.nodes[pre_id].slot >= 0)
			e->pre[S.nodes[pre_id].slot] = pre;
		rc_search_event(&S, e);
		free(e);
	}
}

static void test_callsites_and_first_level(void)
{
	setup(10, 6);
	CHECK_EQ_U64(S.nodes[0].nkids, 2);
	CHECK(child(0, "u_mid") >= 0);
	CHECK(child(0, "u_leaf_b") >= 0);
	CHECK_EQ_U64(fk.live_sites, 2);
	int on = 0;
	for (int i = 0; i < fk.ne; i++)
		on += fk.e[i].on && fk.e[i].parent == 0;
	CHECK_EQ_U64(on, 2);
	rc_search_free(&S);
}

static void test_descend_prune_preemption(void)
{
	setup(10, 6);
	int mid = child(0, "u_mid"), lb = child(0, "u_leaf_b");
	int ids[] = {mid, lb};
	uint64_t lat[] = {1400000, 5000};
	feed(49, 1500000, ids, lat, 2, -1, 0);
	CHECK_EQ_U64(S.nodes[0].status, RC_FRONTIER); /* decision_time not reached */
	feed(1, 1500000, ids, lat, 2, -1, 0);
	CHECK_EQ_U64(S.nodes[0].status, RC_DECIDED);
	CHECK_EQ_U64(S.nodes[mid].status, RC_FRONTIER);
	CHECK_EQ_U64(S.nodes[mid].maxcount, 50);
	CHECK_EQ_U64(S.nodes[lb].status, RC_PRUNED);
	CHECK_EQ_U64(S.nodes[lb].slot, (uint64_t)-1); /* probes removed at once */
	int la = child(mid, "u_leaf_a"), lb2 = child(mid, "u_leaf_b");
	CHECK(la >= 0 && lb2 >= 0);
	/* Records of an older generation do not vote. */
	uint64_t old = fk.gen;
	fk.gen = old - 1;
	int ids2[] = {mid, la, lb2};
	uint64_t lat2[] = {1400000, 1300000, 2000};
	feed(60, 1500000, ids2, lat2, 3, -1, 0);
	CHECK_EQ_U64(S.nodes[mid].rounds, 0);
	fk.gen = old;
	feed(50, 1500000, ids2, lat2, 3, -1, 0);
	CHECK_EQ_U64(S.nodes[la].status, RC_FRONTIER);
	CHECK_EQ_U64(S.nodes[lb2].status, RC_PRUNED);
	/* u_leaf_a calls nothing: its own code vs preemption. */
	int ids3[] = {mid, la};
	uint64_t lat3[] = {1400000, 1300000};
	feed(50, 1500000, ids3, lat3, 2, la, 1200000);
	CHECK(S.done);
	int pre = child(la, "[preemption]");
	CHECK(pre >= 0 && S.nodes[pre].status == RC_PREEMPTED);
	CHECK_EQ_U64(fk.live_sites, 0); /* everything removed at the end */
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	rc_print_folded(m, &S);
	fclose(m);
	CHECK_STR(buf, "u_f0;u_mid;u_leaf_a;[preemption] 50\n");
	free(buf);

	/* State round trip. */
	char path[] = "/tmp/test_rc_state.XXXXXX";
	int fd = mkstemp(path);
	close(fd);
	uint64_t hist[RC_HBUCKETS] = {[20] = 7};
	struct rc_info in = {.f0 = "bin:u_f0", .peak = 1, .blo = 20, .bhi = 20, .hist = hist};
	CHECK_EQ_U64(rc_state_save(path, &S, &in), 0);
	struct rc_search s2;
	rc_search_init(&s2, &S.p, &fk.b, &space);
	struct rc_state st;
	CHECK_EQ_U64(rc_state_load(path, &s2, &st), 0);
	CHECK_EQ_U64(s2.n, S.n);
	for (size_t i = 0; i < S.n && i < s2.n; i++) {
		CHECK_STR(s2.nodes[i].name, S.nodes[i].name);
		CHECK_EQ_U64(s2.nodes[i].status, S.nodes[i].status);
		CHECK_EQ_U64(s2.nodes[i].maxcount, S.nodes[i].maxcount);
		CHECK_EQ_U64(s2.nodes[i].parent, S.nodes[i].parent);
	}
	CHECK_EQ_U64(st.hist[20], 7);
	CHECK_STR(st.f0, "bin:u_f0");
	unlink(path);
	rc_search_free(&s2);
	rc_search_free(&S);
}

static void test_self_time_is_cause(void)
{
	/* A loop owner: its callees are fast, its own time is not. */
	setup(10, 6);
	int mid = child(0, "u_mid"), lb = child(0, "u_leaf_b");
	int ids[] = {mid, lb};
	uint64_t lat[] = {1400000, 5000};
	feed(50, 1500000, ids, lat, 2, -1, 0);
	int la = child(mid, "u_leaf_a"), lb2 = child(mid, "u_leaf_b");
	int ids2[] = {mid, la, lb2};
	uint64_t lat2[] = {1400000, 3000, 2000};
	feed(50, 1500000, ids2, lat2, 3, -1, 0);
	CHECK_EQ_U64(S.nodes[mid].status, RC_CAUSE);
	CHECK(S.done);
	rc_search_free(&S);
}

static void test_max_depth_and_min_bucket(void)
{
	setup(1, 6);
	int mid = child(0, "u_mid"), lb = child(0, "u_leaf_b");
	int ids[] = {mid, lb};
	uint64_t lat[] = {1400000, 5000};
	feed(50, 1500000, ids, lat, 2, -1, 0);
	CHECK_EQ_U64(S.nodes[mid].status, RC_MAXDEPTH);
	CHECK(S.done);
	rc_search_free(&S);

	setup(10, 25); /* 2^25 ns: u_mid's 1.4 ms is below it */
	mid = child(0, "u_mid"), lb = child(0, "u_leaf_b");
	int ids2[] = {mid, lb};
	feed(50, 1500000, ids2, lat, 2, -1, 0);
	CHECK_EQ_U64(S.nodes[mid].status, RC_MINBUCKET);
	rc_search_free(&S);
}

static void test_peaks_and_emd(void)
{
	uint64_t h[RC_HBUCKETS] = {0};
	h[10] = 900, h[11] = 400, h[20] = 100, h[21] = 50, h[30] = 1; /* one stray call */
	struct rc_peak pk[RC_MAX_PEAKS];
	int n = rc_find_peaks(h, RC_HBUCKETS, pk, RC_MAX_PEAKS);
	CHECK_EQ_U64(n, 2);
	CHECK(pk[0].lo == 10 && pk[0].hi == 11 && pk[0].count == 1300);
	CHECK(pk[1].lo == 20 && pk[1].hi == 21 && pk[1].count == 150);
	CHECK_EQ_U64(rc_auto_peak(pk, n), 2);
	/* a slow peak split by noise into two small ones: the larger one */
	struct rc_peak split[3] = {{8, 9, 900}, {20, 20, 40}, {22, 23, 20}};
	CHECK_EQ_U64(rc_auto_peak(split, 3), 2);
	struct rc_peak slowbig[2] = {{8, 9, 37}, {12, 19, 92}};
	CHECK_EQ_U64(rc_auto_peak(slowbig, 2), 2);
	CHECK_EQ_U64(rc_auto_peak(slowbig, 1), 1);
	CHECK_EQ_U64(rc_auto_peak(slowbig, 0), 0);
	CHECK(rc_emd(h, h, RC_HBUCKETS) == 0);
	uint64_t g[RC_HBUCKETS] = {0};
	g[12] = 10;
	uint64_t f[RC_HBUCKETS] = {0};
	f[10] = 10;
	CHECK(rc_emd(f, g, RC_HBUCKETS) > 1.99 && rc_emd(f, g, RC_HBUCKETS) < 2.01);
}

int main(void)
{
	char err[256];
	if (rc_space_load(&space, getpid(), err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	RUN(test_callsites_and_first_level);
	RUN(test_descend_prune_preemption);
	RUN(test_self_time_is_cause);
	RUN(test_max_depth_and_min_bucket);
	RUN(test_peaks_and_emd);
	rc_space_free(&space);
	CHECK_EXIT();
}
