/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic: the commands a profiled drive answers itself, where QEMU's
 * controller answers differently or not at all: Write Uncorrectable and
 * its marked blocks, log pages, firmware download and commit, device
 * self-test, Security Receive, the in-band mark, the Host Memory Buffer,
 * Autonomous Power State Transition and the SMART fields of the model.
 *
 * Copyright (c) 2026 the nvmimic authors
 */

#include "qemu/osdep.h"
#include <math.h>
#include "qapi/error.h"
#include "qapi/qapi-visit-nvmimic.h"
#include "qemu/cutils.h"
#include "qemu/timer.h"
#include "system/dma.h"
#include "hw/pci/pci.h"

#include "nvmimic-int.h"
#include "trace.h"

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

bool nvmimic_uncor_overlaps(NvmimicCtrl *s, uint64_t start, uint64_t end)
{
    guint i = uncor_find(s, start);

    return i < s->uncor->len && uncor_at(s, i)->start < end;
}

/*
 * Written (or deallocated) blocks are readable again.  A write inside a
 * marked range splits it in two; with NVMIMIC_UNCOR_RANGES_MAX ranges there
 * is no room for the second, so the range's tail after the write is
 * readable again too: written blocks never stay marked, and the ranges a
 * guest's writes can make stay bounded.
 */
void nvmimic_uncor_clear(NvmimicCtrl *s, uint64_t start, uint64_t end)
{
    guint i = uncor_find(s, start);

    while (i < s->uncor->len && uncor_at(s, i)->start < end) {
        NvmimicRange *r = uncor_at(s, i);

        if (r->start < start && r->end > end) {
            NvmimicRange tail = { end, r->end };

            r->end = start;
            if (s->uncor->len < NVMIMIC_UNCOR_RANGES_MAX) {
                g_array_insert_val(s->uncor, i + 1, tail);
            }
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

/* Write Uncorrectable: reads of the blocks fail until they are written. */
uint16_t nvmimic_write_uncor(NvmeCtrl *n, NvmeRequest *req)
{
    uint32_t nsid = le32_to_cpu(req->cmd.nsid);
    uint64_t nlb;
    uint64_t slba = nvmimic_rw_range(req, &nlb);
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
    return lid == NVME_LOG_ERROR_INFO || lid == NVME_LOG_FW_SLOT_INFO ||
           lid == NVMIMIC_LID_SELF_TEST ||
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
    case NVME_LOG_ERROR_INFO:
        /* what media-error faults logged (nvmimic-fault-cmd.c) */
        size = nvmimic_fault_error_log(n, log, sizeof(log));
        break;
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

uint16_t nvmimic_admin_cmd(NvmeCtrl *n, NvmeRequest *req)
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
void nvmimic_state_applied(NvmeCtrl *n, const NvmimicState *st)
{
    if (st->has_thermal) {
        /* a thermal model turned on or off starts from idle */
        n->temperature = n->nvmimic->profile->temp_idle_c + 273;
    }
}

uint16_t nvmimic_mark(NvmeCtrl *n, NvmeRequest *req)
{
    NvmimicCtrl *s = n->nvmimic;
    uint32_t mark = le32_to_cpu(req->cmd.cdw12);
    uint32_t flags = le32_to_cpu(req->cmd.cdw13);
    g_autofree char *id = NULL;
    bool reset = flags & NVMIMIC_MARK_RESET;
    bool faults;
    int64_t now;
    NvmimicMark *m;
    guint i = 0;

    if (flags & ~NVMIMIC_MARK_RESET) {
        return NVME_INVALID_FIELD | NVME_DNR;
    }
    now = nvmimic_now();
    m = g_new0(NvmimicMark, 1);
    m->mark = mark;
    m->seq = s->marks_dropped + s->marks->len;
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
    faults = nvmimic_fault_mark(n, mark, now);
    m->reset = reset;
    trace_nvmimic_mark(mark, now, reset, m->has_state_applied);
    if (s->marks->len >= NVMIMIC_MARKS_MAX) {
        g_ptr_array_remove_index(s->marks, 0);
        s->marks_dropped++;
    }
    g_ptr_array_add(s->marks, m);
    if (faults) {
        /*
         * The faults queued for this mark start on a timer at this
         * instant, which may run before a bottom half would post the
         * mark: post it now, so the guest sees its mark complete first.
         */
        req->status = NVME_SUCCESS;
        req->nvmimic.state = NVMIMIC_REQ_POSTED;
        nvmimic_post_now(n, req);
        return NVME_NO_COMPLETE;
    }
    return nvmimic_done(req, NVME_SUCCESS);
}

/* ---- Host Memory Buffer ------------------------------------------------ */

/* The buffer is gone (disabled, or a controller reset): misses go to NAND */
void nvmimic_hmb_release(NvmimicCtrl *s)
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

uint16_t nvmimic_hmb_cmd(NvmeCtrl *n, NvmeRequest *req)
{
    uint16_t status = nvmimic_admin_flags(req);

    if (status) {
        return status;
    }
    return nvmimic_done(req, req->cmd.opcode == NVME_ADM_CMD_SET_FEATURES ?
                        nvmimic_set_hmb(n, req) : nvmimic_get_hmb(n, req));
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
uint16_t nvmimic_apst_cmd(NvmeCtrl *n, NvmeRequest *req)
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
    nvmimic_fault_smart(n, smart);

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
