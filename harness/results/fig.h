/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The six figures of a load, the one type every producer and reader of
 * results shares: the model's load generators (sim/), a guest's load
 * generator and the device's statistics (run/, qtest/), results.json's
 * points (results.h) and the reports.  Plain C, no GLib: the model-only
 * sim/ includes it.  docs/results.md: FIG.
 */
#ifndef NVMIMIC_FIG_H
#define NVMIMIC_FIG_H

#include <math.h>

typedef struct NvmFig {
    double iops;                /* I/Os per second */
    double mbps;                /* 10^6 bytes per second */
    double lat_us;              /* mean, submission to completion */
    double p50_us, p99_us, p999_us;
} NvmFig;

/* A figure nobody measured: every number NAN (results.json's null). */
#define NVM_FIG_NONE ((NvmFig){ NAN, NAN, NAN, NAN, NAN, NAN })

#endif
