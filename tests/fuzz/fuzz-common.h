/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the libFuzzer targets on backends/: a driver that pushes
 * commands and state changes through a model and checks the model's
 * invariants after each, aborting (a crash for libFuzzer) on a violation.
 */
#ifndef NVMIMIC_FUZZ_COMMON_H
#define NVMIMIC_FUZZ_COMMON_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "nvmimic-model.h"

/* Longest time a single command may take before it counts as a hang. */
#define FUZZ_MAX_LATENCY_NS (24ULL * 3600 * 1000000000ULL)

typedef struct FuzzDriver {
    NvmModel *m;
    const NvmProfile *p;
    uint64_t now;               /* submission time, never decreases */
    uint64_t reset_at;          /* when the statistics were last reset */
    uint64_t max_write_done;    /* latest completion of any write so far */
    uint64_t count[NVM_CLASS_COUNT];    /* since reset */
    uint64_t bytes[NVM_CLASS_COUNT];
    uint64_t last_nand_written; /* for monotonicity between resets */
    uint64_t last_total_host;
    size_t memory;              /* model memory at creation */
    uint64_t ops;
} FuzzDriver;

/* Abort with a message: libFuzzer saves the input as a crash. */
void fuzz_fail(const char *fmt, ...) G_GNUC_PRINTF(1, 2) G_GNUC_NORETURN;
#define FUZZ_CHECK(cond, ...) \
    do { \
        if (!(cond)) { \
            fuzz_fail(__VA_ARGS__); \
        } \
    } while (0)

/* What the device and the model assume about any accepted profile. */
void fuzz_check_profile(const NvmProfile *p);
/* A rejected profile's error: one line, naming the file. */
void fuzz_check_error(const char *path, const GError *err);

void fuzz_driver_init(FuzzDriver *d, NvmModel *m, const NvmProfile *p,
                      uint64_t start_ns);
/* Advance time by @step_ns (clamped to keep times below 2^62). */
void fuzz_advance(FuzzDriver *d, uint64_t step_ns);
uint64_t fuzz_submit(FuzzDriver *d, NvmOp op, uint64_t slba, uint32_t nlb);
void fuzz_set_fill(FuzzDriver *d, double pct);
void fuzz_set_slc_used(FuzzDriver *d, uint64_t bytes);
void fuzz_set_wear(FuzzDriver *d, double pct);
void fuzz_secure_erase(FuzzDriver *d);
void fuzz_reset_stats(FuzzDriver *d);
void fuzz_set_apst(FuzzDriver *d, bool enabled, const uint32_t *idle_ms,
                   unsigned n);
void fuzz_reset_apst(FuzzDriver *d);
/* Read the statistics at the current time and check every invariant. */
void fuzz_check_stats(FuzzDriver *d);

#endif
