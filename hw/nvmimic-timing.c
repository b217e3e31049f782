/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic timing: the drive model, the deadline heap and its timer, and
 * the statistics and state of QMP, shared by the NVMe controller and the
 * block filter.  See nvmimic-timing.h.
 *
 * Copyright (c) 2026 the nvmimic authors
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/error-report.h"
#include "qapi/qapi-types-nvmimic.h"
#include "qemu/main-loop.h"
#include "qemu/timer.h"
#include "block/block-io.h"
#include "block/block_int-common.h"
#include "block/graph-lock.h"
#include "system/cpu-timers.h"
#include "system/qtest.h"
#include "system/system.h"
#include "hw/qdev-core.h"

#include "nvmimic-timing.h"

/* SMART Percentage Used saturates at 255 (NVMe 1.4, Figure 194). */
#define NVMIMIC_WEAR_PCT_MAX 255

bool nvmimic_time_jumps(void)
{
    return icount_enabled() || qtest_enabled();
}

/* ---- profiles ------------------------------------------------------------ */

static char *nvmimic_default_profile_dir(void)
{
    const char *env = g_getenv("NVMIMIC_PROFILE_DIR");
    g_autofree char *exe = NULL;
    g_autofree char *dir = NULL;
    g_autofree char *installed = NULL;

    if (env && *env) {
        return g_strdup(env);
    }
    exe = g_file_read_link("/proc/self/exe", NULL);
    if (!exe) {
        return g_strdup("profiles");
    }
    dir = g_path_get_dirname(exe);
    /* make install: PREFIX/libexec/nvmimic -> PREFIX/share/nvmimic/profiles */
    installed = g_build_filename(dir, "..", "..", "share", "nvmimic",
                                 "profiles", NULL);
    if (g_file_test(installed, G_FILE_TEST_IS_DIR)) {
        return g_steal_pointer(&installed);
    }
    /* build/qemu/qemu-system-x86_64 -> <checkout>/profiles */
    return g_build_filename(dir, "..", "..", "profiles", NULL);
}

NvmProfile *nvmimic_profile_load(const char *what, const char *name,
                                 Error **errp)
{
    g_autofree char *dir = nvmimic_default_profile_dir();
    GError *err = NULL;
    NvmProfile *p = nvm_profile_load(name, dir, &err);

    if (!p) {
        /* the message names the file; a missing name also says where */
        if (g_error_matches(err, G_FILE_ERROR, G_FILE_ERROR_NOENT) &&
            !strchr(name, '/')) {
            error_setg(errp, "%s: profile=%s: %s (profiles are looked up "
                       "in %s; set NVMIMIC_PROFILE_DIR or give a path)",
                       what, name, err->message, dir);
        } else {
            error_setg(errp, "%s: profile: %s", what, err->message);
        }
        g_error_free(err);
    }
    return p;
}

/* ---- the deadline heap ------------------------------------------------ */

/* An entry is live while its request is still in the use it was made for. */
static bool heap_entry_live(const NvmHeapItem *e)
{
    const NvmimicReq *req = e->data;

    return req->seq == e->tie &&
           (req->state == NVMIMIC_REQ_INFLIGHT ||
            req->state == NVMIMIC_REQ_HELD);
}

static void nvmimic_arm(NvmimicTiming *t)
{
    int64_t next = INT64_MAX;

    while (t->heap.len && !heap_entry_live(nvm_heap_top(&t->heap))) {
        nvm_heap_pop(&t->heap);
    }
    if (t->heap.len) {
        next = (int64_t)nvm_heap_top(&t->heap)->key;
    }
    if (t->rt && t->rt_here) {
        nvmimic_rt_arm(t->rt, next);
    } else if (next == INT64_MAX) {
        timer_del(t->timer);
    } else {
        timer_mod_ns(t->timer, next);
    }
}

