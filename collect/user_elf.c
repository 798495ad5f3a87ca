/* Static-binary detection with libelf: an executable is dynamically linked
 * exactly when it names a program interpreter (PT_INTERP). */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "collect/user_elf.h"

int osp_elf_resolve(const char *cmd, char *out, size_t len)
{
	if (strchr(cmd, '/')) {
		snprintf(out, len, "%s", cmd);
		return access(out, X_OK);
	}
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		struct stat st;
		snprintf(out, len, "%.*s/%s", n ? (int)n : 1, n ? path : ".", cmd);
		if (!stat(out, &st) && S_ISREG(st.st_mode) && !access(out, X_OK))
			return 0;
		path += n + (path[n] == ':');
	}
	return -1;
}

static int elf_static(int fd)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -1;
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e)
		return -1;
	int rc = -1;
	GElf_Ehdr eh;
	size_t n;
	if (elf_kind(e) == ELF_K_ELF && gelf_getehdr(e, &eh) &&
	    (eh.e_type == ET_EXEC || eh.e_type == ET_DYN) && !elf_getphdrnum(e, &n)) {
		rc = 1;
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_INTERP)
				rc = 0;
		}
	}
	elf_end(e);
	return rc;
}

int osp_elf_is_static(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	char head[256];
	ssize_t n = pread(fd, head, sizeof(head) - 1, 0);
	int rc = -1;
	if (n >= 2 && head[0] == '#' && head[1] == '!') {
		/* A script runs its interpreter: judge that one (no recursion:
		 * the kernel allows only one more level anyway). */
		head[n] = 0;
		char *p = head + 2, interp[256];
		p += strspn(p, " \t");
		size_t len = strcspn(p, " \t\n");
		if (len && len < sizeof(interp)) {
			memcpy(interp, p, len);
			interp[len] = 0;
			int ifd = open(interp, O_RDONLY | O_CLOEXEC);
			if (ifd >= 0) {
				rc = elf_static(ifd);
				close(ifd);
			}
		}
	} else {
		rc = elf_static(fd);
	}
	close(fd);
	return rc;
}
