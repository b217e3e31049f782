/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic hooks in QEMU's NVMe controller: identity from a drive profile,
 * and I/O completions posted when the drive model says (QEMU_CLOCK_VIRTUAL).
 *
 * hw/nvme/ctrl.c and ns.c call these at a handful of points (see
 * qemu/patches/); everything else lives in nvmimic.c.  With no profile=
 * property every hook is a no-op and the controller is upstream's.
 */
#ifndef HW_NVME_NVMIMIC_H
#define HW_NVME_NVMIMIC_H

/* NvmimicReq, the per-request state embedded in NvmeRequest */
#include "nvmimic-timing.h"

typedef struct NvmimicCtrl NvmimicCtrl;
struct NvmeCtrl;
struct NvmeRequest;
struct NvmeSQueue;
struct NvmeNamespace;
struct NvmeSmartLog;

/* realize: load the profile named by the profile= property, if any. */
bool nvmimic_realize(struct NvmeCtrl *n, Error **errp);
/* After nvme_init_pci(): PCI vendor/device/subsystem IDs. */
void nvmimic_init_pci(struct NvmeCtrl *n, PCIDevice *pci_dev);
/*
 * After the controller's namespace is set up: Identify Controller fields,
 * the commands and log pages the drive has, its LBA formats, temperatures.
 */
void nvmimic_init_ctrl(struct NvmeCtrl *n);
/* After the namespace's backend size is known: capacity and LBA size. */
int nvmimic_ns_init_blk(struct NvmeNamespace *ns, Error **errp);
/* unrealize, and finalize (instance_finalize): a realize that failed */
void nvmimic_exit(struct NvmeCtrl *n);
void nvmimic_finalize(Object *obj);

/*
 * Before the controller dispatches a command: 0 to let it go on, else the
 * status it completes with (NVME_NO_COMPLETE: nvmimic completed it).  It
 * sets req->nvmimic.state to NVMIMIC_REQ_UNTIMED, so a completion that
 * comes before nvmimic_submit() is left untimed.  Here
 * a profiled drive answers what the real drive answers differently from
 * QEMU: log pages it does not have, Autonomous Power State Transition,
 * Write Uncorrectable and reads of the blocks it marked.
 */
uint16_t nvmimic_cmd(struct NvmeCtrl *n, struct NvmeRequest *req);

/*
 * Process submission queues, admin and I/O, synchronously from the doorbell
 * write (under icount: a command then reaches the drive at the guest's
 * instruction that rang, not when a bottom half runs).
 */
bool nvmimic_sync_doorbell(struct NvmeCtrl *n);

/*
 * timing-doorbells=on (nvmimic-doorbell.c): the doorbell writes the
 * timing thread holds are replayed before a register write, and forgotten
 * at a controller reset.  Both with the BQL; no-ops otherwise.
 */
typedef struct NvmimicDoorbells NvmimicDoorbells;
void nvmimic_doorbells_sync(struct NvmeCtrl *n);
void nvmimic_doorbells_forget(struct NvmeCtrl *n);
void nvme_process_db(struct NvmeCtrl *n, hwaddr addr, int val);
/*
 * An I/O command was started (it did not fail at once): ask the model for
 * its deadline.
 */
void nvmimic_submit(struct NvmeCtrl *n, struct NvmeRequest *req);
/*
 * Its data transfer is done (nvme_enqueue_req_completion()).  True: nvmimic
 * took the completion (it holds it until its deadline, or under icount
 * posted it at once); false: post it as upstream does, through the CQ's
 * bottom half.
 */
bool nvmimic_complete(struct NvmeCtrl *n, struct NvmeRequest *req);
/* @sq's requests are about to be freed: forget any held ones. */
void nvmimic_sq_freed(struct NvmeCtrl *n, struct NvmeSQueue *sq);

/* SMART / Health log: wear, data units, temperature. */
void nvmimic_smart_info(struct NvmeCtrl *n, struct NvmeSmartLog *smart);

/*
 * ctrl.c's CQ bottom half (static upstream): post the CQEs of the requests
 * on the CQ's req_list.  Called at once it writes guest memory and raises
 * the interrupt from the caller's context: nvmimic.c does it with the
 * device's MemReentrancyGuard engaged (nvmimic_post_now).
 */
void nvme_post_cqes(void *opaque);

/*
 * ctrl.c's I/O command dispatch and completion (static upstream), for a
 * command nvmimic held back before dispatch (nvmimic_cmd() returned
 * NVME_NO_COMPLETE) and starts later itself: the power-cut journal
 * (nvmimic-powercut.c) reads what a write overwrites before it goes.
 */
struct NvmeCQueue;
uint16_t nvme_io_cmd(struct NvmeCtrl *n, struct NvmeRequest *req);
void nvme_enqueue_req_completion(struct NvmeCQueue *cq,
                                 struct NvmeRequest *req);

#endif
