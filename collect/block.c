/* block layer: per device and request type, queue time (block_rq_insert ->
 * block_rq_issue), device time (block_rq_issue -> block_rq_complete) and
 * request size at issue. Devices are named through /sys/dev/block. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "collect/bpf_layer.h"
#include "collect/bpf/kl_types.h"
#include "collect/kl_util.h"
#include "block.skel.h"

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

OSP_BPF_SKEL_OPENER(block)

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

OSP_BPF_LAYER(
    block, "dev", "block requests: queue and device time, request size, per device and type",
    .tps = "block_rq_insert,block_rq_issue,block_rq_complete,block_rq_requeue", .hist = "blk_hist",
    .no_by = "split by dev and type", .by_own = "dev", .desc = desc,
    .list_line = "block    queue, device time and size of requests per dev and type via %s",
    .list_more = "  queue   block_rq_insert -> block_rq_issue (or allocation -> issue)\n"
                 "  device  block_rq_issue -> block_rq_complete\n"
                 "  size    bytes at block_rq_issue; types read, write, flush, discard, other\n");
