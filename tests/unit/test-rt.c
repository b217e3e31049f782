/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The real-time timing thread (hw/nvmimic-rt.c) outside QEMU, against the
 * primitives of tests/unit/rt-shim/: it never runs a deadline early, runs
 * every one, stays quiet while the VM is stopped, and can be stopped at
 * any moment, waiting for the BQL included.  Built three ways: the unit
 * suite, make check-sanitizers (ASan + UBSan) and its ThreadSanitizer
 * build (scripts/check-sanitizers.sh).
 */
#include <stdarg.h>

#include "qemu/osdep.h"
#include "heap.h"
#include "nvmimic-rt.h"

/* ---- the shim's QEMU --------------------------------------------------- */

static pthread_mutex_t bql = PTHREAD_MUTEX_INITIALIZER;
static __thread bool bql_held;
/* the test's own thread; the timing thread's takes of the BQL are counted */
static pthread_t test_thread;
static unsigned bql_blocking_takes, bql_failed_tries;

void shim_bql_lock(void)
{
    if (!pthread_equal(pthread_self(), test_thread)) {
        __atomic_add_fetch(&bql_blocking_takes, 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_lock(&bql);
    bql_held = true;
}

bool shim_bql_trylock(void)
{
    if (pthread_mutex_trylock(&bql)) {
        __atomic_add_fetch(&bql_failed_tries, 1, __ATOMIC_RELAXED);
        return false;
    }
    bql_held = true;
    return true;
}

void shim_bql_unlock(void)
{
    bql_held = false;
    pthread_mutex_unlock(&bql);
}

bool shim_bql_locked(void)
{
    return bql_held;
}

void qemu_thread_create(QemuThread *thread, const char *name G_GNUC_UNUSED,
                        void *(*fn)(void *), void *arg, int mode)
{
    int ret = pthread_create(&thread->thread, NULL, fn, arg);

    g_assert_cmpint(ret, ==, 0);
    g_assert_cmpint(mode, ==, QEMU_THREAD_DETACHED);
    pthread_detach(thread->thread);
}

int qemu_thread_set_affinity(QemuThread *thread, unsigned long *host_cpus,
                             unsigned long nbits)
{
    cpu_set_t set;

    CPU_ZERO(&set);
    for (unsigned long i = 0; i < nbits; i++) {
        if (host_cpus[i / BITS_PER_LONG] & (1UL << (i % BITS_PER_LONG))) {
            CPU_SET(i, &set);
        }
    }
    return -pthread_setaffinity_np(thread->thread, sizeof(set), &set);
}

int64_t get_clock(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * NANOSECONDS_PER_SECOND + ts.tv_nsec;
}

/* virtual = host - stopped_ns while running; frozen at stop_at while not */
static int64_t stopped_ns, stop_at = -1;

int64_t qemu_clock_get_ns(QEMUClockType type)
{
    int64_t at = __atomic_load_n(&stop_at, __ATOMIC_ACQUIRE);

    g_assert(type == QEMU_CLOCK_VIRTUAL);
    return at >= 0 ? at : get_clock() - __atomic_load_n(&stopped_ns,
                                                        __ATOMIC_ACQUIRE);
}

void shim_error_set(Error **errp, int err, const char *fmt, ...)
{
    g_autofree char *msg = NULL;
    va_list ap;

    va_start(ap, fmt);
    msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    *errp = g_new0(Error, 1);
    (*errp)->msg = err ? g_strdup_printf("%s: %s", msg, g_strerror(err)) :
                   g_steal_pointer(&msg);
}

struct VMChangeStateEntry {
    VMChangeStateHandler *cb;
    void *opaque;
};
static GPtrArray *vm_handlers;
static bool vm_running = true;

VMChangeStateEntry *qemu_add_vm_change_state_handler(VMChangeStateHandler *cb,
                                                     void *opaque)
{
    VMChangeStateEntry *e = g_new0(VMChangeStateEntry, 1);

    g_assert(bql_locked());
    e->cb = cb;
    e->opaque = opaque;
    if (!vm_handlers) {
        vm_handlers = g_ptr_array_new();
    }
    g_ptr_array_add(vm_handlers, e);
    return e;
}

void qemu_del_vm_change_state_handler(VMChangeStateEntry *e)
{
    g_assert(bql_locked());
    g_assert(g_ptr_array_remove(vm_handlers, e));
    g_free(e);
}

bool runstate_is_running(void)
{
    g_assert(bql_locked());
    return vm_running;
}

/* as vm_stop()/vm_start(): the clock stops first, then the handlers */
static void vm_set_running(bool running)
{
    g_assert(bql_locked());
    if (!running) {
        __atomic_store_n(&stop_at, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL),
                         __ATOMIC_RELEASE);
    } else {
        __atomic_store_n(&stopped_ns, get_clock() - stop_at,
                         __ATOMIC_RELEASE);
        __atomic_store_n(&stop_at, -1, __ATOMIC_RELEASE);
    }
    vm_running = running;
    for (guint i = 0; vm_handlers && i < vm_handlers->len; i++) {
        VMChangeStateEntry *e = g_ptr_array_index(vm_handlers, i);

        e->cb(e->opaque, running, 0);
    }
}

/* ---- a device: a deadline heap owned by the BQL ----------------------- */

typedef struct Dev {
    NvmimicRt *rt;
    NvmHeap heap;
    uint64_t seq, pushed, posted, early, while_stopped;
    int64_t late_max;
    GArray *late;               /* int64_t ns */
} Dev;

static void dev_arm(Dev *d)
{
    nvmimic_rt_arm(d->rt, d->heap.len ?
                   (int64_t)nvm_heap_top(&d->heap)->key : INT64_MAX);
}

/* the thread's callback, as nvmimic_timing_run_due() */
static void dev_run(void *opaque, uint32_t early_ns)
{
    Dev *d = opaque;
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);

    g_assert(bql_locked());
    if (!vm_running) {
        d->while_stopped++;
    }
    while (d->heap.len &&
           (int64_t)nvm_heap_top(&d->heap)->key <= now + early_ns) {
        int64_t late = now - (int64_t)nvm_heap_top(&d->heap)->key;

        nvm_heap_pop(&d->heap);
        d->posted++;
        d->early += late < 0;
        d->late_max = MAX(d->late_max, late);
        g_array_append_val(d->late, late);
    }
    dev_arm(d);
}

