/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic real-time timing thread (see nvmimic-rt.h and docs/realtime.md).
 *
 * Why a thread: in real time a QEMU_CLOCK_VIRTUAL timer in the main loop
 * posts every completion some 25 us late here, the main loop's wake-up
 * and whatever it is doing then.  This thread sleeps until a spin window
 * before the earliest deadline, spins on the clock for the rest, and then
 * posts.
 *
 * How it stays safe: the deadline heap and everything the post touches
 * (ctrl.c's queues, nvme_post_cqes(), the block layer's coroutines) stay
 * what they were, owned by the BQL.  The thread reads one number without
 * a lock, the earliest deadline (next_ns, published with the BQL held by
 * nvmimic_rt_arm()), and takes the BQL to post: then it is one more
 * thread that runs device code under the BQL, as a vCPU thread does for
 * MMIO.  ctrl.c's queues have no lock of their own, and a second lock
 * for the timing alone would still need the BQL for the interrupt: under
 * TCG, raising it (cpu_interrupt()) asserts that the BQL is held, and
 * QEMU's IOThread users (virtio-blk dataplane) raise theirs through an
 * irqfd that only KVM's in-kernel irqchip takes without the main loop.
 * So: the BQL, and the cost of waiting for it is measured
 * (query-nvmimic-stats' realtime member, docs/realtime.md).
 *
 * Its work (nvmimic_rt_set_work(): the NVMe controller's doorbells with
 * timing-doorbells=on, nvmimic-doorbell.c) is done the same way, with the
 * BQL, at moments no deadline is due before it would be done; a producer
 * flags it without the BQL (work_pending, the same sleep/kick handshake as
 * the earliest deadline).
 *
 * The post itself is nvmimic_post_now(): the device's re-entrancy guard
 * is engaged, so a CQE or MSI-X message the guest aims at the
 * controller's own registers is refused, as from the main loop.  A reset
 * (CC.EN cleared) or a queue deletion forgets held requests with the BQL
 * held (nvmimic_sq_freed()): the thread, which only touches requests with
 * the BQL held, never sees them again.  While the VM is stopped nothing is
 * posted (virtual time stands still, and a stopped VM's memory must not
 * change under migration): the thread waits for a VM state change.
 * Unrealize stops the thread with the BQL held: the thread may be waiting
 * for the BQL then, so it is not joined (that would deadlock); it finds
 * itself stopped when it gets the BQL, lets it go and ends, and the last
 * of the two owners frees the state.
 *
 * Copyright (c) 2026 the nvmimic authors
 */

#include "qemu/osdep.h"
#include <poll.h>
#include <sys/eventfd.h>
#ifdef CONFIG_PRCTL_PR_SET_TIMERSLACK
#include <sys/prctl.h>
#endif
#include "qapi/error.h"
#include "qemu/atomic.h"
#include "qemu/bitmap.h"
#include "qemu/error-report.h"
#include "qemu/main-loop.h"
#include "qemu/processor.h"
#include "qemu/rcu.h"
#include "qemu/thread.h"
#include "qemu/timer.h"
#include "system/runstate.h"

#include "nvmimic-model.h"
#include "nvmimic-rt.h"
#include "trace.h"

struct NvmimicRt {
    NvmimicRtRunFn *run;
    void *opaque;               /* NULL once stopped (BQL) */
    QemuThread thread;
    int kick_fd;                /* eventfd: wakes the sleeping thread */
    VMChangeStateEntry *vmstate;
    int refs;                   /* the owner and the thread (atomic) */
    NvmimicRtOpts opts;
    int64_t spin_max_ns;        /* timing-spin-us */
    int64_t spin_ns;            /* the window now (the thread's; atomic) */
    int64_t poll_ns;            /* timing-poll-us */

    /* lock-free, between the BQL's side and the thread */
    int64_t next_ns;            /* earliest deadline, INT64_MAX: none */
    int64_t sleeping_for;       /* deadline the thread sleeps toward;
                                 * INT64_MIN: awake (it reads next_ns) */
    bool stop;
    bool running;               /* the VM runs */
    bool fifo;                  /* SCHED_FIFO granted (nvmimic_rt_start(),
                                 * once the thread runs; atomic) */

    /*
     * Its work (nvmimic_rt_set_work(): the controller's doorbells), done
     * with the BQL when no deadline is due before it would be done.
     */
    NvmimicRtWorkFn *work;      /* atomic: set once, before any pending */
    void *work_opaque;
    bool work_pending;          /* atomic */
    int64_t work_since;         /* host clock of the oldest pending (atomic) */
    int64_t work_guard_ns;      /* the 99th percentile of its holds (atomic) */

    /* statistics, written with the BQL held */
    uint64_t runs, sleeps, spin_total_ns, bql_wait_max_ns;
    uint64_t works;
    uint64_t work_wait_hist[NVM_HIST_BUCKETS];
    uint64_t poll_total_ns, poll_hits;
    uint64_t fifo_rests;        /* the thread's (atomic) */
    uint64_t bql_hist[NVM_HIST_BUCKETS];
    uint64_t wake_hist[NVM_HIST_BUCKETS];
    uint64_t stats_gen;         /* bumped by a reset */
};

void nvmimic_rt_opts_default(NvmimicRtOpts *o)
{
    memset(o, 0, sizeof(*o));
    o->enable = true;
    o->cpu = -1;
    o->spin_us = NVMIMIC_RT_SPIN_US_DEFAULT;
    o->poll_us = NVMIMIC_RT_POLL_US_DEFAULT;
}

bool nvmimic_rt_opts_check(const NvmimicRtOpts *o, const char *what,
                           Error **errp)
{
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);

    if (o->cpu < -1 || (ncpu > 0 && o->cpu >= ncpu)) {
        error_setg(errp, "%s: timing-cpu=%" PRId32 " is not a host CPU "
                   "(0..%ld, or -1 for none)", what, o->cpu, ncpu - 1);
        return false;
    }
    if (o->spin_us > NVMIMIC_RT_SPIN_US_MAX) {
        error_setg(errp, "%s: timing-spin-us=%" PRIu32 " is more than %d",
                   what, o->spin_us, NVMIMIC_RT_SPIN_US_MAX);
        return false;
    }
    if (o->poll_us > NVMIMIC_RT_POLL_US_MAX) {
        error_setg(errp, "%s: timing-poll-us=%" PRIu32 " is more than %d",
                   what, o->poll_us, NVMIMIC_RT_POLL_US_MAX);
        return false;
    }
    return true;
}

