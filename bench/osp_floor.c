/* The floor of the method for bench/syscall_overhead.sh: attaches empty
 * programs to sys_enter and sys_exit, prints "ready", and holds them until
 * stdin closes. Usage: osp_floor [raw_tp] */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "osp_floor.skel.h"

int main(int argc, char **argv)
{
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
	printf("ready\n");
	fflush(stdout);
	char c;
	while (read(0, &c, 1) > 0)
		;
	osp_floor_bpf__destroy(f);
	return 0;
}
