/* Segment writer and trace manager: records -> blocks -> segment files,
 * rotated by time (-G) or size (-C), kept within --max-disk by moving the
 * oldest closed segments to --archive or deleting them. A failed write is
 * cut back to the last complete block and its events are counted as
 * dropped, so a full disk never corrupts what is already written. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>
#include <osprof/clock.h>
#include <osprof/output.h>
#include "trace/internal.h"

struct seg_file {
	char *path;
	uint64_t size;
};

struct osp_trace_writer {
	struct osp_trace_writer_opts o;
	char *dir, *archive, *target;
	char attach[160];
	struct osp_trace_codec codec;
	uint8_t *raw;
	size_t raw_len, raw_cap;
	uint32_t nev;
	uint64_t first_ts, block_clock;
	uint8_t *zbuf;
	size_t zcap;
	ZSTD_CCtx *cctx;
	int fd;
	char *seg_path;
	uint64_t seg_bytes, seg_clock;
	uint32_t seq;
	uint64_t pending_drops;  /* lost since the last block written */
	struct seg_file *closed; /* oldest first */
	size_t nclosed;
	uint64_t closed_bytes;
	struct osp_trace_writer_stats st;
	int first_err;
	int failing; /* inside a run of failed writes: log once */
	unsigned adds;
};

static uint64_t now(const struct osp_trace_writer *w)
{
	return w->o.now ? w->o.now() : osp_now_ns();
}

