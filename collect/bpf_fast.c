/* Reading OSP_FAST_MAPS: the per-CPU arrays are summed over CPUs and diffed
 * against the totals of the previous reset (an array cannot delete what it
 * returned, and zeroing would race with the programs). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "collect/bpf_fast.h"

int osp_bpf_fast_init(struct osp_bpf_fast *f, struct bpf_map *hist, struct bpf_map *minmax,
                      __u32 nops, unsigned r, int on)
{
	memset(f, 0, sizeof(*f));
	f->hist = hist;
	f->minmax = minmax;
	f->nb = osp_nbuckets(r);
	f->nops = on ? (nops ? nops : 1) : 0;
	bpf_map__set_max_entries(hist, on ? f->nops * f->nb : 1);
	bpf_map__set_max_entries(minmax, on ? f->nops : 1);
	if (on && !(f->prev = calloc((size_t)f->nops * f->nb, sizeof(*f->prev))))
		return -ENOMEM;
	return 0;
}

void osp_bpf_fast_free(struct osp_bpf_fast *f)
{
	free(f->prev);
	f->prev = NULL;
}

/* All n values of per-CPU array fd, CPU-major within each key. */
static int read_all(int fd, __u32 n, int ncpu, struct osp_hval *all)
{
	__u32 *keys = calloc(n, sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	__u32 out_batch, count = n;
	LIBBPF_OPTS(bpf_map_batch_opts, bo);
	int rc = bpf_map_lookup_batch(fd, NULL, &out_batch, keys, all, &count, &bo);
	int batched = (rc == 0 || rc == -ENOENT) && count == n;
	for (__u32 i = 0; batched && i < n; i++)
		batched = keys[i] == i;
	if (!batched) /* no batch support (or a short batch): one key at a time */
		for (__u32 i = 0; i < n; i++)
			if (bpf_map_lookup_elem(fd, &i, &all[(size_t)i * ncpu]))
				memset(&all[(size_t)i * ncpu], 0, sizeof(*all) * ncpu);
	free(keys);
	return 0;
}

int osp_bpf_fast_read(struct osp_session *s, struct osp_bpf_fast *f, const char *layer,
                      osp_bpf_desc_fn fn, void *ctx, int reset)
{
	int ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0)
		return -EINVAL;
	size_t n = (size_t)f->nops * f->nb;
	struct osp_hval *all = calloc(n * (size_t)ncpu, sizeof(*all));
	struct osp_hval *mm = calloc((size_t)f->nops * ncpu, sizeof(*mm));
	int rc = -ENOMEM;
	if (!all || !mm)
		goto out;
	if ((rc = read_all(bpf_map__fd(f->hist), (__u32)n, ncpu, all)) ||
	    (rc = read_all(bpf_map__fd(f->minmax), f->nops, ncpu, mm)))
		goto out;
	for (size_t i = 0; i < n; i++) {
		__u64 cnt = 0, sum = 0;
		for (int c = 0; c < ncpu; c++) {
			cnt += all[i * ncpu + c].count;
			sum += all[i * ncpu + c].sum;
		}
		__u64 dc = cnt - f->prev[i].count, ds = sum - f->prev[i].sum;
		if (reset)
			f->prev[i] = (struct osp_hval){cnt, sum};
		if (!dc)
			continue;
		__u32 op = (__u32)(i / f->nb), b = (__u32)(i % f->nb);
		struct osp_hkey k = {.op = op, .bucket = (__u16)b};
		struct osp_profile *p;
		int e = osp_bpf_profile_of(s, layer, fn, ctx, &k, &p);
		if (e < 0) {
			rc = e;
			goto out;
		}
		if (e > 0)
			continue;
		osp_hist_add_bucket(&p->hist, b, dc);
		p->hist.total += ds;
		__u64 max = 0, nmin = 0; /* value.count = max, value.sum = ~min */
		for (int c = 0; c < ncpu; c++) {
			const struct osp_hval *v = &mm[(size_t)op * ncpu + c];
			max = v->count > max ? v->count : max;
			nmin = v->sum > nmin ? v->sum : nmin;
		}
		if (nmin && ~nmin < p->hist.min)
			p->hist.min = ~nmin;
		if (max > p->hist.max)
			p->hist.max = max;
	}
	if (reset) {
		/* min/max restart with the interval; a racing sample only widens them */
		memset(mm, 0, sizeof(*mm) * ncpu);
		int fd = bpf_map__fd(f->minmax);
		for (__u32 op = 0; op < f->nops; op++)
			bpf_map_update_elem(fd, &op, mm, 0);
	}
	osp_bpf_widen_from_buckets(s->set, layer);
	rc = 0;
out:
	free(all);
	free(mm);
	return rc;
}
