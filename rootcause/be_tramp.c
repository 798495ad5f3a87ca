/* DARC backend (b): in-process trampolines. osprof starts CMD with the agent
 * (rootcause/agent/) preloaded and drives it through shared memory; each
 * timed call costs two short hooks instead of two uprobe traps. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <linux/futex.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "collect/helper_path.h"
#include "rootcause/agent/darc_shm.h"
#include "rootcause/backend.h"
#include "rootcause/elfsym.h"
#include "rootcause/reloc.h"
#include "rootcause/tramp_uprobe.h"

struct tb {
	struct rc_backend base;
	struct rc_shm *shm;
	char name[64];
	char env[3][PATH_MAX + 64];
	char *envp[4];
	struct rc_tfb *fb; /* the uprobe fallback, NULL: breakpoints */
	int reported;
	int pidfd; /* the target's, or -1 */
};

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
	nanosleep(&ts, NULL);
}

/* 0 once the agent runs in the target, -EIO after printing why not. */
static int agent_ok(struct tb *t, int wait_ms)
{
	for (int i = 0; i <= wait_ms; i++) {
		uint32_t r = __atomic_load_n(&t->shm->ready, __ATOMIC_ACQUIRE);
		if (r == 1)
			return 0;
		if (r == 2) {
			if (!t->reported++)
				fprintf(stderr, "osprof rootcause: trampoline agent: %s\n",
				        t->shm->error);
			return -EIO;
		}
		if (i < wait_ms)
			sleep_ms(1);
	}
	return -EAGAIN;
}

/* f0's hook: a jump over its relocated first instructions, or, when a
 * jump cannot replace them (the function branches into them, or is shorter
 * than a jump), an int3 over the first one alone. */
static int tb_attach_f0(struct rc_backend *b, const char *path, uint64_t off, uint64_t vaddr)
{
	struct tb *t = (struct tb *)b;
	(void)off;
	struct rc_elf *e;
	char err[256], why[200] = "";
	if (rc_elf_open(path, &e, err, sizeof(err))) {
		fprintf(stderr, "osprof rootcause: %s\n", err);
		return -ENOENT;
	}
	const struct rc_sym *sym = rc_elf_at(e, vaddr);
	size_t size = sym && sym->addr == vaddr && sym->size ? sym->size : RCR_MAX_IN;
	const uint8_t *code = rc_elf_bytes(e, vaddr, size);
	struct rcr_plan *p = &t->shm->f0_plan;
	int rc = -ENOENT;
	if (code) {
		rc = rc_reloc_plan_entry(code, size, vaddr, p, why, sizeof(why));
		if (rc == RCS_BREAK) {
			t->base.f0_break = 1;
			snprintf(t->base.f0_note, sizeof(t->base.f0_note), "%s", why);
		}
		if (rc >= 0) {
			t->shm->f0_mode = (uint32_t)rc;
			rc = 0;
		}
	}
	rc_elf_close(e);
	if (rc) {
		fprintf(stderr,
		        "osprof rootcause: f0's first instruction cannot be relocated: %s\n", why);
		return rc;
	}
	snprintf(t->shm->f0_path, sizeof(t->shm->f0_path), "%s", path);
	t->shm->f0_vaddr = vaddr;
	return 0;
}

/* The target has exited (its agent with it). A pidfd says so of a zombie
 * too: the driver reaps the target only once the probes are gone. */
static int target_gone(struct tb *t)
{
	struct pollfd p = {.fd = t->pidfd, .events = POLLIN};
	if (t->pidfd >= 0)
		return poll(&p, 1, 0) > 0;
	return kill(t->base.pid, 0) && errno == ESRCH;
}

static int command(struct tb *t, const struct rcs_cmd *c)
{
	int rc = agent_ok(t, 5000);
	if (rc)
		return rc;
	struct rc_shm *s = t->shm;
	uint64_t h = s->cmd_head;
	if (h - __atomic_load_n(&s->cmd_tail, __ATOMIC_ACQUIRE) >= RCS_NCMD)
		return -EBUSY;
	s->cmds[h % RCS_NCMD] = *c;
	__atomic_store_n(&s->cmd_head, h + 1, __ATOMIC_RELEASE);
	__atomic_fetch_add(&s->cmd_seq, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &s->cmd_seq, FUTEX_WAKE, 1, NULL, NULL, 0);
	/* The agent answers in microseconds; a search expands dozens of sites
	 * at a time, so wait in short steps (5 s in all). */
	for (int i = 0; i < 250000; i++) {
		if (__atomic_load_n(&s->cmd_tail, __ATOMIC_ACQUIRE) > h)
			return s->cmd_result[h % RCS_NCMD];
		if (i % 1000 == 999 && target_gone(t))
			return -ESRCH;
		struct timespec ts = {0, 20000};
		nanosleep(&ts, NULL);
	}
	return -ETIMEDOUT;
}

