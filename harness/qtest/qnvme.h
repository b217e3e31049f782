/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A polled NVMe host driver over qtest, in virtual time: PCI set-up, the
 * admin queue, one I/O queue pair, PRPs in guest memory; and timed I/O,
 * each command rung at the virtual time its workload submits it and its
 * completion read from the completion queue.
 */
#ifndef NVMIMIC_QNVME_H
#define NVMIMIC_QNVME_H

#include "nvmimic-model.h"
#include "qtest.h"

typedef struct NvmQnvme NvmQnvme;

/*
 * Bring up the controller at PCI 00:@slot.0: enable it, identify namespace
 * 1, create I/O queue pair 1 of @entries entries (interrupts off) and a
 * data buffer for transfers of up to @max_bytes.
 */
NvmQnvme *nvm_qnvme_open(NvmQtest *q, unsigned slot, unsigned entries,
                         uint32_t max_bytes, GError **errp);
void nvm_qnvme_free(NvmQnvme *d);
uint32_t nvm_qnvme_lba_bytes(const NvmQnvme *d);
uint64_t nvm_qnvme_capacity_bytes(const NvmQnvme *d);

/*
 * Timed I/O.  Commands come in non-decreasing @t_ns.  @done_ns is when the
 * workload expects the completion (it runs the same model as the device):
 * the driver uses it to plan its batches — many submissions, doorbells and
 * clock steps per round trip — and checks it: every completion must be in
 * the completion queue, in deadline order, with success status, by its
 * time, and none earlier.  The first failure is kept (nvm_qnvme_failed)
 * and later calls do nothing.
 */
void nvm_qnvme_submit(NvmQnvme *d, const NvmCmd *cmd, uint64_t t_ns,
                      uint64_t done_ns);
/* Send everything before @t_ns and step the device's clock to @t_ns (for a
 * QMP command at that time).  False with the first failure. */
bool nvm_qnvme_advance(NvmQnvme *d, uint64_t t_ns, GError **errp);
bool nvm_qnvme_failed(const NvmQnvme *d, GError **errp);

typedef struct NvmQnvmeCounters {
    uint64_t ios;               /* timed commands submitted */
    uint64_t completions;       /* ... checked in the completion queue */
    uint64_t batches;           /* round trips of timed I/O */
    uint64_t clock_steps;
    uint64_t doorbells;
    uint64_t outstanding_max;
} NvmQnvmeCounters;

void nvm_qnvme_counters(const NvmQnvme *d, NvmQnvmeCounters *c);

#endif
