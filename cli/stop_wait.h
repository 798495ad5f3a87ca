/* Long-running commands (record, serve) stop on SIGINT or SIGTERM: the
 * signals are blocked except while waiting, so one that arrives just before
 * a wait cannot be missed. */
#ifndef OSPROF_CLI_STOP_WAIT_H
#define OSPROF_CLI_STOP_WAIT_H

#include <signal.h>
#include <stdint.h>

/* The signal that asked to stop, 0 until then. */
extern volatile sig_atomic_t osp_stop_sig;

/* Installs the handlers, blocks both signals and fills *wait_mask with the
 * mask to wait under (both unblocked). */
void osp_stop_on_signals(sigset_t *wait_mask);

/* Sleeps until the monotonic time `until` (ns) or a stop signal; 1 if
 * stopped. */
int osp_sleep_until(uint64_t until, const sigset_t *wait_mask);

#endif
