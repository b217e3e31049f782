/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic faults: what nvmimic-fault.c (the faults given over QMP, queued
 * and applied) and nvmimic-fault-cmd.c (what the active faults do to each
 * command) share.  Nothing outside these two files includes it.
 *
 * Copyright (c) 2026 the nvmimic authors
 */
#ifndef HW_NVME_NVMIMIC_FAULT_INT_H
#define HW_NVME_NVMIMIC_FAULT_INT_H

#include "nvmimic-int.h"
#include "nvmimic-powercut.h"

/* Error Information log entries kept (Identify ELPE is this, 0-based) */
#define FAULTS_ERROR_LOG 64

/*
 * Media-error ranges at once: one more is refused, and a write inside one
 * splits it only while there is room (media_written()).
 */
#define FAULTS_RANGES_MAX 4096

typedef struct MediaRange {
    uint32_t nsid;
    uint64_t start, end;        /* LBAs */
    NvmimicMediaError error;
} MediaRange;

typedef struct Latency {
    NvmimicFaultClass cls;
    int64_t delay_ns;
    uint64_t left;              /* commands; UINT64_MAX: until cleared */
} Latency;

typedef struct Stall {
    NvmimicFaultClass cls;
    int64_t until_ns;           /* INT64_MAX: until cleared or reset */
} Stall;

struct NvmimicFaults {
    NvmeCtrl *n;
    GPtrArray *queued;          /* Queued *, in the order given */
    GPtrArray *applied;         /* NvmimicFaultEvent *, oldest first */
    GArray *media;              /* MediaRange */
    GArray *latency;            /* Latency */
    GArray *stalls;             /* Stall */
    QEMUTimer *stall_timer;     /* the earliest stall end */
    GQueue *held;               /* NvmeRequest * whose completion waits */
    bool hung;                  /* answers nothing until a reset */
    bool plp_lies;              /* a queued power cut has volatile=on */
    bool off;                   /* the machine lost power: nothing more */
    NvmimicJournal *journal;    /* while power cuts are queued */
    unsigned cuts_queued;
    /* SMART and the Error Information log */
    uint64_t power_cuts;
    uint64_t media_errors;
    uint64_t error_count;       /* entries ever logged */
    NvmeErrorLog log[FAULTS_ERROR_LOG];     /* newest first */
};

/*
 * nvmimic-fault-cmd.c: the stall timer (armed for the earliest stall
 * end), and posting the held completions nothing holds any more
 */
void nvmimic_fault_stall_timer_cb(void *opaque);
void nvmimic_fault_stall_timer_arm(NvmimicFaults *f);
void nvmimic_fault_release_held(NvmimicFaults *f);

#endif
