/* osprof rootcause --syscall: kernel-side attribution of one peak of a system
 * call's latency (rootcause/bpf/rc_kernel.bpf.c). This kernel refuses fentry
 * and has no kprobes, so DARC's descent through kernel functions cannot run
 * here; instead every in-peak call's time is split into off-CPU intervals
 * (blocking stack + the waker's stack), preemption, IRQs and on-CPU samples,
 * and the paths that dominate the in-peak calls are reported with shares. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <osprof/clock.h>
#include <osprof/osprof.h>
#include <osprof/render.h>
#include <osprof/sort.h>
#include <osprof/status.h>
#include "collect/bpf_common.h"
#include "collect/ksyms.h"
#include "collect/session.h"
#include "rootcause/bpf/rc_kernel.h"
#include "rc_kernel.skel.h"
#include "rootcause/output.h"
#include "rootcause/peaks.h"
#include "rootcause/driver.h"

static const struct {
	const char *name;
	int nr;
} syscalls[] = {
#include "rc_syscalls.h"
};

static struct ksyms *ksyms;

static const char *ksym(uint64_t a)
{
	const char *n = ksyms ? ksyms_find(ksyms, a) : NULL;
	return n ? n : "?";
}

/* One root-cause path: an (activity, stack, waker stack, IRQ) class. */
struct kpath {
	uint32_t kind, n;
	int stack, wstack;
	char waker[16];
	uint64_t ns, votes, calls;
};

struct kstate {
	struct kpath *p;
	size_t np;
	uint64_t calls, lat_sum, unaccounted, unacc_votes, dropped;
	unsigned want;
};

static struct kpath *kpath_get(struct kstate *k, const struct rck_entry *e)
{
	for (size_t i = 0; i < k->np; i++) {
		struct kpath *p = &k->p[i];
		if (p->kind == e->kind && p->stack == e->stack && p->wstack == e->waker_stack &&
		    p->n == e->n)
			return p;
	}
	struct kpath *v = realloc(k->p, (k->np + 1) * sizeof(*v));
	if (!v)
		return NULL;
	k->p = v;
	struct kpath *p = &k->p[k->np++];
	*p =
	    (struct kpath){.kind = e->kind, .n = e->n, .stack = e->stack, .wstack = e->waker_stack};
	memcpy(p->waker, e->waker, sizeof(p->waker));
	p->waker[15] = 0;
	return p;
}

static int on_call(void *ctx, void *data, size_t len)
{
	struct kstate *k = ctx;
	const struct rck_call *c = data;
	if (len < sizeof(*c) || k->calls >= k->want)
		return 0;
	k->calls++;
	k->lat_sum += c->lat;
	k->dropped += c->dropped;
	uint64_t sum = 0, best = 0;
	ptrdiff_t bp = -1; /* an index: kpath_get may move k->p */
	for (unsigned i = 0; i < c->n && i < RCK_ENTRIES; i++) {
		struct kpath *p = kpath_get(k, &c->e[i]);
		if (!p)
			continue;
		p->ns += c->e[i].ns;
		p->calls++;
		sum += c->e[i].ns;
		if (c->e[i].ns > best) {
			best = c->e[i].ns;
			bp = p - k->p;
		}
	}
	uint64_t rest = c->lat > sum ? c->lat - sum : 0;
	k->unaccounted += rest;
	/* maxcount voting as in user space: the class holding most of this call */
	if (rest > best)
		k->unacc_votes++;
	else if (bp >= 0)
		k->p[bp].votes++;
	return 0;
}

static const char *kind_name(uint32_t kind)
{
	static const char *const n[] = {"off-CPU", "preemption", "on-CPU", "IRQ", "softirq"};
	return kind <= RCK_SOFTIRQ ? n[kind] : "?";
}

static int stack_ips(int fd, int id, uint64_t *ips)
{
	memset(ips, 0, 127 * sizeof(*ips));
	if (id < 0 || bpf_map_lookup_elem(fd, &id, ips))
		return 0;
	int n = 0, skip = 0;
	while (n < 127 && ips[n])
		n++;
	/* The innermost frames are the tracing glue (bpf_trace_run*, the
	 * program itself): not part of the path. */
	while (skip < n && (!strncmp(ksym(ips[skip]), "bpf_", 4) ||
	                    !strncmp(ksym(ips[skip]), "__bpf_trace_", 12) ||
	                    !strncmp(ksym(ips[skip]), "__traceiter_", 12)))
		skip++;
	memmove(ips, ips + skip, (size_t)(n - skip) * sizeof(*ips));
	return n - skip;
}

