/* The option layer (cli/options.c): parsing, value errors, --help. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "cli/options.h"

/* Runs fn with stderr (or stdout) caught into buf. */
static void capture(int fd, char *buf, size_t len, int (*fn)(void *), void *ctx, int *rc)
{
	FILE *tmp = tmpfile();
	fflush(NULL);
	int saved = dup(fd);
	dup2(fileno(tmp), fd);
	*rc = fn(ctx);
	fflush(NULL);
	dup2(saved, fd);
	close(saved);
	rewind(tmp);
	size_t n = fread(buf, 1, len - 1, tmp);
	buf[n] = '\0';
	fclose(tmp);
}

struct vals {
	int json, verbose, unit;
	unsigned depth;
	unsigned top;
	double pct;
	uint64_t dur, size;
	const char *out, *by;
	struct osp_pids pids;
	int next;
};

static const char *const dims[] = {"pid", "comm", "fs", NULL};

static int parse_with(struct vals *v, int in_order, int argc, char **argv)
{
	struct osp_option opts[] = {
	    OSP_OPT_FLAG(0, "json", &v->json, "NDJSON output"),
	    OSP_OPT_COUNT('v', "verbose", &v->verbose, "say more"),
	    OSP_OPT_SET('n', "nsecs", &v->unit, 1, "nanoseconds"),
	    OSP_OPT_SET('u', "usecs", &v->unit, 1000, "microseconds"),
	    OSP_OPT_UINT('t', "top", &v->top, 1, 1000, "a positive number", "N",
	                 "the first N\nprofiles only"),
	    OSP_OPT_PERCENT(0, "min-share", &v->pct, "PCT", "share"),
	    OSP_OPT_UINT(0, "max-depth", &v->depth, 1, 30, NULL, "N", NULL),
	    OSP_OPT_GROUP("Output:"),
	    OSP_OPT_DURATION('d', "duration", &v->dur, "DUR", "stop after DUR"),
	    OSP_OPT_SIZE('C', "rotate-size", &v->size, 1 << 20, NULL, "MB", "segment size"),
	    OSP_OPT_STRING('o', "output", &v->out, "FILE", "where to write"),
	    OSP_OPT_CHOICE(0, "by", &v->by, dims, "DIM", "split"),
	    OSP_OPT_PIDS('p', "pid", &v->pids, "PID[,PID]", "processes"),
	    OSP_OPT_END,
	};
	struct osp_opts_spec spec = {.cmd = "test",
	                             .head = "usage: test\n\nOptions:\n",
	                             .tail = "Tail.\n",
	                             .in_order = in_order};
	memset(v, 0, sizeof(*v));
	return osp_opts_parse(&spec, opts, argc, argv, &v->next);
}

struct call {
	struct vals v;
	int argc;
	char **argv;
	int in_order;
};

static int run_call(void *ctx)
{
	struct call *c = ctx;
	return parse_with(&c->v, c->in_order, c->argc, c->argv);
}

#define ARGS(...)  ((char *[]){"test", __VA_ARGS__, NULL})
#define NARGS(...) ((int)(sizeof((char *[]){"test", __VA_ARGS__}) / sizeof(char *)))

static int call(struct call *c, int in_order, int argc, char **argv, char *err, size_t len)
{
	int rc;
	c->argc = argc;
	c->argv = argv;
	c->in_order = in_order;
	capture(2, err, len, run_call, c, &rc);
	return rc;
}

static void test_values(void)
{
	struct call c;
	char err[512];
	char **a = ARGS("--json", "-vv", "--top=5", "--min-share", "2.5", "-d10ms", "-C", "2",
	                "--output", "x.osp", "--by", "comm", "-p", "1,2", "-p3", "FILE");
	CHECK(call(&c, 0,
	           NARGS("--json", "-vv", "--top=5", "--min-share", "2.5", "-d10ms", "-C", "2",
	                 "--output", "x.osp", "--by", "comm", "-p", "1,2", "-p3", "FILE"),
	           a, err, sizeof(err)) == 0);
	CHECK(c.v.json == 1 && c.v.verbose == 2 && c.v.top == 5);
	CHECK(c.v.pct > 0.0249 && c.v.pct < 0.0251);
	CHECK_EQ_U64(c.v.dur, 10000000);
	CHECK_EQ_U64(c.v.size, 2 << 20);
	CHECK_STR(c.v.out, "x.osp");
	CHECK_STR(c.v.by, "comm");
	CHECK(c.v.pids.n == 3 && c.v.pids.v[0] == 1 && c.v.pids.v[2] == 3);
	CHECK_STR(a[c.v.next], "FILE");
	free(c.v.pids.v);
	/* sizes with a unit; unique prefixes of long names */
	CHECK(call(&c, 0, 5, ARGS("-C", "512K", "--to", "7"), err, sizeof(err)) == 0);
	CHECK_EQ_U64(c.v.size, 512 << 10);
	CHECK(c.v.top == 7);
	/* a percentage may carry its sign */
	CHECK(call(&c, 0, 3, ARGS("--min-share", "0.5%"), err, sizeof(err)) == 0);
	CHECK(c.v.pct > 0.00499 && c.v.pct < 0.00501);
}