static void dev_push(Dev *d, int64_t deadline)
{
    g_assert(bql_locked());
    nvm_heap_push(&d->heap, deadline, ++d->seq, NULL);
    d->pushed++;
    if (nvm_heap_top(&d->heap)->tie == d->seq) {
        dev_arm(d);
    }
}

static void dev_start_poll(Dev *d, uint32_t spin_us, uint32_t early_ns,
                           uint32_t poll_us)
{
    NvmimicRtOpts o;
    Error *err = NULL;

    memset(d, 0, sizeof(*d));
    nvm_heap_init(&d->heap, 64);
    d->late = g_array_new(false, false, sizeof(int64_t));
    nvmimic_rt_opts_default(&o);
    o.spin_us = spin_us;
    o.early_ns = early_ns;
    o.poll_us = poll_us;
    bql_lock();
    d->rt = nvmimic_rt_start(dev_run, d, &o, "test", &err);
    g_assert_null(err);
    g_assert_nonnull(d->rt);
    bql_unlock();
}

static void dev_start(Dev *d, uint32_t spin_us, uint32_t early_ns)
{
    dev_start_poll(d, spin_us, early_ns, NVMIMIC_RT_POLL_US_DEFAULT);
}

static void dev_stop(Dev *d)
{
    bql_lock();
    nvmimic_rt_stop(d->rt);
    d->rt = NULL;
    bql_unlock();
    nvm_heap_destroy(&d->heap);
    g_array_free(d->late, true);
}

static void sleep_us(unsigned us)
{
    g_usleep(us);
}