static void wlog(struct osp_trace_writer *w, const char *fmt, ...)
{
	char msg[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (w->o.log)
		w->o.log(msg);
	else
		fprintf(stderr, "osprof trace: %s\n", msg);
}

static void note_err(struct osp_trace_writer *w, int e)
{
	if (!w->first_err)
		w->first_err = -e;
}

static int mkdir_p(const char *path)
{
	char buf[4096];
	if (strlen(path) >= sizeof(buf))
		return -ENAMETOOLONG;
	strcpy(buf, path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static int write_all(int fd, const void *buf, size_t n)
{
	const uint8_t *p = buf;
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -ENOSPC;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* rename, or copy + unlink when the archive is on another file system. */
static int move_file(const char *src, const char *dstdir)
{
	const char *base = strrchr(src, '/');
	base = base ? base + 1 : src;
	char dst[4096];
	if (snprintf(dst, sizeof(dst), "%s/%s", dstdir, base) >= (int)sizeof(dst))
		return -ENAMETOOLONG;
	/* Never over something already there (a planted symlink included):
	 * renameat2 with RENAME_NOREPLACE, and O_EXCL for the copy. */
	if (renameat2(AT_FDCWD, src, AT_FDCWD, dst, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EXDEV)
		return -errno;
	int in = open(src, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), out = -1, rc = 0;
	if (in < 0)
		return -errno;
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (out < 0) {
		rc = -errno;
		close(in);
		return rc;
	}
	char buf[1 << 16];
	ssize_t k;
	while ((k = read(in, buf, sizeof(buf))) > 0)
		if ((rc = write_all(out, buf, (size_t)k)) < 0)
			break;
	if (k < 0)
		rc = -errno;
	close(in);
	if (!rc && fsync(out) < 0)
		rc = -errno;
	if (close(out) < 0 && !rc)
		rc = -errno;
	if (rc) {
		unlink(dst);
		return rc;
	}
	return unlink(src) < 0 ? -errno : 0;
}

static void evict_oldest(struct osp_trace_writer *w, const char *why)
{
	struct seg_file s = w->closed[0];
	memmove(w->closed, w->closed + 1, (w->nclosed - 1) * sizeof(*w->closed));
	w->nclosed--;
	w->closed_bytes -= s.size;
	if (w->archive) {
		int rc = move_file(s.path, w->archive);
		if (rc == 0) {
			w->st.archived++;
			wlog(w, "moved %s to %s (%s)", s.path, w->archive, why);
		} else {
			wlog(w, "cannot move %s to %s: %s; deleting it", s.path, w->archive,
			     strerror(-rc));
			unlink(s.path);
			w->st.deleted++;
		}
	} else {
		unlink(s.path);
		w->st.deleted++;
		wlog(w, "deleted %s (%s)", s.path, why);
	}
	free(s.path);
}

static int add_closed(struct osp_trace_writer *w, char *path, uint64_t size)
{
	struct seg_file *n = realloc(w->closed, (w->nclosed + 1) * sizeof(*n));
	if (!n) {
		free(path);
		return -ENOMEM;
	}
	w->closed = n;
	w->closed[w->nclosed++] = (struct seg_file){path, size};
	w->closed_bytes += size;
	return 0;
}

static int open_segment(struct osp_trace_writer *w)
{
	struct osp_trace_host h;
	osp_trace_host_probe(&h);
	h.seq = ++w->seq;
	snprintf(h.target, sizeof(h.target), "%s", w->target ? w->target : "");
	snprintf(h.attach, sizeof(h.attach), "%s", w->attach);
	time_t t = (time_t)(h.start_wall_ns / 1000000000ull);
	struct tm tm;
	gmtime_r(&t, &tm);
	char stamp[32], path[4096];
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", &tm);
	int fd = -1;
	for (int tries = 0; tries < 100 && fd < 0; tries++) {
		snprintf(path, sizeof(path), "%s/trace-%s.%03u-%06u" OSP_TRACE_EXT, w->dir, stamp,
		         (unsigned)(h.start_wall_ns / 1000000 % 1000), w->seq);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 && errno != EEXIST)
			break;
		if (fd < 0)
			h.seq = ++w->seq;
	}
	if (fd < 0)
		return -errno;
	char text[2048];
	uint8_t pre[16], crc[4];
	size_t tl = ospt_host_format(&h, text, sizeof(text));
	memcpy(pre, OSPT_MAGIC, OSPT_MAGIC_LEN);
	ospt_put32(pre + 8, OSP_TRACE_VERSION);
	ospt_put32(pre + 12, (uint32_t)tl);
	ospt_put32(crc, ospt_crc32(text, tl));
	int rc = write_all(fd, pre, sizeof(pre));
	if (!rc)
		rc = write_all(fd, text, tl);
	if (!rc)
		rc = write_all(fd, crc, sizeof(crc));
	if (rc) {
		close(fd);
		unlink(path);
		return rc;
	}
	w->fd = fd;
	w->seg_path = strdup(path);
	w->seg_bytes = sizeof(pre) + tl + sizeof(crc);
	w->seg_clock = now(w);
	w->st.segments++;
	w->st.disk_bytes += w->seg_bytes;
	return w->seg_path ? 0 : -ENOMEM;
}

/* Writes header + payload at the end of the open segment; on failure cuts
 * the file back so the segment still ends at a complete block. */
static int write_block(struct osp_trace_writer *w, const struct ospt_block_hdr *h,
                       const void *payload)
{
	uint8_t hb[OSPT_BLOCK_HDR];
	ospt_block_hdr_pack(h, hb);
	int rc = write_all(w->fd, hb, sizeof(hb));
	if (!rc)
		rc = write_all(w->fd, payload, h->stored_len);
	if (rc) {
		if (ftruncate(w->fd, (off_t)w->seg_bytes) < 0 ||
		    lseek(w->fd, (off_t)w->seg_bytes, SEEK_SET) < 0)
			note_err(w, errno);
		return rc;
	}
	w->seg_bytes += sizeof(hb) + h->stored_len;
	w->st.disk_bytes += sizeof(hb) + h->stored_len;
	return 0;
}

static void close_segment(struct osp_trace_writer *w)
{
	if (w->fd < 0)
		return;
	struct ospt_block_hdr h = {
	    .flags = OSPT_BLOCK_END, .dropped = w->pending_drops, .payload_crc = ospt_crc32("", 0)};
	if (write_block(w, &h, "") == 0)
		w->pending_drops = 0;
	if (fdatasync(w->fd) < 0 && errno != EINVAL)
		note_err(w, errno);
	close(w->fd);
	w->fd = -1;
	if (add_closed(w, w->seg_path, w->seg_bytes) < 0)
		note_err(w, ENOMEM);
	w->seg_path = NULL;
	if (w->archive && !w->o.max_disk)
		while (w->nclosed)
			evict_oldest(w, "closed");
}

static void drop_block(struct osp_trace_writer *w, int rc, const char *what)
{
	w->st.dropped += w->nev;
	w->pending_drops += w->nev;
	if (!w->failing)
		wlog(w, "%s: %s; dropping events until it can write again", what, strerror(-rc));
	w->failing = 1;
	note_err(w, -rc);
}

static void reset_block(struct osp_trace_writer *w)
{
	w->raw_len = 0;
	w->nev = 0;
	w->first_ts = 0;
	osp_trace_codec_reset(&w->codec);
}

static int flush_block(struct osp_trace_writer *w)
{
	if (!w->nev)
		return 0;
	struct ospt_block_hdr h = {
	    .nevents = w->nev, .raw_len = (uint32_t)w->raw_len, .first_ts = w->first_ts};
	const void *payload = w->raw;
	h.stored_len = h.raw_len;
	if (w->o.zstd) {
		size_t z = ZSTD_compressCCtx(w->cctx, w->zbuf, w->zcap, w->raw, w->raw_len,
		                             w->o.zstd_level ? w->o.zstd_level : 1);
		if (!ZSTD_isError(z) && z < w->raw_len) {
			h.flags |= OSPT_BLOCK_ZSTD;
			h.stored_len = (uint32_t)z;
			payload = w->zbuf;
		}
	}
	h.payload_crc = ospt_crc32(payload, h.stored_len);
	uint64_t need = OSPT_BLOCK_HDR + h.stored_len;
	int rc = 0;

	if (w->fd >= 0 && w->o.rotate_bytes && w->seg_bytes + need > w->o.rotate_bytes &&
	    w->seg_bytes > 64 + OSPT_BLOCK_HDR)
		close_segment(w);
	if (w->o.max_disk) {
		/* room for this block and the open segment's end marker */
		uint64_t open_bytes = w->fd >= 0 ? w->seg_bytes : 1024;
		while (w->nclosed &&
		       w->closed_bytes + open_bytes + need + OSPT_BLOCK_HDR > w->o.max_disk)
			evict_oldest(w, "--max-disk");
		if (w->closed_bytes + open_bytes + need + OSPT_BLOCK_HDR > w->o.max_disk) {
			drop_block(w, -ENOSPC, "--max-disk budget reached");
			goto out;
		}
	}
	if (w->fd < 0) {
		rc = open_segment(w);
		if (rc == -ENOSPC && w->archive && w->nclosed) {
			evict_oldest(w, "disk full");
			rc = open_segment(w);
		}
		if (rc < 0) {
			drop_block(w, rc, "cannot open a new segment");
			goto out;
		}
		/* segments open lazily; -G counts from their first event */
		w->seg_clock = w->block_clock;
	}
	h.dropped = w->pending_drops;
	rc = write_block(w, &h, payload);
	/* Disk full with an archive: move the oldest closed segment away (seed
	 * 004's manager) and try once more before dropping. Same when opening. */
	if (rc == -ENOSPC && w->archive && w->nclosed) {
		evict_oldest(w, "disk full");
		rc = write_block(w, &h, payload);
	}
	if (rc < 0) {
		drop_block(w, rc, w->seg_path);
		goto out;
	}
	if (w->failing)
		wlog(w, "writing again; %" PRIu64 " events dropped so far", w->st.dropped);
	w->failing = 0;
	w->pending_drops = 0;
	w->st.events += w->nev;
	w->st.blocks++;
	w->st.raw_bytes += w->raw_len;
out:
	reset_block(w);
	return rc;
}

static int scan_existing(struct osp_trace_writer *w)
{
	char **paths;
	size_t n;
	char err[256];
	if (osp_trace_list(w->dir, &paths, &n, err, sizeof(err)) < 0)
		return -EIO;
	for (size_t i = 0; i < n; i++) {
		struct stat sb;
		if (stat(paths[i], &sb) == 0 && add_closed(w, paths[i], (uint64_t)sb.st_size) == 0)
			paths[i] = NULL;
	}
	osp_trace_list_free(paths, n);
	return 0;
}

struct osp_trace_writer *osp_trace_writer_open(const struct osp_trace_writer_opts *o, char *err,
                                               size_t errlen)
{
	struct osp_trace_writer *w = calloc(1, sizeof(*w));
	if (!w) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	w->o = *o;
	w->fd = -1;
	w->dir = strdup(o->dir);
	w->archive = o->archive ? strdup(o->archive) : NULL;
	w->target = o->target ? strdup(o->target) : NULL;
	if (!w->o.block_bytes)
		w->o.block_bytes = 256 << 10;
	if (w->o.block_bytes > OSPT_MAX_BLOCK / 2)
		w->o.block_bytes = OSPT_MAX_BLOCK / 2;
	if (!w->o.flush_ns)
		w->o.flush_ns = 1000000000ull;
	if (w->o.max_disk && !w->o.rotate_bytes)
		w->o.rotate_bytes = w->o.max_disk / 4; /* so old segments can be let go */
	/* Blocks small against segments, so that size rotation and the budget
	 * work in steps finer than a block. */
	if (w->o.rotate_bytes && w->o.block_bytes > w->o.rotate_bytes / 4)
		w->o.block_bytes = w->o.rotate_bytes / 4;
	if (w->o.block_bytes < 1024)
		w->o.block_bytes = 1024;
	w->raw_cap = w->o.block_bytes + OSP_TRACE_MAX_RECORD;
	w->raw = malloc(w->raw_cap);
	w->zcap = ZSTD_compressBound(w->raw_cap);
	w->zbuf = malloc(w->zcap);
	w->cctx = ZSTD_createCCtx();
	if (!w->dir || (o->archive && !w->archive) || (o->target && !w->target) || !w->raw ||
	    !w->zbuf || !w->cctx) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	int rc = mkdir_p(w->dir);
	if (rc < 0) {
		snprintf(err, errlen, "%s: cannot create directory: %s", w->dir, strerror(-rc));
		goto fail;
	}
	if (w->archive && (rc = mkdir_p(w->archive)) < 0) {
		snprintf(err, errlen, "%s: cannot create --archive directory: %s", w->archive,
		         strerror(-rc));
		goto fail;
	}
	/* mkdir_p takes an existing name of any kind: it must be a directory
	 * the user may write (-w /etc/passwd fails here, before any event). */
	if (osp_output_check_dir(w->dir, err, errlen) < 0 ||
	    (w->archive && osp_output_check_dir(w->archive, err, errlen) < 0))
		goto fail;
	scan_existing(w);
	reset_block(w);
	return w;
fail:
	osp_trace_writer_close(w, NULL);
	return NULL;
}

static void time_checks(struct osp_trace_writer *w)
{
	uint64_t t = now(w);
	/* rotate first: a block waiting to be flushed belongs to the new period */
	if (w->fd >= 0 && w->o.rotate_ns && t - w->seg_clock >= w->o.rotate_ns)
		close_segment(w);
	if (w->nev && t - w->block_clock >= w->o.flush_ns)
		flush_block(w);
}

int osp_trace_writer_add(struct osp_trace_writer *w, const struct osp_trace_event *ev)
{
	if (!w->nev) {
		w->first_ts = ev->ts_ns;
		w->block_clock = now(w);
	}
	w->raw_len += osp_trace_encode(&w->codec, ev, w->raw + w->raw_len);
	w->nev++;
	int rc = 0;
	if (w->raw_len >= w->o.block_bytes)
		rc = flush_block(w);
	if ((++w->adds & 255) == 0)
		time_checks(w);
	return rc;
}

void osp_trace_writer_drop(struct osp_trace_writer *w, uint64_t n)
{
	w->st.dropped += n;
	w->pending_drops += n;
}

int osp_trace_writer_tick(struct osp_trace_writer *w)
{
	time_checks(w);
	return w->first_err;
}

int osp_trace_writer_rotate(struct osp_trace_writer *w)
{
	int rc = flush_block(w);
	close_segment(w);
	return rc;
}

void osp_trace_writer_get_stats(const struct osp_trace_writer *w, struct osp_trace_writer_stats *st)
{
	*st = w->st;
}

void osp_trace_writer_set_attach(struct osp_trace_writer *w, const char *modes)
{
	snprintf(w->attach, sizeof(w->attach), "%s", modes ? modes : "");
}

int osp_trace_writer_close(struct osp_trace_writer *w, struct osp_trace_writer_stats *st)
{
	if (!w)
		return 0;
	if (w->raw) {
		flush_block(w);
		if (w->fd < 0 && w->pending_drops && w->st.segments) {
			/* drops after the last segment closed still deserve a record */
			if (open_segment(w) < 0)
				w->fd = -1;
		}
		close_segment(w);
	}
	if (st)
		*st = w->st;
	int rc = w->first_err;
	for (size_t i = 0; i < w->nclosed; i++)
		free(w->closed[i].path);
	free(w->closed);
	free(w->seg_path);
	ZSTD_freeCCtx(w->cctx);
	free(w->zbuf);
	free(w->raw);
	free(w->dir);
	free(w->archive);
	free(w->target);
	free(w);
	return rc;
}
