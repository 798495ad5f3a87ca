/* What a profile set says was lost while collecting it: one reading of the
 * metadata keys, one wording, shared by the collecting commands' end-of-run
 * line and by `osprof report`. */
#ifndef OSPROF_LOSSES_H
#define OSPROF_LOSSES_H

#include <stddef.h>
#include <stdint.h>
#include <osprof/profile.h>

struct osp_losses {
	uint64_t lost_events;     /* a BPF map or ring buffer was full, probe recursion */
	uint64_t unpaired_events; /* an end without its start */
	uint64_t dropped_events;  /* trace events not written (disk full, ring buffer) */
	uint64_t user_static;     /* static programs the preload could not enter */
	uint64_t user_setuid;     /* setuid/setgid programs the loader ran without it */
	uint64_t user_bad_files;  /* preload counter files that could not be read */
	/* Attached to running processes (-a, -p, -c, --comm): calls in flight
	 * at attach time end unpaired, which is the window's edge, not a loss. */
	int live;
	/* "lock 1, fs 2": the layers the lost and unpaired counts came from
	 * (metadata lost_events.LAYER, unpaired_events.LAYER); "" if unknown */
	char lost_where[128], unpaired_where[128];
	uint64_t events; /* calls recorded: the counts of the set's latency profiles */
};

/* Fills l from s's metadata (keys documented in docs/file-format.md). */
void osp_losses_read(const struct osp_set *s, struct osp_losses *l);
/* Nonzero when something was lost (unpaired events count unless live). */
int osp_losses_any(const struct osp_losses *l);
/* Nonzero when every loss is of single events (lost, unpaired, dropped:
 * no whole program went unprofiled) and they number at most rate x events. */
int osp_losses_within(const struct osp_losses *l, double rate);
/* "12 lost events (a BPF map or buffer was full), 1 static program not
 * profiled (user_static_paths)"; "" when nothing was lost. */
void osp_losses_describe(const struct osp_losses *l, char *buf, size_t len);

#endif
