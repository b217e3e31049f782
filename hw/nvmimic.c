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
 * Copyright (c) 2026 the nvmimic authors
 */

#include "qemu/osdep.h"
#include <math.h>
#include "qapi/error.h"
#include "qapi/clone-visitor.h"
#include "qapi/qapi-commands-nvmimic.h"
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

#include "../nvme.h"
#include "heap.h"
#include "nvmimic-model.h"
#include "nvmimic-iolog.h"
#include "nvmimic-timing.h"
#include "trace.h"

/*
 * The in-band mark: a vendor-specific admin command (no data transfer) that
 * snapshots the drive's statistics at the virtual instant the guest sends
 * it.  CDW12 is the mark's number, chosen by the guest; CDW13 bit 0 resets
 * the statistics after the snapshot; the other bits are reserved (0).
 * The host reads the snapshots with query-nvmimic-marks and may queue a
 * state (nvmimic-set-state at-mark) that the mark applies.
 */
#define NVMIMIC_ADM_MARK 0xc0
#define NVMIMIC_MARK_RESET 0x1

/* Marks kept (about 1.5 KiB each); beyond, the oldest are dropped. */
#define NVMIMIC_MARKS_MAX 4096
/* States queued for marks not yet seen; one more is refused. */
#define NVMIMIC_PENDING_MAX 1024

/* SMART Percentage Used saturates at 255 (NVMe 1.4, Figure 194). */
#define NVMIMIC_WEAR_PCT_MAX 255
/* SMART log byte offsets: reserved2, TMT1 transition count and total time */
#define NVMIMIC_SMART_RSVD2 192
#define NVMIMIC_SMART_TMT1TC 216
#define NVMIMIC_SMART_TTTMT1 224

/* Feature Identifier of Autonomous Power State Transition (NVMe 1.4 5.21.1) */
#define NVMIMIC_FID_APST 0x0c
#define NVMIMIC_APST_BYTES 256

/*
 * Of the optional capabilities a profile reports (OACS, ONCS, LPA), those
 * nvmimic implements; the others are not reported, so the guest never
 * sends a command that would fail where the real drive's would not.
 * Not implemented: Namespace Management, Reservations, the persistent event
 * log.  Security Send/Receive know no security protocol but protocol 0,
 * Firmware Commit refuses every downloaded image (as a drive refuses an
 * image its vendor did not sign), a device self-test completes at once
 * without error, and the telemetry logs hold their header only.
 */
#define NVMIMIC_OACS_DST (1 << 4)       /* Device Self-test */
#define NVMIMIC_LPA_TELEMETRY (1 << 3)
#define NVMIMIC_OACS_IMPL (NVME_OACS_SECURITY | NVME_OACS_FORMAT | \
                           NVME_OACS_FW | NVMIMIC_OACS_DST)
#define NVMIMIC_ONCS_IMPL (NVME_ONCS_COMPARE | NVME_ONCS_WRITE_UNCORR | \
                           NVME_ONCS_DSM | NVME_ONCS_WRITE_ZEROES | \
                           NVME_ONCS_FEATURES | NVME_ONCS_TIMESTAMP | \
                           NVME_ONCS_VERIFY | NVME_ONCS_COPY)
#define NVMIMIC_LPA_IMPL (NVME_LPA_NS_SMART | NVME_LPA_CSE | \
                          NVME_LPA_EXTENDED | NVMIMIC_LPA_TELEMETRY)

/* Admin opcodes and log pages nvmimic answers itself */
#define NVMIMIC_ADM_FW_COMMIT 0x10
#define NVMIMIC_ADM_FW_DOWNLOAD 0x11
#define NVMIMIC_ADM_SELF_TEST 0x14
#define NVMIMIC_LID_SELF_TEST 0x06
#define NVMIMIC_LID_TELEMETRY_HOST 0x07
#define NVMIMIC_LID_TELEMETRY_CTRL 0x08
#define NVMIMIC_LOG_BYTES 564          /* the largest: the self-test log */
#define NVMIMIC_SELF_TESTS 20          /* results the self-test log keeps */

/*
 * Write Uncorrectable marks at most this many disjoint LBA ranges (16 B
 * each, 64 KiB in all); one more is refused with Internal Error.
 */
#define NVMIMIC_UNCOR_RANGES_MAX 4096

/*
 * Host Memory Buffer (Get/Set Features 0x0d) of a DRAM-less profile.  The
 * model only times map misses against the buffer's size: nvmimic never
 * reads or writes the buffer itself.  A descriptor list holds at most
 * this many entries (Linux's smallest chunks, 8 KiB, for 64 MiB), each
 * 16 bytes; a longer one is refused with Invalid Field.
 */
#define NVMIMIC_FID_HMB 0x0d
#define NVMIMIC_HMB_DESCS_MAX 8192
#define NVMIMIC_HMB_ATTR_BYTES 4096

typedef struct QEMU_PACKED NvmimicHmbDesc {
    uint64_t badd;                      /* memory page size aligned */
    uint32_t bsize;                     /* memory pages */
    uint32_t rsvd;
} NvmimicHmbDesc;

/* Model commands are split so that no count exceeds NvmCmd's nlb. */
#define NVMIMIC_MODEL_NLB_MAX UINT32_MAX

/* LBAs [start, end) of the namespace, in its current LBA size */
typedef struct NvmimicRange {
    uint64_t start;
    uint64_t end;
} NvmimicRange;

typedef struct NvmimicPending {
    uint32_t mark;
    NvmimicState st;
} NvmimicPending;

struct NvmimicCtrl {
    NvmimicTiming t;            /* the model and its clockwork */
    NvmProfile *profile;        /* t's, for short */
    NvmModel *model;            /* t's, for short */
    NvmeCtrl *n;
    bool apst_enabled;
    uint8_t apst_table[NVMIMIC_APST_BYTES];
    GArray *uncor;              /* sorted disjoint NvmimicRange, marked */
    uint64_t fw_download_bytes; /* of the image downloaded since a commit */
    /* device self-test results, newest first: STC << 4 | result, or 0xf */
    uint8_t dst_result[NVMIMIC_SELF_TESTS];
    uint64_t dst_poh[NVMIMIC_SELF_TESTS];
    NvmimicIolog *iolog;        /* nvmimic-trace-start, NULL if none */
    GPtrArray *marks;           /* NvmimicMark, oldest first */
    uint64_t marks_dropped;
    GArray *pending;            /* NvmimicPending, in the order queued */
    /* Host Memory Buffer as the host last enabled it (Set Features 0x0d) */
    bool hmb_enabled;
    uint32_t hmb_hsize;         /* memory pages */
    uint64_t hmb_list;          /* descriptor list address */
    uint32_t hmb_count;         /* descriptors */
};

/*
 * As the tail of ctrl.c's nvme_enqueue_req_completion(): move @req to its
 * CQ and post it, through the CQ's bottom half, or with @now at once.
 */
static void nvmimic_post(NvmeRequest *req, bool now)
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
static void nvmimic_post_now(NvmeCtrl *n, NvmeRequest *req)
{
    MemReentrancyGuard *guard = &DEVICE(n)->mem_reentrancy_guard;
    bool engaged = guard->engaged_in_io;

    guard->engaged_in_io = true;
    nvmimic_post(req, true);
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

    if (!n->params.serial) {
        n->params.serial = g_strdup(p->serial);
    }
    n->params.mdts = p->mdts;
    return true;
}

