/* The operation table of trace records. */
#include <string.h>
#include <osprof/trace.h>

static const struct {
	const char *name;
	enum osp_trace_layer layer;
} ops[] = {
#define OSP_TRACE_OP_ROW(id, name, layer) {name, OSP_TL_##layer},
    OSP_TRACE_OPS(OSP_TRACE_OP_ROW)
#undef OSP_TRACE_OP_ROW
};

const char *osp_trace_op_name(unsigned op)
{
	return op < OSP_TOP_NR ? ops[op].name : NULL;
}

int osp_trace_op_parse(const char *name)
{
	for (unsigned i = 1; i < OSP_TOP_NR; i++)
		if (!strcmp(ops[i].name, name))
			return (int)i;
	return -1;
}

enum osp_trace_layer osp_trace_op_layer(unsigned op)
{
	return op < OSP_TOP_NR ? ops[op].layer : OSP_TL_SYSCALL;
}

const char *osp_trace_layer_name(enum osp_trace_layer l)
{
	static const char *const names[] = {"syscall", "fs", "block"};
	return (unsigned)l < OSP_TL_NR ? names[l] : "unknown";
}

int osp_trace_op_is_io(unsigned op)
{
	switch (op) {
	case OSP_TOP_READ:
	case OSP_TOP_WRITE:
	case OSP_TOP_PREAD64:
	case OSP_TOP_PWRITE64:
	case OSP_TOP_READV:
	case OSP_TOP_WRITEV:
	case OSP_TOP_PREADV:
	case OSP_TOP_PWRITEV:
	case OSP_TOP_PREADV2:
	case OSP_TOP_PWRITEV2:
	case OSP_TOP_FS_DA_WRITE:
	case OSP_TOP_FS_PAGECACHE_ADD:
	case OSP_TOP_BLK_READ:
	case OSP_TOP_BLK_WRITE:
	case OSP_TOP_BLK_OTHER:
		return 1;
	default:
		return 0;
	}
}
