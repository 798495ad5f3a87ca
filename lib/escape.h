/* Percent-escaping of tokens in the .osp text format: every byte outside
 * '!'..'~', and '%' and '=', is written as %XX, so a token never contains
 * white space and a value can hold anything. */
#ifndef OSPROF_LIB_ESCAPE_H
#define OSPROF_LIB_ESCAPE_H

#include <stdio.h>

void osp_escape_write(FILE *f, const char *s);
/* Decodes s in place; -1 on a malformed %XX or a decoded NUL. */
int osp_unescape(char *s);

#endif
