/* The table of collection layers. Add a layer: declare it here and list it. */
#include <string.h>
#include "collect/layer.h"

extern const struct osp_layer osp_layer_syscall;

const struct osp_layer *const osp_layers[] = {
    &osp_layer_syscall,
    NULL,
};

const struct osp_layer *osp_layer_find(const char *name)
{
	for (int i = 0; osp_layers[i]; i++)
		if (!strcmp(osp_layers[i]->name, name))
			return osp_layers[i];
	return NULL;
}