static int tb_add_site(struct rc_backend *b, uint32_t id, const struct rc_site *s, const char *path,
                       uint64_t off, uint64_t rt)
{
	(void)path;
	(void)off;
	struct rcs_cmd c = {.op = RCS_ADD_SITE,
	                    .site = id,
	                    .addr = rt,
	                    .len = s->len,
	                    .tail = s->tail,
	                    .indirect = s->indirect,
	                    .is_mem = s->is_mem,
	                    .base = s->base,
	                    .index = s->index,
	                    .scale = s->scale,
	                    .disp = s->disp};
	/* The callee's run-time address: same displacement as in the file. */
	if (!s->indirect)
		c.target = rt + s->len + (s->target - (s->addr + s->len));
	struct tb *t = (struct tb *)b;
	int rc = command(t, &c);
	if (rc == RCS_UPROBE) {
		/* No jump fits: the uprobe fallback, else a breakpoint after all. */
		int e = rc_tfb_add_site(t->fb, id, s, path, off, rt);
		if (!e)
			return RC_PROBE_UPROBE;
		fprintf(stderr, "osprof rootcause: uprobe at %s+0x%llx: %s; a breakpoint instead\n",
		        path, (unsigned long long)off, strerror(-e));
		c.op = RCS_ADD_BREAK;
		rc = command(t, &c);
	}
	return rc == RCS_BREAK ? RC_PROBE_BREAK : rc;
}

static int tb_del_site(struct rc_backend *b, uint32_t id)
{
	struct tb *t = (struct tb *)b;
	if (t->fb && rc_tfb_del_site(t->fb, id) == 0)
		return 0;
	struct rcs_cmd c = {.op = RCS_DEL_SITE, .site = id};
	return command(t, &c);
}

static int tb_add_edge(struct rc_backend *b, uint32_t parent, uint32_t site, uint32_t slot)
{
	struct tb *t = (struct tb *)b;
	struct rc_shm *s = t->shm;
	int rc = t->fb ? rc_tfb_edge(t->fb, parent, site, slot) : 0;
	if (rc)
		return rc;
	uint64_t key = (uint64_t)parent << 32 | site;
	for (uint32_t i = rcs_hash(key), n = 0; n < RCS_HASH; n++, i = (i + 1) & (RCS_HASH - 1)) {
		uint64_t k = s->edge_key[i];
		if (k && k != key)
			continue;
		__atomic_store_n(&s->edge_val[i], slot, __ATOMIC_RELEASE);
		if (!k)
			__atomic_store_n(&s->edge_key[i], key, __ATOMIC_RELEASE);
		return 0;
	}
	return -ENOSPC;
}

static int tb_del_edge(struct rc_backend *b, uint32_t parent, uint32_t site)
{
	struct tb *t = (struct tb *)b;
	struct rc_shm *s = t->shm;
	if (t->fb)
		rc_tfb_edge(t->fb, parent, site, UINT32_MAX);
	uint64_t key = (uint64_t)parent << 32 | site;
	for (uint32_t i = rcs_hash(key), n = 0; n < RCS_HASH; n++, i = (i + 1) & (RCS_HASH - 1)) {
		if (s->edge_key[i] == key) {
			__atomic_store_n(&s->edge_val[i], UINT32_MAX, __ATOMIC_RELEASE);
			return 0;
		}
		if (!s->edge_key[i])
			break;
	}
	return -ENOENT;
}

static int tb_set_peak(struct rc_backend *b, uint64_t lo, uint64_t hi, uint64_t gen)
{
	struct rc_shm *s = ((struct tb *)b)->shm;
	s->peak_lo = lo;
	s->peak_hi = hi;
	__atomic_store_n(&s->gen, gen, __ATOMIC_SEQ_CST);
	__atomic_store_n(&s->searching, 1, __ATOMIC_RELEASE);
	return 0;
}

