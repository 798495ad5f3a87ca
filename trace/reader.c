/* Segment reader. Trusts nothing: every length is bounded and checksummed
 * before use, so arbitrary bytes end in a warning, never a crash. A segment
 * cut short (crash, still being written) reads up to its last complete block. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include "trace/internal.h"

struct osp_trace_reader {
	FILE *f;
	int own;
	char *name;
	struct osp_trace_host host;
	struct osp_trace_codec codec;
	uint8_t *stored, *raw;
	size_t stored_cap, raw_cap;
	size_t pos, len; /* cursor in raw[] */
	uint32_t left;   /* events still to decode in this block */
	uint64_t nblocks;
	int done;
	char warning[512];
	struct osp_trace_reader_stats st;
};

static void warn(struct osp_trace_reader *r, const char *what)
{
	snprintf(r->warning, sizeof(r->warning),
	         "%s: %s after block %llu (%llu events read); the rest is ignored", r->name, what,
	         (unsigned long long)r->nblocks, (unsigned long long)r->st.events);
	r->st.truncated = 1;
	r->done = 1;
}

static int grow(uint8_t **buf, size_t *cap, size_t need)
{
	if (*cap >= need)
		return 0;
	uint8_t *n = realloc(*buf, need);
	if (!n)
		return -1;
	*buf = n;
	*cap = need;
	return 0;
}

struct osp_trace_reader *osp_trace_reader_fopen(FILE *f, const char *name, char *err, size_t errlen)
{
	struct osp_trace_reader *r = calloc(1, sizeof(*r));
	uint8_t pre[16], crc[4];
	char *text = NULL;
	if (!r || !(r->name = strdup(name))) {
		snprintf(err, errlen, "%s: out of memory", name);
		goto fail;
	}
	r->f = f;
	if (fread(pre, 1, sizeof(pre), f) != sizeof(pre) ||
	    memcmp(pre, OSPT_MAGIC, OSPT_MAGIC_LEN)) {
		snprintf(err, errlen, "%s: not an osprof trace segment (bad magic)", name);
		goto fail;
	}
	if (ospt_get32(pre + 8) != OSP_TRACE_VERSION) {
		snprintf(err, errlen, "%s: trace format version %u, this osprof reads %d", name,
		         ospt_get32(pre + 8), OSP_TRACE_VERSION);
		goto fail;
	}
	uint32_t tl = ospt_get32(pre + 12);
	if (tl > OSPT_MAX_HEADER || !(text = malloc(tl + 1)) || fread(text, 1, tl, f) != tl ||
	    fread(crc, 1, 4, f) != 4 || ospt_get32(crc) != ospt_crc32(text, tl) ||
	    ospt_host_parse(text, tl, &r->host) < 0) {
		snprintf(err, errlen, "%s: segment header is cut short or corrupt", name);
		goto fail;
	}
	free(text);
	r->st.disk_bytes = sizeof(pre) + tl + 4;
	return r;
fail:
	free(text);
	if (r)
		r->f = NULL;
	osp_trace_reader_close(r);
	return NULL;
}

