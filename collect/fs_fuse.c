/* FUSE request round trips for the fs layer (see fs_fuse.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "collect/bpf_common.h"
#include "collect/bpf/kl_types.h"
#include "collect/fs_fuse.h"
#include "collect/kl_util.h"
#include "fuse.skel.h"

struct fs_fuse {
	struct fuse_bpf *skel;
	enum osp_attach_mode mode;
	unsigned by;
	struct osp_bpf_stats stats;
};

/* enum fuse_opcode of linux/fuse.h */
static const char *const opnames[] = {
    [1] = "lookup",        [2] = "forget",         [3] = "getattr",
    [4] = "setattr",       [5] = "readlink",       [6] = "symlink",
    [8] = "mknod",         [9] = "mkdir",          [10] = "unlink",
    [11] = "rmdir",        [12] = "rename",        [13] = "link",
    [14] = "open",         [15] = "read",          [16] = "write",
    [17] = "statfs",       [18] = "release",       [20] = "fsync",
    [21] = "setxattr",     [22] = "getxattr",      [23] = "listxattr",
    [24] = "removexattr",  [25] = "flush",         [26] = "init",
    [27] = "opendir",      [28] = "readdir",       [29] = "releasedir",
    [30] = "fsyncdir",     [31] = "getlk",         [32] = "setlk",
    [33] = "setlkw",       [34] = "access",        [35] = "create",
    [36] = "interrupt",    [37] = "bmap",          [38] = "destroy",
    [39] = "ioctl",        [40] = "poll",          [41] = "notify_reply",
    [42] = "batch_forget", [43] = "fallocate",     [44] = "readdirplus",
    [45] = "rename2",      [46] = "lseek",         [47] = "copy_file_range",
    [48] = "setupmapping", [49] = "removemapping", [50] = "syncfs",
    [51] = "tmpfile",      [52] = "statx",
};

const char *fs_fuse_op_name(unsigned opcode, char *buf, unsigned len)
{
	if (opcode < sizeof(opnames) / sizeof(opnames[0]) && opnames[opcode])
		snprintf(buf, len, "fuse_%s", opnames[opcode]);
	else
		snprintf(buf, len, "fuse_op_%u", opcode);
	return buf;
}

int fs_fuse_present(const char *tracefs)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/events/fuse/fuse_request_send", tracefs);
	if (access(p, F_OK))
		return 0;
	snprintf(p, sizeof(p), "%s/events/fuse/fuse_request_end", tracefs);
	return access(p, F_OK) == 0;
}

int fs_fuse_prepare(struct osp_session *s, unsigned by, struct fs_fuse **out)
{
	struct fs_fuse *f = calloc(1, sizeof(*f));
	int rc;
	if (!f)
		return -ENOMEM;
	f->by = by;
	if (!(f->skel = fuse_bpf__open())) {
		rc = -errno;
		fprintf(stderr, "osprof: fs: cannot open the FUSE BPF object: %s\n",
		        strerror(errno));
		free(f);
		return rc;
	}
	if ((rc = OSP_BPF_SETUP(f->skel, s)))
		goto fail;
	((struct osp_bpf_cfg *)&f->skel->rodata->osp_cfg)->by = by;
	f->mode = osp_bpf_tp_mode();
	osp_bpf_pick(f->skel->progs.fuse_send_btf, f->skel->progs.fuse_send_raw, f->mode);
	osp_bpf_pick(f->skel->progs.fuse_end_btf, f->skel->progs.fuse_end_raw, f->mode);
	if ((rc = fuse_bpf__load(f->skel))) {
		fprintf(stderr, "osprof: fs: cannot load the FUSE BPF object (%s): %s\n",
		        osp_attach_mode_name(f->mode), strerror(-rc));
		goto fail;
	}
	*out = f;
	return 0;
fail:
	fs_fuse_free(f);
	return rc;
}

int fs_fuse_attach(struct osp_session *s, struct fs_fuse *f)
{
	int rc = fuse_bpf__attach(f->skel);
	if (rc) {
		fprintf(stderr, "osprof: fs: cannot attach to fuse_request_send/end (%s): %s\n",
		        osp_attach_mode_name(f->mode), strerror(-rc));
		return rc;
	}
	osp_bpf_note_attach(s, "fs", "fuse:fuse_request_send..fuse_request_end", f->mode);
	return 0;
}

static int desc(void *ctx, const struct osp_hkey *k, struct osp_bpf_desc *d)
{
	struct fs_fuse *f = ctx;
	d->op = fs_fuse_op_name(k->op, d->buf, 64);
	d->dims[d->ndims++] = (struct osp_dim){"fs", "fuse"};
	if (k->flags & OSP_HK_PREEMPTED)
		d->dims[d->ndims++] = (struct osp_dim){"state", "preempted"};
	kl_by_dims(f->by, k, d);
	return 0;
}

int fs_fuse_collect(struct osp_session *s, struct fs_fuse *f, int reset)
{
	int rc = osp_bpf_read_hists(s, bpf_map__fd(f->skel->maps.fuse_hist), "fs", desc, f, reset);
	if (!rc)
		rc = osp_bpf_read_stats(s, f->skel->obj, &f->stats);
	return rc;
}

void fs_fuse_free(struct fs_fuse *f)
{
	if (!f)
		return;
	fuse_bpf__destroy(f->skel);
	free(f);
}
