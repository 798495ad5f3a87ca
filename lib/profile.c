/* Profile sets: find-or-create by key, metadata, slices, merge, ordering. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>
#include <osprof/profile.h>
#include <osprof/sort.h>
#include "lib/arena.h"

struct prof_node {
	struct osp_profile p; /* first: a profile pointer is a node pointer */
	UT_hash_handle hh;
};

static const char *const unit_names[] = {"ns", "bytes", "count"};

const char *osp_unit_name(enum osp_unit u)
{
	return (unsigned)u < sizeof(unit_names) / sizeof(unit_names[0]) ? unit_names[u] : "?";
}

int osp_unit_parse(const char *s, enum osp_unit *out)
{
	for (unsigned i = 0; i < sizeof(unit_names) / sizeof(unit_names[0]); i++)
		if (!strcmp(s, unit_names[i])) {
			*out = (enum osp_unit)i;
			return 0;
		}
	return -EINVAL;
}

struct osp_set *osp_set_new(unsigned r)
{
	if (!osp_resolution_valid(r))
		return NULL;
	struct osp_set *s = calloc(1, sizeof(*s));
	if (s)
		s->r = r;
	return s;
}

/* The node, its buckets and its names are in the set's arena (profile_new). */
static void profile_free(struct osp_profile *p)
{
	for (size_t i = 0; i < p->nslices; i++)
		free(p->slices[i].buckets);
	free(p->slices);
	osp_profile_parents_free(p);
}

void osp_set_free(struct osp_set *s)
{
	if (!s)
		return;
	struct prof_node *head = s->index;
	HASH_CLEAR(hh, head);
	for (size_t i = 0; i < s->n; i++)
		profile_free(s->profiles[i]);
	free(s->profiles);
	for (size_t i = 0; i < s->nmeta; i++) {
		free(s->meta[i].key);
		free(s->meta[i].value);
	}
	free(s->meta);
	osp_arena_free(s->arena);
	free(s);
}

int osp_set_meta(struct osp_set *s, const char *key, const char *value)
{
	char *v = strndup(value, OSP_MAX_META_VALUE);
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < s->nmeta; i++)
		if (!strcmp(s->meta[i].key, key)) {
			free(s->meta[i].value);
			s->meta[i].value = v;
			return 0;
		}
	struct osp_meta *m = realloc(s->meta, (s->nmeta + 1) * sizeof(*m));
	char *k = strdup(key);
	if (!m || !k) {
		free(v);
		free(k);
		if (m)
			s->meta = m;
		return -ENOMEM;
	}
	s->meta = m;
	m[s->nmeta].key = k;
	m[s->nmeta].value = v;
	s->nmeta++;
	return 0;
}

int osp_set_metaf(struct osp_set *s, const char *key, const char *fmt, ...)
{
	char *v;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&v, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	int rc = osp_set_meta(s, key, v);
	free(v);
	return rc;
}

const char *osp_get_meta(const struct osp_set *s, const char *key)
{
	for (size_t i = 0; i < s->nmeta; i++)
		if (!strcmp(s->meta[i].key, key))
			return s->meta[i].value;
	return NULL;
}

uint64_t osp_meta_u64(const struct osp_set *s, const char *key)
{
	const char *v = osp_get_meta(s, key);
	return v ? strtoull(v, NULL, 10) : 0;
}

int osp_meta_add_u64(struct osp_set *s, const char *key, uint64_t n)
{
	uint64_t sum;
	if (__builtin_add_overflow(osp_meta_u64(s, key), n, &sum))
		return -EOVERFLOW;
	return osp_set_metaf(s, key, "%llu", (unsigned long long)sum);
}

