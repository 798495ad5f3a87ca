/* Loss accounting from a set's metadata (include/osprof/losses.h). */
#include <stdio.h>
#include <string.h>
#include <osprof/losses.h>

void osp_losses_read(const struct osp_set *s, struct osp_losses *l)
{
	memset(l, 0, sizeof(*l));
	l->lost_events = osp_meta_u64(s, "lost_events");
	l->unpaired_events = osp_meta_u64(s, "unpaired_events");
	l->dropped_events = osp_meta_u64(s, "dropped_events");
	l->user_static = osp_meta_u64(s, "user_static");
	l->user_setuid = osp_meta_u64(s, "user_setuid");
	l->user_bad_files = osp_meta_u64(s, "user_bad_files");
	const char *live = osp_get_meta(s, "live_attach");
	l->live = live && !strcmp(live, "1");
}

int osp_losses_any(const struct osp_losses *l)
{
	return l->lost_events || (l->unpaired_events && !l->live) || l->dropped_events ||
	       l->user_static || l->user_setuid || l->user_bad_files;
}

static void add(char *buf, size_t len, uint64_t n, const char *one, const char *many,
                const char *why)
{
	if (!n)
		return;
	size_t o = strlen(buf);
	if (o < len)
		snprintf(buf + o, len - o, "%s%llu %s (%s)", o ? ", " : "", (unsigned long long)n,
		         n == 1 ? one : many, why);
}

void osp_losses_describe(const struct osp_losses *l, char *buf, size_t len)
{
	if (!len)
		return;
	buf[0] = 0;
	add(buf, len, l->lost_events, "lost event", "lost events",
	    "a BPF map or buffer was full, or a probe recursed");
	if (!l->live)
		add(buf, len, l->unpaired_events, "unpaired event", "unpaired events",
		    "an end without its start");
	add(buf, len, l->dropped_events, "dropped trace event", "dropped trace events",
	    "not written: disk full or ring buffer full");
	add(buf, len, l->user_static, "static program", "static programs",
	    "no LD_PRELOAD: not profiled, see user_static_paths");
	add(buf, len, l->user_setuid, "setuid program", "setuid programs",
	    "the loader ignores LD_PRELOAD: not profiled, see user_setuid_paths");
	add(buf, len, l->user_bad_files, "unreadable counter file", "unreadable counter files",
	    "a process's user-layer counts");
}
