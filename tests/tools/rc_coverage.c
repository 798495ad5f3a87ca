/* How the trampoline backend of osprof rootcause would instrument every
 * function of a binary, with the decisions it makes at run time
 * (rc_reloc_plan_entry for f0, rc_reloc_site_jumps for call sites): counts
 * of entry hooks by jump / breakpoint / refused and of call sites by jump /
 * breakpoint, and one line per function that is not a jump, with why.
 * Usage: rc_coverage BIN [NAMES]: NAMES, a file of function names one per
 * line, restricts the count to those (e.g. the library linked in). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rootcause/agent/darc_shm.h"
#include "rootcause/callsites.h"
#include "rootcause/elfsym.h"
#include "rootcause/reloc.h"

static char **names;
static size_t nnames;

static int wanted(const char *name)
{
	if (!names)
		return 1;
	for (size_t i = 0; i < nnames; i++)
		if (!strcmp(names[i], name))
			return 1;
	return 0;
}

static void load_names(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		perror(path);
		exit(2);
	}
	char line[512];
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!line[0])
			continue;
		names = realloc(names, (nnames + 1) * sizeof(*names));
		names[nnames++] = strdup(line);
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: rc_coverage BIN [NAMES]\n");
		return 2;
	}
	if (argc > 2)
		load_names(argv[2]);
	struct rc_elf *e;
	char err[256];
	if (rc_elf_open(argv[1], &e, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	unsigned long fn = 0, entry[3] = {0}, sites[2] = {0};
	for (size_t i = 0; i < e->nsyms; i++) {
		const struct rc_sym *s = &e->syms[i];
		if (s->got || !s->size || !wanted(s->name))
			continue;
		const uint8_t *code = rc_elf_bytes(e, s->addr, s->size);
		if (!code)
			continue;
		fn++;
		struct rcr_plan p;
		char why[200] = "";
		int mode = rc_reloc_plan_entry(code, s->size, s->addr, &p, why, sizeof(why));
		int k = mode == RCS_JUMP ? 0 : mode == RCS_BREAK ? 1 : 2;
		entry[k]++;
		if (k)
			printf("%s entry %s: %s\n", s->name, k == 1 ? "breakpoint" : "REFUSED",
			       why);
		struct rc_site *v = NULL;
		int n = rc_callsites(e, s, &v);
		for (int j = 0; j < n; j++) {
			const uint8_t *b = rc_elf_bytes(e, v[j].addr, v[j].len);
			int jump = b && rc_reloc_site_jumps(b, v[j].len, v[j].indirect);
			sites[!jump]++;
			if (!jump)
				printf("%s site +0x%llx %s: breakpoint\n", s->name,
				       (unsigned long long)(v[j].addr - s->addr), v[j].text);
		}
		free(v);
	}
	printf("functions %lu: entry by trampoline %lu (%.1f%%), breakpoint %lu, refused %lu\n", fn,
	       entry[0], fn ? 100.0 * (double)entry[0] / (double)fn : 0, entry[1], entry[2]);
	unsigned long ns = sites[0] + sites[1];
	printf("call sites %lu: by trampoline %lu (%.1f%%), breakpoint %lu\n", ns, sites[0],
	       ns ? 100.0 * (double)sites[0] / (double)ns : 0, sites[1]);
	rc_elf_close(e);
	return 0;
}
