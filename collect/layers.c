/* The table of collection layers. Add a layer: declare it here and list it. */
#include <string.h>
#include "collect/layer.h"

extern const struct osp_layer osp_layer_user;
extern const struct osp_layer osp_layer_syscall;
extern const struct osp_layer osp_layer_fs;
extern const struct osp_layer osp_layer_block;
extern const struct osp_layer osp_layer_lock;
extern const struct osp_layer osp_layer_sched;
extern const struct osp_layer osp_layer_irq;
extern const struct osp_layer osp_layer_uprobe;
extern const struct osp_layer osp_layer_rpc;

const struct osp_layer *const osp_layers[] = {
    &osp_layer_user,  &osp_layer_syscall, &osp_layer_fs,     &osp_layer_block, &osp_layer_lock,
    &osp_layer_sched, &osp_layer_irq,     &osp_layer_uprobe, &osp_layer_rpc,   NULL,
};

const struct osp_layer *osp_layer_find(const char *name)
{
	for (int i = 0; osp_layers[i]; i++)
		if (!strcmp(osp_layers[i]->name, name))
			return osp_layers[i];
	return NULL;
}
