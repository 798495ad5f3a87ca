// SPDX-License-Identifier: GPL-2.0
/* Empty programs on sys_enter/sys_exit: the floor of the method. Used by the
 * probe-cost calibration (collect/bpf_common.c) and by
 * bench/syscall_overhead.sh (through build/bench/osp_floor). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tp_btf/sys_enter")
int BPF_PROG(osp_floor_enter_btf)
{
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(osp_floor_exit_btf)
{
	return 0;
}

SEC("raw_tp/sys_enter")
int BPF_PROG(osp_floor_enter_raw)
{
	return 0;
}

SEC("raw_tp/sys_exit")
int BPF_PROG(osp_floor_exit_raw)
{
	return 0;
}