static void nvmimic_rt_unref(NvmimicRt *rt)
{
    if (qatomic_fetch_dec(&rt->refs) == 1) {
        close(rt->kick_fd);
        g_free(rt);
    }
}

static void nvmimic_rt_kick(NvmimicRt *rt)
{
    uint64_t one = 1;

    if (write(rt->kick_fd, &one, sizeof(one)) < 0 && errno != EAGAIN) {
        /* an eventfd write fails only when its counter would overflow */
        g_assert_not_reached();
    }
}

void nvmimic_rt_arm(NvmimicRt *rt, int64_t next_ns)
{
    qatomic_set(&rt->next_ns, next_ns);
    /*
     * Pairs with the barrier in nvmimic_rt_sleep(): either the thread sees
     * the new deadline before it sleeps, or this sees what it sleeps for.
     */
    smp_mb();
    if (next_ns < qatomic_read(&rt->sleeping_for)) {
        nvmimic_rt_kick(rt);
    }
}

void nvmimic_rt_set_work(NvmimicRt *rt, NvmimicRtWorkFn *fn, void *opaque)
{
    assert(bql_locked());
    rt->work_opaque = opaque;
    qatomic_set(&rt->work, fn);
}

void nvmimic_rt_work_pending(NvmimicRt *rt)
{
    if (!qatomic_read(&rt->work_pending)) {
        qatomic_set(&rt->work_since, get_clock());
        qatomic_set(&rt->work_pending, true);
    }
    /* as nvmimic_rt_arm(): the thread sees it, or this sees it sleep */
    smp_mb();
    if (qatomic_read(&rt->sleeping_for) != INT64_MIN) {
        nvmimic_rt_kick(rt);
    }
}

