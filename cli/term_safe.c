/* Terminal-safe standard streams. Text printed from files (metadata, dims,
 * op names, error messages quoting a line) and from the live system (a
 * process can name itself ESC[2J) must not reach the user's terminal as
 * control sequences: osprof runs as root, and escape sequences can retitle
 * windows, clear screens or, on some terminals, inject input. Rather than
 * escape at each of the hundreds of print sites, stdout and stderr are
 * replaced by streams that write C0 controls (except newline and tab), DEL
 * and the C1 controls (UTF-8 C2 80..C2 9F) as \xNN. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cli/term_safe.h"

struct safe_fd {
	int fd;
	int held_c2; /* a 0xC2 ending the last buffer: its pair is undecided */
};

static int put_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int is_c0(unsigned char c)
{
	return (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f;
}

static ssize_t safe_write(void *cookie, const char *buf, size_t size)
{
	struct safe_fd *s = cookie;
	char out[4096 * 4 + 8];
	size_t o = 0;
	for (size_t i = 0; i < size; i++) {
		unsigned char c = (unsigned char)buf[i];
		if (s->held_c2) {
			s->held_c2 = 0;
			if (c >= 0x80 && c <= 0x9f) {
				o += (size_t)snprintf(out + o, 9, "\\xc2\\x%02x", c);
				goto next;
			}
			out[o++] = (char)0xc2;
		}
		if (c == 0xc2)
			s->held_c2 = 1;
		else if (is_c0(c))
			o += (size_t)snprintf(out + o, 5, "\\x%02x", c);
		else
			out[o++] = (char)c;
	next:
		if (o > sizeof(out) - 9) {
			if (put_all(s->fd, out, o))
				return 0;
			o = 0;
		}
	}
	if (o && put_all(s->fd, out, o))
		return 0;
	return (ssize_t)size;
}

static int safe_close(void *cookie)
{
	struct safe_fd *s = cookie;
	if (s->held_c2)
		return put_all(s->fd, "\xc2", 1);
	return 0;
}

static FILE *wrap(FILE *orig, struct safe_fd *s, int buffered)
{
	fflush(orig);
	cookie_io_functions_t io = {.write = safe_write, .close = safe_close};
	FILE *f = fopencookie(s, "w", io);
	if (!f)
		return orig;
	/* stdout: line-buffered on a terminal, as before; stderr unbuffered,
	 * so messages keep their order with the child's output */
	setvbuf(f, NULL, !buffered ? _IONBF : isatty(s->fd) ? _IOLBF : _IOFBF, 0);
	return f;
}

void osp_term_safe_streams(int protect_stdout)
{
	static struct safe_fd out = {STDOUT_FILENO, 0}, err = {STDERR_FILENO, 0};
	if (protect_stdout)
		stdout = wrap(stdout, &out, 1);
	stderr = wrap(stderr, &err, 0);
}
