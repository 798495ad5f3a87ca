/* The table-driven option parser and --help generator (cli/options.h). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <osprof/clock.h>
#include <osprof/status.h>
#include "cli/options.h"

#define MAX_OPTS 64

/* the parse in progress names flags by their short letter alone */
static int short_only;

/* The table with its INCLUDEs expanded, in order, plus the help column. */
struct flat {
	const struct osp_option *o[MAX_OPTS];
	int n;
};

static void flatten(const struct osp_option *t, struct flat *f)
{
	for (; t->kind != OSP_OPTK_END; t++) {
		if (t->kind == OSP_OPTK_INCLUDE)
			flatten(t->value, f);
		else if (f->n < MAX_OPTS)
			f->o[f->n++] = t;
		else
			abort(); /* a table larger than any command has: a programming error */
	}
}

/* "-x/--long", "--long" or "-x" into buf. */
static const char *flag_name(const struct osp_option *o, char *buf, size_t len)
{
	if (o->short_name && (short_only || !o->long_name))
		snprintf(buf, len, "-%c", o->short_name);
	else if (o->short_name)
		snprintf(buf, len, "-%c/--%s", o->short_name, o->long_name);
	else
		snprintf(buf, len, "--%s", o->long_name);
	return buf;
}

static void store_int(void *v, size_t size, long long x)
{
	switch (size) {
	case 1:
		*(int8_t *)v = (int8_t)x;
		break;
	case 2:
		*(int16_t *)v = (int16_t)x;
		break;
	case 4:
		*(int32_t *)v = (int32_t)x;
		break;
	default:
		*(int64_t *)v = (int64_t)x;
		break;
	}
}

static long long load_int(const void *v, size_t size)
{
	switch (size) {
	case 1:
		return *(const int8_t *)v;
	case 2:
		return *(const int16_t *)v;
	case 4:
		return *(const int32_t *)v;
	default:
		return *(const int64_t *)v;
	}
}

int osp_opt_parse_uint(const char *arg, double min, double max, unsigned long long *v)
{
	char *end;
	if (!*arg || *arg == '-' || *arg == '+' || *arg == ' ')
		return -1;
	errno = 0;
	*v = strtoull(arg, &end, 10);
	return *end || errno || (double)*v < min || (double)*v > max ? -1 : 0;
}

int osp_opt_parse_double(const char *arg, double min, double max, double *v)
{
	char *end;
	*v = strtod(arg, &end);
	return end == arg || *end || !isfinite(*v) || *v < min || *v > max ? -1 : 0;
}

/* "0.5" or "0.5%" as the fraction 0.005. */
static int parse_percent(const char *arg, double *v)
{
	char num[64];
	size_t n = strlen(arg);
	if (n && arg[n - 1] == '%')
		n--;
	if (n >= sizeof(num))
		return -1;
	memcpy(num, arg, n);
	num[n] = 0;
	if (osp_opt_parse_double(num, 0, 100, v))
		return -1;
	*v /= 100;
	return 0;
}

int osp_opt_parse_size(const char *arg, uint64_t scale, uint64_t *bytes)
{
	static const char units[] = "KMG";
	char *end;
	double v = strtod(arg, &end);
	if (end == arg || !(v > 0) || !isfinite(v))
		return -1;
	const char *u = *end ? strchr(units, *end) : NULL;
	if (u) {
		scale = 1ull << (10 * (u - units + 1));
		end++;
		if (!strcmp(end, "iB") || !strcmp(end, "B"))
			end += strlen(end);
	}
	double b = v * (double)scale;
	if (*end || b > 1e15)
		return -1;
	*bytes = (uint64_t)llround(b);
	return *bytes ? 0 : -1;
}

int osp_opt_each(const char *arg, int (*fn)(const char *item, void *ctx), void *ctx)
{
	char *copy = strdup(arg), *save, *tok;
	int rc = 0;
	if (!copy)
		abort();
	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save))
		rc = fn(tok, ctx);
	free(copy);
	return rc;
}

struct pid_ctx {
	struct osp_pids *p;
	const char *bad;
	char item[32];
};

static int add_pid(const char *item, void *vctx)
{
	struct pid_ctx *c = vctx;
	unsigned long long v;
	if (osp_opt_parse_uint(item, 1, 4194304, &v)) {
		snprintf(c->item, sizeof(c->item), "%s", item);
		return -1;
	}
	pid_t *grown = realloc(c->p->v, (c->p->n + 1) * sizeof(*grown));
	if (!grown)
		abort();
	c->p->v = grown;
	c->p->v[c->p->n++] = (pid_t)v;
	return 0;
}