static int name_ok(const char *s, int dim_name)
{
	if (!s || !*s)
		return 0;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (dim_name ? !((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')
		             : (c <= ' ' || c == 0x7f))
			return 0;
	}
	return 1;
}

static int dim_cmp(const void *a, const void *b)
{
	const struct osp_dim *x = a, *y = b;
	return strcmp(x->name, y->name);
}

/* Canonical key "layer\x1fop\x1fname=value..." with dims sorted by name;
 * 0x1f cannot occur in names (control characters are refused). */
static size_t key_len(const char *layer, const char *op, const struct osp_dim *sorted, unsigned n)
{
	size_t len = strlen(layer) + strlen(op) + 2;
	for (unsigned i = 0; i < n; i++)
		len += strlen(sorted[i].name) + strlen(sorted[i].value) + 2;
	return len;
}

static char *put_str(char *w, const char *s)
{
	size_t n = strlen(s);
	memcpy(w, s, n);
	return w + n;
}

/* The key into buf when it fits (lookups are the hot path of merge and of
 * the readers: no allocation then), else into a new allocation; NULL on
 * ENOMEM. Free with free_key. */
static char *make_key(const char *layer, const char *op, struct osp_dim *sorted, unsigned n,
                      char *buf, size_t buflen)
{
	size_t len = key_len(layer, op, sorted, n) + 1;
	char *k = len <= buflen ? buf : malloc(len), *w = k;
	if (!k)
		return NULL;
	w = put_str(w, layer);
	*w++ = '\x1f';
	w = put_str(w, op);
	for (unsigned i = 0; i < n; i++) {
		*w++ = '\x1f';
		w = put_str(w, sorted[i].name);
		*w++ = '=';
		w = put_str(w, sorted[i].value);
	}
	*w = '\0';
	return k;
}

static void free_key(char *k, const char *buf)
{
	if (k != buf)
		free(k);
}

/* A new profile in one block of the set's arena: its node, buckets, key,
 * layer, op and dims. A merge of a fleet creates hundreds of thousands of
 * profiles; they live as long as the set. NULL on ENOMEM. */
static struct prof_node *profile_new(struct osp_set *s, const char *key, const char *layer,
                                     const char *op, const struct osp_dim *sorted, unsigned n)
{
	unsigned r = s->r, nb = osp_nbuckets(r);
	size_t klen = strlen(key) + 1;
	size_t names = klen + key_len(layer, op, sorted, n) + n + 1;
	struct prof_node *node =
	    osp_arena_alloc(&s->arena, sizeof(*node) + nb * sizeof(uint64_t) + names);
	if (!node)
		return NULL;
	struct osp_profile *p = &node->p;
	p->hist.r = r;
	p->hist.nbuckets = nb;
	p->hist.min = UINT64_MAX;
	p->hist.buckets = (uint64_t *)(node + 1);
	char *w = (char *)(p->hist.buckets + nb);
	p->key = memcpy(w, key, klen);
	w += klen;
	p->layer = strcpy(w, layer);
	w += strlen(layer) + 1;
	p->op = strcpy(w, op);
	w += strlen(op) + 1;
	for (unsigned i = 0; i < n; i++) {
		p->dims[i].name = strcpy(w, sorted[i].name);
		w += strlen(w) + 1;
		p->dims[i].value = strcpy(w, sorted[i].value);
		w += strlen(w) + 1;
	}
	p->ndims = n;
	return node;
}

static int sort_dims(const struct osp_dim *dims, unsigned ndims, struct osp_dim *out)
{
	if (ndims > OSP_MAX_DIMS)
		return -EINVAL;
	for (unsigned i = 0; i < ndims; i++) {
		if (!name_ok(dims[i].name, 1) || !dims[i].value || !*dims[i].value)
			return -EINVAL;
		for (const char *c = dims[i].value; *c; c++)
			if ((unsigned char)*c < ' ')
				return -EINVAL;
		out[i] = dims[i];
	}
	osp_sort(out, ndims, sizeof(*out), dim_cmp);
	for (unsigned i = 1; i < ndims; i++)
		if (!strcmp(out[i - 1].name, out[i].name))
			return -EINVAL;
	return 0;
}

/* The canonical key of (layer, op, dims) in buf (or allocated: free_key)
 * with the dims sorted into sorted, and the profile of that key in s, if
 * any, in *found. NULL on a bad name or ENOMEM. */
static char *lookup(const struct osp_set *s, const char *layer, const char *op,
                    const struct osp_dim *dims, unsigned ndims, struct osp_dim *sorted, char *buf,
                    size_t len, struct prof_node **found)
{
	if (!name_ok(layer, 0) || !name_ok(op, 0) || sort_dims(dims, ndims, sorted))
		return NULL;
	char *key = make_key(layer, op, sorted, ndims, buf, len);
	struct prof_node *head = s->index;
	*found = NULL;
	if (key)
		HASH_FIND_STR(head, key, *found);
	return key;
}

struct osp_profile *osp_set_find(const struct osp_set *s, const char *layer, const char *op,
                                 const struct osp_dim *dims, unsigned ndims)
{
	struct osp_dim sorted[OSP_MAX_DIMS];
	struct prof_node *found;
	char buf[256], *key = lookup(s, layer, op, dims, ndims, sorted, buf, sizeof(buf), &found);
	if (!key)
		return NULL;
	free_key(key, buf);
	return found ? &found->p : NULL;
}

struct osp_profile *osp_set_get(struct osp_set *s, const char *layer, const char *op,
                                const struct osp_dim *dims, unsigned ndims)
{
	struct osp_dim sorted[OSP_MAX_DIMS];
	struct prof_node *found, *head;
	char buf[256], *key = lookup(s, layer, op, dims, ndims, sorted, buf, sizeof(buf), &found);
	if (!key)
		return NULL;
	if (found) {
		free_key(key, buf);
		return &found->p;
	}
	/* The array doubles when n reaches a power of two (its capacity then),
	 * so adding n profiles copies O(n) pointers, not O(n^2). */
	struct osp_profile **grown = s->profiles;
	if (!(s->n & (s->n - 1))) {
		grown = realloc(s->profiles, (s->n ? 2 * s->n : 1) * sizeof(*grown));
		if (grown)
			s->profiles = grown;
	}
	struct prof_node *node = grown ? profile_new(s, key, layer, op, sorted, ndims) : NULL;
	free_key(key, buf);
	if (!node)
		return NULL;
	struct osp_profile *p = &node->p;
	head = s->index;
	HASH_ADD_KEYPTR(hh, head, p->key, strlen(p->key), node);
	s->index = head;
	s->profiles[s->n++] = p;
	return p;
}

const char *osp_profile_dim(const struct osp_profile *p, const char *name)
{
	for (unsigned i = 0; i < p->ndims; i++)
		if (!strcmp(p->dims[i].name, name))
			return p->dims[i].value;
	return NULL;
}

char *osp_profile_label(const struct osp_profile *p, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s:%s", p->layer, p->op);
	for (unsigned i = 0; i < p->ndims && n >= 0 && (size_t)n < len; i++)
		n +=
		    snprintf(buf + n, len - (size_t)n, " %s=%s", p->dims[i].name, p->dims[i].value);
	return buf;
}

uint64_t *osp_profile_slice(struct osp_profile *p, uint64_t index)
{
	size_t lo = 0, hi = p->nslices;
	if (hi && p->slices[hi - 1].index < index) {
		lo = hi; /* appending in time order is the common case */
	} else {
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (p->slices[mid].index < index)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < p->nslices && p->slices[lo].index == index)
			return p->slices[lo].buckets;
	}
	uint64_t *b = calloc(p->hist.nbuckets, sizeof(*b));
	struct osp_slice *grown = realloc(p->slices, (p->nslices + 1) * sizeof(*grown));
	if (grown)
		p->slices = grown;
	if (!b || !grown) {
		free(b);
		return NULL;
	}
	memmove(&p->slices[lo + 1], &p->slices[lo], (p->nslices - lo) * sizeof(*grown));
	p->slices[lo].index = index;
	p->slices[lo].buckets = b;
	p->nslices++;
	return b;
}

