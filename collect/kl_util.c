/* Helpers of the kernel layers (see kl_util.h). */
#include <unistd.h>
#include <bpf/libbpf.h>
#include "collect/bpf_common.h"
#include "collect/kl_util.h"

const char *kl_tp_mode_name(void)
{
	if (geteuid() != 0 || access("/sys/kernel/btf/vmlinux", R_OK) != 0)
		return "tp_btf (raw_tp fallback)";
	/* the probe's failed load is expected on old kernels: keep libbpf quiet */
	libbpf_print_fn_t old = libbpf_set_print(NULL);
	const char *m = osp_attach_mode_name(osp_bpf_tp_mode());
	libbpf_set_print(old);
	return m;
}
