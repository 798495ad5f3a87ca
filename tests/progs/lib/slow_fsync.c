/* libslow_fsync.so: an LD_PRELOAD shim that makes every fsync() of the
 * process it is loaded into take OSPROF_TEST_FSYNC_DELAY_MS longer -- a
 * server-side delay the netfs test injects into sftp-server to see it land
 * on the server's share. */
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

int fsync(int fd)
{
	static int (*real)(int);
	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	const char *ms = getenv("OSPROF_TEST_FSYNC_DELAY_MS");
	if (ms) {
		long v = atol(ms);
		struct timespec ts = {v / 1000, (v % 1000) * 1000000L};
		while (nanosleep(&ts, &ts))
			;
	}
	return real(fd);
}