/* "is not one of a, b, c" ("is not 'a'", "is not a or b"). */
static int choice_err(const char *cmd, const char *flag, const struct osp_option *o,
                      const char *arg)
{
	char list[256] = "";
	size_t n = 0;
	while (o->choices[n])
		n++;
	for (size_t i = 0; i < n; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
		         !i       ? ""
		         : n == 2 ? " or "
		                  : ", ",
		         o->choices[i]);
	if (n == 1)
		return osp_usage_err(cmd, "%s: '%s' is not '%s'", flag, arg, list);
	return osp_usage_err(cmd, "%s: '%s' is not %s%s", flag, arg, n > 2 ? "one of " : "", list);
}

/* Stores the value of one option; 0 or OSP_EXIT_USAGE after the message. */
static int take(const char *cmd, const struct osp_option *o, const char *arg)
{
	char flag[64];
	flag_name(o, flag, sizeof(flag));
	unsigned long long u;
	const char *what = o->what;
	char range[64] = "";
	switch (o->kind) {
	case OSP_OPTK_FLAG:
		store_int(o->value, o->size, o->set);
		return 0;
	case OSP_OPTK_COUNT:
		store_int(o->value, o->size, load_int(o->value, o->size) + 1);
		return 0;
	case OSP_OPTK_STRING:
		*(const char **)o->value = arg;
		return 0;
	case OSP_OPTK_UINT:
		if (!osp_opt_parse_uint(arg, o->min, o->max, &u)) {
			store_int(o->value, o->size, (long long)u);
			return 0;
		}
		if (!what && o->max < OSP_OPT_NOMAX)
			snprintf(range, sizeof(range), "an integer in %.0f..%.0f", o->min, o->max);
		else if (!what && o->min > 0)
			snprintf(range, sizeof(range), "an integer >= %.0f", o->min);
		what = what ? what : *range ? range : NULL;
		break;
	case OSP_OPTK_DOUBLE:
		if (!osp_opt_parse_double(arg, o->min, o->max, o->value))
			return 0;
		break;
	case OSP_OPTK_PERCENT:
		if (!parse_percent(arg, o->value))
			return 0;
		what = what ? what : "a percentage in 0..100";
		break;
	case OSP_OPTK_DURATION:
		if (!osp_parse_duration(arg, o->value) && *(uint64_t *)o->value)
			return 0;
		what = what ? what : "a duration";
		break;
	case OSP_OPTK_SIZE:
		if (!osp_opt_parse_size(arg, o->scale, o->value))
			return 0;
		what = what ? what : "a size";
		break;
	case OSP_OPTK_PIDS: {
		struct pid_ctx c = {.p = o->value};
		if (!osp_opt_each(arg, add_pid, &c))
			return 0;
		return osp_usage_err(cmd, "%s: '%s' is not a process id", flag, c.item);
	}
	case OSP_OPTK_CHOICE:
		for (const char *const *c = o->choices; *c; c++)
			if (!strcmp(*c, arg)) {
				*(const char **)o->value = *c;
				return 0;
			}
		return choice_err(cmd, flag, o, arg);
	case OSP_OPTK_CALL:
		return o->call(cmd, flag, arg, o->value);
	default:
		return 0;
	}
	return osp_usage_err(cmd, "%s: '%s' is not %s", flag, arg, what ? what : "a count");
}

/* An exclusive FLAG whose value already holds another choice. */
static int excluded(const char *cmd, const struct flat *f, const struct osp_option *o)
{
	long long cur = load_int(o->value, o->size);
	if (!o->exclusive || !cur || cur == o->set)
		return 0;
	char a[64] = "?", b[64];
	for (int i = 0; i < f->n; i++)
		if (f->o[i]->value == o->value && f->o[i]->kind == OSP_OPTK_FLAG &&
		    f->o[i]->set == cur)
			flag_name(f->o[i], a, sizeof(a));
	return osp_usage_err(cmd, "%s and %s exclude each other", a, flag_name(o, b, sizeof(b)));
}

/* getopt_long's tables from the flat list: long option i has val 256 + i. */
static void getopt_tables(const struct flat *f, int in_order, struct option *lo, char *so)
{
	int nl = 0;
	char *s = so;
	*s++ = in_order ? '+' : ':';
	if (in_order)
		*s++ = ':';
	for (int i = 0; i < f->n; i++) {
		const struct osp_option *o = f->o[i];
		int has_arg = o->kind != OSP_OPTK_FLAG && o->kind != OSP_OPTK_COUNT;
		if (o->kind == OSP_OPTK_GROUP)
			continue;
		if (o->short_name) {
			*s++ = o->short_name;
			if (has_arg)
				*s++ = ':';
		}
		if (o->long_name)
			lo[nl++] = (struct option){
			    o->long_name, has_arg ? required_argument : no_argument, NULL, 256 + i};
	}
	*s++ = 'h';
	*s = '\0';
	lo[nl++] = (struct option){"help", no_argument, NULL, 'h'};
	lo[nl] = (struct option){NULL, 0, NULL, 0};
}