/* Arrow chain, outermost frame first (stack maps store innermost first). */
static void print_chain(FILE *out, int fd, int id, const char *sep)
{
	uint64_t ips[127];
	int n = stack_ips(fd, id, ips);
	if (!n) {
		fputs("(no stack)", out);
		return;
	}
	for (int i = n - 1; i >= 0; i--)
		fprintf(out, "%s%s", ksym(ips[i]), i ? sep : "");
}

static void json_stack(FILE *out, int fd, int id)
{
	uint64_t ips[127];
	int n = stack_ips(fd, id, ips);
	fputc('[', out);
	for (int i = n - 1; i >= 0; i--) {
		fputc('"', out);
		osp_json_string(out, ksym(ips[i]));
		fprintf(out, "\"%s", i ? "," : "");
	}
	fputc(']', out);
}

/* Who woke the thread: the task, or the interrupt the wake-up came from. */
static void waker_text(const struct kpath *p, char *buf, size_t len)
{
	static const char *const soft[] = {"HI",       "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
	                                   "IRQ_POLL", "TASKLET", "SCHED",  "HRTIMER", "RCU"};
	unsigned num = p->n & RCK_WAKER_NUM;
	if (p->n & RCK_WAKER_HARDIRQ) {
		if (num >= 256)
			snprintf(buf, len, "IRQ vector 0x%x (%s)", num - 256, p->waker);
		else
			snprintf(buf, len, "IRQ %u (%s)", num, p->waker[0] ? p->waker : "?");
	} else if (p->n & RCK_WAKER_SOFTIRQ) {
		snprintf(buf, len, "softirq %s", num < 10 ? soft[num] : "?");
	} else {
		snprintf(buf, len, "%s", p->waker[0] ? p->waker : "?");
	}
}

/* The path as printed (kind, frames, waker, waker frames): two stack ids
 * of the same functions (another return address inside them) are one path. */
static void path_key(int fd, const struct kpath *p, char *buf, size_t len)
{
	uint64_t ips[127];
	size_t at = 0;
	char w[64] = "";
	if (p->kind == RCK_OFFCPU)
		waker_text(p, w, sizeof(w));
	at += (size_t)snprintf(buf, len, "%u/%u/%s", p->kind, p->kind == RCK_OFFCPU ? 0 : p->n, w);
	for (int pass = 0; pass < 2; pass++) {
		int n = stack_ips(fd, pass ? p->wstack : p->stack, ips);
		for (int i = 0; i < n && at < len; i++)
			at += (size_t)snprintf(buf + at, len - at, ";%s", ksym(ips[i]));
		if (at < len)
			at += (size_t)snprintf(buf + at, len - at, "|");
	}
}

/* Merges paths that print the same, before they are ranked. */
static void merge_paths(struct kstate *k, int fd)
{
	size_t keylen = 8192;
	char *a = malloc(keylen), *b = malloc(keylen);
	if (!a || !b) {
		free(a);
		free(b);
		return;
	}
	for (size_t i = 0; i < k->np; i++) {
		path_key(fd, &k->p[i], a, keylen);
		for (size_t j = i + 1; j < k->np;) {
			path_key(fd, &k->p[j], b, keylen);
			if (strcmp(a, b)) {
				j++;
				continue;
			}
			k->p[i].ns += k->p[j].ns;
			k->p[i].votes += k->p[j].votes;
			k->p[i].calls += k->p[j].calls;
			if (k->p[i].calls > k->calls)
				k->p[i].calls = k->calls; /* both ids in one call */
			k->p[j] = k->p[--k->np];
		}
	}
	free(a);
	free(b);
}

static int cmp_path(const void *a, const void *b)
{
	const struct kpath *x = a, *y = b;
	return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : 0;
}

