/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic real-time timing thread: in real time (no -icount, no qtest) it
 * posts a timing's held completions at their deadlines instead of a
 * QEMU_CLOCK_VIRTUAL timer in the main loop.  It sleeps until shortly
 * before the earliest deadline, spins the rest, then takes the BQL and
 * runs the timing's due requests.  docs/realtime.md says why and what it
 * measures.
 */
#ifndef HW_NVME_NVMIMIC_RT_H
#define HW_NVME_NVMIMIC_RT_H

typedef struct NvmimicRt NvmimicRt;

/*
 * Post what is due (with the BQL held): every held completion whose
 * deadline is at most the clock plus @early_ns.
 */
typedef void NvmimicRtRunFn(void *opaque, uint32_t early_ns);

/* The thread's options (device properties, block filter options). */
typedef struct NvmimicRtOpts {
    bool enable;                /* timing-thread=on */
    int32_t cpu;                /* timing-cpu: a host CPU to pin to, -1 none */
    uint32_t spin_us;           /* timing-spin-us: spin at most this long */
    /*
     * timing-poll-us: for this long after it last posted, the thread polls
     * for a new deadline instead of sleeping toward it (a sleeping thread
     * is woken by the next submission only after the host's wake-up
     * latency, 100-300 us on the development host), as KVM's halt polling
     * does for a vCPU.  0: it always sleeps.
     */
    uint32_t poll_us;
    bool fifo;                  /* timing-fifo: SCHED_FIFO if permitted */
    /*
     * x-timing-early-ns: post this long BEFORE each deadline.  Only for
     * the test that shows the early-posting check can fail.
     */
    uint32_t early_ns;
    /*
     * timing-doorbells (the NVMe controller's): the thread replays the
     * guest's doorbell writes, queued without the BQL, at moments no
     * deadline is due (nvmimic-doorbell.c).
     */
    bool doorbells;
} NvmimicRtOpts;

/* The defaults: a 2-core host, one vCPU (docs/realtime.md). */
#define NVMIMIC_RT_SPIN_US_DEFAULT 200
#define NVMIMIC_RT_SPIN_US_MAX 10000
#define NVMIMIC_RT_POLL_US_DEFAULT 1000
#define NVMIMIC_RT_POLL_US_MAX 100000

/* The options' defaults, for a user that has no properties to set. */
void nvmimic_rt_opts_default(NvmimicRtOpts *o);
/* Are @o valid?  @what names the device or node in the message. */
bool nvmimic_rt_opts_check(const NvmimicRtOpts *o, const char *what,
                           Error **errp);

/*
 * Start a thread (the BQL held).  Its user publishes the earliest deadline
 * (QEMU_CLOCK_VIRTUAL) with nvmimic_rt_arm(); the thread calls @run with
 * the BQL held when it comes.
 */
NvmimicRt *nvmimic_rt_start(NvmimicRtRunFn *run, void *opaque,
                            const NvmimicRtOpts *o, const char *what,
                            Error **errp);
/*
 * Stop the thread (the BQL held): from now on it never calls run.  It may
 * still be waiting for the BQL; it then lets it go and ends.
 */
void nvmimic_rt_stop(NvmimicRt *rt);
/* The earliest deadline is now @next_ns (INT64_MAX: none); BQL held. */
void nvmimic_rt_arm(NvmimicRt *rt, int64_t next_ns);

/*
 * Work the thread does with the BQL held, at a moment when no deadline is
 * due before it would be done: @fn(@opaque), set once with the BQL held
 * before anything calls nvmimic_rt_work_pending(), which any thread may
 * call (without the BQL) while the owner keeps @rt alive.
 */
typedef void NvmimicRtWorkFn(void *opaque);
void nvmimic_rt_set_work(NvmimicRt *rt, NvmimicRtWorkFn *fn, void *opaque);
void nvmimic_rt_work_pending(NvmimicRt *rt);

/* What the thread measured since it started or its statistics reset. */
typedef struct NvmimicRtStats {
    uint64_t runs;              /* times it took the BQL to post */
    uint64_t sleeps;            /* times it slept */
    uint64_t bql_wait_ns_max;
    double bql_wait_p50_us, bql_wait_p99_us;
    /* how far past its target the thread woke from a sleep */
    double wake_late_p50_us, wake_late_p99_us;
    uint64_t spin_ns;           /* time spent spinning */
    uint64_t poll_ns;           /* time spent polling for a deadline */
    uint64_t poll_hits;         /* polls that saw a new deadline come */
    uint32_t spin_us;           /* the spin window now (it adapts) */
    uint64_t fifo_rests;        /* periods it left SCHED_FIFO to not be throttled */
    /* its work (nvmimic_rt_set_work()): none, has_work false */
    bool has_work;
    uint64_t works;             /* times it did it */
    /* from the oldest nvmimic_rt_work_pending() to the work's start */
    double work_wait_p50_us, work_wait_p99_us;
    uint32_t work_guard_us;     /* how far off a deadline must be (adapts) */
} NvmimicRtStats;

void nvmimic_rt_get_stats(NvmimicRt *rt, NvmimicRtStats *st);
void nvmimic_rt_reset_stats(NvmimicRt *rt);

#endif
