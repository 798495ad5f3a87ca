/* Finding the real libc functions behind our interposers. dlsym may itself
 * allocate or open files; if that re-enters an interposer of this thread
 * before the symbol is known, the call fails with ENOSYS instead of
 * recursing forever (open, openat, read, write and close make the system call
 * directly instead). It happens, if ever, before main. */
#include <dlfcn.h>
#include "preload/preload.h"

void *osp_real_fns[OSP_NOPS];
static __thread int resolving __attribute__((tls_model("initial-exec")));

void *osp_resolve_name(const char *name)
{
	if (resolving)
		return NULL;
	resolving = 1;
	void *p = dlsym(RTLD_NEXT, name);
	resolving = 0;
	return p;
}

void *osp_resolve(unsigned op)
{
	void *p = osp_resolve_name(osp_op_names[op]);
	if (p)
		__atomic_store_n(&osp_real_fns[op], p, __ATOMIC_RELAXED);
	return p;
}
