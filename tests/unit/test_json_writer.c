/* The JSON writer (lib/json_writer.c): commas, nesting, escaping, numbers. */
#include <math.h>
#include <stdlib.h>
#include "check.h"
#include <osprof/json.h>

/* The writer's output of fn, as a string (freed by the caller). */
static char *written(void (*fn)(struct osp_json *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct osp_json j;
	osp_json_init(&j, f);
	fn(&j);
	fclose(f);
	return buf;
}

static void nested(struct osp_json *j)
{
	osp_json_obj(j);
	osp_json_kstr(j, "a", "x");
	osp_json_karr(j, "b");
	osp_json_u64(j, 1);
	osp_json_obj(j);
	osp_json_obj_end(j);
	osp_json_arr(j);
	osp_json_arr_end(j);
	osp_json_i64(j, -2);
	osp_json_arr_end(j);
	osp_json_kobj(j, "c");
	osp_json_kbool(j, "t", 1);
	osp_json_key(j, "n");
	osp_json_null(j);
	osp_json_kstr(j, "s", NULL);
	osp_json_obj_end(j);
	osp_json_obj_end(j);
	osp_json_line(j);
	osp_json_obj(j); /* NDJSON: the next line has no comma before it */
	osp_json_obj_end(j);
	osp_json_line(j);
}

static void test_nesting(void)
{
	char *s = written(nested);
	CHECK_STR(
	    s, "{\"a\":\"x\",\"b\":[1,{},[],-2],\"c\":{\"t\":true,\"n\":null,\"s\":null}}\n{}\n");
	free(s);
}

static void strings(struct osp_json *j)
{
	osp_json_arr(j);
	osp_json_str(j, "q\"b\\s/");
	osp_json_str(j, "\x01\n\t\x1f\x7f");
	osp_json_str(j, "c1:\xc2\x85 nbsp:\xc2\xa0");
	osp_json_str(j, "bad:\xff\xfe end");
	osp_json_arr_end(j);
}

static void test_escaping(void)
{
	char *s = written(strings);
	CHECK_STR(s, "[\"q\\\"b\\\\s/\",\"\\u0001\\u000a\\u0009\\u001f\\u007f\","
	             "\"c1:\\u0085 nbsp:\xc2\xa0\",\"bad:\xff\xfe end\"]");
	free(s);
}

static void numbers(struct osp_json *j)
{
	osp_json_obj(j);
	osp_json_kdbl(j, "a", "%.3f", 1.0 / 3);
	osp_json_kdbl(j, "nan", "%.3f", NAN);
	osp_json_kdbl(j, "inf", "%g", INFINITY);
	osp_json_ku64(j, "max", UINT64_MAX);
	osp_json_ki64(j, "min", INT64_MIN);
	osp_json_obj_end(j);
}

static void test_numbers(void)
{
	char *s = written(numbers);
	CHECK_STR(s, "{\"a\":0.333,\"nan\":null,\"inf\":null,\"max\":18446744073709551615,"
	             "\"min\":-9223372036854775808}");
	free(s);
}

static void lines(struct osp_json *j)
{
	osp_json_obj(j);
	osp_json_karr(j, "ev");
	osp_json_lines(j);
	for (int i = 0; i < 300; i++) /* past any small counter */
		osp_json_obj(j), osp_json_obj_end(j);
	osp_json_arr_end(j);
	osp_json_karr(j, "after");
	osp_json_u64(j, 1);
	osp_json_u64(j, 2);
	osp_json_arr_end(j);
	osp_json_obj_end(j);
}

static void test_lines(void)
{
	char *s = written(lines);
	char want[4096] = "{\"ev\":[{}";
	for (int i = 1; i < 300; i++)
		strcat(want, ",\n{}");
	strcat(want, "],\"after\":[1,2]}");
	CHECK_STR(s, want);
	free(s);
}

int main(void)
{
	RUN(test_nesting);
	RUN(test_escaping);
	RUN(test_numbers);
	RUN(test_lines);
	CHECK_EXIT();
}
