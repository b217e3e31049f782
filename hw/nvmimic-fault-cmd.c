/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic faults: what the active faults do to each command: media errors
 * (with the SMART log's counts and the Error Information log), latency
 * spikes, stalls of a command class, a hung controller, and the hooks the
 * controller calls for them.  The faults are given, queued and applied in
 * nvmimic-fault.c.
 *
 * Copyright (c) 2026 the nvmimic authors
 */

#include "qemu/osdep.h"
#include "qemu/timer.h"

#include "nvmimic-fault-int.h"
#include "trace.h"

/* ---- commands a fault holds ------------------------------------------ */

static bool class_matches(NvmimicFaultClass cls, const NvmeRequest *req)
{
    if (!req->sq->sqid) {
        return false;                   /* admin commands: no class */
    }
    switch (req->cmd.opcode) {
    case NVME_CMD_READ:
        return cls == NVMIMIC_FAULT_CLASS_READ ||
               cls == NVMIMIC_FAULT_CLASS_ALL;
    case NVME_CMD_WRITE:
        return cls == NVMIMIC_FAULT_CLASS_WRITE ||
               cls == NVMIMIC_FAULT_CLASS_ALL;
    case NVME_CMD_FLUSH:
        return cls == NVMIMIC_FAULT_CLASS_FLUSH ||
               cls == NVMIMIC_FAULT_CLASS_ALL;
    case NVME_CMD_DSM:
        return cls == NVMIMIC_FAULT_CLASS_DISCARD ||
               cls == NVMIMIC_FAULT_CLASS_ALL;
    case NVME_CMD_WRITE_ZEROES:
        return cls == NVMIMIC_FAULT_CLASS_WRITE_ZEROES ||
               cls == NVMIMIC_FAULT_CLASS_ALL;
    default:
        return cls == NVMIMIC_FAULT_CLASS_ALL;
    }
}

static bool op_matches(NvmimicFaultClass cls, NvmOp op)
{
    static const NvmimicFaultClass of_op[NVM_CLASS_COUNT] = {
        [NVM_OP_READ] = NVMIMIC_FAULT_CLASS_READ,
        [NVM_OP_WRITE] = NVMIMIC_FAULT_CLASS_WRITE,
        [NVM_OP_FLUSH] = NVMIMIC_FAULT_CLASS_FLUSH,
        [NVM_OP_DISCARD] = NVMIMIC_FAULT_CLASS_DISCARD,
        [NVM_OP_WRITE_ZEROES] = NVMIMIC_FAULT_CLASS_WRITE_ZEROES,
    };

    return cls == NVMIMIC_FAULT_CLASS_ALL ||
           (op < NVM_CLASS_COUNT && of_op[op] == cls);
}

static bool stalled(NvmimicFaults *f, const NvmeRequest *req)
{
    guint i;

    for (i = 0; i < f->stalls->len; i++) {
        if (class_matches(g_array_index(f->stalls, Stall, i).cls, req)) {
            return true;
        }
    }
    return false;
}

/* Post the held completions nothing holds any more, in the order held. */
void nvmimic_fault_release_held(NvmimicFaults *f)
{
    GList *l, *next;

    if (f->off) {
        return;
    }
    for (l = f->held->head; l; l = next) {
        NvmeRequest *req = l->data;

        next = l->next;
        if (f->hung || stalled(f, req)) {
            continue;
        }
        g_queue_delete_link(f->held, l);
        if (f->journal) {
            nvmimic_journal_posted(f->journal, req);
        }
        nvmimic_post_raw(req);
    }
}

void nvmimic_fault_stall_timer_arm(NvmimicFaults *f)
{
    int64_t first = INT64_MAX;
    guint i;

    for (i = 0; i < f->stalls->len; i++) {
        first = MIN(first, g_array_index(f->stalls, Stall, i).until_ns);
    }
    if (first == INT64_MAX) {
        timer_del(f->stall_timer);
    } else {
        timer_mod(f->stall_timer, first);
    }
}

void nvmimic_fault_stall_timer_cb(void *opaque)
{
    NvmimicFaults *f = opaque;
    int64_t now = nvmimic_now();
    guint i = 0;

    while (i < f->stalls->len) {
        Stall *st = &g_array_index(f->stalls, Stall, i);

        if (st->until_ns <= now) {
            trace_nvmimic_fault_end("stall", now);
            g_array_remove_index(f->stalls, i);
        } else {
            i++;
        }
    }
    nvmimic_fault_stall_timer_arm(f);
    nvmimic_fault_release_held(f);
}

bool nvmimic_fault_watching(NvmeCtrl *n)
{
    NvmimicFaults *f = n->nvmimic->faults;

    return f->journal || f->hung || f->off || f->stalls->len ||
           !g_queue_is_empty(f->held);
}

bool nvmimic_fault_post(NvmeCtrl *n, NvmeRequest *req)
{
    NvmimicFaults *f = n->nvmimic->faults;

    if (f->off || f->hung || stalled(f, req)) {
        /* held like a completion waiting for its deadline */
        req->aiocb = NULL;
        g_queue_push_tail(f->held, req);
        return true;
    }
    if (f->journal) {
        nvmimic_journal_posted(f->journal, req);
    }
    return false;
}

int64_t nvmimic_fault_deadline(NvmeCtrl *n, NvmOp op, int64_t now,
                               int64_t deadline)
{
    NvmimicFaults *f = n->nvmimic->faults;
    guint i = 0;

    while (i < f->latency->len) {
        Latency *l = &g_array_index(f->latency, Latency, i);

        if (!op_matches(l->cls, op)) {
            i++;
            continue;
        }
        deadline += l->delay_ns;
        if (l->left != UINT64_MAX && !--l->left) {
            trace_nvmimic_fault_end("latency", now);
            g_array_remove_index(f->latency, i);
        } else {
            i++;
        }
    }
    return deadline;
}

/* ---- media errors ---------------------------------------------------- */

static const MediaRange *media_find(NvmimicFaults *f, uint32_t nsid,
                                    uint64_t start, uint64_t end,
                                    NvmimicMediaError error)
{
    guint i;

    for (i = 0; i < f->media->len; i++) {
        const MediaRange *r = &g_array_index(f->media, MediaRange, i);

        if (r->nsid == nsid && r->error == error && r->start < end &&
            start < r->end) {
            return r;
        }
    }
    return NULL;
}

/*
 * Written blocks read back again: an unrecovered read error is gone.  A
 * write inside a range splits it in two; with FAULTS_RANGES_MAX ranges
 * there is no room for the second, so the range's tail after the write
 * reads back too (the written blocks never stay failed, and the ranges a
 * guest's writes can make stay bounded).
 */
static void media_written(NvmimicFaults *f, uint32_t nsid, uint64_t start,
                          uint64_t end)
{
    guint i = 0;

    while (i < f->media->len) {
        MediaRange *r = &g_array_index(f->media, MediaRange, i);
        MediaRange tail;

        if ((nsid != NVME_NSID_BROADCAST && r->nsid != nsid) ||
            r->error != NVMIMIC_MEDIA_ERROR_UNRECOVERED_READ ||
            r->end <= start || end <= r->start) {
            i++;
            continue;
        }
        tail = *r;
        if (r->start < start) {
            r->end = start;
            i++;
            if (tail.end > end && f->media->len < FAULTS_RANGES_MAX) {
                tail.start = end;
                g_array_insert_val(f->media, i, tail);
                i++;
            }
        } else if (r->end > end) {
            r->start = end;
            i++;
        } else {
            g_array_remove_index(f->media, i);
        }
    }
}

/* A command failed on the media: count it and log it. */
static void media_error(NvmimicFaults *f, NvmeRequest *req, uint16_t status,
                        uint64_t lba)
{
    NvmeErrorLog *e = &f->log[0];

    f->media_errors++;
    f->error_count++;
    memmove(f->log + 1, f->log, sizeof(f->log) - sizeof(f->log[0]));
    memset(e, 0, sizeof(*e));
    e->error_count = cpu_to_le64(f->error_count);
    e->sqid = cpu_to_le16(req->sq->sqid);
    e->cid = req->cmd.cid;
    e->status_field = cpu_to_le16(status << 1);
    e->param_error_location = cpu_to_le16(0xffff);
    e->lba = cpu_to_le64(lba);
    e->nsid = req->cmd.nsid;
    trace_nvmimic_fault_media(nvme_cid(req), req->sq->sqid, lba, status);
}

static uint16_t media_check(NvmimicFaults *f, NvmeRequest *req)
{
    uint32_t nsid = le32_to_cpu(req->cmd.nsid);
    uint64_t nlb;
    uint64_t slba = nvmimic_rw_range(req, &nlb);
    NvmimicMediaError error;
    const MediaRange *r;
    uint16_t status;

    switch (req->cmd.opcode) {
    case NVME_CMD_READ:
    case NVME_CMD_COMPARE:
    case NVME_CMD_VERIFY:
        error = NVMIMIC_MEDIA_ERROR_UNRECOVERED_READ;
        status = NVME_UNRECOVERED_READ;
        break;
    case NVME_CMD_WRITE:
    case NVME_CMD_WRITE_ZEROES:
        error = NVMIMIC_MEDIA_ERROR_WRITE_FAULT;
        status = NVME_WRITE_FAULT;
        break;
    default:
        return 0;
    }
    if (!nvmimic_range_ok(f->n, nsid, slba, nlb)) {
        return 0;                       /* ctrl.c fails it */
    }
    r = media_find(f, nsid, slba, slba + nlb, error);
    if (!r) {
        return 0;                       /* nvmimic_fault_written() */
    }
    status |= NVME_MORE | NVME_DNR;
    media_error(f, req, status, MAX(slba, r->start));
    return status;
}

/* ---- hooks ------------------------------------------------------------ */

uint16_t nvmimic_fault_cmd(NvmeCtrl *n, NvmeRequest *req)
{
    NvmimicFaults *f = n->nvmimic->faults;
    uint16_t status;

    if (f->off || f->hung) {
        /*
         * Taken from the queue, never answered: the host sees its command
         * time out.  ctrl.c forgets it when the queue goes (a reset).
         */
        req->nvmimic.state = NVMIMIC_REQ_POSTED;
        req->aiocb = NULL;
        trace_nvmimic_fault_swallow(nvme_cid(req), req->sq->sqid);
        return NVME_NO_COMPLETE;
    }
    if (!req->sq->sqid) {
        return 0;
    }
    if (f->media->len) {
        status = media_check(f, req);
        if (status) {
            return status;
        }
    }
    if (f->journal) {
        return nvmimic_journal_cmd(f->journal, req);
    }
    return 0;
}

/*
 * A write to [@start, @end) of @nsid completed successfully: its blocks
 * read back again.  At completion, not at arrival: a write that fails
 * (refused, or a data transfer error) leaves the error in place.
 */
void nvmimic_fault_written(NvmeCtrl *n, uint32_t nsid, uint64_t start,
                           uint64_t end)
{
    NvmimicFaults *f = n->nvmimic->faults;

    if (f->media->len) {
        media_written(f, nsid, start, end);
    }
}

/*
 * Format NVM of @nsid (every namespace: NVME_NSID_BROADCAST) completed: it
 * wrote every block, so unrecovered-read ranges go, and a power cut puts
 * back nothing the blocks held before it.
 */
void nvmimic_fault_formatted(NvmeCtrl *n, uint32_t nsid)
{
    NvmimicFaults *f = n->nvmimic->faults;

    if (f->media->len) {
        media_written(f, nsid, 0, UINT64_MAX);
    }
    if (f->journal) {
        nvmimic_journal_formatted(f->journal, nsid);
    }
}

void nvmimic_fault_data_done(NvmeCtrl *n, NvmeRequest *req)
{
    NvmimicFaults *f = n->nvmimic->faults;

    if (f->journal) {
        nvmimic_journal_data_done(f->journal, req);
    }
}

void nvmimic_fault_sq_freed(NvmeCtrl *n, NvmeSQueue *sq)
{
    NvmimicFaults *f = n->nvmimic->faults;
    GList *l, *next;

    for (l = f->held->head; l; l = next) {
        NvmeRequest *req = l->data;

        next = l->next;
        if (req >= sq->io_req && req < sq->io_req + sq->size) {
            /* never to be posted: let go of its data mapping */
            nvmimic_sg_unmap(&req->sg);
            g_queue_delete_link(f->held, l);
        }
    }
    if (f->journal) {
        nvmimic_journal_sq_freed(f->journal, sq);
    }
    if (!sq->sqid && f->hung) {
        /* the host reset the controller: it answers again */
        f->hung = false;
        trace_nvmimic_fault_end("hang", nvmimic_now());
    }
}

void nvmimic_fault_smart(NvmeCtrl *n, NvmeSmartLog *smart)
{
    NvmimicFaults *f = n->nvmimic->faults;

    smart->unsafe_shutdowns[0] = cpu_to_le64(
        le64_to_cpu(smart->unsafe_shutdowns[0]) + f->power_cuts);
    smart->power_cycles[0] = cpu_to_le64(
        le64_to_cpu(smart->power_cycles[0]) + f->power_cuts);
    smart->media_errors[0] = cpu_to_le64(f->media_errors);
    smart->number_of_error_log_entries[0] = cpu_to_le64(f->error_count);
}

size_t nvmimic_fault_error_log(NvmeCtrl *n, uint8_t *buf, size_t size)
{
    NvmimicFaults *f = n->nvmimic->faults;
    size_t len = MIN(size, sizeof(f->log));

    memcpy(buf, f->log, len);
    return len;
}