static void nvmimic_rt_vm_state(void *opaque, bool running,
                                RunState state G_GNUC_UNUSED)
{
    NvmimicRt *rt = opaque;

    qatomic_set(&rt->running, running);
    nvmimic_rt_kick(rt);
}

/* The clock of the deadlines: QEMU_CLOCK_VIRTUAL (a seqlock read). */
static inline int64_t nvmimic_rt_now(void)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

/*
 * Sleep toward @target (virtual ns; INT64_MAX: until kicked) for at most
 * @ns of host time (-1: no limit).  Returns at a kick, a stop, or the time.
 */
static void nvmimic_rt_sleep(NvmimicRt *rt, int64_t target, int64_t ns)
{
    struct pollfd pfd = { .fd = rt->kick_fd, .events = POLLIN };
    struct timespec ts = { .tv_sec = ns / NANOSECONDS_PER_SECOND,
                           .tv_nsec = ns % NANOSECONDS_PER_SECOND };
    uint64_t v;

    qatomic_set(&rt->sleeping_for, target);
    smp_mb();
    if (qatomic_read(&rt->next_ns) < target || qatomic_read(&rt->stop) ||
        (qatomic_read(&rt->work_pending) && qatomic_read(&rt->running))) {
        qatomic_set(&rt->sleeping_for, INT64_MIN);
        return;
    }
    if (ppoll(&pfd, 1, ns < 0 ? NULL : &ts, NULL) > 0) {
        if (read(rt->kick_fd, &v, sizeof(v)) < 0) {
            /* EAGAIN: another read took it; nothing else can fail */
        }
    }
    qatomic_set(&rt->sleeping_for, INT64_MIN);
}

/* The thread's polling since it last posted (timing-poll-us). */
typedef struct NvmimicRtPoll {
    uint64_t ns;                /* time spent polling */
    uint64_t hits;              /* polls that saw a new deadline come */
} NvmimicRtPoll;

/*
 * The spin window follows the host: how late a sleep wakes is the host's
 * (its scheduler, its timer interrupt, a hypervisor's timer slack: 50 us
 * on the development host), so the window is the 99th percentile of the
 * last NVMIMIC_RT_WAKES wake-ups past their target, plus a margin, at most
 * timing-spin-us.  A host whose sleeps wake on time spins a few us.  The
 * work's guard is found the same way, from how long its last holds of the
 * BQL took.
 */
#define NVMIMIC_RT_WAKES 256
#define NVMIMIC_RT_MARGIN_NS 2000

typedef struct NvmimicRtWakes {
    int64_t late[NVMIMIC_RT_WAKES];     /* a ring */
    unsigned n;
} NvmimicRtWakes;

static int nvmimic_rt_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

/* Add @v to @w; every 32nd time the 99th percentile of @w, else -1. */
static int64_t nvmimic_rt_ring_p99(NvmimicRtWakes *w, int64_t v)
{
    int64_t sorted[NVMIMIC_RT_WAKES];
    unsigned k = MIN(w->n + 1, NVMIMIC_RT_WAKES);

    w->late[w->n++ % NVMIMIC_RT_WAKES] = v;
    if (w->n % 32) {
        return -1;
    }
    memcpy(sorted, w->late, k * sizeof(sorted[0]));
    qsort(sorted, k, sizeof(sorted[0]), nvmimic_rt_cmp);
    return sorted[(k * 99 - 1) / 100];
}

static void nvmimic_rt_wake(NvmimicRt *rt, NvmimicRtWakes *w, int64_t late)
{
    int64_t p = nvmimic_rt_ring_p99(w, late);

    if (p >= 0) {
        qatomic_set(&rt->spin_ns,
                    MIN(rt->spin_max_ns, p + NVMIMIC_RT_MARGIN_NS));
    }
}

