/* The option layer of every osprof command: a table per command (after git's
 * parse-options and perf's subcmd/parse-options) from which argv is parsed
 * (getopt_long underneath, so --opt=val, --opt val, -xVAL, bundled short
 * flags, unique prefixes of long names, "--" and argument permutation behave
 * as users know them) and the option list of --help is printed. The value
 * parsers (numbers with ranges, percentages, durations, sizes, pid lists,
 * choices) live here once, each error one line naming the flag and the
 * value. */
#ifndef OSPROF_CLI_OPTIONS_H
#define OSPROF_CLI_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

enum osp_opt_kind {
	OSP_OPTK_END = 0,
	OSP_OPTK_FLAG,     /* stores .set (an integer of any width) */
	OSP_OPTK_COUNT,    /* adds 1 (-v -v) */
	OSP_OPTK_STRING,   /* const char *: the last one given */
	OSP_OPTK_UINT,     /* an unsigned integer of any width in [min, max] */
	OSP_OPTK_DOUBLE,   /* double in [min, max] */
	OSP_OPTK_PERCENT,  /* double: PCT in [0, 100] stored as PCT/100 */
	OSP_OPTK_DURATION, /* uint64_t ns > 0: 10ms, 2s, 250 (seconds) */
	OSP_OPTK_SIZE,     /* uint64_t bytes > 0: a number of .scale bytes, or K/M/G */
	OSP_OPTK_PIDS,     /* struct osp_pids: PID[,PID...], appended */
	OSP_OPTK_CHOICE,   /* const char *: one of .choices (the table's string) */
	OSP_OPTK_CALL,     /* .call(cmd, flag, arg, value) */
	OSP_OPTK_GROUP,    /* no option: .help is a heading line in --help */
	OSP_OPTK_INCLUDE,  /* no option: .value is another table, parsed as part of this one */
};

/* One option. Build entries with the OSP_OPT_* macros below. */
struct osp_option {
	enum osp_opt_kind kind;
	char short_name;            /* 0: long only */
	const char *long_name;      /* NULL: short only */
	void *value;                /* where the value goes */
	size_t size;                /* sizeof(*value) for FLAG, COUNT and UINT */
	const char *arg;            /* placeholder in --help: N, DUR, FILE (NULL for flags) */
	const char *help;           /* lines separated by '\n' (indented to the help column) */
	double min, max;            /* UINT, DOUBLE ranges */
	long long set;              /* FLAG: the value stored */
	uint64_t scale;             /* SIZE: bytes of a bare number */
	const char *what;           /* error: "'ARG' is not WHAT" (NULL: the kind's own) */
	const char *const *choices; /* CHOICE: NULL-terminated */
	int (*call)(const char *cmd, const char *flag, const char *arg, void *value);
	int exclusive; /* FLAG: another FLAG of the same value with another .set is an error */
};

/* UINT without an upper bound (of its own). */
#define OSP_OPT_NOMAX 1e18

/* -p PID[,PID]: the process ids in the order given. */
struct osp_pids {
	pid_t *v;
	size_t n;
};

/* An entry of kind k; the rest are designated initializers. */
#define OSP_OPT_ENTRY(k, s, l, v, a, h, ...)                                                       \
	{                                                                                          \
		.kind = k, .short_name = s, .long_name = l, .value = v, .arg = a, .help = h,       \
		__VA_ARGS__                                                                        \
	}

#define OSP_OPT_FLAG(s, l, v, h) OSP_OPT_SET(s, l, v, 1, h)
#define OSP_OPT_SET(s, l, v, n, h)                                                                 \
	OSP_OPT_ENTRY(OSP_OPTK_FLAG, s, l, v, NULL, h, .size = sizeof(*(v)), .set = n)
/* FLAGs of one value v that exclude each other (--json, --csv) */
#define OSP_OPT_ONE_OF(s, l, v, n, h)                                                              \
	OSP_OPT_ENTRY(OSP_OPTK_FLAG, s, l, v, NULL, h, .size = sizeof(*(v)), .set = n,             \
	              .exclusive = 1)
#define OSP_OPT_COUNT(s, l, v, h)                                                                  \
	OSP_OPT_ENTRY(OSP_OPTK_COUNT, s, l, v, NULL, h, .size = sizeof(*(v)))
#define OSP_OPT_STRING(s, l, v, a, h) OSP_OPT_ENTRY(OSP_OPTK_STRING, s, l, v, a, h)
#define OSP_OPT_UINT(s, l, v, lo, hi, w, a, h)                                                     \
	OSP_OPT_ENTRY(OSP_OPTK_UINT, s, l, v, a, h, .size = sizeof(*(v)), .min = lo, .max = hi,    \
	              .what = w)
