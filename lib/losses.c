/* Loss accounting from a set's metadata (include/osprof/losses.h). */
#include <stdio.h>
#include <string.h>
#include <osprof/losses.h>

/* "lock 1, fs 2" from the keys PREFIX.LAYER. */
static void where(const struct osp_set *s, const char *prefix, char *buf, size_t len)
{
	size_t n = strlen(prefix), o = 0;
	buf[0] = 0;
	for (size_t i = 0; i < s->nmeta && o < len; i++)
		if (!strncmp(s->meta[i].key, prefix, n) && s->meta[i].key[n] == '.')
			o += (size_t)snprintf(buf + o, len - o, "%s%s %s", o ? ", " : "",
			                      s->meta[i].key + n + 1, s->meta[i].value);
}

void osp_losses_read(const struct osp_set *s, struct osp_losses *l)
{
	memset(l, 0, sizeof(*l));
	l->lost_events = osp_meta_u64(s, "lost_events");
	l->unpaired_events = osp_meta_u64(s, "unpaired_events");
	l->dropped_events = osp_meta_u64(s, "dropped_events");
	l->user_static = osp_meta_u64(s, "user_static");
	l->user_setuid = osp_meta_u64(s, "user_setuid");
	l->user_bad_files = osp_meta_u64(s, "user_bad_files");
	where(s, "lost_events", l->lost_where, sizeof(l->lost_where));
	where(s, "unpaired_events", l->unpaired_where, sizeof(l->unpaired_where));
	const char *live = osp_get_meta(s, "live_attach");
	l->live = live && !strcmp(live, "1");
	for (size_t i = 0; i < s->n; i++)
		if (s->profiles[i]->unit == OSP_UNIT_NS)
			l->events += s->profiles[i]->hist.count;
}

int osp_losses_any(const struct osp_losses *l)
{
	return l->lost_events || (l->unpaired_events && !l->live) || l->dropped_events ||
	       l->user_static || l->user_setuid || l->user_bad_files;
}

int osp_losses_within(const struct osp_losses *l, double rate)
{
	if (l->user_static || l->user_setuid || l->user_bad_files)
		return 0;
	uint64_t n = l->lost_events + (l->live ? 0 : l->unpaired_events) + l->dropped_events;
	return (double)n <= rate * (double)l->events;
}

static void add_where(char *buf, size_t len, uint64_t n, const char *one, const char *many,
                      const char *why, const char *layers)
{
	if (!n)
		return;
	size_t o = strlen(buf);
	if (o < len)
		snprintf(buf + o, len - o, "%s%llu %s (%s%s%s)", o ? ", " : "",
		         (unsigned long long)n, n == 1 ? one : many, why,
		         layers && *layers ? "; by layer: " : "", layers ? layers : "");
}

static void add(char *buf, size_t len, uint64_t n, const char *one, const char *many,
                const char *why)
{
	add_where(buf, len, n, one, many, why, NULL);
}

void osp_losses_describe(const struct osp_losses *l, char *buf, size_t len)
{
	if (!len)
		return;
	buf[0] = 0;
	add_where(buf, len, l->lost_events, "lost event", "lost events",
	          "a BPF map or buffer was full, or a probe recursed", l->lost_where);
	if (!l->live)
		add_where(buf, len, l->unpaired_events, "unpaired event", "unpaired events",
		          "an end without its start", l->unpaired_where);
	add(buf, len, l->dropped_events, "dropped trace event", "dropped trace events",
	    "not written: disk full or ring buffer full");
	add(buf, len, l->user_static, "static program", "static programs",
	    "no LD_PRELOAD: not profiled, see user_static_paths");
	add(buf, len, l->user_setuid, "setuid program", "setuid programs",
	    "the loader ignores LD_PRELOAD: not profiled, see user_setuid_paths");
	add(buf, len, l->user_bad_files, "unreadable counter file", "unreadable counter files",
	    "a process's user-layer counts");
}
