/* Writes a small known profile set: make_profiles OUT R. */
#include <stdlib.h>
#include <osprof/profile.h>

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	struct osp_set *s = osp_set_new((unsigned)atoi(argv[2]));
	if (!s)
		return 2;
	struct osp_dim d[] = {{"pid", "7"}, {"comm", "demo app"}};
	struct osp_profile *fast = osp_set_get(s, "app", "fast", d, 2);
	struct osp_profile *slow = osp_set_get(s, "app", "slow", NULL, 0);
	for (int i = 0; i < 1000; i++)
		osp_profile_add(s, fast, 200, 0);
	for (int i = 0; i < 100; i++)
		osp_profile_add(s, slow, 1000000, 0);
	char err[256];
	int rc = osp_set_save(s, argv[1], err, sizeof(err)) ? 1 : 0;
	osp_set_free(s);
	return rc;
}
