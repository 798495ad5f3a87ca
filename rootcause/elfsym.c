/* ELF symbol reading for the DARC search (libelf). */
#include "rootcause/elfsym.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <osprof/sort.h>

struct gotname {
	uint64_t got;
	const char *name;
};

static int add_sym(struct rc_elf *e, size_t *cap, const char *name, uint64_t addr, uint64_t size,
                   uint64_t got)
{
	if (e->nsyms == *cap) {
		size_t n = *cap ? *cap * 2 : 256;
		struct rc_sym *p = realloc(e->syms, n * sizeof(*p));
		if (!p)
			return -ENOMEM;
		e->syms = p;
		*cap = n;
	}
	char *dup = strdup(name);
	if (!dup)
		return -ENOMEM;
	e->syms[e->nsyms++] = (struct rc_sym){dup, addr, size, got};
	return 0;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct rc_sym *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Prefer global-looking names (no dot) first among aliases. */
	return (strchr(x->name, '.') != NULL) - (strchr(y->name, '.') != NULL);
}

/* Names of GOT slots from .rela.plt / .rela.dyn (JUMP_SLOT, GLOB_DAT). */
static size_t read_gotnames(Elf *elf, struct gotname **out)
{
	size_t n = 0, cap = 0;
	struct gotname *v = NULL;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize)
			continue;
		Elf_Scn *symscn = elf_getscn(elf, sh.sh_link);
		GElf_Shdr ssh;
		Elf_Data *d = elf_getdata(scn, NULL),
		         *sd = symscn ? elf_getdata(symscn, NULL) : NULL;
		if (!d || !sd || !gelf_getshdr(symscn, &ssh))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rela r;
			GElf_Sym s;
			if (!gelf_getrela(d, (int)i, &r))
				break;
			unsigned t = GELF_R_TYPE(r.r_info);
			if (t != R_X86_64_JUMP_SLOT && t != R_X86_64_GLOB_DAT)
				continue;
			if (!gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &s))
				continue;
			const char *nm = elf_strptr(elf, ssh.sh_link, s.st_name);
			if (!nm || !*nm)
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				struct gotname *p = realloc(v, cap * sizeof(*p));
				if (!p)
					break;
				v = p;
			}
			v[n++] = (struct gotname){r.r_offset, nm};
		}
	}
	*out = v;
	return n;
}

/* PLT stubs: every `jmp *GOT(%rip)` in .plt, .plt.sec, .plt.got names the
 * entry it sits in after the GOT slot's relocation symbol. */
static int read_plt(struct rc_elf *e, Elf *elf, size_t shstrndx, size_t *cap)
{
	struct gotname *gn = NULL;
	size_t ngn = read_gotnames(elf, &gn);
	csh cs;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK) {
		free(gn);
		return 0;
	}
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int rc = 0;
	while (!rc && (scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		const char *nm = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!nm || strncmp(nm, ".plt", 4) || sh.sh_type != SHT_PROGBITS)
			continue;
		uint64_t ent = !strcmp(nm, ".plt.got") ? 8 : 16;
		const uint8_t *code = rc_elf_bytes(e, sh.sh_addr, sh.sh_size);
		if (!code)
			continue;
		cs_insn *insn = cs_malloc(cs);
		const uint8_t *p = code;
		size_t left = sh.sh_size;
		uint64_t addr = sh.sh_addr;
		while (left && cs_disasm_iter(cs, &p, &left, &addr, insn)) {
			if (insn->id != X86_INS_JMP || insn->detail->x86.op_count != 1)
				continue;
			cs_x86_op *op = &insn->detail->x86.operands[0];
			if (op->type != X86_OP_MEM || op->mem.base != X86_REG_RIP)
				continue;
			uint64_t got = insn->address + insn->size + (uint64_t)op->mem.disp;
			for (size_t i = 0; i < ngn; i++) {
				if (gn[i].got != got)
					continue;
				char buf[512];
				snprintf(buf, sizeof(buf), "%s@plt", gn[i].name);
				uint64_t start =
				    sh.sh_addr + (insn->address - sh.sh_addr) / ent * ent;
				rc = add_sym(e, cap, buf, start, ent, got);
				break;
			}
		}
		cs_free(insn, 1);
	}
	cs_close(&cs);
	free(gn);
	return rc;
}

