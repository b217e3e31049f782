/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic power cut: an undo journal of the writes a drive has not made
 * durable yet, and the cut that undoes them (nvmimic-powercut.c).  Only
 * nvmimic-fault.c and nvmimic-fault-cmd.c use it.
 */
#ifndef HW_NVME_NVMIMIC_POWERCUT_H
#define HW_NVME_NVMIMIC_POWERCUT_H

typedef struct NvmimicJournal NvmimicJournal;
struct NvmeCtrl;
struct NvmeRequest;
struct NvmeSQueue;

/* What a cut did to the writes the journal kept track of */
typedef struct NvmimicCut {
    uint64_t lost_writes;       /* completed, not durable: undone */
    uint64_t lost_bytes;
    uint64_t inflight_writes;   /* not completed yet: undone */
    uint64_t inflight_bytes;
    uint64_t kept_writes;       /* made durable since the journal began */
    uint64_t overflow_writes;   /* taken as programmed: the journal's bound */
    int error;                  /* restoring failed (-errno), 0 if not */
} NvmimicCut;

NvmimicJournal *nvmimic_journal_new(struct NvmeCtrl *n);
/* Only when nothing is in it (after a cut) or the device goes away */
void nvmimic_journal_free(NvmimicJournal *j);
/*
 * Keep track of the writes that arrive from now on, or no more of them;
 * @lies: a write completed without Force Unit Access is not durable even
 * on a drive that reports no volatile write cache.
 */
void nvmimic_journal_arm(NvmimicJournal *j, bool on, bool lies);
/*
 * A command the controller is about to dispatch.  A Write or Write Zeroes
 * it keeps track of: NVME_NO_COMPLETE, it starts the command itself once
 * it has read what the blocks hold.  Anything else (a Flush is noted): 0.
 */
uint16_t nvmimic_journal_cmd(NvmimicJournal *j, struct NvmeRequest *req);
void nvmimic_journal_data_done(NvmimicJournal *j, struct NvmeRequest *req);
/* @req's completion is posted: the host knows it completed */
void nvmimic_journal_posted(NvmimicJournal *j, struct NvmeRequest *req);
void nvmimic_journal_sq_freed(NvmimicJournal *j, struct NvmeSQueue *sq);
/* Format NVM of @nsid (or every namespace) completed */
void nvmimic_journal_formatted(NvmimicJournal *j, uint32_t nsid);
/*
 * Power is cut now: wait for the writes in flight, undo every write that
 * is not durable, newest first, and forget them all.  The journal keeps
 * tracking writes afterwards.
 */
void nvmimic_journal_cut(NvmimicJournal *j, NvmimicCut *out);
/* Memory its copies of old contents take now */
uint64_t nvmimic_journal_bytes(const NvmimicJournal *j);

#endif
