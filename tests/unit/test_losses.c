/* Loss accounting (lib/losses.c): the counts read from a set's metadata and
 * the --max-loss bound, which only single events may fall under. */
#include <osprof/losses.h>
#include "check.h"

/* A set of 2,000 timed calls and 100 sizes (not calls), with metadata. */
static struct osp_set *set_with(const char *key, const char *value)
{
	struct osp_set *s = osp_set_new(1);
	struct osp_profile *t = osp_set_get(s, "syscall", "read", NULL, 0);
	struct osp_profile *b = osp_set_get(s, "block", "size", NULL, 0);
	for (int i = 0; i < 2000; i++)
		osp_hist_add(&t->hist, 1000);
	b->unit = OSP_UNIT_BYTES;
	for (int i = 0; i < 100; i++)
		osp_hist_add(&b->hist, 4096);
	if (key)
		osp_set_meta(s, key, value);
	return s;
}

static void events_are_timed_calls(void)
{
	struct osp_set *s = set_with(NULL, NULL);
	struct osp_losses l;
	osp_losses_read(s, &l);
	CHECK_EQ_U64(l.events, 2000);
	CHECK(!osp_losses_any(&l));
	CHECK(osp_losses_within(&l, 0));
	osp_set_free(s);
}

static void within_the_bound(void)
{
	struct osp_set *s = set_with("lost_events", "2");
	osp_set_meta(s, "unpaired_events", "1");
	struct osp_losses l;
	osp_losses_read(s, &l);
	CHECK(osp_losses_any(&l));
	CHECK(osp_losses_within(&l, 0.0015)); /* 3 <= 3 */
	CHECK(!osp_losses_within(&l, 0.001)); /* 3 > 2 */
	osp_set_free(s);
}

static void unpaired_of_a_live_attach_are_no_loss(void)
{
	struct osp_set *s = set_with("unpaired_events", "500");
	osp_set_meta(s, "live_attach", "1");
	struct osp_losses l;
	osp_losses_read(s, &l);
	CHECK(!osp_losses_any(&l));
	CHECK(osp_losses_within(&l, 0));
	osp_set_free(s);
}

static void a_lost_program_is_never_within(void)
{
	struct osp_set *s = set_with("user_static", "1");
	struct osp_losses l;
	osp_losses_read(s, &l);
	CHECK(osp_losses_any(&l));
	CHECK(!osp_losses_within(&l, 1.0));
	osp_set_free(s);
}

int main(void)
{
	RUN(events_are_timed_calls);
	RUN(within_the_bound);
	RUN(unpaired_of_a_live_attach_are_no_loss);
	RUN(a_lost_program_is_never_within);
	CHECK_EXIT();
}
