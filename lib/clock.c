/* Duration parsing and formatting shared by the CLI and the renderers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <osprof/clock.h>

int osp_parse_duration(const char *s, uint64_t *ns)
{
	static const struct {
		const char *suffix;
		double mult;
	} units[] = {{"ns", 1},   {"us", 1e3},   {"ms", 1e6}, {"s", 1e9},
	             {"m", 60e9}, {"h", 3600e9}, {"", 1e9}};
	char *end;
	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || v < 0)
		return -EINVAL;
	for (unsigned i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].suffix)) {
			double r = v * units[i].mult;
			if (r >= 1.8e19)
				return -EINVAL;
			*ns = (uint64_t)(r + 0.5);
			return 0;
		}
	return -EINVAL;
}

char *osp_format_ns(uint64_t ns, char *buf, unsigned len)
{
	if (ns < 1000)
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.2f us", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.2f ms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.2f s", (double)ns / 1e9);
	return buf;
}
