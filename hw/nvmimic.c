/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic: QEMU's NVMe controller presenting a specific real drive.
 *
 * The controller loads a drive profile (profile= property), takes its
 * identity from it, and asks the drive model (backends/, no QEMU types)
 * when each I/O command completes.  Data still goes to the block backend
 * at once; only the completion queue entry waits for the model's deadline,
 * on QEMU_CLOCK_VIRTUAL, so qtest and icount runs are exact.
 *
 * This file is the glue to ctrl.c: realize and unrealize, the command
 * hooks and the completion timing.  Identify lives in nvmimic-identity.c,
 * the commands the drive answers itself in nvmimic-admin.c, QMP in
 * nvmimic-qmp.c.
 *
 * Copyright (c) 2026 the nvmimic authors
 */

#include "qemu/osdep.h"
#include <math.h>
#include "qapi/error.h"
#include "qapi/qapi-visit-nvmimic.h"
#include "qemu/timer.h"
#include "qemu/cutils.h"
#include "qemu/main-loop.h"
#include "block/aio.h"
#include "system/cpu-timers.h"
#include "system/block-backend.h"
#include "system/qtest.h"
#include "system/system.h"
#include "qemu/units.h"
#include "hw/pci/pci.h"
#include "qom/object.h"

#include "nvmimic-int.h"
#include "trace.h"

/*
 * As the tail of ctrl.c's nvme_enqueue_req_completion(): move @req to its
 * CQ and post it, through the CQ's bottom half, or with @now at once.
 */
static void nvmimic_post_cq(NvmeRequest *req, bool now)
{
    NvmeCQueue *cq = nvme_cq(req);

    QTAILQ_REMOVE(&req->sq->out_req_list, req, entry);
    QTAILQ_INSERT_TAIL(&cq->req_list, req, entry);
    if (now) {
        nvme_post_cqes(cq);
    } else {
        qemu_bh_schedule(cq->bh);
    }
}

/* ... unless a fault holds it (nvmimic-fault-cmd.c), which posts it later. */
static void nvmimic_post(NvmeRequest *req, bool now)
{
    NvmeCtrl *n = req->sq->ctrl;

    if (n->nvmimic && nvmimic_fault_post(n, req)) {
        return;
    }
    nvmimic_post_cq(req, now);
}

/*
 * Post @req's completion now.  The callers are our timer and, under
 * icount, the block layer's completion callbacks: contexts that, unlike
 * upstream's CQ bottom half (qemu_bh_new_guarded) and MMIO handlers, do
 * not hold the device's re-entrancy guard.  The CQE and the MSI-X message
 * go where the guest says, which may be this controller's own registers:
 * a CQE landing on CC would reset the controller and free the queues that
 * nvme_post_cqes() is walking.  With the guard engaged, QEMU's memory core
 * refuses that access (the controller then reports Controller Fatal
 * Status, as upstream does).
 */
void nvmimic_post_now(NvmeCtrl *n, NvmeRequest *req)
{
    MemReentrancyGuard *guard = &DEVICE(n)->mem_reentrancy_guard;
    bool engaged = guard->engaged_in_io;

    guard->engaged_in_io = true;
    nvmimic_post(req, true);
    guard->engaged_in_io = engaged;
}

void nvmimic_post_raw(NvmeRequest *req)
{
    NvmeCtrl *n = req->sq->ctrl;
    MemReentrancyGuard *guard = &DEVICE(n)->mem_reentrancy_guard;
    bool engaged = guard->engaged_in_io;

    if (!icount_enabled()) {
        nvmimic_post_cq(req, false);
        return;
    }
    guard->engaged_in_io = true;
    nvmimic_post_cq(req, true);
    guard->engaged_in_io = engaged;
}

/* Is @req (compared as an address only) a request of a live SQ? */
static bool nvmimic_req_exists(NvmeCtrl *n, const NvmeRequest *req)
{
    uint32_t i;

    for (i = 1; i <= n->params.max_ioqpairs; i++) {
        NvmeSQueue *sq = n->sq[i];

        if (sq && req >= sq->io_req && req < sq->io_req + sq->size) {
            return true;
        }
    }
    return false;
}

