/* The JSON writer (include/osprof/json.h). */
#include <inttypes.h>
#include <math.h>
#include <osprof/json.h>

static void escape(FILE *out, const char *s, int script)
{
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\')
			fprintf(out, "\\%c", *c);
		else if (*c < 0x20 || *c == 0x7f ||
		         (script && (*c == '<' || *c == '>' || *c == '&')))
			fprintf(out, "\\u%04x", *c);
		else if (*c == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f)
			fprintf(out, "\\u%04x", *++c);
		else
			fputc(*c, out);
	}
}

void osp_json_string(FILE *out, const char *s)
{
	escape(out, s, 0);
}

void osp_json_string_script(FILE *out, const char *s)
{
	escape(out, s, 1);
}

void osp_json_init(struct osp_json *j, FILE *out)
{
	j->out = out;
	j->depth = 0;
	j->after_key = 0;
	j->script_safe = 0;
	j->n[0] = 0;
	j->lines[0] = 0;
}

/* The comma before a value or key, where one is due. */
static void sep(struct osp_json *j)
{
	if (j->after_key) {
		j->after_key = 0;
		return;
	}
	if (j->depth > 0 && j->n[j->depth])
		fputs(j->lines[j->depth] ? ",\n" : ",", j->out);
	j->n[j->depth] = 1;
}

static void begin(struct osp_json *j, char c)
{
	sep(j);
	fputc(c, j->out);
	if (j->depth + 1 < OSP_JSON_MAX_DEPTH)
		j->depth++;
	j->n[j->depth] = 0;
	j->lines[j->depth] = 0;
}

static void end(struct osp_json *j, char c)
{
	fputc(c, j->out);
	if (j->depth > 0)
		j->depth--;
}

void osp_json_obj(struct osp_json *j)
{
	begin(j, '{');
}

void osp_json_obj_end(struct osp_json *j)
{
	end(j, '}');
}

void osp_json_arr(struct osp_json *j)
{
	begin(j, '[');
}

void osp_json_arr_end(struct osp_json *j)
{
	end(j, ']');
}

void osp_json_line(struct osp_json *j)
{
	fputc('\n', j->out);
}

void osp_json_lines(struct osp_json *j)
{
	j->lines[j->depth] = 1;
}

void osp_json_raw(struct osp_json *j, const char *text)
{
	fputs(text, j->out);
}

void osp_json_key(struct osp_json *j, const char *key)
{
	sep(j);
	fputc('"', j->out);
	escape(j->out, key, j->script_safe);
	fputs("\":", j->out);
	j->after_key = 1;
}

void osp_json_str(struct osp_json *j, const char *s)
{
	if (!s) {
		osp_json_null(j);
		return;
	}
	sep(j);
	fputc('"', j->out);
	escape(j->out, s, j->script_safe);
	fputc('"', j->out);
}

void osp_json_u64(struct osp_json *j, uint64_t v)
{
	sep(j);
	fprintf(j->out, "%" PRIu64, v);
}

void osp_json_i64(struct osp_json *j, int64_t v)
{
	sep(j);
	fprintf(j->out, "%" PRId64, v);
}

void osp_json_dbl(struct osp_json *j, const char *fmt, double v)
{
	if (!isfinite(v)) {
		osp_json_null(j);
		return;
	}
	sep(j);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	fprintf(j->out, fmt, v);
#pragma GCC diagnostic pop
}

void osp_json_bool(struct osp_json *j, int v)
{
	sep(j);
	fputs(v ? "true" : "false", j->out);
}

void osp_json_null(struct osp_json *j)
{
	sep(j);
	fputs("null", j->out);
}

void osp_json_kstr(struct osp_json *j, const char *key, const char *s)
{
	osp_json_key(j, key);
	osp_json_str(j, s);
}

void osp_json_ku64(struct osp_json *j, const char *key, uint64_t v)
{
	osp_json_key(j, key);
	osp_json_u64(j, v);
}

void osp_json_ki64(struct osp_json *j, const char *key, int64_t v)
{
	osp_json_key(j, key);
	osp_json_i64(j, v);
}

void osp_json_kdbl(struct osp_json *j, const char *key, const char *fmt, double v)
{
	osp_json_key(j, key);
	osp_json_dbl(j, fmt, v);
}

void osp_json_kbool(struct osp_json *j, const char *key, int v)
{
	osp_json_key(j, key);
	osp_json_bool(j, v);
}

void osp_json_kobj(struct osp_json *j, const char *key)
{
	osp_json_key(j, key);
	osp_json_obj(j);
}

void osp_json_karr(struct osp_json *j, const char *key)
{
	osp_json_key(j, key);
	osp_json_arr(j);
}
