/* Locates libosprof-preload.so and libosprof-darc-agent.so: next to the
 * binary in the build tree, in PREFIX/lib/osprof once installed. */
#include "collect/helper_path.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int osp_helper_path(const char *name, char *out, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return -errno;
	self[n] = 0;
	char *slash = strrchr(self, '/');
	if (slash)
		*slash = 0;
	const char *dirs[] = {"", "/" OSP_HELPER_RELDIR};
	int first_err = 0;
	char first[PATH_MAX] = "";
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (snprintf(out, len, "%s%s/%s", self, dirs[i], name) >= (int)len)
			return -ENAMETOOLONG;
		if (!access(out, R_OK))
			return 0;
		if (!first_err) {
			first_err = -errno;
			snprintf(first, sizeof(first), "%s", out);
		}
	}
	snprintf(out, len, "%s", first);
	return first_err;
}