void nvmimic_init_pci(NvmeCtrl *n, PCIDevice *pci_dev)
{
    NvmProfile *p;
    uint8_t *conf = pci_dev->config;

    if (!n->nvmimic) {
        return;
    }
    p = n->nvmimic->profile;
    pci_config_set_vendor_id(conf, p->pci_vendor_id);
    pci_config_set_device_id(conf, p->pci_device_id);
    pci_set_word(conf + PCI_SUBSYSTEM_VENDOR_ID, p->pci_subsys_vendor_id);
    pci_set_word(conf + PCI_SUBSYSTEM_ID, p->pci_subsys_id);
}

static void nvmimic_psd(NvmePSD *psd, const NvmPowerState *ps, unsigned i)
{
    uint8_t flags = ps->non_operational ? 0x2 : 0;
    double mp = ps->max_power_w * 100.0;

    /*
     * Max Power in units of 0.01 W, or with Max Power Scale set in units
     * of 0.0001 W when that is needed to report the profile's value (as
     * drives do for their low-power states, e.g. 0.0025 W or 0.025 W).
     */
    if (fabs(mp - round(mp)) > 0.000001 || round(mp) < 1.0) {
        double fine = ps->max_power_w * 10000.0;

        if (fine + 0.5 < 65536.0) {
            flags |= 0x1;
            mp = fine;
        }
    }
    psd->mp = cpu_to_le16((uint16_t)MIN(mp + 0.5, 65535.0));
    psd->reserved = cpu_to_le16((uint16_t)flags << 8);
    psd->enlat = cpu_to_le32(ps->entry_lat_us);
    psd->exlat = cpu_to_le32(ps->exit_lat_us);
    /* relative read/write throughput and latency: rank of the state */
    psd->rrt = psd->rrl = psd->rwt = psd->rwl = i;
}

/* The profile's transitions, as a table the guest can read back. */
static void nvmimic_default_apst_table(const NvmProfile *p, uint8_t *table)
{
    unsigned from = 0, i, j;
    uint32_t prev_ms = 0;

    memset(table, 0, NVMIMIC_APST_BYTES);
    for (i = 1; i < p->n_power_states; i++) {
        const NvmPowerState *ps = &p->ps[i];
        uint64_t e;

        if (!ps->non_operational || !ps->idle_before_entry_ms ||
            ps->idle_before_entry_ms <= prev_ms) {
            continue;
        }
        e = ((uint64_t)(ps->idle_before_entry_ms - prev_ms) << 8) |
            (i << 3);
        for (j = from; j < i; j++) {
            stq_le_p(table + 8 * j, e);
        }
        from = i;
        prev_ms = ps->idle_before_entry_ms;
    }
}

/* The capabilities the profile reports, as far as nvmimic implements them. */
static void nvmimic_init_caps(NvmeCtrl *n, const NvmProfile *p)
{
    static const struct {
        uint16_t oncs;
        uint8_t opc;
    } io_opt[] = {
        { NVME_ONCS_COMPARE, NVME_CMD_COMPARE },
        { NVME_ONCS_WRITE_UNCORR, NVME_CMD_WRITE_UNCOR },
        { NVME_ONCS_DSM, NVME_CMD_DSM },
        { NVME_ONCS_WRITE_ZEROES, NVME_CMD_WRITE_ZEROES },
        { NVME_ONCS_VERIFY, NVME_CMD_VERIFY },
        { NVME_ONCS_COPY, NVME_CMD_COPY },
    };
    NvmeIdCtrl *id = &n->id_ctrl;
    uint16_t oacs = p->oacs & NVMIMIC_OACS_IMPL;
    uint16_t oncs = p->oncs & NVMIMIC_ONCS_IMPL;
    unsigned i;

    id->ieee[0] = p->ieee_oui;
    id->ieee[1] = p->ieee_oui >> 8;
    id->ieee[2] = p->ieee_oui >> 16;
    id->nn = cpu_to_le32(p->namespaces);
    id->oacs = cpu_to_le16(oacs);
    id->oncs = cpu_to_le16(oncs);
    id->frmw = p->frmw;
    id->lpa = p->lpa & NVMIMIC_LPA_IMPL;
    id->oaes = cpu_to_le32(p->oaes);
    id->sanicap = cpu_to_le32(p->sanicap);
    stq_le_p(id->tnvmcap, p->tnvmcap_bytes);
    stq_le_p(id->tnvmcap + 8, 0);
    stq_le_p(id->unvmcap, p->unvmcap_bytes);
    stq_le_p(id->unvmcap + 8, 0);
    id->awun = cpu_to_le16(p->awun);
    id->awupf = cpu_to_le16(p->awupf);
    if (!(oncs & NVME_ONCS_COPY)) {
        id->ocfs = 0;
    }

    /*
     * A command the drive does not report is an invalid opcode, as on the
     * drive: QEMU checks these tables before it dispatches a command, and
     * the Commands Supported and Effects log shows them.
     */
    n->cse.acs[NVME_ADM_CMD_NS_ATTACHMENT] = 0;
    n->cse.acs[NVME_ADM_CMD_DIRECTIVE_SEND] = 0;
    n->cse.acs[NVME_ADM_CMD_DIRECTIVE_RECV] = 0;
    n->cse.acs[NVME_ADM_CMD_DBBUF_CONFIG] = 0;
    n->cse.acs[NVME_ADM_CMD_VIRT_MNGMT] = 0;
    if (!(oacs & NVME_OACS_FORMAT)) {
        n->cse.acs[NVME_ADM_CMD_FORMAT_NVM] = 0;
    }
    /* nvmimic_cmd() executes these: ctrl.c never sees them */
    if (oacs & NVME_OACS_SECURITY) {
        n->cse.acs[NVME_ADM_CMD_SECURITY_SEND] = NVME_CMD_EFF_CSUPP;
        n->cse.acs[NVME_ADM_CMD_SECURITY_RECV] = NVME_CMD_EFF_CSUPP;
    }
    if (oacs & NVME_OACS_FW) {
        n->cse.acs[NVMIMIC_ADM_FW_COMMIT] = NVME_CMD_EFF_CSUPP;
        n->cse.acs[NVMIMIC_ADM_FW_DOWNLOAD] = NVME_CMD_EFF_CSUPP;
    }
    if (oacs & NVMIMIC_OACS_DST) {
        n->cse.acs[NVMIMIC_ADM_SELF_TEST] = NVME_CMD_EFF_CSUPP;
    }
    for (i = 0; i < ARRAY_SIZE(io_opt); i++) {
        if (!(oncs & io_opt[i].oncs)) {
            n->cse.iocs.nvm[io_opt[i].opc] = 0;
        } else if (io_opt[i].opc == NVME_CMD_WRITE_UNCOR) {
            /* nvmimic_cmd() executes it: ctrl.c never sees it */
            n->cse.iocs.nvm[NVME_CMD_WRITE_UNCOR] = NVME_CMD_EFF_CSUPP |
                                                    NVME_CMD_EFF_LBCC;
        }
    }
    n->cse.iocs.nvm[NVME_CMD_IO_MGMT_RECV] = 0;
    n->cse.iocs.nvm[NVME_CMD_IO_MGMT_SEND] = 0;
}

/* Identify Namespace: the drive's LBA formats, the current one selected. */
static void nvmimic_init_lba_formats(NvmeNamespace *ns, const NvmProfile *p,
                                     bool copy)
{
    NvmeIdNs *id_ns = &ns->id_ns;
    unsigned i, cur = 0;

    memset(id_ns->lbaf, 0, sizeof(id_ns->lbaf));
    memset(ns->id_ns_nvm.elbaf, 0, sizeof(ns->id_ns_nvm.elbaf));
    for (i = 0; i < p->lba_formats.n; i++) {
        id_ns->lbaf[i].ds = ctz32(p->lba_formats.bytes[i]);
        id_ns->lbaf[i].rp = p->lba_formats.rp[i];
        if (p->lba_formats.bytes[i] == ns->blkconf.logical_block_size) {
            cur = i;
        }
    }
    ns->nlbaf = p->lba_formats.n;
    id_ns->nlbaf = ns->nlbaf - 1;
    id_ns->flbas = cur;
    if (!copy) {
        id_ns->mssrl = 0;
        id_ns->mcl = 0;
        id_ns->msrc = 0;
    }
    nvme_ns_init_format(ns);
}

