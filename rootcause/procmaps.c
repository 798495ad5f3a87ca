/* /proc/PID/maps -> modules with load bias. */
#include "rootcause/procmaps.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct rc_module *push(struct rc_space *sp, struct rc_elf *e, uint64_t start, uint64_t end,
                              uint64_t bias)
{
	struct rc_module *m = realloc(sp->mods, (sp->n + 1) * sizeof(*m));
	if (!m)
		return NULL;
	sp->mods = m;
	m = &sp->mods[sp->n++];
	*m = (struct rc_module){e, start, end, bias};
	return m;
}

static struct rc_elf *known(struct rc_space *sp, const char *path)
{
	for (size_t i = 0; i < sp->n; i++)
		if (!strcmp(sp->mods[i].elf->path, path))
			return sp->mods[i].elf;
	return NULL;
}

struct rc_module *rc_space_add(struct rc_space *sp, const char *path, uint64_t bias, char *err,
                               size_t errlen)
{
	for (size_t i = 0; i < sp->n; i++)
		if (!strcmp(sp->mods[i].elf->path, path) && sp->mods[i].bias == bias)
			return &sp->mods[i];
	struct rc_elf *e = known(sp, path);
	if (!e && rc_elf_open(path, &e, err, errlen))
		return NULL;
	uint64_t lo = UINT64_MAX, hi = 0;
	for (size_t i = 0; i < e->nsegs; i++)
		if (e->segs[i].exec) {
			if (e->segs[i].vaddr < lo)
				lo = e->segs[i].vaddr;
			if (e->segs[i].vaddr + e->segs[i].filesz > hi)
				hi = e->segs[i].vaddr + e->segs[i].filesz;
		}
	if (lo > hi)
		lo = hi = 0;
	return push(sp, e, lo + bias, hi + bias, bias);
}

int rc_space_load(struct rc_space *sp, pid_t pid, char *err, size_t errlen)
{
	char path[64], line[4096];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	sp->pid = pid;
	while (fgets(line, sizeof(line), f)) {
		uint64_t start, end, off;
		char perms[8];
		int pos = 0;
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s%n", &start, &end,
		           perms, &off, &pos) < 4)
			continue;
		char *file = line + pos;
		while (*file == ' ')
			file++;
		file[strcspn(file, "\n")] = 0;
		if (perms[2] != 'x' || file[0] != '/')
			continue;
		int dup = 0;
		for (size_t i = 0; i < sp->n; i++)
			if (sp->mods[i].start <= start && end <= sp->mods[i].end &&
			    !strcmp(sp->mods[i].elf->path, file))
				dup = 1;
		if (dup)
			continue;
		struct rc_elf *e = known(sp, file);
		char ebuf[256];
		if (!e && rc_elf_open(file, &e, ebuf, sizeof(ebuf)))
			continue; /* vdso-like or unreadable: not searchable */
		uint64_t vaddr;
		if (rc_elf_vaddr_of_off(e, off, &vaddr))
			continue;
		/* Replace a module added by path before the process ran; grow
		 * one whose text is split in several mappings (mprotect of a
		 * patched page splits it) instead of keeping only the last. */
		for (size_t i = 0; i < sp->n; i++)
			if (sp->mods[i].elf == e) {
				struct rc_module *m = &sp->mods[i];
				if (m->bias == start - vaddr) {
					m->start = m->start < start ? m->start : start;
					m->end = m->end > end ? m->end : end;
				} else {
					*m = (struct rc_module){e, start, end, start - vaddr};
				}
				e = NULL;
				break;
			}
		if (e && !push(sp, e, start, end, start - vaddr)) {
			fclose(f);
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
	}
	fclose(f);
	return 0;
}

void rc_space_free(struct rc_space *sp)
{
	for (size_t i = 0; i < sp->n; i++) {
		int last = 1;
		for (size_t j = i + 1; j < sp->n; j++)
			if (sp->mods[j].elf == sp->mods[i].elf)
				last = 0;
		if (last)
			rc_elf_close(sp->mods[i].elf);
	}
	free(sp->mods);
	sp->mods = NULL;
	sp->n = 0;
}

struct rc_module *rc_space_find(struct rc_space *sp, uint64_t addr)
{
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < sp->n; i++)
			if (addr >= sp->mods[i].start && addr < sp->mods[i].end)
				return &sp->mods[i];
		char err[256];
		if (pass || !sp->pid || rc_space_load(sp, sp->pid, err, sizeof(err)))
			break;
	}
	return NULL;
}

int rc_space_read(const struct rc_space *sp, uint64_t addr, uint64_t *val)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)sp->pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = pread(fd, val, sizeof(*val), (off_t)addr);
	int e = errno;
	close(fd);
	return n == (ssize_t)sizeof(*val) ? 0 : (n < 0 ? -e : -EIO);
}
