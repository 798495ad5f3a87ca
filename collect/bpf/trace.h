/* Types shared by trace.bpf.c and collect/trace_capture.c. */
#ifndef OSPROF_COLLECT_BPF_TRACE_H
#define OSPROF_COLLECT_BPF_TRACE_H

/* One event in the ring buffer (converted to struct osp_trace_event). */
struct osp_trace_rec {
	__u64 ts, lat;
	__u32 pid, tid;
	__u32 dev;
	__u16 op;
	__u16 pad;
	__u64 ino, off, size;
	__s64 ret;
	__u64 arg;
	char comm[16];
};

/* System-call records are gathered per CPU and put into the ring buffer
 * OSP_TRACE_BATCH at a time: the ring's lock and commit cost more than
 * filling a record. busy is set while sys_exit appends, so that the flush
 * program (run on that CPU by user space, possibly from an interrupt that
 * stopped an append midway) leaves the batch alone. */
#define OSP_TRACE_BATCH 32
struct osp_trace_batch {
	__u32 n;    /* complete records in rec */
	__u32 busy; /* an append is in progress on this CPU */
	struct osp_trace_rec rec[OSP_TRACE_BATCH];
};

/* trace_sc[syscall nr]: how to record that system call (op 0: not traced).
 * Argument indices are 0-5; OSP_SC_NONE when the field does not apply. */
#define OSP_SC_NONE    7
#define OSP_SC_POS     1u /* offset = the file's position at entry */
#define OSP_SC_RETFD   2u /* the return value is an fd: file looked up at exit */
#define OSP_SC_ANONCHK 4u /* mmap: skip MAP_ANONYMOUS (arg 3) and fd < 0 */
#define OSP_SC_HOWPTR  8u /* openat2: flags are the first u64 of *arg */
struct osp_trace_sc {
	__u16 op;
	__u8 fd_arg, size_arg, off_arg, arg_arg, flags, pad;
};

#define OSP_TRACE_NR_SYSCALLS 512

/* --layers bits */
#define OSP_TRACE_L_FS    1u
#define OSP_TRACE_L_BLOCK 2u

#endif