static void status_of(const struct kpath *p, char *buf, size_t len)
{
	switch (p->kind) {
	case RCK_OFFCPU:
		snprintf(buf, len, "root cause: blocked");
		break;
	case RCK_PREEMPT:
		snprintf(buf, len, "preemption");
		break;
	case RCK_ONCPU:
		snprintf(buf, len, "root cause: on-CPU");
		break;
	case RCK_IRQ:
		snprintf(buf, len, "IRQ %u", p->n);
		break;
	default:
		snprintf(buf, len, "softirq %u", p->n);
	}
}

static void report(FILE *out, struct kstate *k, int fd, const struct rc_opts *o,
                   const struct rc_info *in, const char *sys)
{
	merge_paths(k, fd);
	osp_sort(k->p, k->np, sizeof(*k->p), cmp_path);
	double tot = k->lat_sum ? (double)k->lat_sum : 1;
	if (o->folded) {
		for (size_t i = 0; i < k->np; i++) {
			struct kpath *p = &k->p[i];
			uint64_t ips[127];
			int n = stack_ips(fd, p->stack, ips);
			fputs(sys, out);
			for (int j = n - 1; j >= 0; j--)
				fprintf(out, ";%s", ksym(ips[j]));
			char st[64];
			status_of(p, st, sizeof(st));
			for (char *c = st; *c; c++)
				if (*c == ' ')
					*c = '_';
			fprintf(out, ";[%s] %" PRIu64 "\n", st, p->ns);
		}
		if (k->unaccounted)
			fprintf(out, "%s;[on-CPU_unsampled] %" PRIu64 "\n", sys, k->unaccounted);
		return;
	}
	if (o->json) {
		fputs("{\"version\":1,\"f0\":\"", out);
		osp_json_string(out, in->f0);
		fprintf(out, "\",\"backend\":\"kernel\",\"finished\":%s",
		        k->calls >= k->want ? "true" : "false");
		fprintf(
		    out,
		    ",\"peak\":{\"number\":%d,\"bucket_lo\":%d,\"bucket_hi\":%d,\"lo_ns\":%" PRIu64
		    ",\"hi_ns\":%" PRIu64 "}",
		    in->peak, in->blo, in->bhi, (uint64_t)1 << in->blo,
		    (uint64_t)(2ull << in->bhi) - 1);
		fprintf(out,
		        ",\"in_peak_calls\":%" PRIu64
		        ",\"histogram\":{\"unit\":\"log2_ns\",\"buckets\":[",
		        k->calls);
		for (int i = 0; i < RC_HBUCKETS; i++)
			fprintf(out, "%s%" PRIu64, i ? "," : "", in->hist[i]);
		fputs("]},\"tree\":null,\"kernel_paths\":[", out);
		for (size_t i = 0; i < k->np; i++) {
			struct kpath *p = &k->p[i];
			char st[64];
			status_of(p, st, sizeof(st));
			fprintf(out,
			        "%s{\"kind\":\"%s\",\"status\":\"%s\",\"irq\":%u,\"ns\":%" PRIu64
			        ",\"share\":%.4f,\"votes\":%" PRIu64 ",\"calls\":%" PRIu64
			        ",\"stack\":",
			        i ? "," : "", kind_name(p->kind), st, p->n & RCK_WAKER_NUM, p->ns,
			        (double)p->ns / tot, p->votes, p->calls);
			json_stack(out, fd, p->stack);
			char w[64] = "";
			if (p->kind == RCK_OFFCPU)
				waker_text(p, w, sizeof(w));
			fputs(",\"waker\":\"", out);
			osp_json_string(out, w);
			fprintf(out, "\",\"waker_context\":\"%s\"",
			        p->kind != RCK_OFFCPU      ? ""
			        : p->n & RCK_WAKER_HARDIRQ ? "irq"
			        : p->n & RCK_WAKER_SOFTIRQ ? "softirq"
			                                   : "task");
			fputs(",\"waker_stack\":", out);
			json_stack(out, fd, p->wstack);
			fputc('}', out);
		}
		fprintf(out,
		        "],\"unaccounted_ns\":%" PRIu64 ",\"unaccounted_votes\":%" PRIu64 "}\n",
		        k->unaccounted, k->unacc_votes);
		return;
	}
	char lo[32], hi[32];
	osp_format_ns(1ull << in->blo, lo, sizeof(lo));
	osp_format_ns((2ull << in->bhi) - 1, hi, sizeof(hi));
	fprintf(out, "\nkernel root-cause paths of peak %d of %s (buckets %d-%d: %s .. %s)\n",
	        in->peak, in->f0, in->blo, in->bhi, lo, hi);
	fprintf(out,
	        "in-peak calls: %" PRIu64 "; share = part of their total latency, maxcount = calls "
	        "in which the path held most of the time\n",
	        k->calls);
	for (size_t i = 0; i < k->np; i++) {
		struct kpath *p = &k->p[i];
		if (p->ns * 100 < k->lat_sum && i >= 3)
			continue; /* under 1%: noise */
		char st[64];
		status_of(p, st, sizeof(st));
		fprintf(out, "%s  share %.1f%%, maxcount %" PRIu64 "/%" PRIu64 "  [%s]\n", sys,
		        100.0 * (double)p->ns / tot, p->votes, k->calls, st);
		if (p->kind == RCK_OFFCPU || p->kind == RCK_PREEMPT || p->kind == RCK_ONCPU) {
			fputs("   -> ", out);
			print_chain(out, fd, p->stack, " -> ");
			fputc('\n', out);
		}
		if (p->kind == RCK_OFFCPU && p->wstack >= 0) {
			char w[64];
			waker_text(p, w, sizeof(w));
			fprintf(out, "      woken by %s: ", w);
			print_chain(out, fd, p->wstack, " -> ");
			fputc('\n', out);
		}
	}
	if (k->unaccounted)
		fprintf(out,
		        "%s  share %.1f%%, maxcount %" PRIu64 "/%" PRIu64
		        "  [on-CPU between samples]\n",
		        sys, 100.0 * (double)k->unaccounted / tot, k->unacc_votes, k->calls);
	if (k->dropped)
		fprintf(out, "(%" PRIu64 " activity records did not fit the per-call buffer)\n",
		        k->dropped);
}