/* The timing's callbacks: @r's deadline came; its deadline passed first. */
static void nvmimic_post_due(void *opaque, NvmimicReq *r)
{
    NvmimicCtrl *s = opaque;
    NvmeRequest *req = container_of(r, NvmeRequest, nvmimic);

    trace_nvmimic_post(nvme_cid(req), req->sq->sqid,
                       nvmimic_now() - r->deadline_ns);
    nvmimic_post_now(s->n, req);
}

static void nvmimic_wait_data(void *opaque, NvmimicReq *r)
{
    NvmeRequest *req = container_of(r, NvmeRequest, nvmimic);

    trace_nvmimic_wait_data(nvme_cid(req), req->sq->sqid, r->deadline_ns);
}

static void nvmimic_overdue(void *opaque, NvmimicReq *r)
{
    NvmeRequest *req = container_of(r, NvmeRequest, nvmimic);

    trace_nvmimic_overdue(nvme_cid(req), req->sq->sqid, r->deadline_ns);
}

/*
 * While the timer waits for @r's data (icount, qtest), the admin queue may
 * delete @r's SQ and free it: is it still a request of a live SQ?
 */
static bool nvmimic_req_alive(void *opaque, NvmimicReq *r)
{
    NvmimicCtrl *s = opaque;
    NvmeRequest *req = container_of(r, NvmeRequest, nvmimic);

    return nvmimic_req_exists(s->n, req);
}

/* ---- profile, identity ------------------------------------------------ */

bool nvmimic_realize(NvmeCtrl *n, Error **errp)
{
    NvmimicCtrl *s;
    NvmProfile *p;

    if (!n->params.nvmimic_profile) {
        return true;
    }
    if (pci_is_vf(PCI_DEVICE(n)) || n->params.sriov_max_vfs) {
        error_setg(errp, "nvme: profile= cannot be combined with SR-IOV");
        return false;
    }
    if (!n->namespace.blkconf.blk) {
        error_setg(errp, "nvme: profile=%s needs drive= on the controller "
                   "(the drive's namespace)", n->params.nvmimic_profile);
        return false;
    }

    if (n->params.atomic_awun || n->params.atomic_awupf ||
        n->params.atomic_dn) {
        /*
         * The profile's [identity] awun is what Identify reports; ctrl.c
         * would enforce atomic.* instead, and the two would disagree.
         */
        error_setg(errp, "nvme: profile=%s sets the write atomicity itself "
                   "(its awun and awupf): drop atomic.awun, atomic.awupf and "
                   "atomic.dn",
                   n->params.nvmimic_profile);
        return false;
    }

    p = nvmimic_profile_load("nvme", n->params.nvmimic_profile, errp);
    if (!p) {
        return false;
    }

    /* The namespace is formatted as the profile says unless told otherwise */
    if (!n->namespace.blkconf.logical_block_size) {
        n->namespace.blkconf.logical_block_size = p->lba_bytes;
    }
    if (!n->namespace.blkconf.physical_block_size &&
        p->lba_bytes > BDRV_SECTOR_SIZE) {
        n->namespace.blkconf.physical_block_size = p->lba_bytes;
    }

    s = g_new0(NvmimicCtrl, 1);
    nvmimic_timing_init(&s->t, p, n->params.nvmimic_seed, NULL,
                        nvmimic_post_due, s);
    s->t.overdue_cb = nvmimic_overdue;
    s->t.wait_cb = nvmimic_wait_data;
    s->t.req_alive = nvmimic_req_alive;
    s->profile = s->t.profile;
    s->model = s->t.model;
    s->n = n;
    s->db_at = -1;
    if (p->map_kind == NVM_MAP_HMB) {
        /* no host memory buffer until the host enables one */
        nvm_model_set_hmb(s->model, 0, NULL);
    }
    s->uncor = g_array_new(false, false, sizeof(NvmimicRange));
    s->marks = g_ptr_array_new_with_free_func(
        (GDestroyNotify)qapi_free_NvmimicMark);
    s->pending = g_array_new(false, false, sizeof(NvmimicPending));
    memset(s->dst_result, 0xf, sizeof(s->dst_result));
    n->nvmimic = s;
    s->faults = nvmimic_faults_new(n);

    if (!n->params.serial) {
        n->params.serial = g_strdup(p->serial);
    }
    n->params.mdts = p->mdts;
    /* real time: completions posted by a thread of their own */
    if (!nvmimic_timing_start_thread(&s->t, &n->params.nvmimic_rt, "nvme",
                                     errp)) {
        nvmimic_exit(n);
        return false;
    }
    return true;
}

