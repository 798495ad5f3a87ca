/* block layer: per device and request type, queue time (block_rq_insert ->
 * block_rq_issue), device time (block_rq_issue -> block_rq_complete) and
 * request size at issue. Devices are named through /sys/dev/block. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "collect/bpf_common.h"
#include "collect/bpf/kl_types.h"
#include "collect/kl_util.h"
#include "block.skel.h"

struct block_state {
	struct block_bpf *skel;
	struct osp_bpf_stats stats;
	enum osp_attach_mode mode; /* tp_btf, or raw_tp where tp_btf fails */
	int acquired;
};

static const char *const type_names[KL_BLK_NTYPES] = {"read", "write", "flush", "discard", "other"};
static const char *const op_names[] = {"queue", "device", "size"};

/* dev_t as the kernel encodes it (major << 20 | minor) -> "vda", else
 * "MAJ:MIN" when sysfs does not know it (the device went away). */
static void dev_name(__u64 dev, char *buf, size_t len)
{
	unsigned maj = (unsigned)(dev >> 20), min = (unsigned)(dev & 0xfffff);
	char path[64], line[256];
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent", maj, min);
	snprintf(buf, len, "%u_%u", maj, min);
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "DEVNAME=", 8)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(buf, len, "%s", line + 8);
			break;
		}
	fclose(f);
}

static void block_destroy(struct osp_session *s, int slot)
{
	struct block_state *st = s->layer_state[slot];
	if (!st)
		return;
	block_bpf__destroy(st->skel);
	if (st->acquired)
		osp_bpf_common_release(s);
	free(st);
	s->layer_state[slot] = NULL;
}

static int block_prepare_(struct osp_session *s, int slot)
{
	int rc = osp_bpf_check("block");
	if (rc)
		return rc;
	if (s->by && strcmp(s->by, "dev") && s->verbose)
		fprintf(
		    stderr,
		    "osprof: block: --by %s does not apply (split by dev and type); not split\n",
		    s->by);
	struct block_state *st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	s->layer_state[slot] = st;
	if ((rc = osp_bpf_common_acquire(s)))
		return rc;
	st->acquired = 1;
	if (!(st->skel = block_bpf__open())) {
		rc = -errno;
		fprintf(stderr, "osprof: block: cannot open the BPF object: %s\n", strerror(errno));
		return rc;
	}
	if ((rc = OSP_BPF_SETUP(st->skel, s)))
		return rc;
	st->mode = osp_bpf_tp_mode();
	osp_bpf_pick(st->skel->progs.blk_insert_btf, st->skel->progs.blk_insert_raw, st->mode);
	osp_bpf_pick(st->skel->progs.blk_issue_btf, st->skel->progs.blk_issue_raw, st->mode);
	osp_bpf_pick(st->skel->progs.blk_complete_btf, st->skel->progs.blk_complete_raw, st->mode);
	osp_bpf_pick(st->skel->progs.blk_requeue_btf, st->skel->progs.blk_requeue_raw, st->mode);
	if ((rc = block_bpf__load(st->skel))) {
		fprintf(stderr, "osprof: block: cannot load the BPF object (%s block_rq_*): %s\n",
		        osp_attach_mode_name(st->mode), strerror(-rc));
		return rc;
	}
	return 0;
}

/* A layer whose prepare fails is not destroyed by its caller: clean up here. */
static int block_prepare(struct osp_session *s, int slot)
{
	int rc = block_prepare_(s, slot);
	if (rc)
		block_destroy(s, slot);
	return rc;
}

static int block_attach(struct osp_session *s, int slot)
{
	struct block_state *st = s->layer_state[slot];
	int rc = osp_bpf_common_start(s);
	if (rc)
		return rc;
	if ((rc = block_bpf__attach(st->skel))) {
		fprintf(stderr, "osprof: block: cannot attach to block_rq_* (%s): %s\n",
		        osp_attach_mode_name(st->mode), strerror(-rc));
		return rc;
	}
	static const char *const tps[] = {"block_rq_insert", "block_rq_issue", "block_rq_complete",
	                                  "block_rq_requeue"};
	for (size_t i = 0; i < sizeof(tps) / sizeof(tps[0]); i++)
		osp_bpf_note_attach(s, "block", tps[i], st->mode);
	return 0;
}

static int desc(void *ctx, const struct osp_hkey *k, struct osp_bpf_desc *d)
{
	(void)ctx;
	if (k->op > KL_BLK_SIZE || k->aux >= KL_BLK_NTYPES)
		return 1;
	d->op = op_names[k->op];
	dev_name(k->dim[0], d->buf, sizeof(d->buf));
	d->dims[d->ndims++] = (struct osp_dim){"dev", d->buf};
	d->dims[d->ndims++] = (struct osp_dim){"type", (char *)type_names[k->aux]};
	if (k->op == KL_BLK_SIZE)
		d->unit = OSP_UNIT_BYTES;
	return 0;
}

static int block_collect(struct osp_session *s, int slot, int reset)
{
	struct block_state *st = s->layer_state[slot];
	int rc =
	    osp_bpf_read_hists(s, bpf_map__fd(st->skel->maps.blk_hist), "block", desc, NULL, reset);
	if (!rc)
		rc = osp_bpf_read_stats(s, st->skel->obj, &st->stats);
	if (rc)
		fprintf(stderr, "osprof: block: cannot read the histograms: %s\n", strerror(-rc));
	return rc;
}

static int block_list(FILE *out, int verbose)
{
	fprintf(out, "block    queue, device time and size of requests per dev and type via %s\n",
	        kl_tp_mode_name());
	if (verbose)
		fprintf(out,
		        "  queue   block_rq_insert -> block_rq_issue (or allocation -> issue)\n"
		        "  device  block_rq_issue -> block_rq_complete\n"
		        "  size    bytes at block_rq_issue; types read, write, flush, discard, "
		        "other\n");
	return 0;
}

const struct osp_layer osp_layer_block = {
    .name = "block",
    .by = "dev",
    .summary = "block requests: queue and device time, request size, per device and type",
    .needs_root = 1,
    .list = block_list,
    .prepare = block_prepare,
    .attach = block_attach,
    .collect = block_collect,
    .destroy = block_destroy,
};
