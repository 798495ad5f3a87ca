/* One JSON writer for every JSON output of osprof (NDJSON lines, documents):
 * the writer puts the commas and the quotes, escapes strings and refuses
 * numbers JSON cannot carry. */
#ifndef OSPROF_JSON_H
#define OSPROF_JSON_H

#include <stdint.h>
#include <stdio.h>

#define OSP_JSON_MAX_DEPTH 32

struct osp_json {
	FILE *out;
	int depth;
	int after_key;                           /* a key was written: its value follows */
	int script_safe;                         /* also escape < > & (JSON inside <script>) */
	unsigned char n[OSP_JSON_MAX_DEPTH];     /* 1: an open container holds a value */
	unsigned char lines[OSP_JSON_MAX_DEPTH]; /* its values go one per line */
};

/* Writes s as the inside of a JSON string: '"' and '\' escaped, control
 * characters, DEL and the C1 controls (UTF-8 C2 80..C2 9F) as \uXXXX, so
 * JSON output never carries a raw control sequence (the terminal-safe
 * stdout of cli/term_safe.c passes it through). Other bytes, invalid UTF-8
 * included, are copied. */
void osp_json_string(FILE *out, const char *s);
/* The same, with '<', '>' and '&' as \uXXXX too: no "</script>" or "<!--"
 * can appear in data embedded in an HTML page. */
void osp_json_string_script(FILE *out, const char *s);

void osp_json_init(struct osp_json *j, FILE *out);
void osp_json_obj(struct osp_json *j);
void osp_json_obj_end(struct osp_json *j);
void osp_json_arr(struct osp_json *j);
void osp_json_arr_end(struct osp_json *j);
/* An NDJSON line ends: the newline after a top-level value. */
void osp_json_line(struct osp_json *j);
/* The values written from now on into the innermost open container go one
 * per line (",\n" before each), as in a file meant to be read by people too. */
void osp_json_lines(struct osp_json *j);
/* Text copied as it is (white space between tokens); no value. */
void osp_json_raw(struct osp_json *j, const char *text);
void osp_json_key(struct osp_json *j, const char *key);

void osp_json_str(struct osp_json *j, const char *s); /* NULL: null */
void osp_json_u64(struct osp_json *j, uint64_t v);
void osp_json_i64(struct osp_json *j, int64_t v);
/* v with a printf format of one double ("%.3f", "%g"); null when v is not
 * finite (JSON has no NaN or infinity). */
void osp_json_dbl(struct osp_json *j, const char *fmt, double v);
void osp_json_bool(struct osp_json *j, int v);
void osp_json_null(struct osp_json *j);

/* key and value in one call */
void osp_json_kstr(struct osp_json *j, const char *key, const char *s);
void osp_json_ku64(struct osp_json *j, const char *key, uint64_t v);
void osp_json_ki64(struct osp_json *j, const char *key, int64_t v);
void osp_json_kdbl(struct osp_json *j, const char *key, const char *fmt, double v);
void osp_json_kbool(struct osp_json *j, const char *key, int v);
/* key followed by the opening of an object or array */
void osp_json_kobj(struct osp_json *j, const char *key);
void osp_json_karr(struct osp_json *j, const char *key);

#endif