void nvmimic_exit(NvmeCtrl *n)
{
    NvmimicCtrl *s = n->nvmimic;

    if (!s) {
        return;
    }
    /* before the thread stops: a vCPU may be queueing a doorbell */
    nvmimic_doorbells_exit(n);
    if (s->iolog) {
        /* the device goes away: keep what was recorded */
        uint64_t commands, dropped;

        nvmimic_iolog_stop(s->iolog, &commands, &dropped, NULL);
        s->iolog = NULL;
    }
    nvmimic_faults_free(s->faults);
    g_array_free(s->uncor, true);
    g_ptr_array_free(s->marks, true);
    g_array_free(s->pending, true);
    nvmimic_timing_destroy(&s->t);
    g_free(s);
    n->nvmimic = NULL;
}

void nvmimic_finalize(Object *obj)
{
    nvmimic_exit(NVME(obj));
    nvmimic_doorbells_free(NVME(obj));
}

/* ---- timing ----------------------------------------------------------- */

/*
 * Under icount the SQ is processed at the guest instruction that rang.
 * With the timing thread the doorbell does not wait for the main loop
 * either: the vCPU thread that took the MMIO write (the BQL held, as
 * for every MMIO handler) processes the SQ itself, so a command reaches
 * the model when the guest rang.  ioeventfd=on cannot take this path
 * with a profile: QEMU's nvme reads a doorbell signalled through an
 * eventfd from the shadow doorbell buffer only, and the drives have no
 * Doorbell Buffer Config (docs/realtime.md).
 */
bool nvmimic_sync_doorbell(NvmeCtrl *n)
{
    return n->nvmimic && (nvmimic_time_jumps() || n->nvmimic->t.rt);
}

/* Does [slba, slba + nlb) lie inside namespace @nsid? */
bool nvmimic_range_ok(NvmeCtrl *n, uint32_t nsid, uint64_t slba,
                      uint64_t nlb)
{
    NvmeNamespace *ns = nvme_ns(n, nsid);
    uint64_t nsze;

    if (!ns || !nlb) {
        return false;
    }
    nsze = le64_to_cpu(ns->id_ns.nsze);
    return slba < nsze && nlb <= nsze - slba;
}

/*
 * A command nvmimic executed completes with @status.  nvmimic_cmd()'s 0
 * means "not mine", so a success is posted here and reported to ctrl.c as
 * NVME_NO_COMPLETE.
 */
uint16_t nvmimic_done(NvmeRequest *req, uint16_t status)
{
    if (status != NVME_SUCCESS) {
        return status;
    }
    req->status = NVME_SUCCESS;
    req->nvmimic.state = NVMIMIC_REQ_POSTED;
    if (icount_enabled()) {
        /* as nvmimic_complete(): no bottom half under icount */
        nvmimic_post_now(req->sq->ctrl, req);
    } else {
        nvmimic_post(req, false);
    }
    return NVME_NO_COMPLETE;
}


