/* Stop signals and interruptible waits of record and serve. */
#include <errno.h>
#include <poll.h>
#include <time.h>
#include <osprof/clock.h>
#include "cli/stop_wait.h"

volatile sig_atomic_t osp_stop_sig;

static void on_signal(int sig)
{
	osp_stop_sig = sig;
}

void osp_stop_on_signals(sigset_t *wait_mask)
{
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigset_t block;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, wait_mask);
	sigdelset(wait_mask, SIGINT);
	sigdelset(wait_mask, SIGTERM);
}

int osp_sleep_until(uint64_t until, const sigset_t *wait_mask)
{
	for (;;) {
		if (osp_stop_sig)
			return 1;
		uint64_t now = osp_now_ns(), d = now < until ? until - now : 0;
		struct timespec ts = {(time_t)(d / 1000000000ull), (long)(d % 1000000000ull)};
		/* Even when late (d = 0) the signals are let in once: a command
		 * whose every interval overruns would otherwise never see one. */
		int rc = ppoll(NULL, 0, &ts, wait_mask);
		if (osp_stop_sig)
			return 1;
		if (!d || (rc < 0 && errno != EINTR))
			return 0;
	}
}
