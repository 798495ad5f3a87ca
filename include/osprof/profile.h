/* Profile sets: (layer, op, dimensions) -> histogram, plus metadata.
 * A set is what one `osprof run` or `osprof record` produces and what one
 * .osp file holds (format: docs/file-format.md). */
#ifndef OSPROF_PROFILE_H
#define OSPROF_PROFILE_H

#include <stdio.h>
#include <osprof/hist.h>

#define OSP_MAX_DIMS 6
/* The longest line the .osp reader accepts (checked while reading), and the
 * longest metadata value kept (escaped, at most 4 bytes a byte, it stays far
 * below the line limit; longer values, e.g. huge command lines, are cut). */
#define OSP_MAX_LINE       (1 << 20)
#define OSP_MAX_META_VALUE (64 << 10)

/* Units a histogram's values are in. */
enum osp_unit { OSP_UNIT_NS = 0, OSP_UNIT_BYTES, OSP_UNIT_COUNT };
const char *osp_unit_name(enum osp_unit u);
int osp_unit_parse(const char *s, enum osp_unit *out);

/* A dimension of a profile key, e.g. {"pid","1234"}, {"fs","ext4"},
 * {"dev","vda"}, {"comm","postmark"}, {"caller","ext4_buffered_write_iter"},
 * {"state","preempted"}, {"peak","2"}. Names are [a-z0-9_]+. */
struct osp_dim {
	char *name;
	char *value;
};

/* Time-sliced buckets: the histogram of slice `index` (time since start
 * divided by the set's slice_ns). Only non-empty slices are stored. */
struct osp_slice {
	uint64_t index;
	uint64_t *buckets; /* nbuckets of the owning profile */
};

/* Measured nesting: how many of a profile's calls ran inside one operation
 * of another layer (the system call in flight when an fs event ran, the fs
 * op in flight when a block request was issued). op NULL counts the calls
 * that ran outside any operation of that layer; a layer with no entry was
 * not measured. Format: `parent` and `outside` lines (docs/file-format.md). */
struct osp_parent {
	char *layer;
	char *op; /* NULL: outside any op of layer */
	unsigned ndims;
	struct osp_dim dims[OSP_MAX_DIMS]; /* sorted by name */
	uint64_t count;
};

struct osp_profile {
	char *layer; /* user, syscall, fs, block, lock, sched, irq, func, ... */
	char *op;    /* read, ext4_sync_file, rq_issue, ... */
	unsigned ndims;
	struct osp_dim dims[OSP_MAX_DIMS]; /* kept sorted by name */
	enum osp_unit unit;
	struct osp_hist hist;
	size_t nslices;
	struct osp_slice *slices; /* sorted by index */
	char *key;                /* canonical key, internal */
	size_t nparents;
	struct osp_parent *parents; /* measured nesting, in insertion order */
};

struct osp_meta {
	char *key;
	char *value;
};

struct osp_set {
	unsigned r;        /* resolution of every profile in the set */
	uint64_t slice_ns; /* 0 = not time-sliced */
	size_t nmeta;
	struct osp_meta *meta; /* ordered; keys unique */
	size_t n;
	struct osp_profile **profiles; /* insertion order unless sorted */
	void *index;                   /* private hash index */
	struct osp_arena *arena;       /* private: the profiles' memory */
};

/* NULL on ENOMEM or bad r. */
struct osp_set *osp_set_new(unsigned r);
void osp_set_free(struct osp_set *s);

