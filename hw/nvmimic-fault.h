/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic faults: what a profiled drive can be made to show on demand
 * (QMP nvmimic-fault), in virtual time, now, after a delay or at an
 * in-band mark: a power cut (nvmimic-powercut.c undoes the writes the
 * drive had not made durable), media errors on an LBA range, latency
 * spikes and stalls of a command class, a controller that stops
 * answering.  docs/faults.md says how to use them.
 *
 * The controller's files call the hooks below; with no fault queued or
 * active every hook returns at once.
 */
#ifndef HW_NVME_NVMIMIC_FAULT_H
#define HW_NVME_NVMIMIC_FAULT_H

#include "nvmimic-model.h"

typedef struct NvmimicFaults NvmimicFaults;
struct NvmeCtrl;
struct NvmeRequest;
struct NvmeSQueue;
struct NvmeSmartLog;

NvmimicFaults *nvmimic_faults_new(struct NvmeCtrl *n);
void nvmimic_faults_free(NvmimicFaults *f);
/* After Identify Controller is set up: the Error Information log's size */
void nvmimic_faults_init_ctrl(struct NvmeCtrl *n);

/*
 * Before the controller dispatches a command (nvmimic_cmd()): 0 to go on,
 * else its status (NVME_NO_COMPLETE: a fault took it: a hung controller,
 * or a write the power-cut journal starts itself once it has its old
 * contents).
 */
uint16_t nvmimic_fault_cmd(struct NvmeCtrl *n, struct NvmeRequest *req);
/* An I/O command the model gave @deadline: when it completes instead */
int64_t nvmimic_fault_deadline(struct NvmeCtrl *n, NvmOp op, int64_t now,
                               int64_t deadline);
/* @req's data transfer is done (nvme_enqueue_req_completion()) */
void nvmimic_fault_data_done(struct NvmeCtrl *n, struct NvmeRequest *req);
void nvmimic_fault_written(struct NvmeCtrl *n, uint32_t nsid, uint64_t start,
                           uint64_t end);
/* Format NVM of @nsid (NVME_NSID_BROADCAST: all) completed */
void nvmimic_fault_formatted(struct NvmeCtrl *n, uint32_t nsid);
/*
 * @req's completion is about to be posted: true if a fault holds it
 * (a stall, a hung controller), and it is posted when the fault ends.
 */
bool nvmimic_fault_post(struct NvmeCtrl *n, struct NvmeRequest *req);
/* Must every completion go through nvmimic_fault_post()? */
bool nvmimic_fault_watching(struct NvmeCtrl *n);
/*
 * The guest sent in-band mark @mark at @now: start what waited for it,
 * on a timer (true: something did, and the mark must be posted first).
 */
bool nvmimic_fault_mark(struct NvmeCtrl *n, uint32_t mark, int64_t now);
/* @sq's requests are about to be freed; an admin SQ: a controller reset */
void nvmimic_fault_sq_freed(struct NvmeCtrl *n, struct NvmeSQueue *sq);
/* SMART: unsafe shutdowns, power cycles, media errors, error log entries */
void nvmimic_fault_smart(struct NvmeCtrl *n, struct NvmeSmartLog *smart);
/*
 * The Error Information log (Get Log Page 01h), newest entry first, into
 * @buf; returns its size, at most @size.
 */
size_t nvmimic_fault_error_log(struct NvmeCtrl *n, uint8_t *buf,
                               size_t size);

#endif
