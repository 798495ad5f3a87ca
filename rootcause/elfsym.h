/* ELF symbols of one executable or shared library (libelf): functions with
 * their size, PLT stubs named sym@plt, and file-offset <-> vaddr mapping for
 * uprobes. Everything is in link-time virtual addresses; a module's load bias
 * (rootcause/procmaps.h) turns them into run-time addresses. */
#ifndef OSPROF_RC_ELFSYM_H
#define OSPROF_RC_ELFSYM_H

#include <stddef.h>
#include <stdint.h>

struct rc_sym {
	char *name;
	uint64_t addr, size;
	uint64_t got; /* PLT stubs: GOT slot the stub jumps through, else 0 */
};

struct rc_seg {
	uint64_t vaddr, off, filesz;
	int exec;
};

struct rc_elf {
	char *path;
	int pie;             /* ET_DYN: loaded at a bias */
	struct rc_sym *syms; /* functions and PLT stubs, sorted by addr */
	size_t nsyms;
	struct rc_seg *segs;
	size_t nsegs;
	const uint8_t *image; /* the whole file, mmapped */
	size_t imsize;
};

/* 0, or -errno with a one-line message in err. */
int rc_elf_open(const char *path, struct rc_elf **out, char *err, size_t errlen);
void rc_elf_close(struct rc_elf *e);
/* Function or stub by exact name (first match), NULL if absent. */
const struct rc_sym *rc_elf_find(const struct rc_elf *e, const char *name);
/* Symbol containing vaddr, NULL if none. */
const struct rc_sym *rc_elf_at(const struct rc_elf *e, uint64_t vaddr);
/* File offset of vaddr (for uprobes); -ENOENT outside PT_LOAD file data. */
int rc_elf_off(const struct rc_elf *e, uint64_t vaddr, uint64_t *off);
/* vaddr of a file offset inside an executable PT_LOAD; -ENOENT if none. */
int rc_elf_vaddr_of_off(const struct rc_elf *e, uint64_t off, uint64_t *vaddr);
/* Pointer to len bytes of the file image at vaddr, NULL if out of range. */
const uint8_t *rc_elf_bytes(const struct rc_elf *e, uint64_t vaddr, size_t len);

#endif
