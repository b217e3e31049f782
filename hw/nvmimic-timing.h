/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic timing: a drive model and the clockwork that completes requests
 * when it says, shared by the NVMe controller (nvmimic.c) and the block
 * filter (nvmimic-block.c), so that any QEMU block frontend is timed alike.
 *
 * A user submits each request's commands to the model itself, then hands
 * the request (an NvmimicReq it embeds) to nvmimic_timing_start() with the
 * model's deadline.  When the request's data transfer is done it calls
 * nvmimic_timing_complete(): either the deadline has passed and the user
 * completes the request at once, or the request is held and the timing's
 * post callback completes it at its deadline, on QEMU_CLOCK_VIRTUAL.
 * When virtual time jumps (icount, qtest), it stands still at a deadline
 * whose data is still in flight: the timer runs the block layer's
 * completions itself until the data is there, and only the timer posts,
 * in deadline order, so completions land at the model's instant whatever
 * the host's speed.
 */
#ifndef HW_NVME_NVMIMIC_TIMING_H
#define HW_NVME_NVMIMIC_TIMING_H

#include "block/aio.h"
#include "qemu/notify.h"
#include "nvmimic-model.h"
#include "heap.h"
#include "nvmimic-rt.h"

typedef enum NvmimicReqState {
    NVMIMIC_REQ_UNTIMED = 0,    /* admin, unknown opcode, or no profile */
    NVMIMIC_REQ_INFLIGHT,       /* data transfer still running */
    NVMIMIC_REQ_HELD,           /* data done, waiting for its deadline */
    NVMIMIC_REQ_OVERDUE,        /* deadline passed, data still running */
    NVMIMIC_REQ_POSTED,         /* completed, or untimed and done */
} NvmimicReqState;

/* Per-request state, embedded in the user's request (e.g. NvmeRequest). */
typedef struct NvmimicReq {
    uint64_t seq;               /* matches heap entries to this use of req */
    int64_t submit_ns;
    int64_t deadline_ns;
    uint8_t op;                 /* NvmOp */
    uint8_t state;              /* NvmimicReqState */
} NvmimicReq;

typedef struct NvmimicLate {
    uint64_t posted;
    uint64_t early;             /* posted before the deadline: never */
    uint64_t late;
    uint64_t late_sum_ns;
    uint64_t late_max_ns;
    /* posted minus scheduled time of every posted completion (0: on
     * time), in the model's histogram buckets */
    uint64_t hist[NVM_HIST_BUCKETS];
} NvmimicLate;

/* What nvmimic-set-state asks for, applied now or (NVMe) at a mark. */
typedef struct NvmimicState {
    bool erase;
    bool has_fill;
    double fill_pct;
    bool has_slc;
    uint64_t slc_used_bytes;
    bool has_wear;
    double wear_pct;
    bool has_thermal;
    bool thermal;
    bool has_steady;            /* the random-write steady state of ... */
    uint64_t steady_bytes;      /* ... the first steady_bytes */
    bool has_warm;              /* the map cache warm over ... */
    uint64_t warm_bytes;        /* ... the first warm_bytes */
    bool reset;
} NvmimicState;

/*
 * Complete @req now: its deadline came (called from the timer).  The same
 * type tells a user that @req's deadline passed with its data in flight.
 */
typedef void NvmimicPostFn(void *opaque, NvmimicReq *req);

/*
 * Simulated time: how long (host ms) the timer waits at a deadline for the
 * request's data transfer.  Host transfers take microseconds to a few
 * milliseconds; seconds allow for a loaded host.
 */
#define NVMIMIC_DATA_WAIT_MS 5000

typedef struct NvmimicTiming {
    NvmProfile *profile;
    NvmModel *model;
    QEMUTimer *timer;
    NvmimicPostFn *post;
    NvmimicPostFn *overdue_cb;  /* optional: a deadline passed first */
    /* optional: virtual time waits at @req's deadline for its data */
    NvmimicPostFn *wait_cb;
    /*
     * optional: is @req still there?  Asked after the user let requests
     * go (nvmimic_timing_filter()) while the timer waited for @req's data.
     */
    bool (*req_alive)(void *opaque, NvmimicReq *req);
    void *opaque;
    NvmHeap heap;               /* (deadline_ns, request's seq, request) */
    uint64_t next_seq;
    unsigned overdue;           /* requests in NVMIMIC_REQ_OVERDUE */
    uint64_t data_late;         /* requests that went so since the reset */
    /*
     * Simulated time: wakes the timer's wait at a deadline for a request's
     * data after NVMIMIC_DATA_WAIT_MS (nvmimic_wait_for_data())
     */
    QEMUTimer *wait_wake;
    uint64_t frees;             /* nvmimic_timing_filter() calls */
    NvmimicLate late[NVM_CLASS_COUNT];
    int64_t stats_since_ns;
    /*
     * timed requests since the statistics reset: the first one's arrival
     * (-1: none yet) and the latest scheduled completion
     */
    int64_t first_arrival_ns;
    int64_t last_deadline_ns;
    unsigned paused;            /* > 0: nothing is held (a drain) */
    /*
     * Real time: the timing thread that posts instead of the timer, while
     * the timer's context is the main loop (rt_here); NULL: the timer.
     */
    NvmimicRt *rt;
    bool rt_here;
    /*
     * A thread asked for before the accelerator exists (a -blockdev of
     * the command line opens before -accel and -icount are set up): the
     * choice waits for machine init done (rt_pending, rt_init).
     */
    NvmimicRtOpts rt_opts;
    const char *rt_what;
    Notifier rt_init;
    bool rt_pending;
    bool thermal;               /* the model's thermal model runs */
} NvmimicTiming;