static void nvmimic_account(NvmimicTiming *t, NvmimicReq *req, int64_t now)
{
    NvmimicLate *l = &t->late[req->op];

    l->posted++;
    l->early += now < req->deadline_ns;
    l->hist[nvm_hist_bucket(now > req->deadline_ns ?
                            now - req->deadline_ns : 0)]++;
    if (now > req->deadline_ns) {
        uint64_t d = now - req->deadline_ns;

        l->late++;
        l->late_sum_ns += d;
        l->late_max_ns = MAX(l->late_max_ns, d);
    }
}

/* Did the user let @req go since @frees (an NVMe queue deletion)? */
static bool nvmimic_req_gone(NvmimicTiming *t, NvmimicReq *req,
                             uint64_t frees)
{
    return t->frees != frees && t->req_alive &&
           !t->req_alive(t->opaque, req);
}

static void nvmimic_wait_wake_cb(void *opaque)
{
    /* nothing to do: firing makes the blocking aio_poll() return */
}

/*
 * Simulated time: wait (virtual time standing still) until @req's data
 * transfer is done, @req is let go or the wait has taken
 * NVMIMIC_DATA_WAIT_MS of host time.  A transfer takes microseconds to a
 * few milliseconds of host time; one that never ends (a DMA waiting for a
 * resource nothing will free) must not freeze the main loop, and with it
 * the guest, QMP and qtest, for good: past the limit @req goes overdue and
 * is posted when its data is in, late (its completion time is then the
 * host's, not exact).
 */
static void nvmimic_wait_for_data(NvmimicTiming *t, const NvmHeapItem *e,
                                  NvmimicReq *req, uint64_t frees)
{
    AioContext *ctx = qemu_get_aio_context();
    int64_t give_up;

    if (!t->wait_wake) {
        t->wait_wake = aio_timer_new(ctx, QEMU_CLOCK_REALTIME, SCALE_MS,
                                     nvmimic_wait_wake_cb, t);
    }
    give_up = qemu_clock_get_ms(QEMU_CLOCK_REALTIME) + NVMIMIC_DATA_WAIT_MS;
    timer_mod(t->wait_wake, give_up);
    while (heap_entry_live(e) && req->state == NVMIMIC_REQ_INFLIGHT) {
        if (qemu_clock_get_ms(QEMU_CLOCK_REALTIME) >= give_up) {
            warn_report_once("nvmimic: a data transfer was not done %d ms"
                             " (host time) after its completion deadline:"
                             " it is posted when it is done, late in"
                             " simulated time", NVMIMIC_DATA_WAIT_MS);
            break;
        }
        aio_poll(ctx, true);
        /*
         * The bottom halves run here include an NVMe admin queue's: a
         * Delete I/O SQ frees its requests, maybe this one.
         */
        if (nvmimic_req_gone(t, req, frees)) {
            break;
        }
    }
    timer_del(t->wait_wake);
}