uint16_t nvmimic_cmd(NvmeCtrl *n, NvmeRequest *req)
{
    NvmimicCtrl *s = n->nvmimic;
    uint16_t status;
    uint64_t slba, nlb;

    req->nvmimic.state = NVMIMIC_REQ_UNTIMED;
    if (!s) {
        return 0;
    }
    status = nvmimic_fault_cmd(n, req);
    if (status) {
        return status;
    }
    if (!req->sq->sqid) {
        if (req->cmd.opcode == NVMIMIC_ADM_MARK) {
            return nvmimic_mark(n, req);
        }
        if (req->cmd.opcode != NVME_ADM_CMD_GET_FEATURES &&
            req->cmd.opcode != NVME_ADM_CMD_SET_FEATURES) {
            return nvmimic_admin_cmd(n, req);
        }
        switch (le32_to_cpu(req->cmd.cdw10) & 0xff) {
        case NVME_VOLATILE_WRITE_CACHE:
            /* no such cache (Identify VWC = 0): nothing to turn on */
            return s->profile->volatile_write_cache ? 0 :
                   NVME_INVALID_FIELD | NVME_DNR;
        case NVMIMIC_FID_HMB:
            return s->profile->map_kind == NVM_MAP_HMB ?
                   nvmimic_hmb_cmd(n, req) : 0;
        case NVMIMIC_FID_APST:
            return nvmimic_apst_cmd(n, req);
        default:
            return 0;
        }
    }
    switch (req->cmd.opcode) {
    case NVME_CMD_WRITE_UNCOR:
        if (n->cse.iocs.nvm[NVME_CMD_WRITE_UNCOR] & NVME_CMD_EFF_CSUPP) {
            return nvmimic_write_uncor(n, req);
        }
        return 0;
    case NVME_CMD_READ:
    case NVME_CMD_COMPARE:
    case NVME_CMD_VERIFY:
        slba = nvmimic_rw_range(req, &nlb);
        if (s->uncor->len &&
            nvmimic_range_ok(n, le32_to_cpu(req->cmd.nsid), slba, nlb) &&
            nvmimic_uncor_overlaps(s, slba, slba + nlb)) {
            return NVME_UNRECOVERED_READ | NVME_DNR;
        }
        return 0;
    default:
        return 0;
    }
}

/* A command the model timed: the trace event and the trace file. */
static void nvmimic_record(NvmimicCtrl *s, int64_t now, const NvmCmd *c,
                           int64_t deadline)
{
    const char *name = nvm_cmd_name(c->op, c->flags);   /* write-fua... */

    trace_nvmimic_model_cmd(name, c->slba, c->nlb, now, deadline);
    if (s->iolog) {
        nvmimic_iolog_cmd(s->iolog, now, name, c->slba, c->nlb, deadline);
    }
}

/*
 * Submit [slba, slba + nlb), in the namespace's current LBA size, to the
 * model, which counts in the profile's LBA size: after a guest Format to
 * 4 KiB LBAs each LBA is charged as 4 KiB.  Returns the latest deadline.
 */
static int64_t nvmimic_model_submit(NvmeCtrl *n, uint32_t nsid, NvmOp op,
                                    uint32_t flags, uint64_t slba,
                                    uint64_t nlb, int64_t now)
{
    NvmimicCtrl *s = n->nvmimic;
    NvmeNamespace *ns = nvme_ns(n, nsid);
    uint32_t unit = s->profile->lba_bytes;
    uint64_t first = slba * ns->lbasz / unit;
    uint64_t end = DIV_ROUND_UP((slba + nlb) * ns->lbasz, unit);
    int64_t deadline = -1;

    while (first < end) {
        NvmCmd c = {
            .op = op,
            .flags = flags,
            .slba = first,
            .nlb = MIN(end - first, NVMIMIC_MODEL_NLB_MAX),
        };
        int64_t d = nvm_model_submit(s->model, &c, now);

        nvmimic_record(s, now, &c, d);
        deadline = MAX(deadline, d);
        first += c.nlb;
    }
    return deadline;
}

/*
 * Deallocate: the model wants the ranges.  To read them the controller
 * has mapped the command's data pointer, PRPs or an SGL (nvme_h2c()),
 * into req->sg, which stays mapped until the completion is posted: they
 * are read again through that mapping.  The controller validates them
 * itself; a range outside the namespace is only left out of the timing.
 */
static int64_t nvmimic_submit_dsm(NvmeCtrl *n, NvmeRequest *req, int64_t now)
{
    NvmimicCtrl *s = n->nvmimic;
    uint32_t nsid = le32_to_cpu(req->cmd.nsid);
    uint32_t nr = (le32_to_cpu(req->cmd.cdw10) & 0xff) + 1;
    size_t len = nr * sizeof(NvmeDsmRange);
    NvmeDsmRange range[256];
    int64_t deadline = -1;
    dma_addr_t residual;
    uint32_t i;

    if (!(req->sg.flags & NVME_SG_ALLOC)) {
        return -1;
    }
    if (req->sg.flags & NVME_SG_DMA) {
        if (dma_buf_write(range, len, &residual, &req->sg.qsg,
                          MEMTXATTRS_UNSPECIFIED) || residual) {
            return -1;
        }
    } else if (qemu_iovec_to_buf(&req->sg.iov, 0, range, len) != len) {
        return -1;
    }
    for (i = 0; i < nr; i++) {
        uint64_t slba = le64_to_cpu(range[i].slba);
        uint32_t nlb = le32_to_cpu(range[i].nlb);

        if (!nvmimic_range_ok(n, nsid, slba, nlb)) {
            continue;
        }
        nvmimic_uncor_clear(s, slba, slba + nlb);
        deadline = MAX(deadline, nvmimic_model_submit(n, nsid,
                                                      NVM_OP_DISCARD, 0, slba,
                                                      nlb, now));
    }
    return deadline;
}