/*
 * Deadlines @lo_us to @hi_us out, pushed in bursts of 1-4 with 0-150 us
 * between, for @ms milliseconds; then wait for the thread to run them all.
 */
static void load(Dev *d, GRand *r, unsigned ms, int32_t lo_us, int32_t hi_us)
{
    int64_t end = get_clock() + ms * 1000000LL, until;

    while (get_clock() < end) {
        bql_lock();
        for (int k = g_rand_int_range(r, 1, 5); k > 0; k--) {
            dev_push(d, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                        g_rand_int_range(r, lo_us * 1000, hi_us * 1000));
        }
        bql_unlock();
        sleep_us(g_rand_int_range(r, 0, 150));
    }
    until = get_clock() + 2000000000LL;
    for (;;) {
        bool done;

        bql_lock();
        done = d->posted == d->pushed;
        bql_unlock();
        if (done) {
            break;
        }
        g_assert_cmpint(get_clock(), <, until);
        sleep_us(1000);
    }
}

static int cmp_i64(gconstpointer a, gconstpointer b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

static void test_never_early_and_every_deadline_runs(void)
{
    GRand *r = g_rand_new_with_seed(11);
    Dev d;

    dev_start(&d, NVMIMIC_RT_SPIN_US_DEFAULT, 0);
    load(&d, r, 300, 20, 300);
    g_assert_cmpuint(d.posted, ==, d.pushed);
    g_assert_cmpuint(d.early, ==, 0);
    g_array_sort(d.late, cmp_i64);
    g_test_message("%" PRIu64 " deadlines; late p50 %.1f us, p99 %.1f us, "
                   "max %.1f us", d.posted,
                   g_array_index(d.late, int64_t, d.late->len / 2) / 1e3,
                   g_array_index(d.late, int64_t, d.late->len * 99 / 100) /
                   1e3, d.late_max / 1e3);
    dev_stop(&d);
    g_rand_free(r);
}

/*
 * The negative control: a thread told to run deadlines a second early runs
 * each as soon as it wakes; the same check sees it.  The deadlines lie
 * 50-500 ms out, so that a host loaded by others (and ThreadSanitizer's
 * slowdown) does not delay the thread past most of them: with 20-300 us
 * it caught only 44 of 340 on the loaded development host, with 2-20 ms
 * 346 of 1,090 beside two simtime guests and the other unit tests.
 */
static void test_early_option_is_caught(void)
{
    GRand *r = g_rand_new_with_seed(12);
    Dev d;

    dev_start(&d, 20, 1000000000);
    load(&d, r, 100, 50000, 500000);
    g_assert_cmpuint(d.posted, ==, d.pushed);
    g_assert_cmpuint(d.early, >, d.posted / 2);
    dev_stop(&d);
    g_rand_free(r);
}

static void wait_posted(Dev *d, uint64_t n)
{
    for (int64_t until = get_clock() + 2000000000LL;;) {
        bool done;

        bql_lock();
        done = d->posted == n;
        bql_unlock();
        if (done) {
            return;
        }
        g_assert_cmpint(get_clock(), <, until);
        sleep_us(200);
    }
}

/*
 * timing-poll-us: a deadline that comes within the window after the last
 * post is seen by polling, with no sleep (whose wake-up the host delays);
 * without the window the thread sleeps for it.  Two deadlines 20 ms apart
 * (host time), the window 100 ms: a thread that is descheduled while
 * polling still does not choose to sleep.  A thread descheduled from its
 * first post until the second deadline was pushed finds that deadline
 * already set when it starts to poll, so it sees no change and counts no
 * hit (seen once at a load of 5 on 2 cores); so the hit is asked of one of
 * a few tries, never a sleep of any.
 */
static void poll_case(uint32_t poll_us, uint64_t *sleeps, uint64_t *hits)
{
    NvmimicRtStats st0, st1;
    Dev d;

    dev_start_poll(&d, 20, 0, poll_us);
    bql_lock();
    dev_push(&d, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + 200000);
    bql_unlock();
    wait_posted(&d, 1);
    bql_lock();
    nvmimic_rt_get_stats(d.rt, &st0);
    bql_unlock();
    sleep_us(20000);
    bql_lock();
    dev_push(&d, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + 300000);
    bql_unlock();
    wait_posted(&d, 2);
    bql_lock();
    nvmimic_rt_get_stats(d.rt, &st1);
    g_assert_cmpuint(d.early, ==, 0);
    bql_unlock();
    *sleeps = st1.sleeps - st0.sleeps;
    *hits = st1.poll_hits;
    dev_stop(&d);
}

static void test_polling_sees_a_deadline_without_a_sleep(void)
{
    uint64_t sleeps, hits = 0;

    for (int i = 0; i < 5 && hits == 0; i++) {
        poll_case(NVMIMIC_RT_POLL_US_MAX, &sleeps, &hits);
        g_assert_cmpuint(sleeps, ==, 0);
    }
    g_assert_cmpuint(hits, >=, 1);
    /* the control: no window, so the thread slept for the second one */
    poll_case(0, &sleeps, &hits);
    g_assert_cmpuint(sleeps, >=, 1);
    g_assert_cmpuint(hits, ==, 0);
}

/* While the VM is stopped nothing runs, and what came due runs after. */
static void test_nothing_runs_while_the_vm_is_stopped(void)
{
    Dev d;
    int64_t now;

    dev_start(&d, 20, 0);
    bql_lock();
    now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    dev_push(&d, now + 200000);
    vm_set_running(false);
    bql_unlock();
    sleep_us(5000);                 /* far past the deadline in host time */
    bql_lock();
    g_assert_cmpuint(d.posted, ==, 0);
    vm_set_running(true);
    bql_unlock();
    for (int64_t until = get_clock() + 2000000000LL;;) {
        bool done;

        bql_lock();
        done = d.posted == 1;
        bql_unlock();
        if (done) {
            break;
        }
        g_assert_cmpint(get_clock(), <, until);
        sleep_us(1000);
    }
    bql_lock();
    g_assert_cmpuint(d.posted, ==, 1);
    g_assert_cmpuint(d.early, ==, 0);
    g_assert_cmpuint(d.while_stopped, ==, 0);
    bql_unlock();
    dev_stop(&d);
}

/* the thread's work (nvmimic_rt_set_work()): counted, with the BQL */
static unsigned works;

static void dev_work(void *opaque G_GNUC_UNUSED)
{
    g_assert(bql_locked());
    g_assert(vm_running);
    __atomic_add_fetch(&works, 1, __ATOMIC_RELAXED);
}

static unsigned works_now(void)
{
    return __atomic_load_n(&works, __ATOMIC_RELAXED);
}

/* Wait (2 s at most) for the work to have run @n times. */
static void wait_works(unsigned n)
{
    for (int64_t until = get_clock() + 2000000000LL; works_now() < n;) {
        g_assert_cmpint(get_clock(), <, until);
        sleep_us(200);
    }
}

/*
 * Work flagged without the BQL (a vCPU's doorbell, nvmimic-doorbell.c)
 * runs with the BQL, whether the thread sleeps or polls; never while the
 * VM is stopped, and the thread does not spin on it then (its sleeps stay
 * few); it runs once the VM runs again; and work flagged all through a load
 * of deadlines leaves every deadline run and none early.
 */
static void test_work_runs_between_deadlines_and_never_while_stopped(void)
{
    GRand *r = g_rand_new_with_seed(17);
    NvmimicRtStats st;
    uint64_t sleeps;
    Dev d;

    works = 0;
    dev_start_poll(&d, NVMIMIC_RT_SPIN_US_DEFAULT, 0, 0);
    bql_lock();
    nvmimic_rt_set_work(d.rt, dev_work, &d);
    bql_unlock();
    nvmimic_rt_work_pending(d.rt);      /* without the BQL */
    wait_works(1);

    bql_lock();
    vm_set_running(false);
    nvmimic_rt_get_stats(d.rt, &st);
    bql_unlock();
    sleeps = st.sleeps;
    nvmimic_rt_work_pending(d.rt);
    sleep_us(20000);
    bql_lock();
    nvmimic_rt_get_stats(d.rt, &st);
    g_assert_cmpuint(works_now(), ==, 1);
    g_assert_cmpuint(st.sleeps - sleeps, <, 100);
    vm_set_running(true);
    bql_unlock();
    wait_works(2);

    /* a load of deadlines with work flagged all along, from this thread */
    {
        int64_t end = get_clock() + 300 * 1000000LL;
        unsigned before = works_now();

        while (get_clock() < end) {
            bql_lock();
            dev_push(&d, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                         g_rand_int_range(r, 20000, 300000));
            bql_unlock();
            nvmimic_rt_work_pending(d.rt);
            sleep_us(g_rand_int_range(r, 0, 150));
        }
        load(&d, r, 1, 20, 300);        /* and wait for every deadline */
        g_assert_cmpuint(works_now(), >, before);
    }
    bql_lock();
    nvmimic_rt_get_stats(d.rt, &st);
    g_assert_true(st.has_work);
    g_assert_cmpuint(st.works, ==, works_now());
    g_assert_cmpuint(d.posted, ==, d.pushed);
    g_assert_cmpuint(d.early, ==, 0);
    bql_unlock();
    dev_stop(&d);
    g_rand_free(r);
}

/*
 * Stop the thread while it sleeps, spins, or waits for the BQL (held
 * here across its deadline), many times: under ASan and TSan a use after
 * free or a race would be reported, and a run after the stop would fail
 * the count.
 */
static void test_stop_at_any_moment(void)
{
    GRand *r = g_rand_new_with_seed(13);

    for (int i = 0; i < 300; i++) {
        Dev d;
        uint64_t posted;

        dev_start(&d, g_rand_int_range(r, 0, 40), 0);
        bql_lock();
        dev_push(&d, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                     g_rand_int_range(r, 0, 60000));
        bql_unlock();
        sleep_us(g_rand_int_range(r, 0, 40));
        bql_lock();
        if (i % 2) {
            /* the thread may now be spinning into the BQL */
            int64_t until = get_clock() + 100000;

            while (get_clock() < until) {
            }
        }
        posted = d.posted;
        nvmimic_rt_stop(d.rt);
        d.rt = NULL;
        bql_unlock();
        sleep_us(200);
        bql_lock();
        g_assert_cmpuint(d.posted, ==, posted);
        bql_unlock();
        nvm_heap_destroy(&d.heap);
        g_array_free(d.late, true);
    }
    g_rand_free(r);
    /* the detached threads end once they see the stop */
    sleep_us(20000);
}

/*
 * A hold of the BQL across a deadline, shorter than the largest spin
 * window: the thread takes the lock by trying until it is free, not by
 * sleeping on it (a contended lock's wake-up costs the host's wake-up
 * latency).  The hold lasts 5 ms, 3 ms past the deadline, inside a
 * window of 10 ms (so that a loaded host's preemption of the thread does
 * not make it give up).
 */
static void test_a_short_bql_hold_is_waited_out_without_sleeping(void)
{
    Dev d;
    int64_t deadline;
    uint64_t tries, sleeps;
    bool shown = false;

    /* a first deadline, so that the thread is awake and polling */
    dev_start_poll(&d, NVMIMIC_RT_SPIN_US_MAX, 0, NVMIMIC_RT_POLL_US_MAX);
    bql_lock();
    dev_push(&d, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + 1000000);
    bql_unlock();
    for (int64_t until = get_clock() + 2000000000LL;;) {
        bool done;

        bql_lock();
        done = d.posted == 1;
        bql_unlock();
        if (done) {
            break;
        }
        g_assert_cmpint(get_clock(), <, until);
        sleep_us(200);
    }
    /*
     * The next comes due 2 ms into a hold of 5 ms.  A round shows the
     * behaviour when the thread tried the lock and never slept on it.  On
     * a loaded host the thread may not get a CPU during the hold at all
     * (no try), or lose it for longer than its window and then sleep on
     * the lock: such a round shows nothing, and the hold is repeated, up
     * to 10 rounds (beside two busy loops and two simtime guests on two
     * cores, 2 of 6 runs found no such round in 5).  A thread that always slept on the lock, or never tried
     * it, fails every round.
     */
    for (unsigned round = 0; round < 10 && !shown; round++) {
        __atomic_store_n(&bql_blocking_takes, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&bql_failed_tries, 0, __ATOMIC_RELAXED);
        bql_lock();
        deadline = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + 2000000;
        dev_push(&d, deadline);
        while (qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) < deadline + 3000000) {
        }
        g_assert_cmpuint(d.posted, ==, 1 + round);
        bql_unlock();
        for (int64_t until = get_clock() + 2000000000LL;;) {
            bool done;

            bql_lock();
            done = d.posted == 2 + round;
            bql_unlock();
            if (done) {
                break;
            }
            g_assert_cmpint(get_clock(), <, until);
            sleep_us(200);
        }
        tries = __atomic_load_n(&bql_failed_tries, __ATOMIC_RELAXED);
        sleeps = __atomic_load_n(&bql_blocking_takes, __ATOMIC_RELAXED);
        g_test_message("round %u: %u tries, %u blocking takes", round,
                       (unsigned)tries, (unsigned)sleeps);
        shown = tries >= 1 && sleeps == 0;
    }
    g_assert_true(shown);
    g_assert_cmpuint(d.early, ==, 0);
    dev_stop(&d);
}

