/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The small commands of nvmimic and the options they share: profiles, sim,
 * trace2iolog, calibrate, profile-keys, profile show, jobfile show,
 * doctor, qemu-line (the files of cli/).
 */
#ifndef NVMIMIC_CLI_H
#define NVMIMIC_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "nvmimic-model.h"
#include "opts.h"

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
    const char *trace_state;    /* sim --trace: review or erased */
    const char *trace_out;      /* sim --trace: the model's own trace */
    uint64_t trace_from_ns;     /* sim --trace: when the state is set */
    double trace_wear_pct;      /* sim --trace: the drive's wear then */
    uint64_t seed;
    double duration_s;
    bool quick;
    double idle_s;
    double step_gb;
    double after_gb;
    unsigned block_bytes;       /* sim slc-cliff and point */
    unsigned outstanding;       /* sim slc-cliff and point */
    const char *op;             /* sim point: read or write */
    const char *pattern;        /* sim point: seq or rand */
    const char *state;          /* sim point: empty or review */
    double span_gb;             /* sim point: the empty drive's span */
    const char *mix_outstanding;    /* sim --suite mix: the counts */
} Opts;

/* The profile o->profile names, or NULL after one line on stderr. */
NvmProfile *cli_load_profile(const NvmCommand *cmd, const Opts *o);

/* The commands (nvmimic.c's table). */
extern const NvmCommand nvm_cmd_profiles, nvm_cmd_sim, nvm_cmd_trace2iolog,
                        nvm_cmd_calibrate, nvm_cmd_profile_keys,
                        nvm_cmd_profile, nvm_cmd_jobfile,
                        nvm_cmd_doctor, nvm_cmd_qemu_line;

#endif