/*
 * Take the BQL, trying without sleeping for up to the largest spin window
 * first: a contended lock otherwise puts the thread to sleep in the kernel,
 * and the holder's unlock wakes it only after the host's wake-up latency,
 * which is longer than most holds (a vCPU's MMIO, a main-loop handler).
 */
static void nvmimic_rt_bql_lock(NvmimicRt *rt, int64_t t0)
{
    while (!bql_trylock()) {
        if (get_clock() - t0 >= rt->spin_max_ns) {
            bql_lock();
            return;
        }
        cpu_relax();
    }
}

/*
 * Work goes when no deadline comes before it would be done: the earliest
 * deadline lies more than the guard (the 99th percentile of the work's
 * last holds of the BQL, plus a margin) ahead.  Work that has waited
 * NVMIMIC_RT_WORK_WAIT_MAX_NS goes anyway, so deadlines that keep coming
 * (100,000 IOPS) do not hold it back for ever.
 */
#define NVMIMIC_RT_WORK_GUARD_NS (50 * SCALE_US)    /* until measured */
#define NVMIMIC_RT_WORK_WAIT_MAX_NS (200 * SCALE_US)

static bool nvmimic_rt_work_fits(NvmimicRt *rt)
{
    int64_t next;

    if (!qatomic_read(&rt->work_pending) || !qatomic_read(&rt->work)) {
        return false;
    }
    next = qatomic_read(&rt->next_ns);
    return next == INT64_MAX ||
           next - rt->opts.early_ns - nvmimic_rt_now() >
           qatomic_read(&rt->work_guard_ns) ||
           get_clock() - qatomic_read(&rt->work_since) >
           NVMIMIC_RT_WORK_WAIT_MAX_NS;
}

/*
 * With the BQL, the VM running: the work, then what came due during it.
 * Its hold goes into @holds, which sets the guard.
 */
static void nvmimic_rt_do_work(NvmimicRt *rt, NvmimicRtWakes *holds)
{
    int64_t t0 = get_clock();
    int64_t since = qatomic_read(&rt->work_since);
    int64_t p;

    qatomic_set(&rt->work_pending, false);
    /* pairs with nvmimic_rt_work_pending(): what comes now is seen next */
    smp_mb();
    rt->work(rt->work_opaque);
    rt->works++;
    rt->work_wait_hist[nvm_hist_bucket(t0 > since ? t0 - since : 0)]++;
    p = nvmimic_rt_ring_p99(holds, get_clock() - t0);
    if (p >= 0) {
        qatomic_set(&rt->work_guard_ns,
                    MIN(NVMIMIC_RT_WORK_WAIT_MAX_NS,
                        p + NVMIMIC_RT_MARGIN_NS));
    }
    rt->run(rt->opaque, rt->opts.early_ns);
}

/* Take the BQL for the work alone; false when stopped. */
static bool nvmimic_rt_work_locked(NvmimicRt *rt, NvmimicRtWakes *holds)
{
    nvmimic_rt_bql_lock(rt, get_clock());
    if (!rt->opaque) {
        bql_unlock();
        return false;
    }
    if (runstate_is_running()) {
        /* a deadline that came while it waited for the BQL goes first */
        rt->run(rt->opaque, rt->opts.early_ns);
        if (nvmimic_rt_work_fits(rt)) {
            nvmimic_rt_do_work(rt, holds);
        }
    }
    bql_unlock();
    return true;
}

/*
 * With the BQL: post what is due, and the work if it fits, unless
 * stopped; false when stopped.
 */
