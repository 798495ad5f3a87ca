/* Host facts stamped into every segment header (seed 004's trace manager). */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <osprof/clock.h>
#include "trace/internal.h"

static void probe_disks(char *out, size_t len)
{
	DIR *d = opendir("/sys/block");
	size_t n = 0;
	out[0] = 0;
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !strncmp(de->d_name, "loop", 4) ||
		    !strncmp(de->d_name, "ram", 3))
			continue;
		char path[300];
		unsigned long long sectors = 0;
		snprintf(path, sizeof(path), "/sys/block/%s/size", de->d_name);
		FILE *f = fopen(path, "r");
		if (f) {
			if (fscanf(f, "%llu", &sectors) != 1)
				sectors = 0;
			fclose(f);
		}
		int k = snprintf(out + n, len - n, "%s%s:%llu", n ? " " : "", de->d_name,
		                 sectors * 512);
		if (k < 0 || (size_t)k >= len - n) {
			out[n] = 0;
			break;
		}
		n += (size_t)k;
	}
	closedir(d);
}

void osp_trace_host_probe(struct osp_trace_host *h)
{
	struct utsname u;
	struct sysinfo si;
	memset(h, 0, sizeof(*h));
	if (gethostname(h->hostname, sizeof(h->hostname) - 1) < 0)
		strcpy(h->hostname, "unknown");
	if (uname(&u) == 0)
		snprintf(h->kernel, sizeof(h->kernel), "%s %s %s", u.sysname, u.release, u.machine);
	long c = sysconf(_SC_NPROCESSORS_ONLN);
	h->cpus = c > 0 ? (unsigned)c : 0;
	if (sysinfo(&si) == 0)
		h->mem_bytes = (uint64_t)si.totalram * si.mem_unit;
	probe_disks(h->disks, sizeof(h->disks));
	h->start_wall_ns = osp_wall_ns();
	h->start_mono_ns = osp_now_ns();
}

/* Values are single-line: newlines would break the key=value framing. */
static void clean(char *s)
{
	for (; *s; s++)
		if (*s == '\n' || *s == '\r')
			*s = ' ';
}

size_t ospt_host_format(const struct osp_trace_host *h0, char *buf, size_t len)
{
	struct osp_trace_host h = *h0;
	clean(h.hostname), clean(h.kernel), clean(h.disks), clean(h.target), clean(h.attach);
	int n = snprintf(buf, len,
	                 "version=%d\nhostname=%s\nkernel=%s\ncpus=%u\nmem_bytes=%" PRIu64
	                 "\ndisks=%s\nstart_wall_ns=%" PRIu64 "\nstart_mono_ns=%" PRIu64
	                 "\ntarget=%s\nseq=%u\nattach=%s\n",
	                 OSP_TRACE_VERSION, h.hostname, h.kernel, h.cpus, h.mem_bytes, h.disks,
	                 h.start_wall_ns, h.start_mono_ns, h.target, h.seq, h.attach);
	return n < 0 ? 0 : (size_t)n >= len ? len - 1 : (size_t)n;
}

static void copy_field(char *dst, size_t cap, const char *v, size_t vl)
{
	if (vl >= cap)
		vl = cap - 1;
	memcpy(dst, v, vl);
	dst[vl] = 0;
}

int ospt_host_parse(const char *text, size_t len, struct osp_trace_host *h)
{
	memset(h, 0, sizeof(*h));
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *eq = memchr(p, '=', (size_t)(le - p));
		if (!eq)
			return -1;
		size_t kl = (size_t)(eq - p), vl = (size_t)(le - eq - 1);
		const char *v = eq + 1;
		char num[32];
		copy_field(num, sizeof(num), v, vl);
#define KEY(k) (kl == sizeof(k) - 1 && !memcmp(p, k, kl))
		if (KEY("hostname"))
			copy_field(h->hostname, sizeof(h->hostname), v, vl);
		else if (KEY("kernel"))
			copy_field(h->kernel, sizeof(h->kernel), v, vl);
		else if (KEY("disks"))
			copy_field(h->disks, sizeof(h->disks), v, vl);
		else if (KEY("target"))
			copy_field(h->target, sizeof(h->target), v, vl);
		else if (KEY("attach"))
			copy_field(h->attach, sizeof(h->attach), v, vl);
		else if (KEY("cpus"))
			h->cpus = (unsigned)strtoul(num, NULL, 10);
		else if (KEY("mem_bytes"))
			h->mem_bytes = strtoull(num, NULL, 10);
		else if (KEY("start_wall_ns"))
			h->start_wall_ns = strtoull(num, NULL, 10);
		else if (KEY("start_mono_ns"))
			h->start_mono_ns = strtoull(num, NULL, 10);
		else if (KEY("seq"))
			h->seq = (unsigned)strtoul(num, NULL, 10);
		else if (KEY("version") && strtoul(num, NULL, 10) != OSP_TRACE_VERSION)
			return -2;
#undef KEY
		p = le + 1;
	}
	return 0;
}
