#include "lib/escape.h"

void osp_escape_write(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p <= ' ' || *p >= 0x7f || *p == '%' || *p == '=')
			fprintf(f, "%%%02X", *p);
		else
			fputc(*p, f);
	}
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int osp_unescape(char *s)
{
	char *w = s;
	for (char *r = s; *r; r++) {
		if (*r != '%') {
			*w++ = *r;
			continue;
		}
		int hi = hexval(r[1]), lo = hi < 0 ? -1 : hexval(r[2]);
		if (hi < 0 || lo < 0 || (hi | lo) == 0)
			return -1;
		*w++ = (char)(hi * 16 + lo);
		r += 2;
	}
	*w = '\0';
	return 0;
}