static int open_sampling(struct rc_kernel_bpf *skel, struct bpf_link ***links, int *nl)
{
	int ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0)
		return -EINVAL;
	*links = calloc((size_t)ncpu, sizeof(**links));
	if (!*links)
		return -ENOMEM;
	for (int cpu = 0; cpu < ncpu; cpu++) {
		struct perf_event_attr a = {.type = PERF_TYPE_SOFTWARE,
		                            .config = PERF_COUNT_SW_CPU_CLOCK,
		                            .size = sizeof(a),
		                            .sample_period = skel->rodata->sample_ns};
		int fd = (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			continue; /* offline CPU */
		(*links)[*nl] = bpf_program__attach_perf_event(skel->progs.rck_sample, fd);
		if (!(*links)[*nl]) {
			close(fd);
			continue;
		}
		(*nl)++;
	}
	return *nl ? 0 : -ENODEV;
}

/* One --syscall run: the BPF object, its ring buffer and what it found. */
struct krun {
	struct rc_opts *o;
	int nr, common;
	struct rc_target t;
	struct osp_session sess;
	struct rc_kernel_bpf *skel;
	struct bpf_link **links;
	int nl;
	struct ring_buffer *rb;
	struct kstate k;
	uint64_t hist[RC_HBUCKETS];
};

/* Loads and attaches the programs; the target filter is the one of `osprof
 * run` / `record -p`: CMD (or PID) and the processes it starts, followed in
 * the kernel (collect/bpf_common.c). */
static int kernel_start(struct krun *r)
{
	struct rc_opts *o = r->o;
	if (r->t.is_child)
		r->sess.root_pid = o->pid;
	else
		r->sess.pids = &o->pid, r->sess.npids = 1;
	if (osp_bpf_common_acquire(&r->sess))
		return -1;
	r->common = 1;
	if (!(r->skel = rc_kernel_bpf__open()))
		return -1;
	r->skel->rodata->targ_nr = r->nr;
	int err = OSP_BPF_SETUP(r->skel, &r->sess);
	if (!err)
		err = rc_kernel_bpf__load(r->skel);
	if (!err)
		err = rc_kernel_bpf__attach(r->skel);
	if (!err)
		err = osp_bpf_common_start(&r->sess);
	if (err) {
		osp_err("rootcause: loading the kernel-side BPF program failed (%s); it needs "
		        "root and BTF",
		        strerror(-err));
		return -1;
	}
	if (open_sampling(r->skel, &r->links, &r->nl))
		fprintf(stderr, "osprof rootcause: no cpu-clock sampling: on-CPU time is reported "
		                "without stacks\n");
	r->rb = ring_buffer__new(bpf_map__fd(r->skel->maps.calls), on_call, &r->k, NULL);
	if (!r->rb)
		return -1;
	if (!ksyms)
		ksyms = ksyms_load();
	return 0;
}

