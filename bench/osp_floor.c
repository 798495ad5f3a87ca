/* Floors of the method for bench/syscall_overhead.sh: attaches programs to
 * sys_enter and sys_exit, prints "ready", and holds them until stdin closes.
 *   osp_floor           empty tp_btf programs (the cost of being called)
 *   osp_floor raw_tp    the same as raw tracepoints
 *   osp_floor timed     thread id + clock read at both ends, start kept per
 *                       thread: the least a latency measurement does */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "osp_floor.skel.h"
#include "osp_timed.skel.h"

static void hold(void)
{
	printf("ready\n");
	fflush(stdout);
	char c;
	while (read(0, &c, 1) > 0)
		;
}

static int timed(void)
{
	struct osp_timed_bpf *t = osp_timed_bpf__open();
	if (!t) {
		fprintf(stderr, "osp_floor: cannot open BPF object\n");
		return 1;
	}
	unsigned slots = 1;
	FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
	unsigned long pid_max = 32768;
	if (f) {
		if (fscanf(f, "%lu", &pid_max) != 1)
			pid_max = 32768;
		fclose(f);
	}
	while (slots < pid_max && slots < (1u << 22))
		slots <<= 1;
	t->rodata->slot_mask = slots - 1;
	bpf_map__set_max_entries(t->maps.starts, slots);
	if (osp_timed_bpf__load(t) || osp_timed_bpf__attach(t)) {
		fprintf(stderr, "osp_floor: cannot load/attach (needs root)\n");
		osp_timed_bpf__destroy(t);
		return 1;
	}
	hold();
	osp_timed_bpf__destroy(t);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "timed"))
		return timed();
	int raw = argc > 1 && !strcmp(argv[1], "raw_tp");
	struct osp_floor_bpf *f = osp_floor_bpf__open();
	if (!f) {
		fprintf(stderr, "osp_floor: cannot open BPF object\n");
		return 1;
	}
	bpf_program__set_autoload(f->progs.osp_floor_enter_btf, !raw);
	bpf_program__set_autoload(f->progs.osp_floor_exit_btf, !raw);
	bpf_program__set_autoload(f->progs.osp_floor_enter_raw, raw);
	bpf_program__set_autoload(f->progs.osp_floor_exit_raw, raw);
	if (osp_floor_bpf__load(f) || osp_floor_bpf__attach(f)) {
		fprintf(stderr, "osp_floor: cannot load/attach (needs root)\n");
		osp_floor_bpf__destroy(f);
		return 1;
	}
	hold();
	osp_floor_bpf__destroy(f);
	return 0;
}