static bool nvmimic_rt_post(NvmimicRt *rt, int64_t due_ns,
                            const uint64_t *wake_hist, uint64_t *gen,
                            uint64_t spin_ns, const NvmimicRtPoll *poll,
                            NvmimicRtWakes *holds)
{
    int64_t t0 = get_clock();
    int64_t waited;
    unsigned i;

    nvmimic_rt_bql_lock(rt, t0);
    if (!rt->opaque) {
        bql_unlock();
        return false;
    }
    waited = get_clock() - t0;
    if (*gen == rt->stats_gen) {
        for (i = 0; i < NVM_HIST_BUCKETS; i++) {
            rt->wake_hist[i] += wake_hist[i];
        }
        rt->spin_total_ns += spin_ns;
        rt->poll_total_ns += poll->ns;
        rt->poll_hits += poll->hits;
    }
    *gen = rt->stats_gen;
    rt->runs++;
    rt->bql_hist[nvm_hist_bucket(waited)]++;
    rt->bql_wait_max_ns = MAX(rt->bql_wait_max_ns, (uint64_t)waited);
    /*
     * A VM that stopped (its virtual clock stopped before the BQL was let
     * go) posts nothing until it runs again, as a QEMU_CLOCK_VIRTUAL timer.
     */
    if (runstate_is_running()) {
        trace_nvmimic_rt_post(due_ns, waited);
        rt->run(rt->opaque, rt->opts.early_ns);
        if (nvmimic_rt_work_fits(rt)) {
            nvmimic_rt_do_work(rt, holds);
        }
    }
    bql_unlock();
    return true;
}

/* Is the earliest deadline @next (INT64_MAX: none) before its spin window? */
static bool nvmimic_rt_before_window(NvmimicRt *rt, int64_t next)
{
    return next == INT64_MAX ||
           next - rt->opts.early_ns - qatomic_read(&rt->spin_ns) >
           nvmimic_rt_now();
}

/*
 * timing-fifo=on under the kernel's real-time throttling: a SCHED_FIFO
 * thread that polls and spins for more than sched_rt_runtime_us of each
 * sched_rt_period_us is stopped for the rest of that period (50 ms of each
 * second by default), and every deadline in it is posted that late.  So
 * the thread keeps its own account: once its CPU time in a period comes
 * within 5 % of the period of that runtime, it goes back to SCHED_OTHER
 * (it still runs, as any thread) until the period ends.  On a host where
 * throttling is off (sched_rt_runtime_us -1) it stays SCHED_FIFO.
 */
#define NVMIMIC_RT_DUTY_CHECK_NS (1000 * SCALE_US)

typedef struct NvmimicRtDuty {
    int64_t budget_ns;          /* SCHED_FIFO CPU time per period; <0: none */
    int64_t period_ns;
    int64_t window_end;         /* host clock */
    int64_t cpu0;               /* the thread's CPU time at the window start */
    int64_t next_check;
    bool known;                 /* budget_ns read (SCHED_FIFO granted) */
    bool rested;                /* SCHED_OTHER until window_end */
} NvmimicRtDuty;

static int64_t nvmimic_rt_read_sysctl(const char *path)
{
    g_autofree char *text = NULL;
    char *end;
    int64_t v;

    if (!g_file_get_contents(path, &text, NULL, NULL)) {
        return -1;
    }
    errno = 0;
    v = g_ascii_strtoll(g_strstrip(text), &end, 10);
    return errno || end == text || *end ? -1 : v;
}

static int64_t nvmimic_rt_cpu_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * NANOSECONDS_PER_SECOND + ts.tv_nsec;
}

static void nvmimic_rt_duty_init(NvmimicRtDuty *d)
{
    int64_t runtime_us, period_us;

    d->known = true;
    runtime_us = nvmimic_rt_read_sysctl("/proc/sys/kernel/sched_rt_runtime_us");
    period_us = nvmimic_rt_read_sysctl("/proc/sys/kernel/sched_rt_period_us");
    if (runtime_us < 0 || period_us <= 0) {
        return;                 /* throttling off, or not Linux's files */
    }
    d->period_ns = period_us * SCALE_US;
    d->budget_ns = MAX(0, runtime_us * SCALE_US - d->period_ns / 20);
}

