/* Host facts stamped into every profile set, so a file read elsewhere still
 * says where and when it was measured. */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <osprof/clock.h>
#include <osprof/profile.h>

static void cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "model name", 10)) {
			char *c = strchr(line, ':');
			if (c) {
				c += 1 + (c[1] == ' ');
				c[strcspn(c, "\n")] = '\0';
				snprintf(buf, len, "%s", c);
			}
			break;
		}
	fclose(f);
}

void osp_set_stamp_host(struct osp_set *s)
{
	struct utsname u;
	char cpu[256];
	if (!uname(&u)) {
		osp_set_meta(s, "host", u.nodename);
		osp_set_metaf(s, "kernel", "%s %s", u.release, u.machine);
	}
	cpu_model(cpu, sizeof(cpu));
	osp_set_meta(s, "cpu", cpu);
	osp_set_metaf(s, "cpus", "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	osp_set_metaf(s, "start_wall_ns", "%llu", (unsigned long long)osp_wall_ns());
	osp_set_meta(s, "unit", "ns");
	osp_set_meta(s, "clock", "CLOCK_MONOTONIC");
}
