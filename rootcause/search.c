/* The DARC search engine: voting and decisions over the ftree. */
#include "rootcause/search.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *const status_names[] = {
    [RC_MEASURED] = "measured",
    [RC_FRONTIER] = "in progress",
    [RC_DECIDED] = "decided",
    [RC_CAUSE] = "root cause found",
    [RC_MAXDEPTH] = "maximum depth",
    [RC_MINBUCKET] = "below min bucket",
    [RC_PRUNED] = "not a main contributor",
    [RC_PREEMPTED] = "preemption",
    [RC_IRQ] = "IRQ",
};

const char *rc_status_name(int st)
{
	return st >= 0 && st <= RC_IRQ ? status_names[st] : "?";
}

int rc_status_parse(const char *s)
{
	for (int i = 0; i <= RC_IRQ; i++)
		if (!strcmp(s, status_names[i]))
			return i;
	return -1;
}

void rc_params_default(struct rc_params *p)
{
	/* seed 002, Fig. 4.2 */
	p->decision_time = 50;
	p->max_depth = 10;
	p->maxcount_pct = 97;
	p->min_bucket = 6;
	p->start_ops = 100;
}

static unsigned msb64(uint64_t v)
{
	return v ? 63u - (unsigned)__builtin_clzll(v) : 0;
}

int rc_search_init(struct rc_search *s, const struct rc_params *p, struct rc_backend *be,
                   struct rc_space *space)
{
	memset(s, 0, sizeof(*s));
	s->p = *p;
	s->be = be;
	s->space = space;
	s->slot_used[0] = 1; /* f0 */
	s->next_site = 1;
	return 0;
}

void rc_search_free(struct rc_search *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->nodes[i].name);
		free(s->nodes[i].kids);
		osp_hist_free(&s->nodes[i].hist);
		osp_hist_free(&s->nodes[i].pre_hist);
	}
	free(s->nodes);
	free(s->sites);
	s->nodes = NULL;
	s->sites = NULL;
	s->n = s->nsites = 0;
}

int rc_node_new(struct rc_search *s, int parent, int kind, const char *name)
{
	if (s->n == s->cap) {
		size_t c = s->cap ? s->cap * 2 : 64;
		struct rc_node *v = realloc(s->nodes, c * sizeof(*v));
		if (!v)
			return -1;
		s->nodes = v;
		s->cap = c;
	}
	if (parent >= 0) {
		struct rc_node *p = &s->nodes[parent];
		int *k = realloc(p->kids, (p->nkids + 1) * sizeof(*k));
		if (!k)
			return -1;
		p->kids = k;
		p->kids[p->nkids++] = (int)s->n;
	}
	struct rc_node *n = &s->nodes[s->n];
	memset(n, 0, sizeof(*n));
	n->id = (int)s->n;
	n->parent = parent;
	n->depth = parent >= 0 ? s->nodes[parent].depth + 1 : 0;
	n->kind = kind;
	n->slot = -1;
	n->site = -1;
	n->name = strdup(name ? name : "?");
	return (int)s->n++;
}

int rc_search_root(struct rc_search *s, const char *name, uint64_t f0_rt)
{
	int id = rc_node_new(s, -1, RC_N_ROOT, name);
	if (id < 0)
		return -ENOMEM;
	s->nodes[id].slot = 0;
	s->nodes[id].callee = f0_rt;
	return 0;
}

static int slot_alloc(struct rc_search *s)
{
	for (int i = 1; i < RC_NSLOTS; i++)
		if (!s->slot_used[i]) {
			s->slot_used[i] = 1;
			return i;
		}
	return -1;
}

/* Name of the function at run-time address a; follows PLT stubs through
 * the GOT so that a call to foo@plt is named (and expanded) as foo. */