static int read_hist(void *ctx, uint64_t *hist)
{
	struct krun *r = ctx;
	for (int i = 0; i < RC_HBUCKETS; i++)
		hist[i] = r->skel->bss->hist[i];
	return 0;
}

/* Buffers decision_time in-peak calls, then reports their paths. */
static int attribute(struct krun *r, struct rc_info *in)
{
	struct rc_opts *o = r->o;
	FILE *info = (o->json || o->folded) ? stderr : stdout;
	if (rc_choose_peak(o, r->hist, in))
		return OSP_EXIT_USAGE;
	fprintf(info, "attributing peak %d (buckets %d-%d) to kernel paths over %u in-peak calls\n",
	        in->peak, in->blo, in->bhi, r->k.want);
	fflush(info);
	r->skel->bss->peak_lo = 1ull << in->blo;
	r->skel->bss->peak_hi = (2ull << in->bhi) - 1;
	__atomic_store_n(&r->skel->bss->searching, 1, __ATOMIC_RELEASE);
	int fd = ring_buffer__epoll_fd(r->rb);
	enum rc_target_state st = RC_RUNNING;
	while (st == RC_RUNNING && r->k.calls < r->k.want) {
		st = rc_wait(&r->t, fd, osp_now_ns() + 100000000ull);
		ring_buffer__consume(r->rb);
	}
	r->skel->bss->searching = 0;
	if (r->k.calls < r->k.want)
		osp_err("rootcause: only %" PRIu64 " of %u in-peak calls seen", r->k.calls,
		        r->k.want);
	o->lost = r->skel->bss->lost;
	report(stdout, &r->k, bpf_map__fd(r->skel->maps.stacks), o, in, o->syscall);
	fflush(stdout);
	return r->k.calls >= r->k.want ? OSP_EXIT_OK : OSP_EXIT_FAIL;
}

int rc_kernel_run(struct rc_opts *o)
{
	struct krun r = {.o = o,
	                 .nr = -1,
	                 .t = {.gate = -1},
	                 .sess = {.r = 1},
	                 .k = {.want = o->p.decision_time}};
	for (size_t i = 0; i < sizeof(syscalls) / sizeof(syscalls[0]); i++)
		if (!strcmp(syscalls[i].name, o->syscall))
			r.nr = syscalls[i].nr;
	if (r.nr < 0)
		return osp_usage_err("rootcause",
		                     "--syscall: '%s' is not a system call of this machine",
		                     o->syscall);
	if (rc_target_start(&r.t, o, NULL)) {
		osp_err("rootcause: fork: %s", strerror(errno));
		return OSP_EXIT_FAIL;
	}
	int ret = OSP_EXIT_FAIL;
	if (!kernel_start(&r)) {
		rc_target_release(&r.t);
		char f0[96];
		snprintf(f0, sizeof(f0), "syscall:%s", o->syscall);
		struct rc_info in = {.f0 = f0, .backend = "kernel", .hist = r.hist};
		int rc = rc_profile_f0(o, &r.t, read_hist, &r, r.hist);
		if (!rc || osp_signals_stop()) /* interrupted: the histogram so far */
			rc_print_hist((o->json || o->folded) ? stderr : stdout, f0, r.hist,
			              RC_HBUCKETS);
		if (!rc && !osp_signals_stop())
			ret = attribute(&r, &in);
	}
	ring_buffer__free(r.rb);
	for (int i = 0; i < r.nl; i++)
		bpf_link__destroy(r.links[i]);
	free(r.links);
	rc_kernel_bpf__destroy(r.skel);
	if (r.common)
		osp_bpf_common_release(&r.sess);
	free(r.k.p);
	rc_target_finish(&r.t);
	return ret;
}