static void nvmimic_rt_set_fifo(bool on)
{
    struct sched_param sp = { .sched_priority = on ? 1 : 0 };

    /* it was granted once: going back and forth is not refused */
    pthread_setschedparam(pthread_self(), on ? SCHED_FIFO : SCHED_OTHER, &sp);
}

/* Keep @d's account at host time @t (get_clock()). */
static void nvmimic_rt_duty(NvmimicRt *rt, NvmimicRtDuty *d, int64_t t)
{
    if (d->budget_ns < 0) {
        /* nvmimic_rt_start() sets fifo once the thread runs SCHED_FIFO */
        if (d->known || !qatomic_read(&rt->fifo)) {
            return;
        }
        nvmimic_rt_duty_init(d);
        if (d->budget_ns < 0) {
            return;
        }
    }
    if (t < d->next_check) {
        return;
    }
    d->next_check = t + NVMIMIC_RT_DUTY_CHECK_NS;
    if (t >= d->window_end) {
        d->window_end = t + d->period_ns;
        d->cpu0 = nvmimic_rt_cpu_ns();
        if (d->rested) {
            nvmimic_rt_set_fifo(true);
            d->rested = false;
        }
    } else if (!d->rested && nvmimic_rt_cpu_ns() - d->cpu0 > d->budget_ns) {
        nvmimic_rt_set_fifo(false);
        d->rested = true;
        qatomic_inc(&rt->fifo_rests);
    }
}

/*
 * Poll (host clock, until @until) for the earliest deadline to move from
 * @next, for its spin window to come, for the thread to stop, or for the
 * VM to stop, keeping @duty's account.  False only when @until came first.
 */
static bool nvmimic_rt_poll(NvmimicRt *rt, int64_t next, int64_t until,
                            NvmimicRtPoll *poll, NvmimicRtDuty *duty)
{
    int64_t t0 = get_clock(), t = t0;
    bool came = false;

    while (t < until && !qatomic_read(&rt->stop) &&
           qatomic_read(&rt->running)) {
        if (qatomic_read(&rt->next_ns) != next) {
            poll->hits++;
            came = true;
            break;
        }
        if (!nvmimic_rt_before_window(rt, next) ||
            nvmimic_rt_work_fits(rt)) {
            came = true;
            break;
        }
        cpu_relax();
        t = get_clock();
        /* a poll can last timing-poll-us: keep the FIFO account inside it */
        nvmimic_rt_duty(rt, duty, t);
    }
    poll->ns += t - t0;
    return came || t < until;
}

static void *nvmimic_rt_thread(void *opaque)
{
    NvmimicRt *rt = opaque;
    uint64_t wake_hist[NVM_HIST_BUCKETS] = { 0 };
    uint64_t gen = 0, spin_ns = 0;
    NvmimicRtPoll poll = { 0, 0 };
    int64_t poll_until = INT64_MIN;     /* host clock: poll, not sleep */
    NvmimicRtWakes wakes = { .n = 0 };
    NvmimicRtWakes holds = { .n = 0 };
    NvmimicRtDuty duty = { .budget_ns = -1 };

    rcu_register_thread();
#ifdef CONFIG_PRCTL_PR_SET_TIMERSLACK
    /* the kernel's default slack is 50 us: none at all */
    prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0);
