/* Forcible preemption model of seed 000 §3.3 (Eq. 3.5 and 3.6). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <osprof/analysis.h>

double osp_preempt_prob(double t_cpu, double t_period, double yield, double quantum)
{
	if (t_period <= 0 || quantum <= 0)
		return 0;
	double p = t_cpu / t_period;
	if (p > 1)
		p = 1;
	if (yield <= 0)
		return p;
	if (yield >= 1)
		return 0;
	/* (1 - Y)^(Q / t_period) computed in logs: it underflows quickly. */
	return p * exp(quantum / t_period * log1p(-yield));
}

/* Mean latency of bucket k: the middle of its range (3/2 * 2^k at r = 1). */
static double bucket_mean(unsigned k, unsigned r)
{
	return ((double)osp_bucket_lo(k, r) + (double)osp_bucket_hi(k, r) + 1) / 2;
}

double osp_preempt_predict(const uint64_t *n, unsigned r, uint64_t quantum_ns, unsigned nprocs,
                           double *moved_in, double *moved_out)
{
	unsigned nb = osp_nbuckets(r);
	double total = 0, q = (double)quantum_ns;
	if (moved_in)
		memset(moved_in, 0, nb * sizeof(double));
	if (moved_out)
		memset(moved_out, 0, nb * sizeof(double));
	if (!quantum_ns || nprocs < 1)
		return 0;
	double added = (double)(nprocs - 1) * q;
	/* Skip the zero and overflow buckets: no meaningful t_cpu. */
	for (unsigned k = 1; k + 1 < nb; k++) {
		if (!n[k])
			continue;
		double t = bucket_mean(k, r);
		double frac = t >= q ? 1 : t / q;
		double moved = (double)n[k] * frac;
		double dest_v = t + added;
		unsigned dest = dest_v >= 9.2e18 ? nb - 1 : osp_bucket_index((uint64_t)dest_v, r);
		if (moved_out)
			moved_out[k] += moved;
		if (moved_in)
			moved_in[dest] += moved;
		total += moved;
	}
	return total;
}

/* Bucket counts of h below Q/2: requests not (yet) preempted. */
static uint64_t *sources(const struct osp_hist *h, uint64_t quantum_ns)
{
	uint64_t *n = calloc(h->nbuckets, sizeof(*n));
	if (n)
		for (unsigned k = 0; k < h->nbuckets; k++)
			if ((double)osp_bucket_hi(k, h->r) < (double)quantum_ns / 2)
				n[k] = h->buckets[k];
	return n;
}

double osp_preempt_total(const struct osp_hist *h, uint64_t quantum_ns, unsigned nprocs)
{
	uint64_t *n = sources(h, quantum_ns);
	double t = n ? osp_preempt_predict(n, h->r, quantum_ns, nprocs, NULL, NULL) : 0;
	free(n);
	return t;
}

void osp_preempt_peaks(const struct osp_hist *h, const struct osp_peak *pk, unsigned npeaks,
                       uint64_t quantum_ns, unsigned nprocs, struct osp_preempt_peak *res)
{
	unsigned nb = h->nbuckets;
	uint64_t *n = sources(h, quantum_ns);
	double *in = calloc(nb, sizeof(*in));
	for (unsigned i = 0; i < npeaks; i++)
		res[i] = (struct osp_preempt_peak){0};
	if (n && in) {
		/* Requests at or beyond Q/2 are taken as already preempted (or
		 * slow for other reasons): they are not sources. */
		osp_preempt_predict(n, h->r, quantum_ns, nprocs, in, NULL);
		for (unsigned i = 0; i < npeaks; i++) {
			double pred = 0;
			for (unsigned k = pk[i].first; k <= pk[i].last; k++)
				pred += in[k];
			res[i].predicted = pred;
			/* +-33 % (bucket means) widened by counting noise. */
			double noise = 2 * sqrt(pred);
			double lo = pred * (1 - OSP_PREEMPT_PRECISION) - noise;
			double hi = pred * (1 + OSP_PREEMPT_PRECISION) + noise;
			res[i].model_fits =
			    pred >= 0.5 && (double)pk[i].count >= lo && (double)pk[i].count <= hi;
		}
	}
	free(n);
	free(in);
}