void osp_profile_add(struct osp_set *s, struct osp_profile *p, uint64_t v, uint64_t t_ns)
{
	osp_hist_add(&p->hist, v);
	if (s->slice_ns) {
		uint64_t *b = osp_profile_slice(p, t_ns / s->slice_ns);
		if (b)
			b[osp_bucket_index(v, s->r)]++;
	}
}

/* Key of sp in dst: its own dims, with dimension `name` set to `value`
 * unless sp has one of that name already (a file merged before keeps the
 * host it names), or with `name` removed when value is NULL. */
static struct osp_profile *merge_target(struct osp_set *dst, const struct osp_profile *sp,
                                        const char *name, const char *value, char *err,
                                        size_t errlen)
{
	if (!name || (value && osp_profile_dim(sp, name)))
		return osp_set_get(dst, sp->layer, sp->op, sp->dims, sp->ndims);
	struct osp_dim dims[OSP_MAX_DIMS];
	unsigned n = 0;
	for (unsigned i = 0; i < sp->ndims; i++)
		if (strcmp(sp->dims[i].name, name))
			dims[n++] = sp->dims[i];
	if (value) {
		if (n == OSP_MAX_DIMS) {
			snprintf(err, errlen,
			         "profile %s:%s has %d dimensions already: no room for '%s'",
			         sp->layer, sp->op, OSP_MAX_DIMS, name);
			return NULL;
		}
		dims[n++] = (struct osp_dim){(char *)name, (char *)value};
	}
	return osp_set_get(dst, sp->layer, sp->op, dims, n);
}

int osp_set_merge(struct osp_set *dst, const struct osp_set *src, char *err, size_t errlen)
{
	return osp_set_merge_dim(dst, src, NULL, NULL, err, errlen);
}