#endif
    while (!qatomic_read(&rt->stop)) {
        int64_t next = qatomic_read(&rt->next_ns);
        int64_t host = get_clock();
        int64_t now, spin_from, spin_start;

        nvmimic_rt_duty(rt, &duty, host);

        if (qatomic_read(&rt->running) && nvmimic_rt_work_fits(rt)) {
            if (!nvmimic_rt_work_locked(rt, &holds)) {
                break;
            }
            if (rt->poll_ns) {
                poll_until = get_clock() + rt->poll_ns;
            }
            continue;
        }
        if (qatomic_read(&rt->running) && host < poll_until &&
            nvmimic_rt_before_window(rt, next)) {
            if (!nvmimic_rt_poll(rt, next, poll_until, &poll, &duty)) {
                poll_until = INT64_MIN;     /* nothing came: sleep */
            }
            continue;
        }
        if (next == INT64_MAX || !qatomic_read(&rt->running)) {
            qatomic_inc(&rt->sleeps);
            nvmimic_rt_sleep(rt, INT64_MAX, -1);
            continue;
        }
        /* the deadline on this clock, minus what the test asks for */
        next -= rt->opts.early_ns;
        now = nvmimic_rt_now();
        spin_from = next - qatomic_read(&rt->spin_ns);
        if (now < spin_from) {
            int64_t woke;

            qatomic_inc(&rt->sleeps);
            nvmimic_rt_sleep(rt, next + rt->opts.early_ns, spin_from - now);
            woke = nvmimic_rt_now();
            if (woke >= spin_from &&
                qatomic_read(&rt->next_ns) - rt->opts.early_ns == next) {
                /* woke by its timeout, past its target */
                wake_hist[nvm_hist_bucket(woke - spin_from)]++;
                nvmimic_rt_wake(rt, &wakes, woke - spin_from);
            }
            if (woke < spin_from) {
                continue;       /* kicked, or the VM stopped */
            }
        }
        /* spin: the clock is a vDSO read and a seqlock, ~50-150 ns */
        now = spin_start = nvmimic_rt_now();
        while (now < next) {
            int64_t n2 = qatomic_read(&rt->next_ns) - rt->opts.early_ns;

            if (n2 > next || qatomic_read(&rt->stop) ||
                !qatomic_read(&rt->running) || nvmimic_rt_work_fits(rt)) {
                break;          /* posted by another path, stopping, or
                                 * work that fits before the deadline */
            }
            next = n2;
            cpu_relax();
            now = nvmimic_rt_now();
        }
        spin_ns += now - spin_start;
        if (now < next) {
            continue;
        }
        if (!nvmimic_rt_post(rt, next, wake_hist, &gen, spin_ns, &poll,
                             &holds)) {
            break;
        }
        memset(wake_hist, 0, sizeof(wake_hist));
        spin_ns = 0;
        poll = (NvmimicRtPoll) { 0, 0 };
        if (rt->poll_ns) {
            poll_until = get_clock() + rt->poll_ns;
        }
    }
    rcu_unregister_thread();
    nvmimic_rt_unref(rt);
    return NULL;
}

NvmimicRt *nvmimic_rt_start(NvmimicRtRunFn *run, void *opaque,
                            const NvmimicRtOpts *o, const char *what,
                            Error **errp)
{
    NvmimicRt *rt;
    int fd;

    if (!nvmimic_rt_opts_check(o, what, errp)) {
        return NULL;
    }
    fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (fd < 0) {
        error_setg_errno(errp, errno, "%s: cannot make the timing thread's "
                         "eventfd", what);
        return NULL;
    }
    assert(opaque);
    rt = g_new0(NvmimicRt, 1);
    rt->run = run;
    rt->opaque = opaque;
    rt->kick_fd = fd;
    rt->opts = *o;
    rt->spin_max_ns = (int64_t)o->spin_us * SCALE_US;
    rt->poll_ns = (int64_t)o->poll_us * SCALE_US;
    /* from the largest window, until the host's wake-ups are known */
    rt->spin_ns = rt->spin_max_ns;
    rt->next_ns = INT64_MAX;
    rt->sleeping_for = INT64_MIN;
    rt->work_guard_ns = NVMIMIC_RT_WORK_GUARD_NS;
    rt->running = runstate_is_running();
    rt->refs = 2;
    rt->vmstate = qemu_add_vm_change_state_handler(nvmimic_rt_vm_state, rt);
    /* the thread starts at the creator's policy; it reads fifo once set */
    qemu_thread_create(&rt->thread, "nvmimic-timing", nvmimic_rt_thread, rt,
                       QEMU_THREAD_DETACHED);
    if (o->cpu >= 0) {
        unsigned long *mask = bitmap_new(o->cpu + 1);
        int ret;

        set_bit(o->cpu, mask);
        ret = qemu_thread_set_affinity(&rt->thread, mask, o->cpu + 1);
        g_free(mask);
        if (ret) {
            warn_report("%s: cannot pin the timing thread to host CPU %"
                        PRId32 " (%s); it runs unpinned", what, o->cpu,
                        strerror(-ret > 0 ? -ret : ret));
        }
    }
    if (o->fifo) {
        struct sched_param sp = { .sched_priority = 1 };
        int ret = pthread_setschedparam(rt->thread.thread, SCHED_FIFO, &sp);

        if (ret) {
            warn_report("%s: timing-fifo=on: SCHED_FIFO refused (%s); the "
                        "timing thread runs at normal priority", what,
                        strerror(ret));
        } else {
            qatomic_set(&rt->fifo, true);
            nvmimic_rt_kick(rt);
        }
    }
    return rt;
}

