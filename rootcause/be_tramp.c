/* placeholder replaced below */
#include "rootcause/backend.h"
#include <stdio.h>
struct rc_backend *rc_tramp_new(void)
{
	fprintf(stderr, "osprof rootcause: trampoline backend not built\n");
	return NULL;
}
int rc_tramp_env(struct rc_backend *b, char ***envp)
{
	(void)b;
	(void)envp;
	return -1;
}
void rc_tramp_set_pid(struct rc_backend *b, pid_t pid)
{
	(void)b;
	(void)pid;
}