static int read_symtab(struct rc_elf *e, Elf *elf, Elf64_Word type, size_t *cap)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			if (!gelf_getsym(d, (int)i, &s))
				break;
			if (GELF_ST_TYPE(s.st_info) != STT_FUNC || s.st_shndx == SHN_UNDEF ||
			    !s.st_value)
				continue;
			const char *nm = elf_strptr(elf, sh.sh_link, s.st_name);
			if (!nm || !*nm)
				continue;
			int rc = add_sym(e, cap, nm, s.st_value, s.st_size, 0);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* The file's bytes in anonymous memory, read-only (MAP_FAILED with errno).
 * Read, not mapped: uprobes attached by binary for every process (the
 * uprobe backend, the trampoline backend's uprobe fallback) put their int3s
 * into every executable-capable mapping of the file, osprof's own included,
 * and a later disassembly of a probed function would find no calls. */
static void *read_image(int fd, size_t size)
{
	void *img = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (img == MAP_FAILED)
		return img;
	for (size_t at = 0; at < size;) {
		ssize_t n = pread(fd, (char *)img + at, size - at, (off_t)at);
		if (n <= 0) {
			int e = n ? errno : EIO;
			munmap(img, size);
			errno = e;
			return MAP_FAILED;
		}
		at += (size_t)n;
	}
	mprotect(img, size, PROT_READ);
	return img;
}

int rc_elf_open(const char *path, struct rc_elf **out, char *err, size_t errlen)
{
	*out = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	struct stat st;
	if (fstat(fd, &st) || st.st_size < 64) {
		snprintf(err, errlen, "%s: not an ELF file", path);
		close(fd);
		return -EINVAL;
	}
	void *img = read_image(fd, (size_t)st.st_size);
	if (img == MAP_FAILED) {
		int e = errno;
		snprintf(err, errlen, "%s: read: %s", path, strerror(e));
		close(fd);
		return -e;
	}
	elf_version(EV_CURRENT);
	Elf *elf = elf_memory(img, (size_t)st.st_size);
	close(fd);
	GElf_Ehdr eh;
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64) {
		snprintf(err, errlen, "%s: not an x86-64 ELF file", path);
		if (elf)
			elf_end(elf);
		munmap(img, (size_t)st.st_size);
		return -EINVAL;
	}
	struct rc_elf *e = calloc(1, sizeof(*e));
	if (!e || !(e->path = strdup(path)))
		goto nomem;
	e->image = img;
	e->imsize = (size_t)st.st_size;
	e->pie = eh.e_type == ET_DYN;
	size_t nph = 0;
	elf_getphdrnum(elf, &nph);
	e->segs = calloc(nph ? nph : 1, sizeof(*e->segs));
	if (!e->segs)
		goto nomem;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (ph.p_offset > e->imsize || ph.p_filesz > e->imsize - ph.p_offset)
			continue;
		e->segs[e->nsegs++] =
		    (struct rc_seg){ph.p_vaddr, ph.p_offset, ph.p_filesz, !!(ph.p_flags & PF_X)};
	}
	size_t cap = 0, shstrndx = 0;
	elf_getshdrstrndx(elf, &shstrndx);
	int rc = read_symtab(e, elf, SHT_SYMTAB, &cap);
	if (!rc)
		rc = read_symtab(e, elf, SHT_DYNSYM, &cap);
	if (!rc)
		rc = read_plt(e, elf, shstrndx, &cap);
	elf_end(elf);
	elf = NULL;
	if (rc)
		goto nomem;
	if (e->nsyms)
		osp_sort(e->syms, e->nsyms, sizeof(*e->syms), cmp_sym);
	/* Drop aliases at the same address (symtab + dynsym duplicates). */
	size_t w = 0;
	for (size_t i = 0; i < e->nsyms; i++) {
		if (w && e->syms[w - 1].addr == e->syms[i].addr) {
			if (!e->syms[w - 1].size)
				e->syms[w - 1].size = e->syms[i].size;
			free(e->syms[i].name);
			continue;
		}
		e->syms[w++] = e->syms[i];
	}
	e->nsyms = w;
	*out = e;
	return 0;
nomem:
	if (elf)
		elf_end(elf);
	if (e) {
		e->image = img;
		e->imsize = (size_t)st.st_size;
		rc_elf_close(e);
	} else {
		munmap(img, (size_t)st.st_size);
	}
	snprintf(err, errlen, "%s: out of memory", path);
	return -ENOMEM;
}

void rc_elf_close(struct rc_elf *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->nsyms; i++)
		free(e->syms[i].name);
	free(e->syms);
	free(e->segs);
	if (e->image)
		munmap((void *)e->image, e->imsize);
	free(e->path);
	free(e);
}

const struct rc_sym *rc_elf_find(const struct rc_elf *e, const char *name)
{
	for (size_t i = 0; i < e->nsyms; i++)
		if (!strcmp(e->syms[i].name, name))
			return &e->syms[i];
	return NULL;
}

const struct rc_sym *rc_elf_at(const struct rc_elf *e, uint64_t vaddr)
{
	size_t lo = 0, hi = e->nsyms;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (e->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	const struct rc_sym *s = &e->syms[lo - 1];
	return vaddr < s->addr + (s->size ? s->size : 1) ? s : NULL;
}

int rc_elf_off(const struct rc_elf *e, uint64_t vaddr, uint64_t *off)
{
	for (size_t i = 0; i < e->nsegs; i++) {
		const struct rc_seg *s = &e->segs[i];
		if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz) {
			*off = s->off + (vaddr - s->vaddr);
			return 0;
		}
	}
	return -ENOENT;
}

int rc_elf_vaddr_of_off(const struct rc_elf *e, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < e->nsegs; i++) {
		const struct rc_seg *s = &e->segs[i];
		if (s->exec && off >= s->off && off - s->off < s->filesz) {
			*vaddr = s->vaddr + (off - s->off);
			return 0;
		}
	}
	return -ENOENT;
}

const uint8_t *rc_elf_bytes(const struct rc_elf *e, uint64_t vaddr, size_t len)
{
	uint64_t off;
	if (rc_elf_off(e, vaddr, &off) || off > e->imsize || len > e->imsize - off)
		return NULL;
	return e->image + off;
}
