/* Is a command statically linked? The user layer cannot interpose on a
 * program without a dynamic loader, and says so instead of returning an
 * empty profile. */
#ifndef OSPROF_COLLECT_USER_ELF_H
#define OSPROF_COLLECT_USER_ELF_H

#include <stddef.h>

/* Finds CMD as execvp would (PATH search unless it contains '/'). 0 or -1. */
int osp_elf_resolve(const char *cmd, char *out, size_t len);
/* 1: ELF executable without PT_INTERP (static or static-pie); 0: dynamic, or
 * a script whose interpreter is dynamic; -1: cannot tell. */
int osp_elf_is_static(const char *path);

#endif