void nvmimic_submit(NvmeCtrl *n, NvmeRequest *req)
{
    NvmimicCtrl *s = n->nvmimic;
    NvmeRwCmd *rw = (NvmeRwCmd *)&req->cmd;
    uint32_t nsid = le32_to_cpu(req->cmd.nsid);
    int64_t now, deadline = -1;
    NvmCmd c = { 0 };
    uint64_t slba, nlb;

    if (!s || req->nvmimic.state != NVMIMIC_REQ_UNTIMED) {
        return;                 /* already completed: failed, untimed */
    }
    /* a doorbell the timing thread replays: when the guest rang */
    now = s->db_at >= 0 ? s->db_at : nvmimic_now();

    switch (req->cmd.opcode) {
    case NVME_CMD_READ:
    case NVME_CMD_WRITE:
    case NVME_CMD_WRITE_ZEROES:
        c.op = req->cmd.opcode == NVME_CMD_READ ? NVM_OP_READ :
               req->cmd.opcode == NVME_CMD_WRITE ? NVM_OP_WRITE :
               NVM_OP_WRITE_ZEROES;
        slba = nvmimic_rw_range(req, &nlb);
        if (!nvmimic_range_ok(n, nsid, slba, nlb)) {
            return;             /* the controller fails it, untimed */
        }
        /*
         * Force Unit Access: the write completes when it is programmed,
         * on a drive with a volatile write cache; one without keeps what
         * it acknowledged anyway (its buffer survives power loss).
         */
        deadline = nvmimic_model_submit(n, nsid, c.op,
                                        c.op != NVM_OP_READ &&
                                        s->profile->volatile_write_cache &&
                                        (le16_to_cpu(rw->control) &
                                         NVME_RW_FUA) ? NVM_CMD_FUA : 0,
                                        slba, nlb, now);
        break;
    case NVME_CMD_FLUSH:
        c.op = NVM_OP_FLUSH;
        deadline = nvm_model_submit(s->model, &c, now);
        nvmimic_record(s, now, &c, deadline);
        break;
    case NVME_CMD_DSM:
        if (!(le32_to_cpu(req->cmd.cdw11) & NVME_DSMGMT_AD)) {
            return;
        }
        c.op = NVM_OP_DISCARD;
        deadline = nvmimic_submit_dsm(n, req, now);
        break;
    default:
        return;
    }
    if (deadline < 0) {
        return;
    }
    deadline = nvmimic_fault_deadline(n, c.op, now, deadline);

    trace_nvmimic_submit(nvme_cid(req), req->sq->sqid, nvm_op_name(c.op),
                         now, deadline);
    nvmimic_timing_start(&s->t, &req->nvmimic, c.op, now, deadline);
}

/*
 * A Write or Write Zeroes that completed successfully: its blocks read
 * back again (Write Uncorrectable marks and injected unrecovered-read
 * errors there are gone).  Not when it arrives: one that fails keeps them.
 */
static void nvmimic_written(NvmeCtrl *n, NvmeRequest *req)
{
    uint32_t nsid = le32_to_cpu(req->cmd.nsid);
    uint64_t nlb;
    uint64_t slba = nvmimic_rw_range(req, &nlb);

    if (!req->sq->sqid || req->status != NVME_SUCCESS ||
        (req->cmd.opcode != NVME_CMD_WRITE &&
         req->cmd.opcode != NVME_CMD_WRITE_ZEROES) ||
        !nvmimic_range_ok(n, nsid, slba, nlb)) {
        return;
    }
    nvmimic_uncor_clear(n->nvmimic, slba, slba + nlb);
    nvmimic_fault_written(n, nsid, slba, slba + nlb);
}

