/* The layers of a collection session: prepare and attach with layers
 * dropped instead of the run, collection, teardown (collect/session.h). */
#include <string.h>
#include <osprof/status.h>
#include "collect/session.h"

/* Removes layer i: later layers and their per-layer state move down one. */
static void drop(struct osp_session *s, const struct osp_layer **layers, int *n, int i)
{
	const char *cur = osp_get_meta(s->set, "layers_unavailable");
	if (cur)
		osp_set_metaf(s->set, "layers_unavailable", "%s,%s", cur, layers[i]->name);
	else
		osp_set_meta(s->set, "layers_unavailable", layers[i]->name);
	for (int j = i; j + 1 < *n; j++) {
		layers[j] = layers[j + 1];
		s->layer_state[j] = s->layer_state[j + 1];
	}
	s->layer_state[*n - 1] = NULL;
	(*n)--;
	char names[256] = "";
	for (int j = 0; j < *n; j++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", j ? "," : "",
		         layers[j]->name);
	osp_set_meta(s->set, "layers", names);
}

/* With one layer requested, its own line has said it all. */
static int none_left(const char *cmd, const char *what, int requested)
{
	if (requested > 1)
		osp_err("%s: no requested layer can %s on this kernel (see above)", cmd, what);
	return OSP_EXIT_FAIL;
}

int osp_session_prepare(const char *cmd, struct osp_session *s, const struct osp_layer **layers,
                        int *n)
{
	int requested = *n;
	for (int i = 0; i < *n;) {
		if (!layers[i]->prepare || layers[i]->prepare(s, i) >= 0) {
			i++;
			continue;
		}
		if (s->bad_input) {
			*n = i;
			return OSP_EXIT_USAGE;
		}
		const char *name = layers[i]->name;
		drop(s, layers, n, i);
		if (*n)
			osp_err("%s: going on without the %s layer", cmd, name);
	}
	return *n ? 0 : none_left(cmd, "work", requested);
}

int osp_session_attach(const char *cmd, struct osp_session *s, const struct osp_layer **layers,
                       int *n)
{
	int requested = *n;
	for (int i = 0; i < *n;) {
		if (!layers[i]->attach || layers[i]->attach(s, i) >= 0) {
			i++;
			continue;
		}
		if (s->bad_input)
			return OSP_EXIT_USAGE;
		const char *name = layers[i]->name;
		if (layers[i]->destroy)
			layers[i]->destroy(s, i);
		drop(s, layers, n, i);
		if (*n)
			osp_err("%s: going on without the %s layer", cmd, name);
	}
	return *n ? 0 : none_left(cmd, "attach", requested);
}

int osp_session_collect(const char *cmd, struct osp_session *s, const struct osp_layer **layers,
                        int n, int reset)
{
	int rc = 0;
	for (int i = 0; i < n; i++)
		if (layers[i]->collect && layers[i]->collect(s, i, reset) < 0) {
			if (cmd)
				osp_err("%s: layer %s: collection incomplete", cmd,
				        layers[i]->name);
			rc = -1;
		}
	return rc;
}

void osp_session_end(struct osp_session *s, const struct osp_layer **layers, int n)
{
	for (int i = 0; i < n; i++)
		if (layers[i]->destroy)
			layers[i]->destroy(s, i);
	osp_set_free(s->set);
	s->set = NULL;
}