#define OSP_OPT_DOUBLE(s, l, v, lo, hi, w, a, h)                                                   \
	OSP_OPT_ENTRY(OSP_OPTK_DOUBLE, s, l, v, a, h, .min = lo, .max = hi, .what = w)
#define OSP_OPT_PERCENT(s, l, v, a, h)  OSP_OPT_ENTRY(OSP_OPTK_PERCENT, s, l, v, a, h)
#define OSP_OPT_DURATION(s, l, v, a, h) OSP_OPT_ENTRY(OSP_OPTK_DURATION, s, l, v, a, h)
/* a bare number counts unit bytes; w names the value in errors (or NULL) */
#define OSP_OPT_SIZE(s, l, v, unit, w, a, h)                                                       \
	OSP_OPT_ENTRY(OSP_OPTK_SIZE, s, l, v, a, h, .scale = unit, .what = w)
#define OSP_OPT_PIDS(s, l, v, a, h)      OSP_OPT_ENTRY(OSP_OPTK_PIDS, s, l, v, a, h)
#define OSP_OPT_CHOICE(s, l, v, c, a, h) OSP_OPT_ENTRY(OSP_OPTK_CHOICE, s, l, v, a, h, .choices = c)
#define OSP_OPT_CALL(s, l, v, fn, a, h)  OSP_OPT_ENTRY(OSP_OPTK_CALL, s, l, v, a, h, .call = fn)
#define OSP_OPT_GROUP(h)                                                                           \
	{                                                                                          \
		.kind = OSP_OPTK_GROUP, .help = h                                                  \
	}
#define OSP_OPT_INCLUDE(t)                                                                         \
	{                                                                                          \
		.kind = OSP_OPTK_INCLUDE, .value = (void *)(t)                                     \
	}
#define OSP_OPT_END                                                                                \
	{                                                                                          \
		.kind = OSP_OPTK_END                                                               \
	}

/* A command's options and the prose of its --help around the option list. */
struct osp_opts_spec {
	const char *cmd;  /* "report", "trace record": messages say "osprof CMD: " */
	const char *head; /* usage line(s), description, and the list's heading */
	const char *tail; /* after the list (examples, exit status); may be NULL */
	const struct osp_option *opts;
	int in_order;        /* stop at the first non-option (it starts a command line) */
	int short_in_errors; /* messages name a flag "-x", not "-x/--long" (trace record's) */
	/* With args_error: min_args..max_args (-1: any number) arguments are
	 * left after the options, else args_error is the usage error. */
	int min_args, max_args;
	const char *args_error;
};
#define OSP_ARGS(lo, hi, error) .min_args = lo, .max_args = hi, .args_error = error
#define OSP_ARGS_ONE_FILE       OSP_ARGS(1, 1, "expected one FILE")

/* What osp_opts_parse returns after printing --help. */
enum { OSP_OPTS_HELP = -1 };

/* Parses argv[1..] (argv[0] is the command's name); *next is the index of
 * the first argument left. Returns 0, OSP_OPTS_HELP after printing --help
 * (-h and --help are every command's), or OSP_EXIT_USAGE after one line
 * naming the flag (and the value). */
int osp_opts_parse(const struct osp_opts_spec *spec, const struct osp_option *opts, int argc,
                   char **argv, int *next);
/* 0 after OSP_OPTS_HELP, else rc: a command's return after a parse. */
static inline int osp_opts_exit(int rc)
{
	return rc == OSP_OPTS_HELP ? 0 : rc;
}
/* A command's step after its table: parse (osp_opts_parse,
 * osp_collect_parse) and return from the command unless it goes on: 0
 * after --help, else the usage error's status. */
#define OSP_PARSE_OR_RETURN(parse)                                                                 \
	do {                                                                                       \
		int parse_rc_ = (parse);                                                           \
		if (parse_rc_)                                                                     \
			return osp_opts_exit(parse_rc_);                                           \
	} while (0)

/* --help: head, the generated option list, tail. */
void osp_opts_usage(FILE *out, const struct osp_opts_spec *spec, const struct osp_option *opts);

/* The parsers behind the kinds, for values that are not options (positional
 * arguments, list items): 0 or -1. */
int osp_opt_parse_uint(const char *arg, double min, double max, unsigned long long *v);
int osp_opt_parse_double(const char *arg, double min, double max, double *v);
int osp_opt_parse_size(const char *arg, uint64_t scale, uint64_t *bytes);

/* Calls fn on each comma-separated item of arg (empty items skipped) until
 * one returns non-zero, which is returned. */
int osp_opt_each(const char *arg, int (*fn)(const char *item, void *ctx), void *ctx);

#endif