static int tb_poll(struct rc_backend *b, rc_event_fn fn, void *ctx)
{
	struct rc_shm *s = ((struct tb *)b)->shm;
	int n = 0;
	while (s->ev_tail < __atomic_load_n(&s->ev_head, __ATOMIC_ACQUIRE)) {
		uint64_t i = s->ev_tail;
		if (__atomic_load_n(&s->ev_seq[i % RCS_NEV], __ATOMIC_ACQUIRE) != i + 1)
			break; /* reserved, not yet written */
		if (fn)
			fn(ctx, &s->ev[i % RCS_NEV]);
		n++;
		__atomic_store_n(&s->ev_tail, i + 1, __ATOMIC_RELEASE);
	}
	return n;
}

static int tb_read_hist(struct rc_backend *b, uint64_t *buckets)
{
	struct tb *t = (struct tb *)b;
	for (int i = 0; i < RC_HBUCKETS; i++)
		buckets[i] = __atomic_load_n(&t->shm->hist[i], __ATOMIC_RELAXED);
	return agent_ok(t, 0) == -EIO ? -EIO : 0;
}

static uint64_t tb_lost(struct rc_backend *b)
{
	return ((struct tb *)b)->shm->lost;
}

static void tb_destroy(struct rc_backend *b)
{
	struct tb *t = (struct tb *)b;
	shm_unlink(t->name);
	munmap(t->shm, sizeof(*t->shm));
	rc_tfb_free(t->fb);
	if (t->pidfd >= 0)
		close(t->pidfd);
	free(t);
}

/* The process whose agent claimed the channel (the agent of a process that
 * does not have f0 leaves it). */
static pid_t tb_f0_pid(struct rc_backend *b)
{
	return (pid_t)__atomic_load_n(&((struct tb *)b)->shm->claimed, __ATOMIC_ACQUIRE);
}

static const struct rc_backend_ops tb_ops = {.name = "trampoline", RC_BACKEND_OPS(tb)};

struct rc_backend *rc_tramp_new(void)
{
	static unsigned counter;
	struct tb *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->base.ops = &tb_ops;
	t->base.fd = -1;
	t->pidfd = -1;
	snprintf(t->name, sizeof(t->name), "/osprof-darc-%d-%u", (int)getpid(), counter++);
	int fd = shm_open(t->name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, sizeof(struct rc_shm))) {
		fprintf(stderr, "osprof rootcause: shared memory %s: %s\n", t->name,
		        strerror(errno));
		if (fd >= 0) {
			close(fd);
			shm_unlink(t->name);
		}
		free(t);
		return NULL;
	}
	t->shm = mmap(NULL, sizeof(struct rc_shm), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (t->shm == MAP_FAILED) {
		shm_unlink(t->name);
		free(t);
		return NULL;
	}
	t->shm->magic = RCS_MAGIC;
	char why[160];
	t->fb = rc_tfb_new(why, sizeof(why));
	t->shm->ufb = t->fb != NULL;
	snprintf(t->base.fallback, sizeof(t->base.fallback), "%s%s%s",
	         t->fb ? "uprobe" : "breakpoint", t->fb ? "" : ": ", t->fb ? "" : why);
	return &t->base;
}

int rc_tramp_env(struct rc_backend *b, char ***envp)
{
	struct tb *t = (struct tb *)b;
	char agent[PATH_MAX];
	const char *over = getenv("OSPROF_DARC_AGENT");
	if (over) {
		snprintf(agent, sizeof(agent), "%s", over);
	} else {
		/* Next to this osprof, else where it is installed. */
		osp_helper_path("libosprof-darc-agent.so", agent, sizeof(agent));
	}
	if (access(agent, R_OK)) {
		fprintf(stderr, "osprof rootcause: %s: %s (set OSPROF_DARC_AGENT)\n", agent,
		        strerror(errno));
		return -1;
	}
	const char *old = getenv("LD_PRELOAD");
	snprintf(t->env[0], sizeof(t->env[0]), "LD_PRELOAD=%s%s%.*s", agent, old ? ":" : "",
	         old ? 128 : 0, old ? old : "");
	snprintf(t->env[1], sizeof(t->env[1]), "OSPROF_DARC_SHM=%s", t->name);
	t->envp[0] = t->env[0];
	t->envp[1] = t->env[1];
	t->envp[2] = NULL;
	if (t->fb) {
		snprintf(t->env[2], sizeof(t->env[2]), "OSPROF_DARC_UFB=%d", rc_tfb_fd(t->fb));
		t->envp[2] = t->env[2];
		t->envp[3] = NULL;
	}
	*envp = t->envp;
	return 0;
}

void rc_tramp_set_pid(struct rc_backend *b, pid_t pid)
{
	b->pid = pid;
	((struct tb *)b)->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
}