static void test_order(void)
{
	struct call c;
	char err[512];
	/* permutation: options after FILE still count */
	char **a = ARGS("FILE", "--json");
	CHECK(call(&c, 0, 3, a, err, sizeof(err)) == 0 && c.v.json == 1);
	CHECK_STR(a[c.v.next], "FILE");
	/* in order: the first non-option starts a command line */
	a = ARGS("-v", "cmd", "--json");
	CHECK(call(&c, 1, 4, a, err, sizeof(err)) == 0 && c.v.verbose == 1 && !c.v.json);
	CHECK_STR(a[c.v.next], "cmd");
	/* "--" ends the options */
	a = ARGS("--", "--json");
	CHECK(call(&c, 0, 3, a, err, sizeof(err)) == 0 && !c.v.json);
	CHECK_STR(a[c.v.next], "--json");
}

static void test_errors(void)
{
	static const struct {
		const char *arg, *val, *msg;
	} bad[] = {
	    {"--top", "0", "osprof test: -t/--top: '0' is not a positive number\n"},
	    {"--top", "1x", "osprof test: -t/--top: '1x' is not a positive number\n"},
	    {"--min-share", "101",
	     "osprof test: --min-share: '101' is not a percentage in 0..100\n"},
	    {"--min-share", "5%%",
	     "osprof test: --min-share: '5%%' is not a percentage in 0..100\n"},
	    {"--min-share", "%", "osprof test: --min-share: '%' is not a percentage in 0..100\n"},
	    {"-d", "soon", "osprof test: -d/--duration: 'soon' is not a duration\n"},
	    {"-C", "0", "osprof test: -C/--rotate-size: '0' is not a size\n"},
	    {"-C", "2X", "osprof test: -C/--rotate-size: '2X' is not a size\n"},
	    {"--by", "tid", "osprof test: --by: 'tid' is not one of pid, comm, fs\n"},
	    {"-p", "1,x", "osprof test: -p/--pid: 'x' is not a process id\n"},
	    {"--max-depth", "31", "osprof test: --max-depth: '31' is not an integer in 1..30\n"},
	    {"--nosuch", NULL, "osprof test: unknown option '--nosuch'\n"},
	    {"-x", NULL, "osprof test: unknown option '-x'\n"},
	    {"--top", "", NULL},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct call c;
		char err[512];
		char *argv[] = {"test", (char *)bad[i].arg, (char *)bad[i].val, NULL};
		int argc = bad[i].val && *bad[i].val ? 3 : 2;
		CHECK(call(&c, 0, argc, argv, err, sizeof(err)) == 2);
		free(c.v.pids.v); /* "-p 1,x": 1 was taken before x was refused */
		char want[256];
		snprintf(want, sizeof(want), "%sTry 'osprof test --help'.\n",
		         bad[i].msg ? bad[i].msg : "osprof test: -t/--top needs an argument\n");
		CHECK_STR(err, want);
	}
	struct call c;
	char err[512];
	CHECK(call(&c, 0, 3, ARGS("-n", "-u"), err, sizeof(err)) == 0 && c.v.unit == 1000);
}

static int run_help(void *ctx)
{
	struct call *c = ctx;
	return parse_with(&c->v, 0, 2, ARGS("--help"));
}

static void test_usage(void)
{
	struct call c;
	char out[2048];
	int rc;
	capture(1, out, sizeof(out), run_help, &c, &rc);
	CHECK(rc == OSP_OPTS_HELP);
	CHECK_STR(out, "usage: test\n\nOptions:\n"
	               "      --json            NDJSON output\n"
	               "  -v, --verbose         say more\n"
	               "  -n, --nsecs           nanoseconds\n"
	               "  -u, --usecs           microseconds\n"
	               "  -t, --top N           the first N\n"
	               "                        profiles only\n"
	               "      --min-share PCT   share\n"
	               "Output:\n"
	               "  -d, --duration DUR    stop after DUR\n"
	               "  -C, --rotate-size MB  segment size\n"
	               "  -o, --output FILE     where to write\n"
	               "      --by DIM          split\n"
	               "  -p, --pid PID[,PID]   processes\n"
	               "  -h, --help            this text\n"
	               "Tail.\n");
}

int main(void)
{
	RUN(test_values);
	RUN(test_order);
	RUN(test_errors);
	RUN(test_usage);
	CHECK_EXIT();
}