void nvmimic_timing_run_due(NvmimicTiming *t, uint32_t early_ns)
{
    int64_t now = nvmimic_now();

    while (t->heap.len &&
           (int64_t)nvm_heap_top(&t->heap)->key <= now + early_ns) {
        NvmHeapItem e = *nvm_heap_top(&t->heap);
        NvmimicReq *req = e.data;

        nvm_heap_pop(&t->heap);
        if (!heap_entry_live(&e)) {
            continue;
        }
        if (req->state == NVMIMIC_REQ_INFLIGHT && nvmimic_time_jumps()) {
            /*
             * Virtual time stands still at the deadline until the host has
             * done the data transfer: the block layer's completions are run
             * here (with the BQL held), so the completion is posted at its
             * deadline whatever the host's speed, however far a qtest step
             * goes.  Without this, the guest's instructions (or the step)
             * would go on meanwhile and the completion would land where host
             * scheduling put it.  Transfers that end meanwhile are held (see
             * nvmimic_timing_complete()) and posted in deadline order below.
             */
            uint64_t frees = t->frees;

            if (t->wait_cb) {
                t->wait_cb(t->opaque, req);
            }
            nvmimic_wait_for_data(t, &e, req, frees);
            if (nvmimic_req_gone(t, req, frees) || !heap_entry_live(&e)) {
                continue;
            }
            /* still in flight: the wait gave up, @req goes overdue below */
        }
        if (req->state == NVMIMIC_REQ_INFLIGHT && t->rt && t->rt_here) {
            /*
             * Real time, from the timing thread: the transfer may be done
             * with its completion not yet run, waiting for the main loop
             * to wake (a bottom half, an eventfd).  With the BQL held this
             * thread may run the main loop's ready handlers itself, as a
             * vCPU thread does in a drain; a transfer done then posts
             * @req at once (nvmimic_timing_complete()).  A queue deletion
             * run there may free @req (req_alive).
             */
            uint64_t frees = t->frees;

            aio_poll(qemu_get_aio_context(), false);
            if (nvmimic_req_gone(t, req, frees) || !heap_entry_live(&e)) {
                continue;
            }
        }
        if (req->state == NVMIMIC_REQ_INFLIGHT) {
            /* real time: the host has not finished the data transfer yet */
            if (t->overdue_cb) {
                t->overdue_cb(t->opaque, req);
            }
            req->state = NVMIMIC_REQ_OVERDUE;
            t->overdue++;
            t->data_late++;
            continue;
        }
        req->state = NVMIMIC_REQ_POSTED;
        nvmimic_account(t, req, now);
        t->post(t->opaque, req);
    }
    nvmimic_arm(t);
}

static void nvmimic_timer_cb(void *opaque)
{
    nvmimic_timing_run_due(opaque, 0);
}

static void nvmimic_rt_run(void *opaque, uint32_t early_ns)
{
    nvmimic_timing_run_due(opaque, early_ns);
}

void nvmimic_timing_set_context(NvmimicTiming *t, AioContext *ctx)
{
    if (t->timer) {
        timer_free(t->timer);
    }
    /*
     * The thread posts with the BQL, which owns the main loop's requests
     * only: in an IOThread the timer posts, in the IOThread.
     */
    t->rt_here = !ctx || ctx == qemu_get_aio_context();
    if (t->rt && !t->rt_here) {
        nvmimic_rt_arm(t->rt, INT64_MAX);
    }
    t->timer = ctx ? aio_timer_new(ctx, QEMU_CLOCK_VIRTUAL, SCALE_NS,
                                   nvmimic_timer_cb, t) :
                     timer_new_ns(QEMU_CLOCK_VIRTUAL, nvmimic_timer_cb, t);
    nvmimic_arm(t);
}

void nvmimic_timing_init(NvmimicTiming *t, NvmProfile *profile,
                         uint64_t seed, AioContext *ctx,
                         NvmimicPostFn *post, void *opaque)
{
    memset(t, 0, sizeof(*t));
    t->profile = profile;
    t->model = nvm_model_new(profile, seed);
    t->thermal = profile->thermal_enabled;
    t->post = post;
    t->opaque = opaque;
    nvm_heap_init(&t->heap, 64);
    t->stats_since_ns = nvmimic_now();
    t->first_arrival_ns = -1;
    nvmimic_timing_set_context(t, ctx);
}

static void nvmimic_timing_machine_ready(Notifier *n, void *data)
{
    NvmimicTiming *t = container_of(n, NvmimicTiming, rt_init);
    Error *err = NULL;

    qemu_remove_machine_init_done_notifier(&t->rt_init);
    t->rt_pending = false;
    if (!nvmimic_timing_start_thread(t, &t->rt_opts, t->rt_what, &err)) {
        /* the options were checked at open; the timer posts instead */
        error_report_err(err);
    }
}

