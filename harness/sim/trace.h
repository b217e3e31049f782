/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * I/O traces captured at the device (QMP nvmimic-trace-start): parse them,
 * convert them to a fio iolog for replay in a guest, and replay them
 * against the model alone in simulated time.
 *
 * Format (text, one command a line, written by hw/nvmimic.c):
 *   # nvmimic trace 1
 *   # profile=NAME lba-bytes=N capacity-bytes=N start-ns=N
 *   # submit_ns op slba nlb complete_ns
 *   12000 read 2048 8 95000
 * submit_ns and complete_ns are QEMU_CLOCK_VIRTUAL nanoseconds since the
 * trace started (complete_ns: when the model scheduled the completion, or
 * "-"); op is read, write, flush, discard or write-zeroes, or write-fua
 * or write-zeroes-fua for one with Force Unit Access (nvm_cmd_name(), the
 * model's NVM_CMD_FUA); slba and nlb are in lba-bytes units (flush: 0 0).
 * Lines are in submission order.
 */
#ifndef NVMIMIC_TRACE_H
#define NVMIMIC_TRACE_H

#include <stdio.h>

#include "nvmimic-model.h"
#include "fig.h"

#define NVM_TRACE_MAGIC "# nvmimic trace 1"
#define NVM_TRACE_NO_COMPLETION UINT64_MAX

typedef struct NvmTraceCmd {
    uint64_t submit_ns;
    uint64_t complete_ns;       /* NVM_TRACE_NO_COMPLETION when "-" */
    uint64_t slba;
    uint32_t nlb;
    uint32_t line;              /* in the trace file, for errors */
    NvmOp op;
    uint32_t flags;             /* NVM_CMD_FUA: write-fua, write-zeroes-fua */
} NvmTraceCmd;

typedef struct NvmTrace {
    char *profile;              /* as captured; may be NULL */
    uint32_t lba_bytes;
    uint64_t capacity_bytes;    /* 0 when not given */
    uint64_t start_ns;          /* the drive's clock when it started */
    GArray *cmds;               /* NvmTraceCmd */
} NvmTrace;

NvmTrace *nvm_trace_parse(const char *text, const char *origin,
                          GError **errp);
NvmTrace *nvm_trace_load(const char *path, GError **errp);
void nvm_trace_free(NvmTrace *t);

/*
 * fio iolog version 3 (fio >= 3.31) of @t against @device: timestamps in
 * microseconds (+1, since fio ignores the delay after a zero timestamp).
 * fio 3.33 cannot replay trims from an iolog, so discards are left out
 * (*dropped counts them); write-zeroes replay as writes, flushes as sync.
 * An iolog has no FUA: write-fua and write-zeroes-fua replay as plain
 * writes (*unfua counts them).
 */
GString *nvm_trace_to_iolog(const NvmTrace *t, const char *device,
                            unsigned *dropped, unsigned *unfua);
/* Most commands in flight at once (needs completion times; else 0). */
unsigned nvm_trace_max_outstanding(const NvmTrace *t);

/* One command class of a replay: its commands and bytes, and its figures
 * (IOPS and MB/s over the replay's duration_s) */
typedef struct NvmTraceClass {
    uint64_t count;
    uint64_t bytes;
    NvmFig fig;
    double max_us;
} NvmTraceClass;

typedef struct NvmTraceReplay {
    double duration_s;          /* first submission to last completion */
    NvmTraceClass model[NVM_CLASS_COUNT];
    NvmTraceClass captured[NVM_CLASS_COUNT];    /* count 0: no times */
} NvmTraceReplay;

typedef struct NvmTraceReplayOpts {
    bool erased;        /* secure-erased only, not the review's state */
    bool reads_only;    /* the review's state for a workload that only
                         * reads (nvm_sim_review_state_hook()) */
    uint64_t from_ns;   /* the state is set at this trace time; earlier
                         * commands are not replayed */
    double wear_pct;    /* the drive's wear when its state was set (its
                         * read-retry odds follow it; a secure erase keeps
                         * it) */
    uint64_t until_ns;  /* if not 0: commands from this trace time on are
                         * not replayed (the next state's) */
    FILE *log;          /* if not NULL: the trace back, line for line */
    uint64_t *done_ns;  /* if not NULL: each command's completion on the
                         * trace's clock, NVM_TRACE_NO_COMPLETION for one
                         * not replayed (t->cmds->len entries) */
} NvmTraceReplayOpts;

/*
 * Replay @t open loop against a model of @p in the review's starting state
 * (@o->erased: secure-erased only, for a trace that holds the span's
 * writes itself), set at trace time @o->from_ns: every command from then
 * on is submitted at its captured time.  LBAs are converted to @p's LBA
 * size; a command beyond @p's capacity or not aligned to its LBA size is
 * an error naming the line.  @o->log, if not NULL, gets the trace back
 * with the model's completion times, line for line ("-" for a command
 * before @o->from_ns).  @o->until_ns ends the replay before a command
 * submitted at or after it.  @o may be NULL (all defaults).
 */
bool nvm_trace_replay(const NvmTrace *t, const NvmProfile *p, uint64_t seed,
                      const NvmTraceReplayOpts *o, NvmTraceReplay *out,
                      GError **errp);

#endif
