/* fs --func SYM[,SYM]: kernel functions timed by fentry/fexit, falling back
 * to kprobe/kretprobe. One BPF object per function (fentry binds the target
 * at load). Where the kernel refuses both, one line says which modes were
 * tried and why each failed. */
#ifndef OSPROF_COLLECT_KFUNC_H
#define OSPROF_COLLECT_KFUNC_H

#include <stdio.h>
#include "collect/layer.h"

struct kfuncs;

/* Loads a probe for every function of `list` (ops numbered from first_id).
 * A function the kernel lets no mode time is left out after one line naming
 * it, the modes tried and why each failed; when that leaves none, 0 with
 * *out NULL. -errno after one line for an unknown symbol (bad_input) or a
 * resource failure. */
int kfuncs_prepare(struct osp_session *s, const char *list, unsigned first_id, unsigned by,
                   struct kfuncs **out);
int kfuncs_attach(struct osp_session *s, struct kfuncs *k);
/* Reads every function's histograms into the set under layer "fs". */
int kfuncs_collect(struct osp_session *s, struct kfuncs *k, int reset);
void kfuncs_free(struct kfuncs *k);

/* For `osprof list fs`: which mode --func would use here, and why not the
 * others (probes with a real load when run as root). */
void kfuncs_list(FILE *out);

#endif
