/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The commands of nvmimic.c's table that share its options: profiles, sim,
 * trace2iolog, calibrate, profile-keys (the files of cli/).
 */
#ifndef NVMIMIC_CLI_H
#define NVMIMIC_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "nvmimic-model.h"

typedef struct Opts {
    const char *profile;
    const char *profile_dir;
    const char *suite;
    const char *format;
    const char *threads;
    const char *reviews;
    const char *write;
    const char *out;
    const char *trace;
    uint64_t seed;
    double duration_s;
    bool quick;
    double idle_s;
    double step_gb;
    double after_gb;
} Opts;

/* "nvmimic: MESSAGE (see nvmimic --help)" on stderr; returns 2. */
int cli_usage_error(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
/* The profile o->profile names, or NULL after one line on stderr. */
NvmProfile *cli_load_profile(const Opts *o);

/* sim.c */
int cmd_sim(const Opts *o);
int cmd_trace2iolog(int argc, char **argv);

/* calibrate.c */
int cmd_profiles(const Opts *o);
int cmd_profile_keys(void);
int cmd_calibrate(const Opts *o);

#endif
