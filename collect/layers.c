/* The table of collection layers. Add a layer: declare it here and list it. */
#include <string.h>
#include "collect/layer.h"


const struct osp_layer *const osp_layers[] = {
    NULL,
};

const struct osp_layer *osp_layer_find(const char *name)
{
	for (int i = 0; osp_layers[i]; i++)
		if (!strcmp(osp_layers[i]->name, name))
			return osp_layers[i];
	return NULL;
}
