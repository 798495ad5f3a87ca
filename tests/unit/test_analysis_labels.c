/* Characteristic-time labels (analysis/labels.c) refuse what issue 11 found
 * them claiming on the mean alone, and still label what fits. Calibration
 * spreads follow a real `osprof calibrate` on this VM. */
#include <string.h>
#include "tests/unit/check.h"
#include <osprof/analysis.h>

static void spread(struct osp_set *s, const char *op, uint64_t lo, uint64_t mid, uint64_t hi)
{
	struct osp_profile *p = osp_set_get(s, OSP_CALIB_LAYER, op, NULL, 0);
	osp_profile_add(s, p, lo, 0);
	for (int i = 0; i < 18; i++)
		osp_profile_add(s, p, mid, 0);
	osp_profile_add(s, p, hi, 0);
}

static struct osp_set *calib(void)
{
	struct osp_set *c = osp_set_new(4);
	spread(c, "futex_handoff", 2048, 2600, 3444);
	spread(c, "ctx_switch", 5793, 6300, 6889);
	spread(c, "timer_irq", 13777, 30000, 65536);
	spread(c, "tcp_rtt", 11585, 13000, 16384);
	spread(c, "odirect_read_4k", 77936, 100000, 185364);
	return c;
}

/* The single peak of n calls of p at values v[0..nv). */
static unsigned labels_of(const struct osp_set *c, const char *layer, const char *op,
                          const char *fs, const uint64_t *v, unsigned nv,
                          struct osp_peak_label *out)
{
	struct osp_set *s = osp_set_new(1);
	struct osp_dim d = {"fs", (char *)fs};
	struct osp_profile *p = osp_set_get(s, layer, op, fs ? &d : NULL, fs ? 1 : 0);
	for (unsigned i = 0; i < nv; i++)
		for (int k = 0; k < 100; k++)
			osp_profile_add(s, p, v[i], 0);
	struct osp_peak pk[8];
	unsigned n = osp_find_peaks(&p->hist, NULL, pk, 8), nl = 0;
	CHECK_EQ_U64(n, 1);
	if (n == 1)
		nl = osp_label_peak(c, p, &pk[0], out, 4);
	osp_set_free(s);
	return nl;
}

static void test_refusals(void)
{
	struct osp_set *c = calib();
	struct osp_peak_label l[4];
	/* Reads past the end of a directory at the futex hand-off time. */
	uint64_t eof[] = {2500, 3000};
	CHECK_EQ_U64(labels_of(c, "syscall", "getdents64", NULL, eof, 2, l), 0);
	/* Writes to /dev/null at the same time. */
	CHECK_EQ_U64(labels_of(c, "syscall", "write", "devtmpfs", eof, 2, l), 0);
	/* Control: the time fits, the mechanism decides (a lock wait may be). */
	CHECK_EQ_U64(labels_of(c, "lock", "mutex", NULL, eof, 2, l), 1);
	CHECK_STR(l[0].item, "futex_handoff");
	/* Read-ahead waits, 4-524 us: no timer interrupt, no TCP. */
	uint64_t ra[] = {5000, 10000, 20000, 40000, 80000, 160000, 320000, 500000};
	CHECK_EQ_U64(labels_of(c, "user", "read", NULL, ra, 8, l), 0);
	/* A preempted write peak at the O_DIRECT read time is no disk read. */
	uint64_t w[] = {90000, 120000};
	CHECK_EQ_U64(labels_of(c, "syscall", "write", "ext4", w, 2, l), 0);
	CHECK_EQ_U64(labels_of(c, "syscall", "pread64", "ext4", w, 2, l), 1);
	osp_set_free(c);
}

static void test_fits(void)
{
	struct osp_set *c = calib();
	struct osp_peak_label l[4];
	uint64_t d[] = {90000, 120000};
	CHECK_EQ_U64(labels_of(c, "syscall", "pread64", "ext4", d, 2, l), 1);
	CHECK_STR(l[0].item, "odirect_read_4k");
	CHECK(strstr(l[0].evidence, "odirect_read_4k") != NULL);
	uint64_t p[] = {6000, 7000};
	CHECK_EQ_U64(labels_of(c, "syscall", "read", "pipefs", p, 2, l), 1);
	CHECK_STR(l[0].item, "ctx_switch");
	/* The same wide disk peak is too wide for the item's spread. */
	uint64_t wide[] = {20000, 40000, 90000, 200000, 400000, 900000, 1500000};
	CHECK_EQ_U64(labels_of(c, "syscall", "pread64", "ext4", wide, 7, l), 0);
	osp_set_free(c);
}

int main(void)
{
	RUN(test_refusals);
	RUN(test_fits);
	CHECK_EXIT();
}