struct osp_trace_reader *osp_trace_reader_open(const char *path, char *err, size_t errlen)
{
	/* O_NONBLOCK: a FIFO named like a segment must not hang the open;
	 * anything but a regular file is refused after fstat */
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat sb;
	if (fd < 0 || fstat(fd, &sb) < 0) {
		snprintf(err, errlen, "%s: %s", path,
		         errno == ELOOP ? "is a symbolic link (not followed)" : strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	FILE *f = S_ISREG(sb.st_mode) ? fdopen(fd, "rb") : NULL;
	if (!f) {
		snprintf(err, errlen, "%s: %s", path,
		         S_ISREG(sb.st_mode) ? strerror(errno) : "not a regular file");
		close(fd);
		return NULL;
	}
	struct osp_trace_reader *r = osp_trace_reader_fopen(f, path, err, errlen);
	if (!r) {
		fclose(f);
		return NULL;
	}
	r->own = 1;
	return r;
}

const struct osp_trace_host *osp_trace_reader_host(const struct osp_trace_reader *r)
{
	return &r->host;
}

/* Loads the next block; 1 ok, 0 at the end (clean or with a warning). */
static int next_block(struct osp_trace_reader *r)
{
	uint8_t hb[OSPT_BLOCK_HDR];
	struct ospt_block_hdr h;
	for (;;) {
		size_t k = fread(hb, 1, sizeof(hb), r->f);
		if (k == 0) {
			warn(r, "segment not closed (recording crashed or still running)");
			return 0;
		}
		if (k != sizeof(hb)) {
			warn(r, "segment cut short in a block header");
			return 0;
		}
		if (ospt_block_hdr_unpack(hb, &h) < 0) {
			warn(r, "corrupt block header");
			return 0;
		}
		if (h.raw_len > OSPT_MAX_BLOCK || h.stored_len > OSPT_MAX_BLOCK ||
		    (!(h.flags & OSPT_BLOCK_ZSTD) && h.stored_len != h.raw_len) ||
		    (h.flags & ~(OSPT_BLOCK_ZSTD | OSPT_BLOCK_END)) || h.nevents > h.raw_len / 2) {
			warn(r, "corrupt block header");
			return 0;
		}
		if (grow(&r->stored, &r->stored_cap, h.stored_len + 1) < 0 ||
		    grow(&r->raw, &r->raw_cap, h.raw_len + 1)) {
			warn(r, "out of memory");
			return 0;
		}
		if (fread(r->stored, 1, h.stored_len, r->f) != h.stored_len) {
			warn(r, "segment cut short inside a block");
			return 0;
		}
		if (ospt_crc32(r->stored, h.stored_len) != h.payload_crc) {
			warn(r, "corrupt block (checksum mismatch)");
			return 0;
		}
		r->st.dropped += h.dropped;
		r->st.disk_bytes += sizeof(hb) + h.stored_len;
		if (h.flags & OSPT_BLOCK_END) {
			r->done = 1;
			return 0;
		}
		if (h.flags & OSPT_BLOCK_ZSTD) {
			size_t z = ZSTD_decompress(r->raw, h.raw_len, r->stored, h.stored_len);
			if (ZSTD_isError(z) || z != h.raw_len) {
				warn(r, "corrupt compressed block");
				return 0;
			}
			r->st.zstd_blocks++;
		} else {
			memcpy(r->raw, r->stored, h.raw_len);
		}
		r->nblocks++;
		r->st.blocks++;
		r->st.raw_bytes += h.raw_len;
		r->pos = 0;
		r->len = h.raw_len;
		r->left = h.nevents;
		osp_trace_codec_reset(&r->codec);
		if (r->left)
			return 1;
	}
}

int osp_trace_reader_next(struct osp_trace_reader *r, struct osp_trace_event *ev)
{
	if (r->done)
		return 0;
	if (!r->left && !next_block(r))
		return 0;
	long k = osp_trace_decode(&r->codec, r->raw + r->pos, r->len - r->pos, ev);
	if (k < 0) {
		warn(r, "malformed record");
		return 0;
	}
	r->pos += (size_t)k;
	r->left--;
	if (!r->left && r->pos != r->len) {
		warn(r, "block length does not match its records");
		return 0;
	}
	r->st.events++;
	return 1;
}

const char *osp_trace_reader_warning(const struct osp_trace_reader *r)
{
	return r->warning[0] ? r->warning : NULL;
}

void osp_trace_reader_get_stats(const struct osp_trace_reader *r, struct osp_trace_reader_stats *st)
{
	*st = r->st;
}

void osp_trace_reader_close(struct osp_trace_reader *r)
{
	if (!r)
		return;
	if (r->own && r->f)
		fclose(r->f);
	free(r->stored);
	free(r->raw);
	free(r->name);
	free(r);
}

static int seg_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name), e = strlen(OSP_TRACE_EXT);
	return d->d_name[0] != '.' && n > e && !strcmp(d->d_name + n - e, OSP_TRACE_EXT);
}

int osp_trace_list(const char *path, char ***paths, size_t *n, char *err, size_t errlen)
{
	struct stat sb;
	*paths = NULL;
	*n = 0;
	if (stat(path, &sb) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(sb.st_mode)) {
		*paths = malloc(sizeof(char *));
		if (!*paths || !((*paths)[0] = strdup(path))) {
			free(*paths);
			*paths = NULL;
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		*n = 1;
		return 0;
	}
	struct dirent **ents;
	int k = scandir(path, &ents, seg_filter, alphasort);
	if (k < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	char **out = calloc((size_t)k + 1, sizeof(char *));
	int rc = out ? 0 : -1;
	size_t m = 0;
	for (int i = 0; i < k; i++) {
		if (out && !rc) {
			size_t l = strlen(path) + strlen(ents[i]->d_name) + 2;
			char *p = malloc(l);
			struct stat es;
			if (!p) {
				rc = -1;
			} else if (snprintf(p, l, "%s/%s", path, ents[i]->d_name),
			           lstat(p, &es) == 0 && !S_ISREG(es.st_mode)) {
				/* a FIFO would hang the reader and a directory fail
				 * the whole read: neither is a segment we wrote */
				fprintf(stderr,
				        "osprof: warning: %s: not a regular file; skipped\n", p);
				free(p);
			} else {
				out[m++] = p;
			}
		}
		free(ents[i]);
	}
	free(ents);
	if (rc) {
		osp_trace_list_free(out, m);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	*paths = out;
	*n = m;
	return 0;
}

void osp_trace_list_free(char **paths, size_t n)
{
	if (!paths)
		return;
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}