void nvmimic_init_ctrl(NvmeCtrl *n)
{
    NvmimicCtrl *s = n->nvmimic;
    NvmeIdCtrl *id = &n->id_ctrl;
    const NvmProfile *p;
    bool any_nops = false;
    unsigned i;

    if (!s) {
        return;
    }
    p = s->profile;

    strpadcpy((char *)id->mn, sizeof(id->mn), p->model_number, ' ');
    strpadcpy((char *)id->fr, sizeof(id->fr), p->firmware, ' ');
    id->ver = cpu_to_le32(p->nvme_version);
    stl_le_p(&n->bar.vs, p->nvme_version);

    id->vwc = p->volatile_write_cache ?
        (NVME_VWC_NSID_BROADCAST_SUPPORT | NVME_VWC_PRESENT) : 0;

    memset(id->psd, 0, sizeof(id->psd));
    for (i = 0; i < p->n_power_states; i++) {
        nvmimic_psd(&id->psd[i], &p->ps[i], i);
        any_nops |= p->ps[i].non_operational;
    }
    id->npss = p->n_power_states - 1;
    id->apsta = any_nops ? 1 : 0;

    /* HMPRE and HMMIN count 4 KiB units; 0 on a drive with DRAM */
    if (p->map_kind == NVM_MAP_HMB) {
        id->hmpre = cpu_to_le32(p->map_cache_bytes / 4096);
        id->hmmin = cpu_to_le32(p->map_hmb_min_bytes / 4096);
    }

    id->wctemp = cpu_to_le16(p->temp_warn_c + 273);
    id->cctemp = cpu_to_le16(p->temp_crit_c + 273);
    n->temperature = p->temp_idle_c + 273;
    n->features.temp_thresh_hi = p->temp_warn_c + 273;

    nvmimic_default_apst_table(p, s->apst_table);
    s->apst_enabled = p->apst_enabled;

    nvmimic_init_caps(n, p);
    nvmimic_init_lba_formats(&n->namespace, p,
                             n->cse.iocs.nvm[NVME_CMD_COPY]);
}

int nvmimic_ns_init_blk(NvmeNamespace *ns, Error **errp)
{
    NvmeCtrl *n = ns->ctrl;
    const NvmProfile *p;

    if (!n || !n->nvmimic || ns != &n->namespace) {
        return 0;
    }
    p = n->nvmimic->profile;
    if (ns->params.ms || ns->params.pi || ns->params.zoned) {
        error_setg(errp, "nvme: profile %s is a drive without metadata, "
                   "protection information or zones (ms=, pi=, zoned=)",
                   p->name);
        return -1;
    }
    if (ns->blkconf.logical_block_size != p->lba_bytes) {
        error_setg(errp, "nvme: profile %s formats %u-byte LBAs but "
                   "logical_block_size is %u", p->name, p->lba_bytes,
                   ns->blkconf.logical_block_size);
        return -1;
    }
    if ((uint64_t)ns->size < p->capacity_bytes) {
        error_setg(errp, "nvme: drive holds %" PRId64 " bytes but profile "
                   "%s needs %" PRIu64 " (make it sparse: truncate -s %"
                   PRIu64 " FILE, or null-co with size=%" PRIu64 ")",
                   ns->size, p->name, p->capacity_bytes, p->capacity_bytes,
                   p->capacity_bytes);
        return -1;
    }
    if (!p->volatile_write_cache) {
        /*
         * A drive without a volatile write cache is never flushed by its
         * host, so nothing the guest wrote may wait in a cache of QEMU's
         * or of the host's: write through (the block layer then flushes
         * after each write).  The guest cannot turn the cache on either
         * (nvmimic_cmd).
         */
        if (ns->blkconf.wce == ON_OFF_AUTO_ON) {
            error_setg(errp, "nvme: profile %s has no volatile write cache: "
                       "write-cache=on contradicts it", p->name);
            return -1;
        }
        blk_set_enable_write_cache(ns->blkconf.blk, false);
    }
    ns->size = p->capacity_bytes;
    if (n->params.nvmimic_map_allocated &&
        !nvmimic_timing_map_from(&n->nvmimic->t, blk_bs(ns->blkconf.blk),
                                 ns->size, errp)) {
        error_prepend(errp, "nvme: profile-map-allocated: ");
        return -1;
    }
    return 0;
}

void nvmimic_exit(NvmeCtrl *n)
{
    NvmimicCtrl *s = n->nvmimic;

    if (!s) {
        return;
    }
    if (s->iolog) {
        /* the device goes away: keep what was recorded */
        uint64_t commands, dropped;

        nvmimic_iolog_stop(s->iolog, &commands, &dropped, NULL);
        s->iolog = NULL;
    }
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
}

/* ---- timing ----------------------------------------------------------- */

bool nvmimic_sync_doorbell(NvmeCtrl *n)
{
    return n->nvmimic && nvmimic_time_jumps();
}