bool nvmimic_timing_start_thread(NvmimicTiming *t, const NvmimicRtOpts *o,
                                 const char *what, Error **errp)
{
    if (!phase_check(PHASE_ACCEL_CREATED)) {
        /*
         * A -blockdev of the command line is opened before the
         * accelerator, -icount and qtest are set up, when
         * nvmimic_time_jumps() cannot tell yet: under icount a thread
         * started now posted every completion late, in real time.  Decide
         * when the machine is ready.
         */
        if (!nvmimic_rt_opts_check(o, what, errp)) {
            return false;
        }
        t->rt_opts = *o;
        t->rt_what = what;
        t->rt_init.notify = nvmimic_timing_machine_ready;
        t->rt_pending = true;
        qemu_add_machine_init_done_notifier(&t->rt_init);
        return true;
    }
    if (!o->enable || nvmimic_time_jumps()) {
        /* simulated time keeps its exact path: the timer, bit for bit */
        return nvmimic_rt_opts_check(o, what, errp);
    }
    t->rt = nvmimic_rt_start(nvmimic_rt_run, t, o, what, errp);
    if (!t->rt) {
        return false;
    }
    nvmimic_arm(t);
    return true;
}

void nvmimic_timing_destroy(NvmimicTiming *t)
{
    if (t->rt_pending) {
        qemu_remove_machine_init_done_notifier(&t->rt_init);
    }
    if (t->rt) {
        nvmimic_rt_stop(t->rt);
    }
    if (t->timer) {
        timer_free(t->timer);
    }
    if (t->wait_wake) {
        timer_free(t->wait_wake);
    }
    nvm_heap_destroy(&t->heap);
    nvm_model_free(t->model);
    nvm_profile_free(t->profile);
    memset(t, 0, sizeof(*t));
}

void nvmimic_timing_start(NvmimicTiming *t, NvmimicReq *req, NvmOp op,
                          int64_t now, int64_t deadline)
{
    if (t->first_arrival_ns < 0) {
        t->first_arrival_ns = now;
    }
    t->last_deadline_ns = MAX(t->last_deadline_ns, deadline);
    req->seq = ++t->next_seq;
    req->submit_ns = now;
    req->deadline_ns = deadline;
    req->op = op;
    req->state = NVMIMIC_REQ_INFLIGHT;

    nvm_heap_push(&t->heap, deadline, req->seq, req);
    if (nvm_heap_top(&t->heap)->tie == req->seq) {
        nvmimic_arm(t);
    }
}

bool nvmimic_timing_complete(NvmimicTiming *t, NvmimicReq *req)
{
    int64_t now;

    if (req->state == NVMIMIC_REQ_UNTIMED) {
        /* failed or completed before it was started: never timed */
        req->state = NVMIMIC_REQ_POSTED;
        return false;
    }
    now = nvmimic_now();

    switch (req->state) {
    case NVMIMIC_REQ_INFLIGHT:
        /*
         * When virtual time jumps, only the timer posts, in deadline order:
         * a request whose data comes in while the timer waits at a deadline
         * it shares (nvmimic_timer_cb()) must not jump ahead of the one
         * waited for, or the order of the completions would be the host's.
         */
        if ((now < req->deadline_ns || nvmimic_time_jumps()) &&
            !t->paused) {
            req->state = NVMIMIC_REQ_HELD;
            return true;
        }
        break;
    case NVMIMIC_REQ_OVERDUE:
        t->overdue--;
        break;
    default:
        /* HELD twice cannot happen: a request completes once */
        g_assert_not_reached();
    }
    req->state = NVMIMIC_REQ_POSTED;
    nvmimic_account(t, req, now);
    nvmimic_arm(t);
    return false;
}

void nvmimic_timing_forget(NvmimicTiming *t, NvmimicReq *req)
{
    if (req->state == NVMIMIC_REQ_OVERDUE) {
        t->overdue--;
    }
    req->state = NVMIMIC_REQ_UNTIMED;
}

void nvmimic_timing_filter(NvmimicTiming *t,
                           bool (*keep)(const NvmHeapItem *e, void *opaque),
                           void *opaque)
{
    t->frees++;
    nvm_heap_filter(&t->heap, keep, opaque);
    nvmimic_arm(t);
}

static bool heap_entry_not_held(const NvmHeapItem *e, void *opaque)
{
    return !heap_entry_live(e) ||
           ((NvmimicReq *)e->data)->state != NVMIMIC_REQ_HELD;
}