static inline int64_t nvmimic_now(void)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

/* Does QEMU_CLOCK_VIRTUAL jump over idle time instead of running? */
bool nvmimic_time_jumps(void);

/*
 * Load the profile @name (a name looked up in NVMIMIC_PROFILE_DIR or the
 * checkout's profiles/, or a path); errors are prefixed with @what.
 */
NvmProfile *nvmimic_profile_load(const char *what, const char *name,
                                 Error **errp);

/*
 * Take @profile (freed with @t) and make its model.  The timer runs in
 * @ctx, or in the main loop when @ctx is NULL.
 */
void nvmimic_timing_init(NvmimicTiming *t, NvmProfile *profile,
                         uint64_t seed, AioContext *ctx,
                         NvmimicPostFn *post, void *opaque);
void nvmimic_timing_destroy(NvmimicTiming *t);
/*
 * Real time only (not when virtual time jumps): post with a timing thread
 * (nvmimic-rt.c) instead of the timer, as @o says; @what names the device
 * or node in errors.  True when no thread was asked for or it started.
 */
bool nvmimic_timing_start_thread(NvmimicTiming *t, const NvmimicRtOpts *o,
                                 const char *what, Error **errp);
/*
 * Post every held request whose deadline has come (the timer's callback;
 * the timing thread calls it with the BQL held).  @early_ns: treat the
 * clock as that much later (a test's negative control, else 0).
 */
void nvmimic_timing_run_due(NvmimicTiming *t, uint32_t early_ns);
/* Move the timer to @ctx (NULL: the main loop); no request may be held. */
void nvmimic_timing_set_context(NvmimicTiming *t, AioContext *ctx);

/* @req, submitted at @now, completes at @deadline: hold it until then. */
void nvmimic_timing_start(NvmimicTiming *t, NvmimicReq *req, NvmOp op,
                          int64_t now, int64_t deadline);
/*
 * @req's data transfer is done.  True: the timing holds it and calls post
 * at its deadline; false: complete it now (its deadline passed, or it was
 * never timed).
 */
bool nvmimic_timing_complete(NvmimicTiming *t, NvmimicReq *req);
/* @req is going away untimed (its queue was deleted): forget it. */
void nvmimic_timing_forget(NvmimicTiming *t, NvmimicReq *req);
/* Drop the heap entries @keep says no to, then re-arm the timer. */
void nvmimic_timing_filter(NvmimicTiming *t,
                           bool (*keep)(const NvmHeapItem *e, void *opaque),
                           void *opaque);
/*
 * A drain begins: release every held request now, through post, and hold
 * none until nvmimic_timing_resume() (a drain cannot wait for virtual
 * time, which stops with the VM).  Pauses nest.
 */
void nvmimic_timing_pause(NvmimicTiming *t);
void nvmimic_timing_resume(NvmimicTiming *t);

/*
 * The model's mapping state from @bs: the blocks it has allocated (data,
 * not zero) in [0, @bytes) hold data, the rest is deallocated.
 */
bool nvmimic_timing_map_from(NvmimicTiming *t, BlockDriverState *bs,
                             uint64_t bytes, Error **errp);

/* QMP: statistics and state; @id names the device or node in messages. */
struct NvmimicStats *nvmimic_timing_query(NvmimicTiming *t, char *canon_id);
/*
 * Check everything @st asks for before anything is applied, so that a
 * refused state leaves the drive as it was; then apply it (erase, fill,
 * SLC, wear, steady state, warm map, thermal, then the statistics reset).
 */
bool nvmimic_timing_check_state(NvmimicTiming *t, const char *id,
                                const NvmimicState *st, Error **errp);
bool nvmimic_timing_apply_state(NvmimicTiming *t, const char *id,
                                const NvmimicState *st, Error **errp);
void nvmimic_timing_reset_stats(NvmimicTiming *t, int64_t now);

/* The filter node called @node_name, if it is an nvmimic one (block.c). */
NvmimicTiming *nvmimic_block_find(const char *node_name);

#endif
