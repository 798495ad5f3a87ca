// SPDX-License-Identifier: GPL-2.0
/* Empty programs on sys_enter/sys_exit: the floor of the method. Used by the
 * probe-cost calibration (collect/bpf_common.c) and by
 * bench/syscall_overhead.sh (through build/bench/osp_floor). */
#include "vmlinux.h"
#include "osp_twins.bpf.h"

char LICENSE[] SEC("license") = "GPL";

OSP_TP_TWINS(sys_enter, osp_floor_enter)
{
	return 0;
}

OSP_TP_TWINS(sys_exit, osp_floor_exit)
{
	return 0;
}