static void test_bad_options_are_refused(void)
{
    NvmimicRtOpts o;
    Error *err = NULL;

    nvmimic_rt_opts_default(&o);
    o.cpu = 1 << 20;
    g_assert_false(nvmimic_rt_opts_check(&o, "dev", &err));
    g_assert_nonnull(strstr(err->msg, "timing-cpu=1048576 is not a host "
                                      "CPU"));
    g_free(err->msg);
    g_free(err);
    err = NULL;
    nvmimic_rt_opts_default(&o);
    o.spin_us = NVMIMIC_RT_SPIN_US_MAX + 1;
    g_assert_false(nvmimic_rt_opts_check(&o, "dev", &err));
    g_assert_nonnull(strstr(err->msg, "timing-spin-us="));
    g_free(err->msg);
    g_free(err);
    err = NULL;
    nvmimic_rt_opts_default(&o);
    o.poll_us = NVMIMIC_RT_POLL_US_MAX + 1;
    g_assert_false(nvmimic_rt_opts_check(&o, "dev", &err));
    g_assert_nonnull(strstr(err->msg, "timing-poll-us="));
    g_free(err->msg);
    g_free(err);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    test_thread = pthread_self();
    g_test_add_func("/rt/never_early_and_every_deadline_runs",
                    test_never_early_and_every_deadline_runs);
    g_test_add_func("/rt/early_option_is_caught", test_early_option_is_caught);
    g_test_add_func("/rt/nothing_runs_while_the_vm_is_stopped",
                    test_nothing_runs_while_the_vm_is_stopped);
    g_test_add_func("/rt/stop_at_any_moment", test_stop_at_any_moment);
    g_test_add_func("/rt/work_runs_between_deadlines_and_never_while_stopped",
                    test_work_runs_between_deadlines_and_never_while_stopped);
    g_test_add_func("/rt/polling_sees_a_deadline_without_a_sleep",
                    test_polling_sees_a_deadline_without_a_sleep);
    g_test_add_func("/rt/a_short_bql_hold_is_waited_out_without_sleeping",
                    test_a_short_bql_hold_is_waited_out_without_sleeping);
    g_test_add_func("/rt/bad_options_are_refused",
                    test_bad_options_are_refused);
    return g_test_run();
}
