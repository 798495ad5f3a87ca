/* Umbrella header for libosprof. */
#ifndef OSPROF_OSPROF_H
#define OSPROF_OSPROF_H
#include <osprof/clock.h>
#include <osprof/hist.h>
#include <osprof/profile.h>
#define OSPROF_VERSION "0.1.0"
#endif