void nvmimic_timing_pause(NvmimicTiming *t)
{
    int64_t now = nvmimic_now();
    g_autoptr(GPtrArray) held = g_ptr_array_new();
    guint i;

    if (t->paused++) {
        return;
    }
    for (i = 0; i < t->heap.len; i++) {
        NvmHeapItem *e = &t->heap.v[i];

        if (heap_entry_live(e) &&
            ((NvmimicReq *)e->data)->state == NVMIMIC_REQ_HELD) {
            g_ptr_array_add(held, e->data);
        }
    }
    nvm_heap_filter(&t->heap, heap_entry_not_held, NULL);
    for (i = 0; i < held->len; i++) {
        NvmimicReq *req = g_ptr_array_index(held, i);

        req->state = NVMIMIC_REQ_POSTED;
        nvmimic_account(t, req, now);
        t->post(t->opaque, req);
    }
    nvmimic_arm(t);
}

void nvmimic_timing_resume(NvmimicTiming *t)
{
    assert(t->paused);
    t->paused--;
}

/* ---- mapping state from a block node ---------------------------------- */

/*
 * The most extents (runs of allocated LBAs, adjacent ones merged) read
 * from an image: 1 MiB of ranges.  An image of 2 M extents took 27 s and
 * 158 MB to start; one that needs more is refused, naming the bound.
 */
#define NVMIMIC_MAP_EXTENTS_MAX 65536

bool nvmimic_timing_map_from(NvmimicTiming *t, BlockDriverState *bs,
                             uint64_t bytes, Error **errp)
{
    uint32_t lba = t->profile->lba_bytes;
    g_autoptr(GArray) ranges = g_array_new(false, false, sizeof(NvmLbaRange));
    uint64_t off = 0;
    GError *err = NULL;

    bytes = MIN(bytes, t->profile->capacity_bytes);
    GRAPH_RDLOCK_GUARD_MAINLOOP();
    while (off < bytes) {
        int64_t pnum = 0;
        int ret = bdrv_block_status_above(bs, NULL, off, bytes - off, &pnum,
                                          NULL, NULL);

        if (ret < 0) {
            error_setg_errno(errp, -ret, "cannot read the allocation map of "
                             "'%s' at byte %" PRIu64,
                             bdrv_get_node_name(bs), off);
            return false;
        }
        if (pnum <= 0) {
            break;              /* the end of the node */
        }
        if ((ret & BDRV_BLOCK_DATA) && !(ret & BDRV_BLOCK_ZERO)) {
            NvmLbaRange r = {
                .slba = off / lba,
                .nlb = DIV_ROUND_UP(off + pnum, lba) - off / lba,
            };
            NvmLbaRange *last = ranges->len ?
                &g_array_index(ranges, NvmLbaRange, ranges->len - 1) : NULL;

            if (last && last->slba + last->nlb >= r.slba) {
                last->nlb = MAX(last->slba + last->nlb, r.slba + r.nlb) -
                            last->slba;
            } else if (ranges->len == NVMIMIC_MAP_EXTENTS_MAX) {
                error_setg(errp, "'%s' has more than %d allocated extents "
                           "in its first %" PRIu64 " bytes, the most the "
                           "mapping state is read from; start from "
                           "nvmimic-set-state fill-pct instead",
                           bdrv_get_node_name(bs), NVMIMIC_MAP_EXTENTS_MAX,
                           off + pnum);
                return false;
            } else {
                g_array_append_val(ranges, r);
            }
        }
        off += pnum;
    }
    if (!nvm_model_set_mapped(t->model, (NvmLbaRange *)ranges->data,
                              ranges->len, &err)) {
        error_setg(errp, "%s", err->message);
        g_error_free(err);
        return false;
    }
    return true;
}

/* ---- QMP ---------------------------------------------------------------- */

