/* Where osprof finds the libraries it preloads into other programs. */
#ifndef OSPROF_COLLECT_HELPER_PATH_H
#define OSPROF_COLLECT_HELPER_PATH_H

#include <stddef.h>

/* The private directory of an installed osprof, relative to its binary
 * (PREFIX/bin/osprof -> PREFIX/lib/osprof), so a relocated tree still works. */
#define OSP_HELPER_RELDIR "../lib/osprof"

/* Looks for NAME next to this osprof binary (the build tree), then in
 * OSP_HELPER_RELDIR from it (the installed layout). Writes the first readable
 * candidate to OUT, or the first one tried when none is, and returns 0 or
 * -errno of that first candidate. */
int osp_helper_path(const char *name, char *out, size_t len);

#endif
