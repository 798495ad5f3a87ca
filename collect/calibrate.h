/* The workloads of `osprof calibrate`: this machine's characteristic times. */
#ifndef OSPROF_COLLECT_CALIBRATE_H
#define OSPROF_COLLECT_CALIBRATE_H

#include <stdio.h>
#include <osprof/profile.h>

/* Runs every item (file items in dir, default /var/tmp) into a new set of
 * layer OSP_CALIB_LAYER; log gets one line per skipped item. NULL on
 * allocation failure. */
struct osp_set *osp_calibrate(const char *dir, FILE *log);
/* Async-signal-safe: makes a running osp_calibrate() finish early with what
 * it has (the set is marked interrupted). */
void osp_calibrate_stop(void);

#endif