bool nvmimic_complete(NvmeCtrl *n, NvmeRequest *req)
{
    NvmimicCtrl *s = n->nvmimic;

    if (s) {
        nvmimic_fault_data_done(n, req);
        nvmimic_written(n, req);
    }
    if (s && !req->sq->sqid && req->cmd.opcode == NVME_ADM_CMD_FORMAT_NVM &&
        req->status == NVME_SUCCESS) {
        /*
         * Every block is gone: the drive's map is empty, as after a secure
         * erase, and no block is marked uncorrectable.  The model keeps
         * counting in the profile's LBA size (nvmimic_model_submit).
         */
        nvm_model_secure_erase(s->model);
        g_array_set_size(s->uncor, 0);
        nvmimic_fault_formatted(n, le32_to_cpu(req->cmd.nsid));
    }
    if (!s || req->nvmimic.state == NVMIMIC_REQ_UNTIMED) {
        /*
         * Failed, admin, or completed before nvmimic_submit(): never timed.
         * Under icount it is posted now too, not from a bottom half that
         * runs wherever host scheduling puts it in the guest's timeline.
         */
        req->nvmimic.state = NVMIMIC_REQ_POSTED;
        if (!s) {
            return false;
        }
        if (!icount_enabled()) {
            if (!nvmimic_fault_watching(n)) {
                return false;
            }
            nvmimic_post(req, false);   /* as ctrl.c would, but seen */
            return true;
        }
        nvmimic_post_now(n, req);
        return true;
    }
    if (nvmimic_timing_complete(&s->t, &req->nvmimic)) {
        /*
         * The I/O is done; only the completion waits.  Its aiocb is gone,
         * so a queue deletion must not try to cancel it.
         */
        req->aiocb = NULL;
        trace_nvmimic_hold(nvme_cid(req), req->sq->sqid,
                           req->nvmimic.deadline_ns);
        return true;
    }
    trace_nvmimic_post(nvme_cid(req), req->sq->sqid,
                       nvmimic_now() - req->nvmimic.deadline_ns);
    if (!nvmimic_time_jumps() && !s->t.rt) {
        if (!nvmimic_fault_watching(n)) {
            return false;
        }
        nvmimic_post(req, false);
        return true;
    }
    /*
     * Under icount a bottom half would let virtual time warp to the next
     * timer while the vCPU idles before it runs, and qtest may step the
     * clock before it runs: post synchronously.  With the timing thread
     * a completion already late does not wait for the bottom half either.
     */
    nvmimic_post_now(n, req);
    return true;
}

/* compare addresses only: entries may be stale */
static bool heap_entry_not_of_sq(const NvmHeapItem *e, void *opaque)
{
    const NvmeSQueue *sq = opaque;
    const NvmeRequest *req = container_of(e->data, NvmeRequest, nvmimic);

    return req < sq->io_req || req >= sq->io_req + sq->size;
}

/* As ctrl.c's nvme_sg_unmap() */
void nvmimic_sg_unmap(NvmeSg *sg)
{
    if (!(sg->flags & NVME_SG_ALLOC)) {
        return;
    }
    if (sg->flags & NVME_SG_DMA) {
        qemu_sglist_destroy(&sg->qsg);
    } else {
        qemu_iovec_destroy(&sg->iov);
    }
    memset(sg, 0, sizeof(*sg));
}

void nvmimic_sq_freed(NvmeCtrl *n, NvmeSQueue *sq)
{
    NvmimicCtrl *s = n->nvmimic;
    guint i;

    if (!s) {
        return;
    }
    if (!sq->sqid) {
        /* the admin queue goes on a controller reset, and the buffer too */
        nvmimic_hmb_release(s);
    }
    nvmimic_fault_sq_freed(n, sq);
    for (i = 0; i < sq->size; i++) {
        NvmeRequest *req = &sq->io_req[i];

        if (req->nvmimic.state == NVMIMIC_REQ_HELD) {
            /*
             * Never to be posted: release the data mapping that
             * nvme_post_cqes() would have (its QEMUSGList holds a
             * reference on the device, which could then never go away).
             */
            nvmimic_sg_unmap(&req->sg);
        }
        nvmimic_timing_forget(&s->t, &req->nvmimic);
    }
    /* the timer's data wait sees requests go (req_alive) */
    nvmimic_timing_filter(&s->t, heap_entry_not_of_sq, sq);
}