NvmimicStats *nvmimic_timing_query(NvmimicTiming *t, char *canon_id)
{
    int64_t now = nvmimic_now();
    NvmimicStats *r;
    NvmStats st;
    int i;

    nvm_model_get_stats(t->model, now, &st);
    r = g_new0(NvmimicStats, 1);
    r->id = canon_id;
    r->profile = g_strdup(t->profile->name);
    r->model_number = g_strdup(t->profile->model_number);
    r->interval_ns = now - t->stats_since_ns;
    r->active_ns = t->first_arrival_ns < 0 ? 0 :
                   MIN(t->last_deadline_ns, now) - t->first_arrival_ns;
    for (i = NVM_CLASS_COUNT - 1; i >= 0; i--) {
        NvmimicClassStats *c = g_new0(NvmimicClassStats, 1);
        const NvmimicLate *l = &t->late[i];

        c->q_class = g_strdup(nvm_op_name(i));
        c->count = st.cls[i].count;
        c->bytes = st.cls[i].bytes;
        c->mean_us = st.cls[i].mean_us;
        c->p50_us = st.cls[i].p50_us;
        c->p99_us = st.cls[i].p99_us;
        c->p999_us = st.cls[i].p999_us;
        c->max_us = st.cls[i].max_us;
        c->posted = l->posted;
        c->early = l->early;
        c->late = l->late;
        c->late_mean_us = l->late ? l->late_sum_ns / 1000.0 / l->late : 0;
        c->late_max_us = l->late_max_ns / 1000.0;
        c->late_p50_us = nvm_hist_percentile_us(l->hist, l->posted, 0.50);
        c->late_p99_us = nvm_hist_percentile_us(l->hist, l->posted, 0.99);
        QAPI_LIST_PREPEND(r->classes, c);
    }
    r->fill_pct = st.fill_pct;
    r->slc_used_bytes = st.slc_used_bytes;
    r->slc_size_bytes = st.slc_size_bytes;
    r->write_amplification = st.write_amplification;
    r->wear_pct = st.wear_pct;
    r->host_written_bytes = st.host_bytes_written;
    r->nand_written_bytes = st.nand_bytes_written;
    r->map_misses = st.map_misses;
    r->power_state = st.power_state;
    for (i = t->profile->n_power_states - 1; i >= 0; i--) {
        QAPI_LIST_PREPEND(r->power_state_ns, st.ps_time_ns[i]);
    }
    r->power_exits = st.power_exits;
    if (t->rt) {
        NvmimicRtStats rs;

        nvmimic_rt_get_stats(t->rt, &rs);
        r->realtime = g_new0(NvmimicRealtimeStats, 1);
        r->realtime->runs = rs.runs;
        r->realtime->sleeps = rs.sleeps;
        r->realtime->bql_wait_p50_us = rs.bql_wait_p50_us;
        r->realtime->bql_wait_p99_us = rs.bql_wait_p99_us;
        r->realtime->bql_wait_max_us = rs.bql_wait_ns_max / 1000.0;
        r->realtime->wake_late_p50_us = rs.wake_late_p50_us;
        r->realtime->wake_late_p99_us = rs.wake_late_p99_us;
        r->realtime->spin_us = rs.spin_us;
        r->realtime->spin_ms = rs.spin_ns / 1e6;
        r->realtime->poll_ms = rs.poll_ns / 1e6;
        r->realtime->poll_hits = rs.poll_hits;
        r->realtime->fifo_rests = rs.fifo_rests;
        r->realtime->data_late = t->data_late;
        if (rs.has_work) {
            /* the controller's doorbells: nvmimic-qmp.c adds the counts */
            r->realtime->has_doorbell_replays = true;
            r->realtime->doorbell_replays = rs.works;
            r->realtime->has_doorbell_wait_p50_us = true;
            r->realtime->doorbell_wait_p50_us = rs.work_wait_p50_us;
            r->realtime->has_doorbell_wait_p99_us = true;
            r->realtime->doorbell_wait_p99_us = rs.work_wait_p99_us;
            r->realtime->has_doorbell_guard_us = true;
            r->realtime->doorbell_guard_us = rs.work_guard_us;
        }
    }
    return r;
}