static const struct osp_option *by_val(const struct flat *f, int c)
{
	if (c >= 256 && c - 256 < f->n)
		return f->o[c - 256];
	for (int i = 0; i < f->n; i++)
		if (f->o[i]->short_name == c && f->o[i]->kind != OSP_OPTK_GROUP)
			return f->o[i];
	return NULL;
}

int osp_opts_parse(const struct osp_opts_spec *spec, const struct osp_option *opts, int argc,
                   char **argv, int *next)
{
	struct flat f = {.n = 0};
	flatten(opts, &f);
	struct option lo[MAX_OPTS + 2];
	char so[3 * MAX_OPTS + 4];
	getopt_tables(&f, spec->in_order, lo, so);
	short_only = spec->short_in_errors;
	optind = 0; /* glibc: a full restart (in_order differs between calls) */
	opterr = 0;
	int c, rc;
	while ((c = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		const struct osp_option *o = by_val(&f, c);
		char flag[64];
		if (c == 'h' && !o) {
			osp_opts_usage(stdout, spec, opts);
			return OSP_OPTS_HELP;
		}
		if (c == ':') {
			o = by_val(&f, optopt);
			return osp_usage_err(spec->cmd, "%s needs an argument",
			                     o ? flag_name(o, flag, sizeof(flag))
			                       : argv[optind - 1]);
		}
		if (!o) {
			if (optopt > 0 && optopt < 256)
				snprintf(flag, sizeof(flag), "-%c", optopt);
			else
				snprintf(flag, sizeof(flag), "%s", argv[optind - 1]);
			return osp_usage_err(spec->cmd, "unknown option '%s'", flag);
		}
		if (o->kind == OSP_OPTK_FLAG && (rc = excluded(spec->cmd, &f, o)))
			return rc;
		if ((rc = take(spec->cmd, o, optarg)))
			return rc;
	}
	*next = optind;
	int nargs = argc - optind;
	if (spec->args_error &&
	    (nargs < spec->min_args || (spec->max_args >= 0 && nargs > spec->max_args)))
		return osp_usage_err(spec->cmd, "%s", spec->args_error);
	return 0;
}

/* "  -x, --long ARG" as it stands left of the help text. */
static int left_part(const struct osp_option *o, char *buf, size_t len)
{
	char s[8] = "    ";
	if (o->short_name)
		snprintf(s, sizeof(s), "-%c%s", o->short_name, o->long_name ? ", " : "");
	int n = snprintf(buf, len, "  %s%s%s%s%s", s, o->long_name ? "--" : "",
	                 o->long_name ? o->long_name : "", o->arg ? " " : "", o->arg ? o->arg : "");
	return n < 0 ? 0 : n;
}

/* Left parts longer than this put their text after two spaces instead of
 * widening the column of every other option. */
#define MAX_COLUMN 26

void osp_opts_usage(FILE *out, const struct osp_opts_spec *spec, const struct osp_option *opts)
{
	struct flat f = {.n = 0};
	flatten(opts, &f);
	char left[160];
	int col = 0;
	for (int i = 0; i < f.n; i++)
		if (f.o[i]->kind != OSP_OPTK_GROUP) {
			int w = left_part(f.o[i], left, sizeof(left)) + 2;
			if (w <= MAX_COLUMN && w > col)
				col = w;
		}
	fputs(spec->head, out);
	for (int i = 0; i < f.n; i++) {
		const struct osp_option *o = f.o[i];
		if (o->kind == OSP_OPTK_GROUP) {
			fprintf(out, "%s\n", o->help);
			continue;
		}
		if (!o->help)
			continue; /* accepted, not listed */
		int w = left_part(o, left, sizeof(left));
		fputs(left, out);
		fprintf(out, "%*s", w + 2 > col ? 2 : col - w, "");
		for (const char *h = o->help; *h;) {
			size_t n = strcspn(h, "\n");
			fprintf(out, "%.*s\n", (int)n, h);
			h += n;
			if (*h == '\n' && *++h)
				fprintf(out, "%*s", col, "");
		}
	}
	fprintf(out, "  -h, --help%*sthis text\n", col > 12 ? col - 12 : 2, "");
	if (spec->tail)
		fputs(spec->tail, out);
}
