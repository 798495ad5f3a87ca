/* Per-thread state of the rootcause objects (rootcause.bpf.c, rc_kernel.bpf.c):
 * a hash `threads` keyed by tid, new entries copied from a one-slot array
 * `zero` (the state is too large for the BPF stack). */
#ifndef OSPROF_RC_BPF_RC_THREAD_BPF_H
#define OSPROF_RC_BPF_RC_THREAD_BPF_H

/* The state of the current thread, NULL when it is not in process tgid (0:
 * any process) or has none and create is 0. *tidp (if given) gets the tid. */
static __always_inline void *rc_thread(void *threads, void *zero, __u32 tgid, __u32 *tidp,
                                       int create)
{
	__u64 id = bpf_get_current_pid_tgid();
	if (tgid && (id >> 32) != tgid)
		return NULL;
	__u32 tid = (__u32)id, k = 0;
	if (tidp)
		*tidp = tid;
	void *t = bpf_map_lookup_elem(threads, &tid);
	if (t || !create)
		return t;
	void *z = bpf_map_lookup_elem(zero, &k);
	if (!z)
		return NULL;
	bpf_map_update_elem(threads, &tid, z, BPF_NOEXIST);
	return bpf_map_lookup_elem(threads, &tid);
}

#endif
