/* Discovery of file-system tracepoint pairs in tracefs: for every tracefs
 * subsystem that is a file system of this kernel (or a journaling or
 * page-cache helper), the start/end event pairs it defines. */
#ifndef OSPROF_COLLECT_FS_EVENTS_H
#define OSPROF_COLLECT_FS_EVENTS_H

#include <stddef.h>

struct fs_pair {
	char subsys[32]; /* tracefs subsystem: ext4, jbd2, xfs, ... */
	char op[96];     /* profile op: ext4_sync_file, jbd2_commit, ... */
	char start[96];  /* event names in the subsystem */
	char end[96];
};

struct fs_pairs {
	size_t n;
	struct fs_pair *v;
};

/* Pairs the event names of one subsystem, appending to out. The rules, tried
 * in order for each name: X_enter + X_exit, X_start + X_end, X_begin + X_end,
 * P_start_S + P_end_S (op P_S, e.g. jbd2_commit), X + X_done. Names are any
 * bytes; 0 or -ENOMEM. */
int fs_pair_names(const char *subsys, char **names, size_t n, struct fs_pairs *out);

/* Scans tracefs (dir: the tracefs root) for the subsystems of the file
 * systems in /proc/filesystems plus jbd2, jbd, iomap and netfs, and pairs
 * their events. When only is non-NULL (comma list of subsystems), just
 * those. 0, or -errno after printing one line. */
int fs_discover(const char *tracefs, const char *only, struct fs_pairs *out);
void fs_pairs_free(struct fs_pairs *p);

#endif
