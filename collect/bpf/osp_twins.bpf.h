/* tp_btf programs and their raw_tp twins from one body (see OSP_TP_TWINS). */
#ifndef OSPROF_COLLECT_BPF_OSP_TWINS_BPF_H
#define OSPROF_COLLECT_BPF_OSP_TWINS_BPF_H

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

/* A tp_btf program PROG_btf on tracepoint TP and its raw_tp twin PROG_raw
 * (the flavour user space loads where tp_btf cannot), both running the body
 * that follows the macro with the tracepoint's typed arguments and ctx:
 *
 *   OSP_TP_TWINS(softirq_entry, softirq_entry, unsigned int vec)
 *   {
 *           return on_softirq(ctx, vec);
 *   }
 *
 * The arguments are cast from ctx as BPF_PROG does. */
#define OSP_TP_TWINS(tp, prog, args...)                                                            \
	static __always_inline int prog##_twin(unsigned long long *ctx, ##args);                   \
	_Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wint-conversion\"")      \
	    SEC("tp_btf/" #tp) int prog##_btf(unsigned long long *ctx)                             \
	{                                                                                          \
		return prog##_twin(___bpf_ctx_cast(args));                                         \
	}                                                                                          \
	SEC("raw_tp/" #tp) int prog##_raw(unsigned long long *ctx)                                 \
	{                                                                                          \
		return prog##_twin(___bpf_ctx_cast(args));                                         \
	}                                                                                          \
	_Pragma("GCC diagnostic pop") static __always_inline int prog##_twin(                      \
	    unsigned long long *ctx, ##args)

/* OSP_TP_TWINS for a body that must know its flavour: it gets const int btf
 * last (1 in PROG_btf, 0 in PROG_raw; a constant once inlined), e.g. to
 * read through a typed pointer directly only where tp_btf allows it. */
#define OSP_TP_TWINS_BTF(tp, prog, args...)                                                        \
	static __always_inline int prog##_twin(unsigned long long *ctx, ##args, const int btf);    \
	_Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wint-conversion\"")      \
	    SEC("tp_btf/" #tp) int prog##_btf(unsigned long long *ctx)                             \
	{                                                                                          \
		return prog##_twin(___bpf_ctx_cast(args), 1);                                      \
	}                                                                                          \
	SEC("raw_tp/" #tp) int prog##_raw(unsigned long long *ctx)                                 \
	{                                                                                          \
		return prog##_twin(___bpf_ctx_cast(args), 0);                                      \
	}                                                                                          \
	_Pragma("GCC diagnostic pop") static __always_inline int prog##_twin(                      \
	    unsigned long long *ctx, ##args, const int btf)

#endif
