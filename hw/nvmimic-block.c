/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic block filter: the drive model's timing for any block frontend
 * (scsi-hd on mptsas1068, virtio-blk, ...), not only the NVMe controller:
 *
 *   -blockdev driver=nvmimic,node-name=NODE,file=CHILD,profile=NAME
 *             [,profile-seed=N][,profile-map-allocated=on]
 *             [,timing-thread=on|off][,timing-cpu=N][,timing-spin-us=N]
 *             [,timing-fifo=on][,timing-poll-us=N]
 *
 * Every request is submitted to the model when it arrives and goes to
 * CHILD at once; after its data transfer its coroutine waits until the
 * completion time the model gave it, on QEMU_CLOCK_VIRTUAL, with the
 * NVMe controller's clockwork (nvmimic-timing.c): exact under qtest and
 * icount, and virtual time cannot warp past a deadline whose data is
 * still being read or written on the host.  A request the guest sees as
 * one command is timed as the host driver of a real drive would send it:
 * split at the drive's maximum transfer size, all pieces at once.
 *
 * In real time a timing thread (nvmimic-rt.c) wakes the coroutines at
 * their deadlines while the node is in the main loop's AioContext; in an
 * IOThread the timer there does (the thread posts with the BQL, which
 * does not own an IOThread's requests).
 *
 * query-nvmimic-stats and nvmimic-set-state take NODE as their id.
 *
 * Copyright (c) 2026 the nvmimic authors
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/coroutine.h"
#include "qemu/module.h"
#include "qemu/option.h"
#include "qobject/qdict.h"
#include "block/block-io.h"
#include "block/block_int.h"
#include "system/runstate.h"

#include "nvmimic-timing.h"

/* One timed request; slots are reused, never freed while the node lives. */
typedef struct NvmimicBlockReq {
    NvmimicReq r;               /* its heap entries point here */
    Coroutine *co;
    struct NvmimicBlockReq *next_free;
} NvmimicBlockReq;

typedef struct BDRVNvmimicState {
    NvmimicTiming t;
    BlockDriverState *bs;
    bool timing_init;
    bool draining;              /* release held requests by scheduling */
    uint64_t max_cmd_bytes;     /* the drive's maximum data transfer */
    GPtrArray *slots;           /* every NvmimicBlockReq made */
    NvmimicBlockReq *free_slots;
    QLIST_ENTRY(BDRVNvmimicState) next;
} BDRVNvmimicState;

static QLIST_HEAD(, BDRVNvmimicState) nvmimic_nodes =
    QLIST_HEAD_INITIALIZER(nvmimic_nodes);

#define NVMIMIC_OPT_PROFILE "profile"
#define NVMIMIC_OPT_SEED "profile-seed"
#define NVMIMIC_OPT_MAP "profile-map-allocated"
#define NVMIMIC_OPT_THREAD "timing-thread"
#define NVMIMIC_OPT_CPU "timing-cpu"
#define NVMIMIC_OPT_SPIN "timing-spin-us"
#define NVMIMIC_OPT_FIFO "timing-fifo"
#define NVMIMIC_OPT_POLL "timing-poll-us"

static QemuOptsList nvmimic_runtime_opts = {
    .name = "nvmimic",
    .head = QTAILQ_HEAD_INITIALIZER(nvmimic_runtime_opts.head),
    .desc = {
        {
            .name = NVMIMIC_OPT_PROFILE,
            .type = QEMU_OPT_STRING,
            .help = "drive profile: a name in the profile directory, or a "
                    "path",
        },
        {
            .name = NVMIMIC_OPT_SEED,
            .type = QEMU_OPT_NUMBER,
            .help = "the model's random seed (default 1)",
        },
        {
            .name = NVMIMIC_OPT_MAP,
            .type = QEMU_OPT_BOOL,
            .help = "the blocks allocated in the child hold data, the rest "
                    "is deallocated (default: a secure-erased drive)",
        },
        {
            .name = NVMIMIC_OPT_THREAD,
            .type = QEMU_OPT_BOOL,
            .help = "in real time, complete requests from a timing thread "
                    "(default on)",
        },
        {
            .name = NVMIMIC_OPT_CPU,
            .type = QEMU_OPT_NUMBER,
            .help = "host CPU to pin the timing thread to (default: none)",
        },
        {
            .name = NVMIMIC_OPT_SPIN,
            .type = QEMU_OPT_NUMBER,
            .help = "microseconds before a deadline that the timing thread "
                    "spins rather than sleeps",
        },
        {
            .name = NVMIMIC_OPT_FIFO,
            .type = QEMU_OPT_BOOL,
            .help = "run the timing thread SCHED_FIFO if permitted",
        },
        {
            .name = NVMIMIC_OPT_POLL,
            .type = QEMU_OPT_NUMBER,
            .help = "microseconds after a completion that the timing thread "
                    "polls for the next deadline rather than sleeps",
        },
        { /* end of list */ }
    },
};

NvmimicTiming *nvmimic_block_find(const char *node_name)
{
    BDRVNvmimicState *s;

    QLIST_FOREACH(s, &nvmimic_nodes, next) {
        if (!strcmp(bdrv_get_node_name(s->bs), node_name)) {
            return &s->t;
        }
    }
    return NULL;
}

/* The timing's post callback: @r's deadline came, or a drain began. */
static void nvmimic_block_post(void *opaque, NvmimicReq *r)
{
    BDRVNvmimicState *s = opaque;
    NvmimicBlockReq *req = container_of(r, NvmimicBlockReq, r);

    if (s->draining) {
        /* drain_begin must not run request code itself */
        aio_co_schedule(bdrv_get_aio_context(s->bs), req->co);
    } else {
        /* from the timer: completes at this very virtual instant */
        aio_co_wake(req->co);
    }
}

static NvmimicBlockReq *coroutine_fn nvmimic_req_get(BDRVNvmimicState *s)
{
    NvmimicBlockReq *req = s->free_slots;

    if (req) {
        s->free_slots = req->next_free;
    } else {
        req = g_new0(NvmimicBlockReq, 1);
        g_ptr_array_add(s->slots, req);
    }
    req->co = qemu_coroutine_self();
    return req;
}

/*
 * Submit [@offset, @offset + @bytes) to the model at @now and start
 * timing the request; NULL when it is not timed (outside the drive, or
 * the VM is not running).
 */
static NvmimicBlockReq *coroutine_fn nvmimic_begin(BlockDriverState *bs,
                                                   NvmOp op, int64_t offset,
                                                   int64_t bytes,
                                                   BdrvRequestFlags flags)
{
    BDRVNvmimicState *s = bs->opaque;
    uint32_t lba = s->t.profile->lba_bytes;
    uint64_t cap = s->t.profile->capacity_bytes;
    int64_t now = nvmimic_now();
    int64_t deadline = now;
    NvmimicBlockReq *req;
    /*
     * A drive without a volatile write cache keeps what it acknowledged
     * (its buffer survives power loss): FUA changes nothing there, and a
     * BlockBackend that writes through sets it on every write.
     */
    bool fua = (flags & BDRV_REQ_FUA) && s->t.profile->volatile_write_cache;

    if (!runstate_is_running()) {
        /*
         * Not the guest's I/O (the flush at quit, a job while paused):
         * virtual time stands still, so a deadline would never come.
         */
        return NULL;
    }
    if (op == NVM_OP_FLUSH) {
        NvmCmd c = { .op = op };

        deadline = nvm_model_submit(s->t.model, &c, now);
    } else {
        uint64_t end = MIN((uint64_t)offset + bytes, cap);
        uint64_t first = offset;

        if (first >= end) {
            return NULL;
        }
        while (first < end) {
            uint64_t n = MIN(end - first, s->max_cmd_bytes);
            NvmCmd c = {
                .op = op,
                .flags = fua ? NVM_CMD_FUA : 0,
                .slba = first / lba,
                .nlb = DIV_ROUND_UP(first + n, lba) - first / lba,
            };

            deadline = MAX(deadline,
                           (int64_t)nvm_model_submit(s->t.model, &c, now));
            first += n;
        }
    }
    req = nvmimic_req_get(s);
    nvmimic_timing_start(&s->t, &req->r, op, now, deadline);
    return req;
}

/* The data transfer is done: wait for the deadline, then free the slot. */
static void coroutine_fn nvmimic_end(BlockDriverState *bs,
                                     NvmimicBlockReq *req)
{
    BDRVNvmimicState *s = bs->opaque;

    if (!req) {
        return;
    }
    if (nvmimic_timing_complete(&s->t, &req->r)) {
        qemu_coroutine_yield();
    }
    req->co = NULL;
    req->next_free = s->free_slots;
    s->free_slots = req;
}

static int coroutine_fn GRAPH_RDLOCK
nvmimic_co_preadv_part(BlockDriverState *bs, int64_t offset, int64_t bytes,
                       QEMUIOVector *qiov, size_t qiov_offset,
                       BdrvRequestFlags flags)
{
    NvmimicBlockReq *req = nvmimic_begin(bs, NVM_OP_READ, offset, bytes,
                                         0);
    int ret = bdrv_co_preadv_part(bs->file, offset, bytes, qiov,
                                  qiov_offset, flags);

    nvmimic_end(bs, req);
    return ret;
}

static int coroutine_fn GRAPH_RDLOCK
nvmimic_co_pwritev_part(BlockDriverState *bs, int64_t offset, int64_t bytes,
                        QEMUIOVector *qiov, size_t qiov_offset,
                        BdrvRequestFlags flags)
{
    NvmimicBlockReq *req = nvmimic_begin(bs, NVM_OP_WRITE, offset, bytes,
                                         flags);
    int ret = bdrv_co_pwritev_part(bs->file, offset, bytes, qiov,
                                   qiov_offset, flags);

    nvmimic_end(bs, req);
    return ret;
}

static int coroutine_fn GRAPH_RDLOCK
nvmimic_co_pwrite_zeroes(BlockDriverState *bs, int64_t offset, int64_t bytes,
                         BdrvRequestFlags flags)
{
    NvmimicBlockReq *req = nvmimic_begin(bs, NVM_OP_WRITE_ZEROES, offset,
                                         bytes, flags);
    int ret = bdrv_co_pwrite_zeroes(bs->file, offset, bytes, flags);

    nvmimic_end(bs, req);
    return ret;
}

static int coroutine_fn GRAPH_RDLOCK
nvmimic_co_pdiscard(BlockDriverState *bs, int64_t offset, int64_t bytes)
{
    NvmimicBlockReq *req = nvmimic_begin(bs, NVM_OP_DISCARD, offset, bytes,
                                         0);
    int ret = bdrv_co_pdiscard(bs->file, offset, bytes);

    nvmimic_end(bs, req);
    return ret;
}

static int coroutine_fn GRAPH_RDLOCK nvmimic_co_flush(BlockDriverState *bs)
{
    NvmimicBlockReq *req = nvmimic_begin(bs, NVM_OP_FLUSH, 0, 0, 0);
    int ret = bdrv_co_flush(bs->file->bs);

    nvmimic_end(bs, req);
    return ret;
}

static int64_t coroutine_fn GRAPH_RDLOCK
nvmimic_co_getlength(BlockDriverState *bs)
{
    return bdrv_co_getlength(bs->file->bs);
}

static void nvmimic_free(BDRVNvmimicState *s)
{
    if (s->timing_init) {
        QLIST_REMOVE(s, next);
        nvmimic_timing_destroy(&s->t);
        s->timing_init = false;
    }
    if (s->slots) {
        g_ptr_array_free(s->slots, true);
        s->slots = NULL;
    }
}

static int GRAPH_UNLOCKED
nvmimic_open(BlockDriverState *bs, QDict *options, int flags, Error **errp)
{
    BDRVNvmimicState *s = bs->opaque;
    QemuOpts *opts;
    const char *name;
    NvmProfile *p;
    NvmimicRtOpts rt;
    int64_t len, cpu;
    uint64_t spin, poll;
    int ret;

    GLOBAL_STATE_CODE();

    ret = bdrv_open_file_child(NULL, options, "file", bs, errp);
    if (ret < 0) {
        return ret;
    }

    GRAPH_RDLOCK_GUARD_MAINLOOP();

    /*
     * Force Unit Access is the drive's: a FUA write is timed as one (it
     * completes once programmed) and goes to the child with the flag,
     * where the block layer emulates it with a flush if the child lacks
     * it.  Were it advertised only when the child has it, the block layer
     * would split a FUA write over a qcow2 child into a write and a flush
     * of this node, timed as a whole-cache flush, and over a raw file the
     * model would time it as a plain write.
     */
    bs->supported_write_flags = BDRV_REQ_WRITE_UNCHANGED | BDRV_REQ_FUA;
    bs->supported_zero_flags = BDRV_REQ_WRITE_UNCHANGED | BDRV_REQ_FUA |
        ((BDRV_REQ_MAY_UNMAP | BDRV_REQ_NO_FALLBACK) &
         bs->file->bs->supported_zero_flags);

    opts = qemu_opts_create(&nvmimic_runtime_opts, NULL, 0, &error_abort);
    if (!qemu_opts_absorb_qdict(opts, options, errp)) {
        ret = -EINVAL;
        goto out;
    }
    name = qemu_opt_get(opts, NVMIMIC_OPT_PROFILE);
    if (!name || !*name) {
        error_setg(errp, "nvmimic: profile= is required (a drive profile "
                   "name or path)");
        ret = -EINVAL;
        goto out;
    }
    p = nvmimic_profile_load("nvmimic", name, errp);
    if (!p) {
        ret = -EINVAL;
        goto out;
    }
    len = bdrv_getlength(bs->file->bs);
    if (len < 0) {
        error_setg_errno(errp, -len, "nvmimic: cannot get the size of '%s'",
                         bdrv_get_node_name(bs->file->bs));
        nvm_profile_free(p);
        ret = len;
        goto out;
    }
    if ((uint64_t)len > p->capacity_bytes) {
        error_setg(errp, "nvmimic: '%s' holds %" PRId64 " bytes, more than "
                   "profile %s's capacity of %" PRIu64 " bytes",
                   bdrv_get_node_name(bs->file->bs), len, p->name,
                   p->capacity_bytes);
        nvm_profile_free(p);
        ret = -EINVAL;
        goto out;
    }

    nvmimic_rt_opts_default(&rt);
    rt.enable = qemu_opt_get_bool(opts, NVMIMIC_OPT_THREAD, rt.enable);
    cpu = qemu_opt_get_number(opts, NVMIMIC_OPT_CPU, rt.cpu);
    spin = qemu_opt_get_number(opts, NVMIMIC_OPT_SPIN, rt.spin_us);
    rt.fifo = qemu_opt_get_bool(opts, NVMIMIC_OPT_FIFO, rt.fifo);
    poll = qemu_opt_get_number(opts, NVMIMIC_OPT_POLL, rt.poll_us);
    /*
     * The numbers come as wide from -drive (QemuOpts) as from -blockdev
     * (QAPI's int and uint64): what does not fit NvmimicRtOpts is refused
     * here, the rest by nvmimic_rt_opts_check(), each value with the one
     * line the nvme device gives for it.
     */
    if (cpu < INT32_MIN || cpu > INT32_MAX) {
        error_setg(errp, "nvmimic: " NVMIMIC_OPT_CPU "=%" PRId64 " is not a "
                   "host CPU (0..%ld, or -1 for none)", cpu,
                   sysconf(_SC_NPROCESSORS_CONF) - 1);
        nvm_profile_free(p);
        ret = -EINVAL;
        goto out;
    }
    if (spin > NVMIMIC_RT_SPIN_US_MAX) {
        error_setg(errp, "nvmimic: " NVMIMIC_OPT_SPIN "=%" PRIu64 " is more "
                   "than %d", spin, NVMIMIC_RT_SPIN_US_MAX);
        nvm_profile_free(p);
        ret = -EINVAL;
        goto out;
    }
    if (poll > NVMIMIC_RT_POLL_US_MAX) {
        error_setg(errp, "nvmimic: " NVMIMIC_OPT_POLL "=%" PRIu64 " is more "
                   "than %d", poll, NVMIMIC_RT_POLL_US_MAX);
        nvm_profile_free(p);
        ret = -EINVAL;
        goto out;
    }
    rt.cpu = cpu;
    rt.spin_us = spin;
    rt.poll_us = poll;
    if (!nvmimic_rt_opts_check(&rt, "nvmimic", errp)) {
        nvm_profile_free(p);
        ret = -EINVAL;
        goto out;
    }

    s->bs = bs;
    s->max_cmd_bytes = MAX((uint64_t)p->mdts_pages * 4096, p->lba_bytes);
    s->slots = g_ptr_array_new_with_free_func(g_free);
    nvmimic_timing_init(&s->t, p, qemu_opt_get_number(opts, NVMIMIC_OPT_SEED,
                                                      1),
                        bdrv_get_aio_context(bs), nvmimic_block_post, s);
    s->timing_init = true;
    QLIST_INSERT_HEAD(&nvmimic_nodes, s, next);
    if (!nvmimic_timing_start_thread(&s->t, &rt, "nvmimic", errp)) {
        nvmimic_free(s);
        ret = -EINVAL;
        goto out;
    }
    if (qatomic_read(&bs->quiesce_counter)) {
        /* opened inside a drained section: its drain_end resumes */
        nvmimic_timing_pause(&s->t);
    }
    if (qemu_opt_get_bool(opts, NVMIMIC_OPT_MAP, false) &&
        !nvmimic_timing_map_from(&s->t, bs->file->bs, len, errp)) {
        error_prepend(errp, "nvmimic: " NVMIMIC_OPT_MAP ": ");
        nvmimic_free(s);
        ret = -EINVAL;
        goto out;
    }
    ret = 0;
out:
    qemu_opts_del(opts);
    return ret;
}

static void GRAPH_UNLOCKED nvmimic_close(BlockDriverState *bs)
{
    nvmimic_free(bs->opaque);
}

/*
 * A drain cannot wait for virtual time (it stops with the VM): requests
 * held for their deadline complete now, and none is held until it ends.
 */
static void nvmimic_drain_begin(BlockDriverState *bs)
{
    BDRVNvmimicState *s = bs->opaque;

    if (!s->timing_init) {
        /* bdrv_open_file_child() drains before the model exists */
        return;
    }
    s->draining = true;
    nvmimic_timing_pause(&s->t);
    s->draining = false;
}

static void nvmimic_drain_end(BlockDriverState *bs)
{
    BDRVNvmimicState *s = bs->opaque;

    if (s->timing_init) {
        nvmimic_timing_resume(&s->t);
    }
}

/* Only in a drained section: nothing is held. */
static void nvmimic_detach_aio_context(BlockDriverState *bs)
{
    BDRVNvmimicState *s = bs->opaque;

    if (s->timing_init) {
        nvmimic_timing_set_context(&s->t, NULL);
    }
}

static void nvmimic_attach_aio_context(BlockDriverState *bs,
                                       AioContext *new_context)
{
    BDRVNvmimicState *s = bs->opaque;

    if (s->timing_init) {
        nvmimic_timing_set_context(&s->t, new_context);
    }
}

static const char *const nvmimic_strong_runtime_opts[] = {
    NVMIMIC_OPT_PROFILE,
    NVMIMIC_OPT_SEED,
    NVMIMIC_OPT_MAP,
    NVMIMIC_OPT_THREAD,
    NVMIMIC_OPT_CPU,
    NVMIMIC_OPT_SPIN,
    NVMIMIC_OPT_FIFO,
    NVMIMIC_OPT_POLL,
    NULL
};

static BlockDriver bdrv_nvmimic = {
    .format_name                = "nvmimic",
    .instance_size              = sizeof(BDRVNvmimicState),

    .bdrv_open                  = nvmimic_open,
    .bdrv_close                 = nvmimic_close,
    .bdrv_child_perm            = bdrv_default_perms,

    .bdrv_co_getlength          = nvmimic_co_getlength,

    .bdrv_co_preadv_part        = nvmimic_co_preadv_part,
    .bdrv_co_pwritev_part       = nvmimic_co_pwritev_part,
    .bdrv_co_pwrite_zeroes      = nvmimic_co_pwrite_zeroes,
    .bdrv_co_pdiscard           = nvmimic_co_pdiscard,
    .bdrv_co_flush              = nvmimic_co_flush,

    .bdrv_drain_begin           = nvmimic_drain_begin,
    .bdrv_drain_end             = nvmimic_drain_end,
    .bdrv_attach_aio_context    = nvmimic_attach_aio_context,
    .bdrv_detach_aio_context    = nvmimic_detach_aio_context,

    .is_filter                  = true,
    .strong_runtime_opts        = nvmimic_strong_runtime_opts,
};

static void bdrv_nvmimic_init(void)
{
    bdrv_register(&bdrv_nvmimic);
}

block_init(bdrv_nvmimic_init);