/* Metadata: set replaces an existing key. get returns NULL if absent. */
int osp_set_meta(struct osp_set *s, const char *key, const char *value);
int osp_set_metaf(struct osp_set *s, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
const char *osp_get_meta(const struct osp_set *s, const char *key);
/* Adds n to an integer metadata key (lost events, unpaired, ...). */
int osp_meta_add_u64(struct osp_set *s, const char *key, uint64_t n);
uint64_t osp_meta_u64(const struct osp_set *s, const char *key);

/* Finds or creates the profile for (layer, op, dims). dims need not be
 * sorted; strings are copied. NULL on ENOMEM or invalid names. */
struct osp_profile *osp_set_get(struct osp_set *s, const char *layer, const char *op,
                                const struct osp_dim *dims, unsigned ndims);
/* Finds without creating. */
struct osp_profile *osp_set_find(const struct osp_set *s, const char *layer, const char *op,
                                 const struct osp_dim *dims, unsigned ndims);
/* Value of dimension `name` or NULL. */
const char *osp_profile_dim(const struct osp_profile *p, const char *name);
/* Human label "layer:op dim=value ..." into buf; returns buf. */
char *osp_profile_label(const struct osp_profile *p, char *buf, size_t len);

/* Adds n calls of p that ran inside (layer, op, dims) -- or outside any op
 * of layer when op is NULL -- to p's parent table. 0, -EINVAL on bad names
 * or more than OSP_MAX_DIMS dims, -ENOMEM. */
int osp_profile_add_parent(struct osp_profile *p, const char *layer, const char *op,
                           const struct osp_dim *dims, unsigned ndims, uint64_t n);
/* Calls of p whose parent at `layer` was measured (sum of its entries, the
 * outside ones included); 0 when that layer was not measured. */
uint64_t osp_profile_parent_total(const struct osp_profile *p, const char *layer);
/* Frees p's parent table (profile_free calls it). */
void osp_profile_parents_free(struct osp_profile *p);

/* Records value v at time offset t_ns from start (slices only if slice_ns). */
void osp_profile_add(struct osp_set *s, struct osp_profile *p, uint64_t v, uint64_t t_ns);
/* Returns the bucket array of slice `index`, creating it; NULL on ENOMEM. */
uint64_t *osp_profile_slice(struct osp_profile *p, uint64_t index);

/* dst += src: same r required (else -EINVAL with a message in err). Slice
 * lengths must match when both are sliced. Metadata of dst is kept; numeric
 * accounting keys (lost_events, unpaired_events) are added. */
int osp_set_merge(struct osp_set *dst, const struct osp_set *src, char *err, size_t errlen);
/* The same, with dimension `name` = `value` added to the key of every profile
 * of src that has none of that name yet (host=web1: a file merged before
 * keeps the hosts it names), or, value NULL, removed from every key (hosts
 * combined). name NULL is osp_set_merge. -EINVAL when a key has no room. */
int osp_set_merge_dim(struct osp_set *dst, const struct osp_set *src, const char *name,
                      const char *value, char *err, size_t errlen);
/* 0 when src can be added to dst so that every slice still sums to its
 * total and slice i means the same time on both sides: same r, both sliced
 * or neither, same slice length and start (start_wall_ns within 1 % of a
 * slice). Else -EINVAL with the reason in err. */
int osp_set_merge_check(const struct osp_set *dst, const struct osp_set *src, char *err,
                        size_t errlen);
/* Frees every time slice of s (slice_ns becomes 0): totals only. */
void osp_set_drop_slices(struct osp_set *s);

/* Orders profiles by total latency, largest first (ties: count, then key). */
void osp_set_sort_by_total(struct osp_set *s);
/* Sum of hist.total over profiles with unit ns. */
uint64_t osp_set_total(const struct osp_set *s);

/* Fills host, kernel, cpu, start time metadata for this machine. */
void osp_set_stamp_host(struct osp_set *s);

/* File I/O (docs/file-format.md). write returns 0 or -errno.
 * read returns 0, or -1 with "FILE:LINE: what is wrong" in err. */
int osp_set_write(const struct osp_set *s, FILE *f);
int osp_set_save(const struct osp_set *s, const char *path, char *err, size_t errlen);
int osp_set_read(FILE *f, const char *name, struct osp_set **out, char *err, size_t errlen);
int osp_set_load(const char *path, struct osp_set **out, char *err, size_t errlen);

#endif
