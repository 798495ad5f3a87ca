#include "rootcause/rootcause.h"
#include <stdio.h>
int rc_kernel_run(struct rc_opts *o)
{
	(void)o;
	fprintf(stderr, "osprof rootcause: --syscall not built yet\n");
	return 1;
}
