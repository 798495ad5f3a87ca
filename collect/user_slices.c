/* Sampling the preload counter files at slice boundaries (user_slices.h).
 *
 * The sampler keeps, per (file, slot, op) it has seen counting, the buckets
 * of its previous reading; a slice is the difference. Readings are plain
 * loads of counters other processes are incrementing: each 8-byte load is
 * atomic, and an op lands in the slice of the first reading that sees it, so
 * slice attribution is as precise as the sampler's wake-up (well under a
 * millisecond on an idle machine) while the sum of all slices equals the
 * whole-run histogram exactly once every process has ended.
 *
 * The thread writes only its private set; osp_user_slices_stop, called from
 * collect() on the main thread, merges it into the session's set. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <uthash.h>
#include <osprof/clock.h>
#include "collect/user_file.h"
#include "collect/user_slices.h"

struct prev {
	char key[96]; /* "FILE/SLOT/OP" */
	UT_hash_handle hh;
	uint64_t buckets[]; /* last reading */
};

struct osp_user_slices {
	char dir[4096];
	unsigned r, nb;
	uint64_t slice_ns, origin;
	char *by;
	struct osp_set *acc; /* private: slices only */
	struct prev *prev;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int stop;
	int failed; /* ENOMEM while sampling */
};

/* Adds the growth of one record since its last reading to slice `index`. */
static int sample_record(struct osp_user_slices *sl, const char *key, const struct osp_pf_op *o,
                         const char *op, const struct osp_dim *d, unsigned nd, uint64_t index)
{
	struct prev *pv;
	HASH_FIND_STR(sl->prev, key, pv);
	if (!pv) {
		pv = calloc(1, sizeof(*pv) + sl->nb * sizeof(uint64_t));
		if (!pv)
			return -ENOMEM;
		snprintf(pv->key, sizeof(pv->key), "%s", key);
		HASH_ADD_STR(sl->prev, key, pv);
	}
	uint64_t *slice = NULL;
	for (unsigned i = 0; i < sl->nb; i++) {
		uint64_t now = __atomic_load_n(&o->buckets[i], __ATOMIC_RELAXED);
		if (now <= pv->buckets[i])
			continue; /* counters only grow */
		if (!slice) {
			struct osp_profile *p = osp_set_get(sl->acc, OSP_LAYER_USER, op, d, nd);
			if (!p || !(slice = osp_profile_slice(p, index)))
				return -ENOMEM;
		}
		slice[i] += now - pv->buckets[i];
		pv->buckets[i] = now;
	}
	return 0;
}

static int sample_file(struct osp_user_slices *sl, int dirfd, const char *name, uint64_t index)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return 0;
	struct stat st;
	void *map = MAP_FAILED;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0)
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return 0;
	struct osp_pf_view v;
	char err[256];
	int rc = 0;
	/* A file still being created fails validation: the next reading (or
	 * collect's, which reports bad files) gets it. */
	if (osp_pf_view_init(&v, map, (size_t)st.st_size, sl->r, err, sizeof(err)) == 0) {
		for (unsigned s = 0; s < v.h.nslots && !rc; s++) {
			const struct osp_pf_slot *slot = osp_pf_view_slot(&v, s);
			if (__atomic_load_n(&slot->state, __ATOMIC_ACQUIRE) != 1)
				continue;
			struct osp_dim d[3];
			char pid[16], tid[16], key[96];
			unsigned nd = osp_pf_dims(sl->by, &v.h, slot, d, pid, tid);
			for (unsigned op = 0; op < v.h.nops && !rc; op++) {
				snprintf(key, sizeof(key), "%.60s/%u/%u", name, s, op);
				rc = sample_record(sl, key, osp_pf_view_rec(&v, s, op),
				                   osp_pf_view_op(&v, op), d, nd, index);
			}
		}
	}
	munmap(map, (size_t)st.st_size);
	return rc;
}

static void sample(struct osp_user_slices *sl, uint64_t index)
{
	DIR *d = opendir(sl->dir);
	if (!d)
		return;
	struct dirent *e;
	size_t sl_len = strlen(OSP_PF_SUFFIX);
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n > sl_len && !strcmp(e->d_name + n - sl_len, OSP_PF_SUFFIX) &&
		    sample_file(sl, dirfd(d), e->d_name, index))
			sl->failed = 1;
	}
	closedir(d);
}

static void *sampler(void *arg)
{
	struct osp_user_slices *sl = arg;
	pthread_mutex_lock(&sl->lock);
	for (uint64_t k = 1; !sl->stop; k++) {
		uint64_t at = sl->origin + k * sl->slice_ns;
		struct timespec ts = {(time_t)(at / 1000000000u), (long)(at % 1000000000u)};
		while (!sl->stop && pthread_cond_timedwait(&sl->wake, &sl->lock, &ts) != ETIMEDOUT)
			;
		if (!sl->stop)
			sample(sl, k - 1); /* everything up to boundary k is slice k - 1 */
	}
	pthread_mutex_unlock(&sl->lock);
	return NULL;
}

struct osp_user_slices *osp_user_slices_start(const char *dir, unsigned r, uint64_t slice_ns,
                                              const char *by)
{
	struct osp_user_slices *sl = calloc(1, sizeof(*sl));
	if (!sl)
		return NULL;
	snprintf(sl->dir, sizeof(sl->dir), "%s", dir);
	sl->r = r;
	sl->nb = osp_nbuckets(r);
	sl->slice_ns = slice_ns;
	sl->by = by ? strdup(by) : NULL;
	sl->acc = osp_set_new(r);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_init(&sl->lock, NULL);
	pthread_cond_init(&sl->wake, &ca);
	pthread_condattr_destroy(&ca);
	if (!sl->acc || (by && !sl->by)) {
		errno = ENOMEM;
		goto fail;
	}
	sl->acc->slice_ns = slice_ns;
	sl->origin = osp_now_ns();
	int e = pthread_create(&sl->thread, NULL, sampler, sl);
	if (e) {
		errno = e;
		goto fail;
	}
	return sl;
fail:
	osp_set_free(sl->acc);
	free(sl->by);
	free(sl);
	return NULL;
}

int osp_user_slices_stop(struct osp_user_slices *sl, struct osp_set *dst)
{
	pthread_mutex_lock(&sl->lock);
	sl->stop = 1;
	pthread_cond_signal(&sl->wake);
	pthread_mutex_unlock(&sl->lock);
	pthread_join(sl->thread, NULL);
	sample(sl, (osp_now_ns() - sl->origin) / sl->slice_ns);

	int rc = sl->failed ? -ENOMEM : 0;
	for (size_t i = 0; dst && i < sl->acc->n && !rc; i++) {
		const struct osp_profile *src = sl->acc->profiles[i];
		struct osp_profile *p =
		    osp_set_get(dst, src->layer, src->op, src->dims, src->ndims);
		for (size_t j = 0; p && j < src->nslices; j++) {
			uint64_t *b = osp_profile_slice(p, src->slices[j].index);
			if (!b) {
				p = NULL;
				break;
			}
			for (unsigned k = 0; k < sl->nb; k++)
				b[k] += src->slices[j].buckets[k];
		}
		if (!p)
			rc = -ENOMEM;
	}
	struct prev *pv, *tmp;
	HASH_ITER(hh, sl->prev, pv, tmp)
	{
		HASH_DEL(sl->prev, pv);
		free(pv);
	}
	pthread_mutex_destroy(&sl->lock);
	pthread_cond_destroy(&sl->wake);
	osp_set_free(sl->acc);
	free(sl->by);
	free(sl);
	return rc;
}