static void name_of(struct rc_search *s, uint64_t *a, char *buf, size_t len)
{
	struct rc_module *m = rc_space_find(s->space, *a);
	const struct rc_sym *sym = m ? rc_elf_at(m->elf, *a - m->bias) : NULL;
	if (sym && sym->got) {
		uint64_t real = 0;
		if (!rc_space_read(s->space, sym->got + m->bias, &real)) {
			struct rc_module *m2 = rc_space_find(s->space, real);
			const struct rc_sym *s2 = m2 ? rc_elf_at(m2->elf, real - m2->bias) : NULL;
			if (s2 && !s2->got && s2->addr == real - m2->bias) {
				*a = real;
				snprintf(buf, len, "%s", s2->name);
				return;
			}
		}
	}
	if (!sym) {
		snprintf(buf, len, "0x%" PRIx64, *a);
		return;
	}
	uint64_t off = *a - m->bias - sym->addr;
	if (off)
		snprintf(buf, len, "%s+0x%" PRIx64, sym->name, off);
	else
		snprintf(buf, len, "%s", sym->name);
}

static int site_get(struct rc_search *s, struct rc_module *m, const struct rc_site *site)
{
	uint64_t rt = site->addr + m->bias;
	for (size_t i = 0; i < s->nsites; i++)
		if (s->sites[i].rt == rt) {
			if (s->sites[i].refs++ == 0) {
				uint64_t off = 0;
				rc_elf_off(m->elf, site->addr, &off);
				int rc = s->be->ops->add_site(s->be, s->sites[i].id, site,
				                              m->elf->path, off, rt);
				if (rc < 0) {
					s->sites[i].refs = 0;
					return rc;
				}
				s->sites[i].probe = rc;
			}
			return (int)i;
		}
	struct rc_site_rec *v = realloc(s->sites, (s->nsites + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	s->sites = v;
	struct rc_site_rec *r = &s->sites[s->nsites];
	*r = (struct rc_site_rec){.id = s->next_site++, .rt = rt, .s = *site, .m = m, .refs = 1};
	uint64_t off = 0;
	if (rc_elf_off(m->elf, site->addr, &off))
		return -ENOENT;
	int rc = s->be->ops->add_site(s->be, r->id, site, m->elf->path, off, rt);
	if (rc < 0)
		return rc;
	r->probe = rc;
	return (int)s->nsites++;
}

static void site_put(struct rc_search *s, int i)
{
	if (i >= 0 && s->sites[i].refs > 0 && --s->sites[i].refs == 0)
		s->be->ops->del_site(s->be, s->sites[i].id);
}

/* Stops measuring node id (its callees first). */
static void release(struct rc_search *s, int id)
{
	struct rc_node *n = &s->nodes[id];
	for (size_t k = 0; k < n->nkids; k++)
		release(s, n->kids[k]);
	n = &s->nodes[id];
	if (n->slot <= 0 || n->parent < 0)
		return;
	struct rc_node *p = &s->nodes[n->parent];
	if (p->slot >= 0 && n->site >= 0)
		s->be->ops->del_edge(s->be, (uint32_t)p->slot, s->sites[n->site].id);
	site_put(s, n->site);
	s->slot_used[n->slot] = 0;
	n->slot = -1;
}

/* Makes node id a frontier node: times every call site of its callee. */
static int expand(struct rc_search *s, int id)
{
	struct rc_node *n = &s->nodes[id];
	uint64_t fn = n->callee;
	if (!fn && n->tg[0].n) { /* indirect: the most frequent target */
		int best = 0;
		for (int i = 1; i < RC_MAX_TARGETS; i++)
			if (n->tg[i].n > n->tg[best].n)
				best = i;
		fn = n->tg[best].addr;
	}
	n->status = RC_FRONTIER;
	n->gen0 = s->gen + 1;
	struct rc_module *m = fn ? rc_space_find(s->space, fn) : NULL;
	const struct rc_sym *sym = m ? rc_elf_at(m->elf, fn - m->bias) : NULL;
	if (!sym || sym->got) {
		if (s->verbose)
			fprintf(stderr, "osprof rootcause: %s: no function at 0x%" PRIx64 "%s\n",
			        n->name, fn, m ? "" : " (no module mapped there)");
		return 0; /* unknown or unresolved stub: only self/preemption/IRQ */
	}
	n->callee = fn;
	struct rc_site *sites = NULL;
	int ns = rc_callsites(m->elf, sym, &sites);
	for (int i = 0; i < ns; i++) {
		int slot = slot_alloc(s);
		if (slot < 0) {
			fprintf(
			    stderr,
			    "osprof rootcause: %s has more call sites than can be timed at once "
			    "(%d); the rest are counted as its own time\n",
			    sym->name, RC_NSLOTS - 1);
			break;
		}
		char name[256];
		uint64_t callee = 0; /* a PLT stub's run-time target, through the GOT */
		if (sites[i].indirect) {
			snprintf(name, sizeof(name), "*(%s)", sites[i].text);
		} else {
			callee = sites[i].target + m->bias;
			name_of(s, &callee, name, sizeof(name));
		}
		int site = site_get(s, m, &sites[i]);
		if (site < 0) {
			s->slot_used[slot] = 0;
			fprintf(stderr, "osprof rootcause: cannot probe %s+0x%" PRIx64 ": %s\n",
			        sym->name, sites[i].addr - sym->addr, strerror(-site));
			continue;
		}
		int c = rc_node_new(s, id, RC_N_CALL, name);
		if (c < 0) {
			free(sites);
			return -ENOMEM;
		}
		struct rc_node *cn = &s->nodes[c];
		cn->slot = slot;
		cn->site = site;
		cn->probe = s->sites[site].probe;
		cn->callee = callee;
		snprintf(cn->where, sizeof(cn->where), "%s+0x%" PRIx64 "%s", sym->name,
		         sites[i].addr - sym->addr, sites[i].tail ? " (tail)" : "");
		s->be->ops->add_edge(s->be, (uint32_t)s->nodes[id].slot, s->sites[site].id,
		                     (uint32_t)slot);
	}
	free(sites);
	return 0;
}

/* A node stays measured while it or a descendant is being decided. */
static int needed(struct rc_search *s, int id)
{
	struct rc_node *n = &s->nodes[id];
	int need = n->status == RC_FRONTIER || (n->status == RC_MEASURED && n->parent >= 0 &&
	                                        s->nodes[n->parent].status == RC_FRONTIER);
	for (size_t k = 0; k < n->nkids; k++)
		need |= needed(s, s->nodes[id].kids[k]);
	return need;
}

static void gc(struct rc_search *s, int id)
{
	if (!needed(s, id)) {
		release(s, id);
		return;
	}
	for (size_t k = 0; k < s->nodes[id].nkids; k++)
		gc(s, s->nodes[id].kids[k]);
}

static void publish(struct rc_search *s)
{
	s->gen++;
	s->be->ops->set_peak(s->be, s->peak_lo, s->peak_hi, s->gen);
}

static void decide(struct rc_search *s, int id)
{
	struct rc_node *n = &s->nodes[id];
	uint64_t top = n->self_votes;
	if (n->pre_votes > top)
		top = n->pre_votes;
	if (n->irq_votes > top)
		top = n->irq_votes;
	for (size_t k = 0; k < n->nkids; k++) {
		struct rc_node *c = &s->nodes[n->kids[k]];
		if (c->status == RC_MEASURED && c->maxcount > top)
			top = c->maxcount;
	}
	uint64_t thr = (uint64_t)((double)top * s->p.maxcount_pct / 100.0 + 0.999999);
	if (thr < 1)
		thr = 1;
	int chose_kid = 0;
	n->self_cause = n->self_votes >= thr;
	n->status = RC_DECIDED;
	uint64_t pre_votes = n->pre_votes, irq_votes = n->irq_votes;
	uint32_t irqn = n->irqn;
	size_t nk = n->nkids;
	for (size_t k = 0; k < nk; k++) {
		int cid = s->nodes[id].kids[k];
		struct rc_node *c = &s->nodes[cid];
		if (c->status != RC_MEASURED)
			continue;
		if (c->maxcount < thr) {
			c->status = RC_PRUNED;
			continue;
		}
		chose_kid = 1;
		uint64_t mean = c->lat_n ? c->lat_sum / c->lat_n : 0;
		if ((unsigned)c->depth >= s->p.max_depth)
			c->status = RC_MAXDEPTH;
		else if (msb64(mean) < s->p.min_bucket)
			c->status = RC_MINBUCKET;
		else if (expand(s, cid) < 0)
			s->done = 1;
	}
	if (pre_votes >= thr) {
		int p = rc_node_new(s, id, RC_N_PREEMPT, "[preemption]");
		if (p >= 0) {
			s->nodes[p].status = RC_PREEMPTED;
			s->nodes[p].maxcount = pre_votes;
			struct osp_hist *ph = &s->nodes[id].pre_hist;
			if (ph->nbuckets && !osp_hist_init(&s->nodes[p].hist, 1))
				osp_hist_merge(&s->nodes[p].hist, ph);
		}
		chose_kid = 1;
	}
	if (irq_votes >= thr) {
		char nm[32];
		snprintf(nm, sizeof(nm), irqn >= 1000 ? "[softirq %u]" : "[IRQ %u]",
		         irqn >= 1000 ? irqn - 1000 : irqn);
		int p = rc_node_new(s, id, RC_N_IRQ, nm);
		if (p >= 0) {
			s->nodes[p].status = RC_IRQ;
			s->nodes[p].maxcount = irq_votes;
			s->nodes[p].irqn = irqn;
		}
		chose_kid = 1;
	}
	n = &s->nodes[id];
	if (!chose_kid)
		n->status = RC_CAUSE;
	if (s->verbose)
		fprintf(stderr, "osprof rootcause: decided %s after %" PRIu64 " in-peak calls\n",
		        n->name, n->rounds);
}

static void hist_add(struct osp_hist *h, uint64_t v)
{
	if (h->nbuckets || !osp_hist_init(h, 1))
		osp_hist_add(h, v);
}

static void vote(struct rc_search *s, int id, const struct rc_event *e)
{
	struct rc_node *n = &s->nodes[id];
	if (e->gen < n->gen0 || n->slot < 0)
		return;
	uint64_t L = n->kind == RC_N_ROOT ? e->f0_lat : e->lat[n->slot];
	if (!L)
		return; /* not called in this f0 call (a conditional branch) */
	uint64_t sum = 0, m = 0;
	for (size_t k = 0; k < n->nkids; k++) {
		struct rc_node *c = &s->nodes[n->kids[k]];
		if (c->status != RC_MEASURED || c->slot < 0)
			continue;
		uint64_t l = e->lat[c->slot];
		sum += l;
		if (l > m)
			m = l;
	}
	uint64_t pre = e->pre[n->slot], irq = e->irq[n->slot];
	uint64_t other = sum + pre + irq;
	uint64_t self = L > other ? L - other : 0; /* DARC eq. 3.1 */
	if (self > m)
		m = self;
	if (pre > m)
		m = pre;
	if (irq > m)
		m = irq;
	unsigned b = msb64(m);
	for (size_t k = 0; k < n->nkids; k++) {
		struct rc_node *c = &s->nodes[n->kids[k]];
		if (c->status != RC_MEASURED || c->slot < 0)
			continue;
		uint64_t l = e->lat[c->slot];
		if (!l)
			continue;
		c->lat_sum += l;
		c->lat_n++;
		hist_add(&c->hist, l);
		if (msb64(l) == b)
			c->maxcount++;
		uint64_t t = e->tgt[c->slot];
		if (t) {
			int i, free_i = -1;
			for (i = 0; i < RC_MAX_TARGETS; i++) {
				if (c->tg[i].addr == t)
					break;
				if (!c->tg[i].n && free_i < 0)
					free_i = i;
			}
			if (i < RC_MAX_TARGETS)
				c->tg[i].n++;
			else if (free_i >= 0)
				c->tg[free_i].addr = t, c->tg[free_i].n = 1;
		}
	}
	if (n->kind == RC_N_ROOT)
		hist_add(&n->hist, L);
	if (pre)
		hist_add(&n->pre_hist, pre);
	if (self && msb64(self) == b)
		n->self_votes++;
	if (pre && msb64(pre) == b)
		n->pre_votes++;
	if (irq && msb64(irq) == b) {
		n->irq_votes++;
		n->irqn = e->irqn[n->slot];
	}
	n->rounds++;
}

/* Names indirect-call nodes after their most frequent run-time target. */
static void name_targets(struct rc_search *s, int id)
{
	struct rc_node *n = &s->nodes[id];
	if (n->callee || !n->tg[0].n || n->name[0] != '*')
		return;
	int best = 0;
	for (int i = 1; i < RC_MAX_TARGETS; i++)
		if (n->tg[i].n > n->tg[best].n)
			best = i;
	uint64_t a = n->tg[best].addr;
	char nm[256], full[512];
	name_of(s, &a, nm, sizeof(nm));
	snprintf(full, sizeof(full), "%s [via %s]", nm, n->name);
	free(n->name);
	n->name = strdup(full);
	n->callee = a;
}

void rc_search_event(void *ctx, const struct rc_event *e)
{
	struct rc_search *s = ctx;
	s->records++;
	if (s->done)
		return;
	s->used++;
	size_t n = s->n;
	int changed = 0;
	for (size_t i = 0; i < n; i++) {
		if (s->nodes[i].status != RC_FRONTIER)
			continue;
		vote(s, (int)i, e);
		if (s->nodes[i].rounds >= s->p.decision_time) {
			for (size_t k = 0; k < s->nodes[i].nkids; k++)
				name_targets(s, s->nodes[i].kids[k]);
			decide(s, (int)i);
			changed = 1;
		}
	}
	if (!changed)
		return;
	gc(s, 0);
	int frontier = 0;
	for (size_t i = 0; i < s->n; i++)
		frontier |= s->nodes[i].status == RC_FRONTIER;
	if (!frontier) {
		s->done = 1;
		rc_search_stop(s);
		return;
	}
	publish(s);
}

int rc_search_start(struct rc_search *s, uint64_t lo, uint64_t hi)
{
	s->peak_lo = lo;
	s->peak_hi = hi;
	int rc = expand(s, 0);
	if (rc)
		return rc;
	publish(s);
	return 0;
}

int rc_search_resume(struct rc_search *s, uint64_t lo, uint64_t hi)
{
	s->peak_lo = lo;
	s->peak_hi = hi;
	/* Re-instrument every frontier node: re-expanding recreates the
	 * measured callees, and their ancestors' call sites get measured too. */
	size_t n = s->n;
	for (size_t i = 0; i < n; i++) {
		struct rc_node *x = &s->nodes[i];
		/* A deeper --max-depth continues the paths cut by the old one. */
		if (x->status == RC_MAXDEPTH && (unsigned)x->depth < s->p.max_depth)
			x->status = RC_FRONTIER;
		if (x->status != RC_FRONTIER)
			continue;
		/* Ancestors first, so that the call-path filter matches. */
		int chain[64], nc = 0;
		for (int a = (int)i; a > 0 && nc < 64; a = s->nodes[a].parent)
			chain[nc++] = a;
		for (int k = nc - 1; k >= 0; k--) {
			struct rc_node *c = &s->nodes[chain[k]];
			if (c->slot >= 0)
				continue;
			struct rc_node *p = &s->nodes[c->parent];
			if (c->site < 0 || p->slot < 0)
				break;
			int slot = slot_alloc(s);
			if (slot < 0)
				return -ENOSPC;
			struct rc_site_rec *r = &s->sites[c->site];
			int si = site_get(s, r->m, &r->s);
			if (si < 0)
				return si;
			c = &s->nodes[chain[k]];
			c->slot = slot;
			s->be->ops->add_edge(s->be, (uint32_t)p->slot, s->sites[si].id,
			                     (uint32_t)slot);
		}
		/* Drop stale measured callees and take fresh ones. */
		struct rc_node *f = &s->nodes[i];
		for (size_t k = 0; k < f->nkids; k++)
			if (s->nodes[f->kids[k]].status == RC_MEASURED)
				s->nodes[f->kids[k]].status = RC_PRUNED;
		f->rounds = f->self_votes = f->pre_votes = f->irq_votes = 0;
		int rc = expand(s, (int)i);
		if (rc)
			return rc;
	}
	publish(s);
	return 0;
}

void rc_search_stop(struct rc_search *s)
{
	for (size_t k = 0; k < s->nodes[0].nkids; k++)
		release(s, s->nodes[0].kids[k]);
}
