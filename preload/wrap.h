/* OSP_WRAP defines an interposer: find the real function, take the calling
 * thread's slot, stamp, call, stamp, record. errno is left as the real call
 * set it (recording makes no system call). */
#ifndef OSPROF_PRELOAD_WRAP_H
#define OSPROF_PRELOAD_WRAP_H

#undef _FORTIFY_SOURCE
#include <errno.h>
#include "preload/preload.h"

#define OSP_EXPORT __attribute__((visibility("default")))

#define OSP_WRAP(ret, name, params, args, errval)                                                  \
	OSP_WRAP_OR(ret, name, params, args, errno = ENOSYS; return errval)
/* nofn: what the interposer does when the real function cannot be found */
#define OSP_WRAP_OR(ret, name, params, args, nofn)                                                 \
	OSP_EXPORT ret name params                                                                 \
	{                                                                                          \
		ret(*real_) params = (ret(*) params)osp_real(OSP_OPI_##name);                      \
		if (__builtin_expect(!real_, 0)) {                                                 \
			nofn;                                                                      \
		}                                                                                  \
		char *slot_ = osp_slot();                                                          \
		if (!slot_)                                                                        \
			return real_ args;                                                         \
		uint64_t t0_ = osp_stamp();                                                        \
		ret rv_ = real_ args;                                                              \
		osp_rec_span(slot_, OSP_OPI_##name, t0_, osp_stamp());                             \
		return rv_;                                                                        \
	}

#endif
