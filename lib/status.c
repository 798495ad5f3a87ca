/* One-line messages of the osprof commands (include/osprof/status.h). */
#include <stdarg.h>
#include <stdio.h>
#include <osprof/status.h>

void osp_err(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("osprof: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

int osp_usage_err(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "osprof %s: ", cmd);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\nTry 'osprof %s --help'.\n", cmd);
	va_end(ap);
	return OSP_EXIT_USAGE;
}