int osp_set_merge_dim(struct osp_set *dst, const struct osp_set *src, const char *name,
                      const char *value, char *err, size_t errlen)
{
	if (err && errlen)
		*err = '\0';
	if (dst->r != src->r) {
		snprintf(err, errlen, "resolutions differ (%u and %u): profiles cannot be added",
		         dst->r, src->r);
		return -EINVAL;
	}
	if (dst->slice_ns && src->slice_ns && dst->slice_ns != src->slice_ns) {
		snprintf(err, errlen, "slice lengths differ (%llu ns and %llu ns)",
		         (unsigned long long)dst->slice_ns, (unsigned long long)src->slice_ns);
		return -EINVAL;
	}
	if (!dst->slice_ns)
		dst->slice_ns = src->slice_ns;
	for (size_t i = 0; i < src->nmeta; i++) {
		const char *k = src->meta[i].key;
		/* Counts add up, as COUNT and as COUNT.LAYER (a layer's part). */
		static const char *const counts[] = {
		    "lost_events", "unpaired_events", "dropped_events", "user_static",
		    "user_setuid", "user_bad_files",  "probe_ns",       "probe_runs"};
		int is_count = 0;
		for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
			size_t n = strlen(counts[c]);
			is_count |= !strncmp(k, counts[c], n) && (k[n] == '\0' || k[n] == '.');
		}
		if (is_count) {
			int rc = osp_meta_add_u64(dst, k, strtoull(src->meta[i].value, NULL, 10));
			if (rc == -EOVERFLOW)
				goto overflow_meta;
			if (rc)
				goto nomem;
		} else if (!osp_get_meta(dst, k) && osp_set_meta(dst, k, src->meta[i].value)) {
			goto nomem;
		}
	}
	for (size_t i = 0; i < src->n; i++) {
		const struct osp_profile *sp = src->profiles[i];
		struct osp_profile *dp = merge_target(dst, sp, name, value, err, errlen);
		if (!dp) {
			if (*err)
				return -EINVAL;
			goto nomem;
		}
		if (dp->hist.count && dp->unit != sp->unit) {
			snprintf(
			    err, errlen, "profile %s:%s has unit %s in one set and %s in the other",
			    sp->layer, sp->op, osp_unit_name(dp->unit), osp_unit_name(sp->unit));
			return -EINVAL;
		}
		dp->unit = sp->unit;
		if (osp_hist_merge(&dp->hist, &sp->hist) == -EOVERFLOW) {
			snprintf(err, errlen,
			         "profile %s:%s: a count would exceed 2^64-1; not added", sp->layer,
			         sp->op);
			return -EOVERFLOW;
		}
		for (size_t j = 0; j < sp->nslices; j++) {
			uint64_t *b = osp_profile_slice(dp, sp->slices[j].index);
			if (!b)
				goto nomem;
			/* bounded by the total's buckets, already checked */
			for (unsigned k = 0; k < dp->hist.nbuckets; k++)
				b[k] += sp->slices[j].buckets[k];
		}
		for (size_t j = 0; j < sp->nparents; j++) {
			const struct osp_parent *e = &sp->parents[j];
			if (osp_profile_add_parent(dp, e->layer, e->op, e->dims, e->ndims,
			                           e->count))
				goto nomem;
		}
	}
	return 0;
overflow_meta:
	snprintf(err, errlen, "lost or unpaired event counts would exceed 2^64-1; not added");
	return -EOVERFLOW;
nomem:
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

static int by_total(const void *a, const void *b)
{
	const struct osp_profile *x = *(struct osp_profile *const *)a;
	const struct osp_profile *y = *(struct osp_profile *const *)b;
	/* Value profiles (bytes, counts) sort after latency profiles. */
	int xl = x->unit == OSP_UNIT_NS, yl = y->unit == OSP_UNIT_NS;
	if (xl != yl)
		return yl - xl;
	if (x->hist.total != y->hist.total)
		return x->hist.total < y->hist.total ? 1 : -1;
	if (x->hist.count != y->hist.count)
		return x->hist.count < y->hist.count ? 1 : -1;
	return strcmp(x->key, y->key);
}

void osp_set_sort_by_total(struct osp_set *s)
{
	if (s->n > 1)
		osp_sort(s->profiles, s->n, sizeof(*s->profiles), by_total);
}

uint64_t osp_set_total(const struct osp_set *s)
{
	uint64_t t = 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->profiles[i]->unit == OSP_UNIT_NS)
			t += s->profiles[i]->hist.total;
	return t;
}
