/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic's controller internals, shared by the files that make up the
 * profiled NVMe controller: nvmimic.c (the glue to ctrl.c: realize, the
 * command hooks, timing), nvmimic-identity.c (what Identify reports),
 * nvmimic-admin.c (the commands a profiled drive answers itself) and
 * nvmimic-qmp.c (the QMP commands).  Nothing outside hw/ includes it.
 *
 * Copyright (c) 2026 the nvmimic authors
 */
#ifndef HW_NVME_NVMIMIC_INT_H
#define HW_NVME_NVMIMIC_INT_H

#include "qapi/qapi-types-nvmimic.h"
#include "../nvme.h"
#include "nvmimic-model.h"
#include "nvmimic-iolog.h"
#include "nvmimic-timing.h"
#include "nvmimic-fault.h"

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
/* the most marks one query-nvmimic-marks answer holds (~1.5 KB each) */
#define NVMIMIC_MARKS_PAGE 128
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
/*
 * OAES: QEMU's namespace attribute notices, and firmware activation notices
 * (vacuously: no image is ever activated, so no notice is ever due).  No
 * ANA, predictable latency, LBA status, endurance group, shutdown or zone
 * events.  SANICAP: nothing (QEMU 10.0 has no Sanitize command).
 */
#define NVMIMIC_OAES_FW_ACTIVATION (1 << 9)
#define NVMIMIC_OAES_IMPL (NVME_OAES_NS_ATTR | NVMIMIC_OAES_FW_ACTIVATION)
#define NVMIMIC_SANICAP_IMPL 0

/* Admin opcodes and log pages nvmimic answers itself */
#define NVMIMIC_ADM_FW_COMMIT 0x10
#define NVMIMIC_ADM_FW_DOWNLOAD 0x11
#define NVMIMIC_ADM_SELF_TEST 0x14
#define NVMIMIC_LID_SELF_TEST 0x06
#define NVMIMIC_LID_TELEMETRY_HOST 0x07
#define NVMIMIC_LID_TELEMETRY_CTRL 0x08
#define NVMIMIC_LOG_BYTES 4096         /* the largest: the error log */
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
    NvmimicFaults *faults;      /* nvmimic-fault.c */
    /*
     * While a queued doorbell write is replayed (nvmimic-doorbell.c): the
     * virtual time the guest made it, when the commands it submits arrive;
     * -1 otherwise.
     */
    int64_t db_at;
};

/* nvmimic-doorbell.c: timing-doorbells=on; each a no-op without it */
void nvmimic_doorbells_init(NvmeCtrl *n);
void nvmimic_doorbells_exit(NvmeCtrl *n);
void nvmimic_doorbells_free(NvmeCtrl *n);
void nvmimic_doorbells_stats(NvmeCtrl *n, uint64_t *replayed,
                             uint64_t *by_vcpu);

/* nvmimic.c */
/* Post @req's completion now, with the device's re-entrancy guard engaged */
void nvmimic_post_now(NvmeCtrl *n, NvmeRequest *req);
/* Post @req's completion, no fault asked (a fault that held it ended) */
void nvmimic_post_raw(NvmeRequest *req);
/* Let go of @sg's data mapping (a completion that will not be posted) */
void nvmimic_sg_unmap(NvmeSg *sg);
/* A command nvmimic executed completes with @status (0: it is posted). */
uint16_t nvmimic_done(NvmeRequest *req, uint16_t status);
/* Does [slba, slba + nlb) lie inside namespace @nsid? */
bool nvmimic_range_ok(NvmeCtrl *n, uint32_t nsid, uint64_t slba,
                      uint64_t nlb);

/* An I/O command's first LBA; *@nlb its block count (NLB is 0's based) */
static inline uint64_t nvmimic_rw_range(const NvmeRequest *req, uint64_t *nlb)
{
    const NvmeRwCmd *rw = (const NvmeRwCmd *)&req->cmd;

    *nlb = (uint64_t)le16_to_cpu(rw->nlb) + 1;
    return le64_to_cpu(rw->slba);
}

/* nvmimic-qmp.c: the profiled nvme device @id names (QMP errors in @errp) */
NvmeCtrl *nvmimic_find(const char *id, Error **errp);

/* nvmimic-identity.c */
/* The profile's transitions, as the APST table the guest can read back */
void nvmimic_default_apst_table(const NvmProfile *p, uint8_t *table);

/* nvmimic-admin.c: commands answered as the drive would */
/* Is any block of [start, end) marked uncorrectable? */
bool nvmimic_uncor_overlaps(NvmimicCtrl *s, uint64_t start, uint64_t end);
/* Written (or deallocated) blocks are readable again. */
void nvmimic_uncor_clear(NvmimicCtrl *s, uint64_t start, uint64_t end);
uint16_t nvmimic_write_uncor(NvmeCtrl *n, NvmeRequest *req);
/* The admin commands and log pages nvmimic answers; 0: ctrl.c's */
uint16_t nvmimic_admin_cmd(NvmeCtrl *n, NvmeRequest *req);
/* The in-band mark (NVMIMIC_ADM_MARK) */
uint16_t nvmimic_mark(NvmeCtrl *n, NvmeRequest *req);
/* What a state applied to the model changes in the controller itself */
void nvmimic_state_applied(NvmeCtrl *n, const NvmimicState *st);
/* Get/Set Features 0x0d, and the buffer gone (disabled, or a reset) */
uint16_t nvmimic_hmb_cmd(NvmeCtrl *n, NvmeRequest *req);
void nvmimic_hmb_release(NvmimicCtrl *s);
/* Get/Set Features 0x0c */
uint16_t nvmimic_apst_cmd(NvmeCtrl *n, NvmeRequest *req);

#endif
