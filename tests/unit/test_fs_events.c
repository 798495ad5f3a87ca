/* Pairing rules of the fs layer's tracepoint discovery (collect/fs_events.c):
 * which event names of a tracefs subsystem become start/end pairs, and that
 * odd names (no partner, empty, very long, arbitrary bytes) pair with nothing
 * and do not crash. */
#include <stdlib.h>
#include "check.h"
#include "collect/fs_events.c"

static struct fs_pairs pair(const char *subsys, const char *const *names, size_t n)
{
	struct fs_pairs out = {0};
	char **v = calloc(n ? n : 1, sizeof(*v));
	for (size_t i = 0; i < n; i++)
		v[i] = strdup(names[i]);
	CHECK(fs_pair_names(subsys, v, n, &out) == 0);
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
	return out;
}

static const struct fs_pair *find(const struct fs_pairs *p, const char *op)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].op, op))
			return &p->v[i];
	return NULL;
}

static void ext4_pairs(void)
{
	static const char *const names[] = {
	    "ext4_sync_file_exit",
	    "ext4_sync_file_enter",
	    "ext4_da_write_begin",
	    "ext4_da_write_end",
	    "ext4_ext_remove_space",
	    "ext4_ext_remove_space_done",
	    "ext4_fc_commit_start", /* no ext4_fc_commit_stop here: unpaired */
	    "ext4_ext_convert_to_initialized_enter",
	    "ext4_free_inode"};
	struct fs_pairs p = pair("ext4", names, sizeof(names) / sizeof(names[0]));
	CHECK_EQ_U64(p.n, 3);
	const struct fs_pair *s = find(&p, "ext4_sync_file");
	CHECK(s != NULL);
	if (s) {
		CHECK_STR(s->start, "ext4_sync_file_enter");
		CHECK_STR(s->end, "ext4_sync_file_exit");
		CHECK_STR(s->subsys, "ext4");
	}
	s = find(&p, "ext4_da_write");
	CHECK(s && !strcmp(s->start, "ext4_da_write_begin") &&
	      !strcmp(s->end, "ext4_da_write_end"));
	s = find(&p, "ext4_ext_remove_space");
	CHECK(s && !strcmp(s->start, "ext4_ext_remove_space") &&
	      !strcmp(s->end, "ext4_ext_remove_space_done"));
	fs_pairs_free(&p);
}

static void infix_pairs(void)
{
	static const char *const names[] = {
	    "jbd2_start_commit",           "jbd2_end_commit",
	    "jbd2_commit_flushing",        "jbd2_handle_start",
	    "xfs_itruncate_extents_start", "xfs_itruncate_extents_end"};
	struct fs_pairs p = pair("jbd2", names, sizeof(names) / sizeof(names[0]));
	CHECK_EQ_U64(p.n, 2);
	const struct fs_pair *s = find(&p, "jbd2_commit");
	CHECK(s && !strcmp(s->start, "jbd2_start_commit") && !strcmp(s->end, "jbd2_end_commit"));
	CHECK(find(&p, "xfs_itruncate_extents") != NULL);
	CHECK(find(&p, "jbd2_handle") == NULL);
	fs_pairs_free(&p);
}

static void odd_names(void)
{
	char longname[400];
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	char longend[420];
	snprintf(longend, sizeof(longend), "%s_exit", longname);
	char longstart[420];
	snprintf(longstart, sizeof(longstart), "%s_enter", longname);
	static const char *const fixed[] = {"",         "_enter", "_exit",          "_start_",
	                                    "_end_",    "x_done", "\xff\xfe_enter", "\xff\xfe_exit",
	                                    "_start_x", "_end_x"};
	const char *names[sizeof(fixed) / sizeof(fixed[0]) + 2];
	size_t n = 0;
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		names[n++] = fixed[i];
	names[n++] = longstart;
	names[n++] = longend;
	struct fs_pairs p = pair("odd", names, n);
	/* "\xff\xfe" pairs; names longer than a tracepoint can be are ignored;
	 * a bare "_enter" has an empty stem and no partner rule matches it. */
	CHECK(find(&p, "\xff\xfe") != NULL);
	for (size_t i = 0; i < p.n; i++)
		CHECK(strlen(p.v[i].op) < sizeof(p.v[i].op));
	CHECK(find(&p, longname) == NULL);
	fs_pairs_free(&p);
	/* random bytes: never crash, every pair names two given events */
	srand(7);
	for (int round = 0; round < 200; round++) {
		char buf[16][24];
		const char *v[16];
		static const char *const sfx[] = {"_enter", "_exit", "_start", "_end", "_done", ""};
		for (int i = 0; i < 16; i++) {
			int len = rand() % 4;
			for (int j = 0; j < len; j++)
				buf[i][j] = (char)(1 + rand() % 255);
			snprintf(buf[i] + len, sizeof(buf[i]) - (size_t)len, "%s", sfx[rand() % 6]);
			v[i] = buf[i];
		}
		struct fs_pairs q = pair("rnd", v, 16);
		for (size_t i = 0; i < q.n; i++) {
			int s = 0, e = 0;
			CHECK(q.v[i].op[0] != 0);
			for (const char *c = q.v[i].op; *c; c++)
				CHECK((unsigned char)*c > ' ' && *c != 0x7f);
			for (int j = 0; j < 16; j++) {
				s |= !strcmp(q.v[i].start, v[j]);
				e |= !strcmp(q.v[i].end, v[j]);
			}
			CHECK(s && e && strcmp(q.v[i].start, q.v[i].end));
		}
		fs_pairs_free(&q);
	}
}

int main(void)
{
	RUN(ext4_pairs);
	RUN(infix_pairs);
	RUN(odd_names);
	CHECK_EXIT();
}