/* Does [slba, slba + nlb) lie inside namespace @nsid? */
static bool nvmimic_range_ok(NvmeCtrl *n, uint32_t nsid, uint64_t slba,
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

/* ---- commands answered as the drive would --------------------------- */

static NvmimicRange *uncor_at(NvmimicCtrl *s, guint i)
{
    return &g_array_index(s->uncor, NvmimicRange, i);
}

/* Index of the first marked range that ends after @lba. */
static guint uncor_find(NvmimicCtrl *s, uint64_t lba)
{
    guint lo = 0, hi = s->uncor->len;

    while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;

        if (uncor_at(s, mid)->end <= lba) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

static bool uncor_overlaps(NvmimicCtrl *s, uint64_t start, uint64_t end)
{
    guint i = uncor_find(s, start);

    return i < s->uncor->len && uncor_at(s, i)->start < end;
}

/* Written (or deallocated) blocks are readable again. */
static void uncor_clear(NvmimicCtrl *s, uint64_t start, uint64_t end)
{
    guint i = uncor_find(s, start);

    while (i < s->uncor->len && uncor_at(s, i)->start < end) {
        NvmimicRange *r = uncor_at(s, i);

        if (r->start < start && r->end > end) {
            NvmimicRange tail = { end, r->end };

            r->end = start;
            g_array_insert_val(s->uncor, i + 1, tail);
            return;
        }
        if (r->start < start) {
            r->end = start;
            i++;
        } else if (r->end > end) {
            r->start = end;
            return;
        } else {
            g_array_remove_index(s->uncor, i);
        }
    }
}

/* Mark [start, end); false when the ranges are at their bound. */
static bool uncor_mark(NvmimicCtrl *s, uint64_t start, uint64_t end)
{
    guint i = uncor_find(s, start > 0 ? start - 1 : 0), j;
    NvmimicRange r = { start, end };

    /* merge with every range it touches or overlaps */
    for (j = i; j < s->uncor->len && uncor_at(s, j)->start <= end; j++) {
        r.start = MIN(r.start, uncor_at(s, j)->start);
        r.end = MAX(r.end, uncor_at(s, j)->end);
    }
    if (j == i && s->uncor->len >= NVMIMIC_UNCOR_RANGES_MAX) {
        return false;
    }
    g_array_remove_range(s->uncor, i, j - i);
    g_array_insert_val(s->uncor, i, r);
    return true;
}

/*
 * A command nvmimic executed completes with @status.  nvmimic_cmd()'s 0
 * means "not mine", so a success is posted here and reported to ctrl.c as
 * NVME_NO_COMPLETE.
 */
static uint16_t nvmimic_done(NvmeRequest *req, uint16_t status)
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

/* Write Uncorrectable: reads of the blocks fail until they are written. */
static uint16_t nvmimic_write_uncor(NvmeCtrl *n, NvmeRequest *req)
{
    NvmeRwCmd *rw = (NvmeRwCmd *)&req->cmd;
    uint32_t nsid = le32_to_cpu(req->cmd.nsid);
    uint64_t slba = le64_to_cpu(rw->slba);
    uint64_t nlb = (uint64_t)le16_to_cpu(rw->nlb) + 1;
    NvmeNamespace *ns = nvme_ns(n, nsid);

    if (!ns) {
        return (nsid && nsid <= NVME_MAX_NAMESPACES ? NVME_INVALID_FIELD :
                NVME_INVALID_NSID) | NVME_DNR;
    }
    if (!nvmimic_range_ok(n, nsid, slba, nlb)) {
        return NVME_LBA_RANGE | NVME_DNR;
    }
    if (!uncor_mark(n->nvmimic, slba, slba + nlb)) {
        return NVME_INTERNAL_DEV_ERROR;
    }
    return nvmimic_done(req, NVME_SUCCESS);
}

/* Log pages the drive has: the mandatory ones, and those its fields report */
static bool nvmimic_log_page_exists(NvmeCtrl *n, uint8_t lid)
{
    switch (lid) {
    case NVME_LOG_ERROR_INFO:
    case NVME_LOG_SMART_INFO:
    case NVME_LOG_FW_SLOT_INFO:
        return true;
    case NVME_LOG_CHANGED_NSLIST:
        return le32_to_cpu(n->id_ctrl.oaes) & NVME_OAES_NS_ATTR;
    case NVME_LOG_CMD_EFFECTS:
        return n->id_ctrl.lpa & NVME_LPA_CSE;
    case NVMIMIC_LID_SELF_TEST:
        return le16_to_cpu(n->id_ctrl.oacs) & NVMIMIC_OACS_DST;
    case NVMIMIC_LID_TELEMETRY_HOST:
    case NVMIMIC_LID_TELEMETRY_CTRL:
        return n->id_ctrl.lpa & NVMIMIC_LPA_TELEMETRY;
    default:
        return false;
    }
}

/* Data of @req to or from @buf, as ctrl.c's nvme_c2h()/nvme_h2c() move it. */
static uint16_t nvmimic_tx(NvmeCtrl *n, NvmeRequest *req, void *buf,
                           uint32_t len, bool to_device)
{
    NvmeSg *sg = &req->sg;
    uint16_t status = nvme_map_dptr(n, sg, len, &req->cmd);
    size_t bytes;

    if (status) {
        return status;
    }
    if (sg->flags & NVME_SG_DMA) {
        dma_addr_t residual;

        if (to_device) {
            dma_buf_write(buf, len, &residual, &sg->qsg,
                          MEMTXATTRS_UNSPECIFIED);
        } else {
            dma_buf_read(buf, len, &residual, &sg->qsg,
                         MEMTXATTRS_UNSPECIFIED);
        }
        return residual ? NVME_INVALID_FIELD | NVME_DNR : NVME_SUCCESS;
    }
    bytes = to_device ? qemu_iovec_to_buf(&sg->iov, 0, buf, len) :
                        qemu_iovec_from_buf(&sg->iov, 0, buf, len);
    return bytes == len ? NVME_SUCCESS : NVME_INVALID_FIELD | NVME_DNR;
}

/* Power-on hours, as the SMART log counts them. */
static uint64_t nvmimic_poh(NvmeCtrl *n)
{
    int64_t now_ms = qemu_clock_get_ms(QEMU_CLOCK_VIRTUAL);

    return (now_ms - n->starttime_ms) / 1000 / 3600;
}

/*
 * The log pages nvmimic answers itself: the firmware slots (with the
 * drive's firmware revision, where QEMU says "1.0"), the device self-test
 * results and the telemetry headers.
 */
static bool nvmimic_log_page_mine(uint8_t lid)
{
    return lid == NVME_LOG_FW_SLOT_INFO || lid == NVMIMIC_LID_SELF_TEST ||
           lid == NVMIMIC_LID_TELEMETRY_HOST ||
           lid == NVMIMIC_LID_TELEMETRY_CTRL;
}

static uint16_t nvmimic_get_log(NvmeCtrl *n, NvmeRequest *req)
{
    NvmimicCtrl *s = n->nvmimic;
    const NvmProfile *p = s->profile;
    uint32_t dw10 = le32_to_cpu(req->cmd.cdw10);
    uint32_t dw11 = le32_to_cpu(req->cmd.cdw11);
    uint64_t off = (uint64_t)le32_to_cpu(req->cmd.cdw13) << 32 |
                   le32_to_cpu(req->cmd.cdw12);
    uint64_t len = (((uint64_t)(dw11 & 0xffff) << 16 | dw10 >> 16) + 1) * 4;
    uint8_t lid = dw10 & 0xff;
    uint8_t log[NVMIMIC_LOG_BYTES] = { 0 };
    uint32_t size;
    unsigned i;

    switch (lid) {
    case NVME_LOG_FW_SLOT_INFO:
        size = 512;
        log[0] = 1;                         /* AFI: running from slot 1 */
        strpadcpy((char *)log + 8, 8, p->firmware, ' ');
        break;
    case NVMIMIC_LID_SELF_TEST:
        size = 564;
        log[0] = 0;                         /* no self-test in progress */
        for (i = 0; i < NVMIMIC_SELF_TESTS; i++) {
            uint8_t *d = log + 4 + 28 * i;

            d[0] = s->dst_result[i];
            if (s->dst_result[i] != 0xf) {
                stq_le_p(d + 4, s->dst_poh[i]);
            }
        }
        break;
    case NVMIMIC_LID_TELEMETRY_HOST:
    case NVMIMIC_LID_TELEMETRY_CTRL:
        size = 512;                         /* the header, no data areas */
        log[0] = lid;
        log[5] = p->ieee_oui;
        log[6] = p->ieee_oui >> 8;
        log[7] = p->ieee_oui >> 16;
        break;
    default:
        g_assert_not_reached();     /* nvmimic_log_page_mine() */
    }
    if (off & 3 || off >= size) {
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    if (len > (4096ULL << n->params.mdts)) {
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    return nvmimic_tx(n, req, log + off, MIN(len, size - off), false);
}

/* Firmware Image Download: the data is taken (and dropped). */
static uint16_t nvmimic_fw_download(NvmeCtrl *n, NvmeRequest *req)
{
    NvmimicCtrl *s = n->nvmimic;
    uint64_t len = ((uint64_t)le32_to_cpu(req->cmd.cdw10) + 1) * 4;
    uint64_t off = (uint64_t)le32_to_cpu(req->cmd.cdw11) * 4;
    g_autofree uint8_t *buf = NULL;
    uint16_t status;

    if (len > (4096ULL << n->params.mdts)) {
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    buf = g_malloc(len);
    status = nvmimic_tx(n, req, buf, len, true);
    if (!status) {
        s->fw_download_bytes = MAX(s->fw_download_bytes, off + len);
    }
    return status;
}

/*
 * Firmware Commit.  Activating the image the drive runs (slot 1) is
 * accepted; no other image is: nvmimic cannot verify a vendor's signature,
 * so a downloaded image is refused as a drive refuses an unsigned one.
 */
static uint16_t nvmimic_fw_commit(NvmeCtrl *n, NvmeRequest *req)
{
    NvmimicCtrl *s = n->nvmimic;
    uint32_t dw10 = le32_to_cpu(req->cmd.cdw10);
    unsigned fs = dw10 & 0x7, ca = (dw10 >> 3) & 0x7;
    unsigned slots = (s->profile->frmw >> 1) & 0x7;
    bool slot1_ro = s->profile->frmw & 1;

    if (dw10 & (1u << 31) || ca > 3) {
        return NVME_INVALID_FIELD | NVME_DNR;   /* no boot partitions */
    }
    if (fs > slots) {
        return NVME_INVALID_FW_SLOT | NVME_DNR;
    }
    if (ca == 2) {
        /* activate a slot: only slot 1 holds an image */
        return fs <= 1 ? NVME_SUCCESS : NVME_INVALID_FW_IMAGE | NVME_DNR;
    }
    if (fs == 1 && slot1_ro) {
        return NVME_INVALID_FW_SLOT | NVME_DNR;
    }
    s->fw_download_bytes = 0;
    return NVME_INVALID_FW_IMAGE | NVME_DNR;
}

/* Device Self-test: a short or extended test completes at once, passed. */
static uint16_t nvmimic_self_test(NvmeCtrl *n, NvmeRequest *req)
{
    NvmimicCtrl *s = n->nvmimic;
    uint32_t nsid = le32_to_cpu(req->cmd.nsid);
    unsigned stc = le32_to_cpu(req->cmd.cdw10) & 0xf;

    if (nsid && nsid != NVME_NSID_BROADCAST && !nvme_ns(n, nsid)) {
        return NVME_INVALID_NSID | NVME_DNR;
    }
    if (stc == 0xf) {
        return NVME_SUCCESS;                /* abort: none is running */
    }
    if (stc != 1 && stc != 2) {
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    memmove(s->dst_result + 1, s->dst_result, NVMIMIC_SELF_TESTS - 1);
    memmove(s->dst_poh + 1, s->dst_poh,
            (NVMIMIC_SELF_TESTS - 1) * sizeof(s->dst_poh[0]));
    s->dst_result[0] = stc << 4;            /* completed without error */
    s->dst_poh[0] = nvmimic_poh(n);
    return NVME_SUCCESS;
}

/*
 * Security Receive knows protocol 0 only: the list of supported protocols
 * (protocol 0 alone) and an empty certificate.  Security Send takes none.
 */
static uint16_t nvmimic_security_recv(NvmeCtrl *n, NvmeRequest *req)
{
    uint32_t dw10 = le32_to_cpu(req->cmd.cdw10);
    uint32_t al = le32_to_cpu(req->cmd.cdw11);
    unsigned secp = dw10 >> 24, spsp = (dw10 >> 8) & 0xffff;
    uint8_t data[9] = { 0 };
    uint32_t size;

    if (secp != 0 || spsp > 1) {
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    if (spsp == 0) {
        stw_be_p(data + 6, 1);              /* one protocol: 0 */
        size = 9;
    } else {
        size = 4;                           /* no certificate */
    }
    if (!al) {
        return NVME_SUCCESS;
    }
    if (al > (4096u << n->params.mdts)) {
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    return nvmimic_tx(n, req, data, MIN(al, size), false);
}

/*
 * As ctrl.c's nvme_admin_cmd() for a supported opcode: SGLs shall not be
 * used for admin commands in NVMe over PCIe, and none is fused.
 */
static uint16_t nvmimic_admin_flags(const NvmeRequest *req)
{
    if (NVME_CMD_FLAGS_PSDT(req->cmd.flags) != NVME_PSDT_PRP) {
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    return NVME_CMD_FLAGS_FUSE(req->cmd.flags) ? NVME_INVALID_FIELD : 0;
}

static uint16_t nvmimic_admin_cmd(NvmeCtrl *n, NvmeRequest *req)
{
    uint8_t opc = req->cmd.opcode;
    uint16_t status;

    if (!(n->cse.acs[opc] & NVME_CMD_EFF_CSUPP)) {
        return 0;                           /* ctrl.c: Invalid Opcode */
    }
    if (opc == NVME_ADM_CMD_GET_LOG_PAGE &&
        !nvmimic_log_page_exists(n, le32_to_cpu(req->cmd.cdw10) & 0xff)) {
        return NVME_INVALID_LOG_ID | NVME_DNR;
    }
    switch (opc) {
    case NVME_ADM_CMD_GET_LOG_PAGE:
    case NVMIMIC_ADM_FW_COMMIT:
    case NVMIMIC_ADM_FW_DOWNLOAD:
    case NVMIMIC_ADM_SELF_TEST:
    case NVME_ADM_CMD_SECURITY_SEND:
    case NVME_ADM_CMD_SECURITY_RECV:
        break;
    default:
        return 0;
    }
    status = nvmimic_admin_flags(req);
    if (status) {
        return status;
    }
    switch (opc) {
    case NVME_ADM_CMD_GET_LOG_PAGE:
        if (!nvmimic_log_page_mine(le32_to_cpu(req->cmd.cdw10) & 0xff)) {
            return 0;
        }
        return nvmimic_done(req, nvmimic_get_log(n, req));
    case NVMIMIC_ADM_FW_COMMIT:
        return nvmimic_done(req, nvmimic_fw_commit(n, req));
    case NVMIMIC_ADM_FW_DOWNLOAD:
        return nvmimic_done(req, nvmimic_fw_download(n, req));
    case NVMIMIC_ADM_SELF_TEST:
        return nvmimic_done(req, nvmimic_self_test(n, req));
    case NVME_ADM_CMD_SECURITY_RECV:
        return nvmimic_done(req, nvmimic_security_recv(n, req));
    default:
        return NVME_INVALID_FIELD | NVME_DNR;   /* Security Send */
    }
}

/*
 * The mark (NVMIMIC_ADM_MARK): the statistics since the last reset, then
 * the states the host queued for this mark, then the reset the guest asked
 * for.  It runs where the command is fetched, which under icount is the
 * guest's doorbell write itself (nvmimic_sync_doorbell()), so the snapshot
 * lies at an exact point of the guest's timeline.
 */
/* What a state applied to the model changes in the controller itself */
static void nvmimic_state_applied(NvmeCtrl *n, const NvmimicState *st)
{
    if (st->has_thermal) {
        /* a thermal model turned on or off starts from idle */
        n->temperature = n->nvmimic->profile->temp_idle_c + 273;
    }
}

static uint16_t nvmimic_mark(NvmeCtrl *n, NvmeRequest *req)
{
    NvmimicCtrl *s = n->nvmimic;
    uint32_t mark = le32_to_cpu(req->cmd.cdw12);
    uint32_t flags = le32_to_cpu(req->cmd.cdw13);
    g_autofree char *id = NULL;
    bool reset = flags & NVMIMIC_MARK_RESET;
    int64_t now;
    NvmimicMark *m;
    guint i = 0;

    if (flags & ~NVMIMIC_MARK_RESET) {
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    now = nvmimic_now();
    m = g_new0(NvmimicMark, 1);
    m->mark = mark;
    m->time_ns = now;
    m->stats = nvmimic_timing_query(&s->t,
                                    object_get_canonical_path(OBJECT(n)));
    while (i < s->pending->len) {
        NvmimicPending *p = &g_array_index(s->pending, NvmimicPending, i);
        Error *err = NULL;

        if (p->mark != mark) {
            i++;
            continue;
        }
        if (!id) {
            id = object_get_canonical_path(OBJECT(n));
        }
        m->has_state_applied = true;
        m->state_applied = nvmimic_timing_apply_state(&s->t, id, &p->st,
                                                      &err) &&
                           !m->state_error;
        if (err && !m->state_error) {
            m->state_error = g_strdup(error_get_pretty(err));
        }
        error_free(err);
        nvmimic_state_applied(n, &p->st);
        reset |= p->st.reset;
        g_array_remove_index(s->pending, i);
    }
    if (reset) {
        nvmimic_timing_reset_stats(&s->t, now);
    }
    m->reset = reset;
    trace_nvmimic_mark(mark, now, reset, m->has_state_applied);
    if (s->marks->len >= NVMIMIC_MARKS_MAX) {
        g_ptr_array_remove_index(s->marks, 0);
        s->marks_dropped++;
    }
    g_ptr_array_add(s->marks, m);
    return nvmimic_done(req, NVME_SUCCESS);
}

/* ---- Host Memory Buffer ------------------------------------------------ */

/* The buffer is gone (disabled, or a controller reset): misses go to NAND */
static void nvmimic_hmb_release(NvmimicCtrl *s)
{
    s->hmb_enabled = false;
    s->hmb_hsize = 0;
    s->hmb_list = 0;
    s->hmb_count = 0;
    nvm_model_set_hmb(s->model, 0, NULL);
}

/*
 * Set Features 0x0d.  Everything the guest supplies is checked before the
 * buffer is taken: HSIZE at least HMMIN, a 16-byte aligned list of 1 to
 * NVMIMIC_HMB_DESCS_MAX descriptors the device can read, each a nonzero
 * run of whole memory pages at a page-aligned address that does not wrap,
 * and the pages adding up to HSIZE.
 */
static uint16_t nvmimic_set_hmb(NvmeCtrl *n, NvmeRequest *req)
{
    NvmimicCtrl *s = n->nvmimic;
    const NvmProfile *p = s->profile;
    uint32_t dw11 = le32_to_cpu(req->cmd.cdw11);
    uint32_t hsize = le32_to_cpu(req->cmd.cdw12);
    uint64_t list = le32_to_cpu(req->cmd.cdw13) |
                    (uint64_t)le32_to_cpu(req->cmd.cdw14) << 32;
    uint32_t count = le32_to_cpu(req->cmd.cdw15);
    uint64_t page = n->page_size;
    uint64_t pages = 0;
    g_autofree NvmimicHmbDesc *d = NULL;
    uint32_t i;

    if (NVME_SETFEAT_SAVE(le32_to_cpu(req->cmd.cdw10))) {
        return NVME_FID_NOT_SAVEABLE | NVME_DNR;
    }
    if (!(dw11 & 1)) {                  /* EHM clear: the host takes it back */
        nvmimic_hmb_release(s);
        return NVME_SUCCESS;
    }
    if (s->hmb_enabled) {
        return NVME_CMD_SEQ_ERROR | NVME_DNR;
    }
    if (!hsize || (uint64_t)hsize * page < p->map_hmb_min_bytes ||
        !count || count > NVMIMIC_HMB_DESCS_MAX || count > hsize ||
        list % 16) {
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    d = g_new(NvmimicHmbDesc, count);
    if (pci_dma_read(PCI_DEVICE(n), list, d, count * sizeof(*d))) {
        return NVME_DATA_TRAS_ERROR;
    }
    for (i = 0; i < count; i++) {
        uint64_t badd = le64_to_cpu(d[i].badd);
        uint64_t bsize = le32_to_cpu(d[i].bsize);

        if (!bsize || badd % page || badd + bsize * page - 1 < badd) {
            return NVME_INVALID_FIELD | NVME_DNR;
        }
        pages += bsize;
    }
    if (pages != hsize) {
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    /* more than HMPRE is accepted, and only HMPRE of it used */
    nvm_model_set_hmb(s->model, MIN(pages * page, p->map_cache_bytes), NULL);
    s->hmb_enabled = true;
    s->hmb_hsize = hsize;
    s->hmb_list = list;
    s->hmb_count = count;
    return NVME_SUCCESS;
}

/* Get Features 0x0d: EHM in Dword 0, the attributes as data */
static uint16_t nvmimic_get_hmb(NvmeCtrl *n, NvmeRequest *req)
{
    NvmimicCtrl *s = n->nvmimic;
    uint8_t sel = NVME_GETFEAT_SELECT(le32_to_cpu(req->cmd.cdw10));
    g_autofree uint8_t *attr = g_malloc0(NVMIMIC_HMB_ATTR_BYTES);

    if (sel == NVME_GETFEAT_SELECT_CAP) {
        req->cqe.result = cpu_to_le32(NVME_FEAT_CAP_CHANGE);
        return NVME_SUCCESS;
    }
    /* not saveable: the saved value is the default, disabled */
    if (sel == NVME_GETFEAT_SELECT_CURRENT && s->hmb_enabled) {
        req->cqe.result = cpu_to_le32(1);
        stl_le_p(attr, s->hmb_hsize);
        stl_le_p(attr + 4, (uint32_t)s->hmb_list);
        stl_le_p(attr + 8, s->hmb_list >> 32);
        stl_le_p(attr + 12, s->hmb_count);
    } else {
        req->cqe.result = 0;
    }
    return nvmimic_tx(n, req, attr, NVMIMIC_HMB_ATTR_BYTES, false);
}

static uint16_t nvmimic_hmb_cmd(NvmeCtrl *n, NvmeRequest *req)
{
    uint16_t status = nvmimic_admin_flags(req);

    if (status) {
        return status;
    }
    return nvmimic_done(req, req->cmd.opcode == NVME_ADM_CMD_SET_FEATURES ?
                        nvmimic_set_hmb(n, req) : nvmimic_get_hmb(n, req));
}

static uint16_t nvmimic_apst_cmd(NvmeCtrl *n, NvmeRequest *req);

uint16_t nvmimic_cmd(NvmeCtrl *n, NvmeRequest *req)
{
    NvmimicCtrl *s = n->nvmimic;
    NvmeRwCmd *rw = (NvmeRwCmd *)&req->cmd;
    uint64_t slba;

    req->nvmimic.state = NVMIMIC_REQ_UNTIMED;
    if (!s) {
        return 0;
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
        slba = le64_to_cpu(rw->slba);
        if (s->uncor->len &&
            nvmimic_range_ok(n, le32_to_cpu(req->cmd.nsid), slba,
                             le16_to_cpu(rw->nlb) + 1) &&
            uncor_overlaps(s, slba, slba + le16_to_cpu(rw->nlb) + 1)) {
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
    trace_nvmimic_model_cmd(nvm_op_name(c->op), c->slba, c->nlb, now,
                            deadline);
    if (s->iolog) {
        nvmimic_iolog_cmd(s->iolog, now, nvm_op_name(c->op), c->slba, c->nlb,
                          deadline);
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
        uncor_clear(s, slba, slba + nlb);
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
    now = nvmimic_now();

    switch (req->cmd.opcode) {
    case NVME_CMD_READ:
    case NVME_CMD_WRITE:
    case NVME_CMD_WRITE_ZEROES:
        c.op = req->cmd.opcode == NVME_CMD_READ ? NVM_OP_READ :
               req->cmd.opcode == NVME_CMD_WRITE ? NVM_OP_WRITE :
               NVM_OP_WRITE_ZEROES;
        slba = le64_to_cpu(rw->slba);
        nlb = (uint32_t)le16_to_cpu(rw->nlb) + 1;
        if (!nvmimic_range_ok(n, nsid, slba, nlb)) {
            return;             /* the controller fails it, untimed */
        }
        if (c.op != NVM_OP_READ) {
            uncor_clear(s, slba, slba + nlb);
        }
        /* Force Unit Access: the write completes when it is programmed */
        deadline = nvmimic_model_submit(n, nsid, c.op,
                                        c.op != NVM_OP_READ &&
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

    trace_nvmimic_submit(nvme_cid(req), req->sq->sqid, nvm_op_name(c.op),
                         now, deadline);
    nvmimic_timing_start(&s->t, &req->nvmimic, c.op, now, deadline);
}

bool nvmimic_complete(NvmeCtrl *n, NvmeRequest *req)
{
    NvmimicCtrl *s = n->nvmimic;

    if (s && !req->sq->sqid && req->cmd.opcode == NVME_ADM_CMD_FORMAT_NVM &&
        req->status == NVME_SUCCESS) {
        /*
         * Every block is gone: the drive's map is empty, as after a secure
         * erase, and no block is marked uncorrectable.  The model keeps
         * counting in the profile's LBA size (nvmimic_model_submit).
         */
        nvm_model_secure_erase(s->model);
        g_array_set_size(s->uncor, 0);
    }
    if (!s || req->nvmimic.state == NVMIMIC_REQ_UNTIMED) {
        /*
         * Failed, admin, or completed before nvmimic_submit(): never timed.
         * Under icount it is posted now too, not from a bottom half that
         * runs wherever host scheduling puts it in the guest's timeline.
         */
        req->nvmimic.state = NVMIMIC_REQ_POSTED;
        if (!s || !icount_enabled()) {
            return false;
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
    if (!nvmimic_time_jumps()) {
        return false;
    }
    /*
     * Under icount a bottom half would let virtual time warp to the next
     * timer while the vCPU idles before it runs, and qtest may step the
     * clock before it runs: post synchronously.
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
static void nvmimic_sg_unmap(NvmeSg *sg)
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

/* ---- Autonomous Power State Transition -------------------------------- */

static uint32_t nvmimic_get_apst(NvmeCtrl *n, bool defaults,
                                 uint8_t *table)
{
    NvmimicCtrl *s = n->nvmimic;

    if (defaults) {
        /* not saveable: the saved value is the default too */
        nvmimic_default_apst_table(s->profile, table);
        return s->profile->apst_enabled ? 1 : 0;
    }
    memcpy(table, s->apst_table, NVMIMIC_APST_BYTES);
    return s->apst_enabled ? 1 : 0;
}

static uint16_t nvmimic_set_apst(NvmeCtrl *n, uint32_t dw11,
                                 const uint8_t *table)
{
    NvmimicCtrl *s = n->nvmimic;
    const NvmProfile *p = s->profile;
    uint32_t idle_ms[NVM_MAX_POWER_STATES] = { 0 };
    uint64_t elapsed_ms = 0;
    unsigned i, from = 0, hops = 0;
    bool enable = dw11 & 1;
    GError *err = NULL;

    /* every entry must name a non-operational state, or be empty */
    for (i = 0; i < 32; i++) {
        uint64_t e = ldq_le_p(table + 8 * i);
        unsigned itps = (e >> 3) & 0x1f;
        uint32_t itpt = (e >> 8) & 0xffffff;

        if (!itpt) {
            continue;
        }
        if (i >= p->n_power_states || itps >= p->n_power_states ||
            !p->ps[itps].non_operational) {
            return NVME_INVALID_FIELD | NVME_DNR;
        }
    }

    /* the chain from PS0 gives the idle time before each state is reached */
    while (hops++ < p->n_power_states) {
        uint64_t e = ldq_le_p(table + 8 * from);
        unsigned itps = (e >> 3) & 0x1f;
        uint32_t itpt = (e >> 8) & 0xffffff;

        if (!itpt || itps <= from) {
            break;
        }
        elapsed_ms += itpt;
        idle_ms[itps] = MIN(elapsed_ms, UINT32_MAX);
        from = itps;
    }

    if (!nvm_model_set_apst(s->model, enable, idle_ms, p->n_power_states,
                            &err)) {
        g_error_free(err);
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    memcpy(s->apst_table, table, NVMIMIC_APST_BYTES);
    s->apst_enabled = enable;
    return NVME_SUCCESS;
}

/*
 * Get/Set Features 0x0c, with the checks ctrl.c makes of an admin command
 * and of these two before it looks at the Feature Identifier.
 */
static uint16_t nvmimic_apst_cmd(NvmeCtrl *n, NvmeRequest *req)
{
    uint32_t dw10 = le32_to_cpu(req->cmd.cdw10);
    uint8_t sel = NVME_GETFEAT_SELECT(dw10);
    uint8_t apst[NVMIMIC_APST_BYTES];
    uint16_t status;

    status = nvmimic_admin_flags(req);
    if (status) {
        return status;
    }
    if (req->cmd.opcode == NVME_ADM_CMD_SET_FEATURES) {
        if (NVME_SETFEAT_SAVE(dw10)) {
            return NVME_FID_NOT_SAVEABLE | NVME_DNR;
        }
        status = nvmimic_tx(n, req, apst, sizeof(apst), true);
        return nvmimic_done(req, status ?: nvmimic_set_apst(
                                     n, le32_to_cpu(req->cmd.cdw11), apst));
    }
    if (sel == NVME_GETFEAT_SELECT_CAP) {
        req->cqe.result = cpu_to_le32(NVME_FEAT_CAP_CHANGE);
        return nvmimic_done(req, NVME_SUCCESS);
    }
    /* not saveable: the saved value is the default */
    req->cqe.result = cpu_to_le32(nvmimic_get_apst(
                                  n, sel != NVME_GETFEAT_SELECT_CURRENT, apst));
    return nvmimic_done(req, nvmimic_tx(n, req, apst, sizeof(apst), false));
}

/* ---- SMART ------------------------------------------------------------ */

void nvmimic_smart_info(NvmeCtrl *n, NvmeSmartLog *smart)
{
    NvmimicCtrl *s = n->nvmimic;
    NvmStats st;
    uint64_t duw;

    if (!s) {
        return;
    }
    nvm_model_get_stats(s->model, nvmimic_now(), &st);

    /* data units are thousands of 512-byte units, rounded up */
    duw = DIV_ROUND_UP(st.total_host_bytes_written, 512 * 1000);
    smart->data_units_written[0] = cpu_to_le64(
        MAX(le64_to_cpu(smart->data_units_written[0]), duw));
    /*
     * Whole percent used, rounded down as drives report it: a new drive
     * shows 0 until it has used a whole percent of its endurance.
     */
    smart->percentage_used = (uint8_t)MIN(floor(st.wear_pct),
                                          (double)NVMIMIC_WEAR_PCT_MAX);
    smart->available_spare = 100;
    smart->available_spare_threshold = 10;

    /*
     * The thermal model's composite temperature, and its throttling as the
     * Thermal Management Temperature 1 transition count and total time
     * (bytes 216 and 224, as drives report their own throttling).
     */
    if (s->t.thermal) {
        n->temperature = (uint16_t)MIN(MAX(lround(st.temp_c) + 273, 0),
                                       UINT16_MAX);
        smart->temperature = cpu_to_le16(n->temperature);
        smart->critical_warning &= ~NVME_SMART_TEMPERATURE;
        if (n->temperature >= n->features.temp_thresh_hi ||
            n->temperature <= n->features.temp_thresh_low ||
            (n->smart_critical_warning & NVME_SMART_TEMPERATURE)) {
            smart->critical_warning |= NVME_SMART_TEMPERATURE;
        }
    }
    stl_le_p(smart->reserved2 + NVMIMIC_SMART_TMT1TC - NVMIMIC_SMART_RSVD2,
             (uint32_t)MIN(st.throttles, UINT32_MAX));
    stl_le_p(smart->reserved2 + NVMIMIC_SMART_TTTMT1 - NVMIMIC_SMART_RSVD2,
             (uint32_t)MIN(st.total_throttled_ns / NANOSECONDS_PER_SECOND,
                           UINT32_MAX));
}

/* ---- QMP ---------------------------------------------------------------- */

static NvmeCtrl *nvmimic_find(const char *id, Error **errp)
{
    bool ambiguous = false;
    Object *obj = object_resolve_path_type(id, TYPE_NVME, &ambiguous);
    NvmeCtrl *n;

    if (!obj) {
        g_autofree char *path = g_strdup_printf("/machine/peripheral/%s", id);

        obj = object_resolve_path_type(path, TYPE_NVME, NULL);
    }
    if (!obj) {
        error_setg(errp, "%s: no nvme device or nvmimic block node with "
                   "this id%s", id,
                   ambiguous ? " (the path is ambiguous)" : "");
        return NULL;
    }
    n = NVME(obj);
    if (!n->nvmimic) {
        error_setg(errp, "%s: this nvme device has no profile", id);
        return NULL;
    }
    return n;
}

/*
 * The timing of the nvme device or nvmimic block filter node @id: the
 * statistics and state commands take either.
 */
static NvmimicTiming *nvmimic_find_timing(const char *id, char **canon,
                                          Error **errp)
{
    Error *local_err = NULL;
    NvmeCtrl *n = nvmimic_find(id, &local_err);
    NvmimicTiming *t;

    if (n) {
        *canon = object_get_canonical_path(OBJECT(n));
        return &n->nvmimic->t;
    }
    t = nvmimic_block_find(id);
    if (t) {
        error_free(local_err);
        *canon = g_strdup(id);
        return t;
    }
    error_propagate(errp, local_err);
    return NULL;
}

NvmimicStats *qmp_query_nvmimic_stats(const char *id, Error **errp)
{
    char *canon = NULL;
    NvmimicTiming *t = nvmimic_find_timing(id, &canon, errp);

    return t ? nvmimic_timing_query(t, canon) : NULL;
}

NvmimicMarks *qmp_query_nvmimic_marks(const char *id, bool has_mark,
                                      uint32_t mark, Error **errp)
{
    NvmeCtrl *n = nvmimic_find(id, errp);
    NvmimicMarks *r;
    NvmimicCtrl *s;
    int i;

    if (!n) {
        return NULL;
    }
    s = n->nvmimic;
    r = g_new0(NvmimicMarks, 1);
    for (i = s->marks->len - 1; i >= 0; i--) {
        NvmimicMark *m = g_ptr_array_index(s->marks, i);

        if (!has_mark || m->mark == mark) {
            QAPI_LIST_PREPEND(r->marks, QAPI_CLONE(NvmimicMark, m));
        }
    }
    for (i = s->pending->len - 1; i >= 0; i--) {
        QAPI_LIST_PREPEND(r->pending,
                          g_array_index(s->pending, NvmimicPending, i).mark);
    }
    r->dropped = s->marks_dropped;
    return r;
}

void qmp_nvmimic_set_state(const char *id,
                           bool has_secure_erase, bool secure_erase,
                           bool has_fill_pct, double fill_pct,
                           bool has_slc_used_bytes, uint64_t slc_used_bytes,
                           bool has_wear_pct, double wear_pct,
                           bool has_reset_stats, bool reset_stats,
                           bool has_at_mark, uint32_t at_mark,
                           bool has_thermal, bool thermal,
                           bool has_steady_random_bytes,
                           uint64_t steady_random_bytes,
                           bool has_warm_map_bytes, uint64_t warm_map_bytes,
                           Error **errp)
{
    g_autofree char *canon = NULL;
    NvmimicTiming *t = nvmimic_find_timing(id, &canon, errp);
    NvmimicState st = {
        .erase = has_secure_erase && secure_erase,
        .has_fill = has_fill_pct,
        .fill_pct = fill_pct,
        .has_slc = has_slc_used_bytes,
        .slc_used_bytes = slc_used_bytes,
        .has_wear = has_wear_pct,
        .wear_pct = wear_pct,
        .has_thermal = has_thermal,
        .thermal = thermal,
        .has_steady = has_steady_random_bytes,
        .steady_bytes = steady_random_bytes,
        .has_warm = has_warm_map_bytes,
        .warm_bytes = warm_map_bytes,
        .reset = has_reset_stats && reset_stats,
    };

    if (!t || !nvmimic_timing_check_state(t, id, &st, errp)) {
        return;
    }
    if (has_at_mark) {
        NvmeCtrl *n = nvmimic_find(id, NULL);
        NvmimicPending p = { .mark = at_mark, .st = st };
        NvmimicCtrl *s;

        if (!n) {
            error_setg(errp, "%s: at-mark needs an nvme device: marks are "
                       "its admin commands, a block filter node has none",
                       id);
            return;
        }
        s = n->nvmimic;
        if (s->pending->len >= NVMIMIC_PENDING_MAX) {
            error_setg(errp, "%s: %u states already wait for their marks",
                       id, s->pending->len);
            return;
        }
        g_array_append_val(s->pending, p);
        return;
    }
    if (nvmimic_timing_apply_state(t, id, &st, errp)) {
        NvmeCtrl *n = nvmimic_find(id, NULL);

        if (n) {
            nvmimic_state_applied(n, &st);
        }
    }
}

void qmp_nvmimic_trace_start(const char *id, const char *path,
                             bool has_max_bytes, uint64_t max_bytes,
                             Error **errp)
{
    NvmeCtrl *n = nvmimic_find(id, errp);
    NvmimicCtrl *s;
    const NvmProfile *p;
    Error *local_err = NULL;

    if (!n) {
        return;
    }
    s = n->nvmimic;
    p = s->profile;
    if (s->iolog) {
        error_setg(errp, "%s: a trace is already running (to %s); stop it "
                   "with nvmimic-trace-stop first", id,
                   nvmimic_iolog_path(s->iolog));
        return;
    }
    if (!*path) {
        error_setg(errp, "%s: trace path is empty", id);
        return;
    }
    s->iolog = nvmimic_iolog_start(path, has_max_bytes ? max_bytes :
                                   NVMIMIC_IOLOG_DEFAULT_MAX_BYTES,
                                   nvmimic_now(), p->name, p->lba_bytes,
                                   p->capacity_bytes, &local_err);
    if (!s->iolog) {
        error_propagate_prepend(errp, local_err, "%s: trace: ", id);
    }
}

NvmimicTraceInfo *qmp_nvmimic_trace_stop(const char *id, Error **errp)
{
    NvmeCtrl *n = nvmimic_find(id, errp);
    g_autofree char *path = NULL;
    Error *local_err = NULL;
    NvmimicTraceInfo *info;
    uint64_t commands, dropped;
    NvmimicCtrl *s;
    bool ok;

    if (!n) {
        return NULL;
    }
    s = n->nvmimic;
    if (!s->iolog) {
        error_setg(errp, "%s: no trace is running", id);
        return NULL;
    }
    path = g_strdup(nvmimic_iolog_path(s->iolog));
    ok = nvmimic_iolog_stop(s->iolog, &commands, &dropped, &local_err);
    s->iolog = NULL;
    if (!ok) {
        error_propagate_prepend(errp, local_err, "%s: ", id);
        return NULL;
    }
    info = g_new0(NvmimicTraceInfo, 1);
    info->path = g_steal_pointer(&path);
    info->commands = commands;
    info->dropped = dropped;
    return info;
}