/*
 * Everything a set-state command asks for is checked before anything is
 * applied, so a refused command leaves the drive as it was.  The model
 * checks the values again when they are applied; only an SLC occupancy
 * within the valid data but beyond the SLC cache size that a new fill
 * level leaves can still be refused after that fill level is applied.
 */
bool nvmimic_timing_check_state(NvmimicTiming *t, const char *id,
                                const NvmimicState *st, Error **errp)
{
    uint64_t cap = t->profile->capacity_bytes;
    double valid_bytes;
    NvmStats now;

    if (st->has_fill && !(st->fill_pct >= 0 && st->fill_pct <= 100)) {
        error_setg(errp, "%s: fill-pct %g is outside 0..100", id,
                   st->fill_pct);
        return false;
    }
    if (st->has_wear && !(st->wear_pct >= 0 &&
                          st->wear_pct <= NVMIMIC_WEAR_PCT_MAX)) {
        error_setg(errp, "%s: wear-pct %g is outside 0..%d", id,
                   st->wear_pct, NVMIMIC_WEAR_PCT_MAX);
        return false;
    }
    if ((st->has_steady && st->steady_bytes > cap) ||
        (st->has_warm && st->warm_bytes > cap)) {
        error_setg(errp, "%s: steady-random-bytes or warm-map-bytes is "
                   "beyond the drive's %" PRIu64 " bytes", id, cap);
        return false;
    }
    if (!st->has_slc) {
        return true;
    }
    if (st->has_fill) {
        valid_bytes = st->fill_pct / 100.0 * cap;
    } else if (st->erase) {
        valid_bytes = 0;
    } else {
        nvm_model_get_stats(t->model, nvmimic_now(), &now);
        valid_bytes = now.valid_bytes;
    }
    if (st->slc_used_bytes > valid_bytes + 0.5) {
        error_setg(errp, "%s: slc-used-bytes %" PRIu64 " is more than the "
                   "valid data the drive %s (%.0f bytes)", id,
                   st->slc_used_bytes,
                   st->has_fill || st->erase ? "would hold" : "holds",
                   valid_bytes);
        return false;
    }
    return true;
}

void nvmimic_timing_reset_stats(NvmimicTiming *t, int64_t now)
{
    nvm_model_reset_stats(t->model, now);
    memset(t->late, 0, sizeof(t->late));
    t->stats_since_ns = now;
    t->first_arrival_ns = -1;
    t->last_deadline_ns = 0;
    t->data_late = 0;
    if (t->rt) {
        nvmimic_rt_reset_stats(t->rt);
    }
}

bool nvmimic_timing_apply_state(NvmimicTiming *t, const char *id,
                                const NvmimicState *st, Error **errp)
{
    GError *err = NULL;
    bool ok = true;

    if (st->erase) {
        nvm_model_secure_erase(t->model);
    }
    if (st->has_fill) {
        ok = nvm_model_set_fill(t->model, st->fill_pct, &err);
    }
    if (ok && st->has_slc) {
        ok = nvm_model_set_slc_used(t->model, st->slc_used_bytes, &err);
    }
    if (ok && st->has_wear) {
        ok = nvm_model_set_wear(t->model, st->wear_pct, &err);
    }
    if (ok && st->has_steady) {
        ok = nvm_model_set_steady_random(t->model, 0, st->steady_bytes, &err);
    }
    if (!ok) {
        error_setg(errp, "%s: %s", id, err->message);
        g_error_free(err);
        return false;
    }
    if (st->erase || st->has_fill || st->has_slc || st->has_steady) {
        /* the new state holds from now, not from the last I/O */
        nvm_model_state_at(t->model, nvmimic_now());
    }
    if (st->has_warm) {
        nvm_model_warm_map(t->model, 0, st->warm_bytes);
    }
    if (st->has_thermal) {
        nvm_model_set_thermal(t->model, st->thermal);
        t->thermal = st->thermal;
    }
    if (st->reset) {
        nvmimic_timing_reset_stats(t, nvmimic_now());
    }
    return true;
}