void nvmimic_rt_stop(NvmimicRt *rt)
{
    assert(bql_locked());
    qemu_del_vm_change_state_handler(rt->vmstate);
    rt->opaque = NULL;
    qatomic_set(&rt->stop, true);
    nvmimic_rt_kick(rt);
    nvmimic_rt_unref(rt);
}

void nvmimic_rt_get_stats(NvmimicRt *rt, NvmimicRtStats *st)
{
    memset(st, 0, sizeof(*st));
    st->runs = rt->runs;
    st->sleeps = qatomic_read(&rt->sleeps);
    st->bql_wait_ns_max = rt->bql_wait_max_ns;
    st->bql_wait_p50_us = nvm_hist_percentile_us(rt->bql_hist, rt->runs, 0.5);
    st->bql_wait_p99_us = nvm_hist_percentile_us(rt->bql_hist, rt->runs,
                                                 0.99);
    st->spin_ns = rt->spin_total_ns;
    st->spin_us = qatomic_read(&rt->spin_ns) / SCALE_US;
    st->fifo_rests = qatomic_read(&rt->fifo_rests);
    st->poll_ns = rt->poll_total_ns;
    st->poll_hits = rt->poll_hits;
    st->has_work = qatomic_read(&rt->work) != NULL;
    if (st->has_work) {
        uint64_t n = 0;
        unsigned i;

        for (i = 0; i < NVM_HIST_BUCKETS; i++) {
            n += rt->work_wait_hist[i];
        }
        st->works = rt->works;
        st->work_wait_p50_us = nvm_hist_percentile_us(rt->work_wait_hist, n,
                                                      0.5);
        st->work_wait_p99_us = nvm_hist_percentile_us(rt->work_wait_hist, n,
                                                      0.99);
        st->work_guard_us = qatomic_read(&rt->work_guard_ns) / SCALE_US;
    }
    {
        uint64_t n = 0;
        unsigned i;

        for (i = 0; i < NVM_HIST_BUCKETS; i++) {
            n += rt->wake_hist[i];
        }
        st->wake_late_p50_us = nvm_hist_percentile_us(rt->wake_hist, n, 0.5);
        st->wake_late_p99_us = nvm_hist_percentile_us(rt->wake_hist, n,
                                                      0.99);
    }
}

void nvmimic_rt_reset_stats(NvmimicRt *rt)
{
    rt->stats_gen++;
    rt->runs = 0;
    qatomic_set(&rt->sleeps, 0);
    rt->spin_total_ns = 0;
    rt->poll_total_ns = 0;
    rt->poll_hits = 0;
    rt->bql_wait_max_ns = 0;
    memset(rt->bql_hist, 0, sizeof(rt->bql_hist));
    rt->works = 0;
    memset(rt->work_wait_hist, 0, sizeof(rt->work_wait_hist));
    memset(rt->wake_hist, 0, sizeof(rt->wake_hist));
}
