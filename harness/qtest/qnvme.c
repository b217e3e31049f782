/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Polled NVMe host driver over qtest.
 *
 * Timed I/O is planned from the completion times the workload expects, so
 * one round trip carries a whole stretch of virtual time:
 *
 *     b64write   the stretch's submission queue entries, at once
 *     clock_step to the first submission's time;  writel SQ tail doorbell
 *     clock_step to the next one's;               writel SQ tail doorbell
 *     ...
 *     b64read    every completion queue entry due by then, plus one more
 *     writel     CQ head doorbell
 *
 * The device takes each command off the queue inside its doorbell write
 * (hw/nvmimic.c does so under qtest), so it sees it at exactly the virtual
 * time the workload submitted it; clock_step fires the device's completion
 * timers at their deadlines, which post the entries.  Reading the queue
 * back checks that the device completed exactly the expected commands, in
 * the expected order, successfully, and nothing else (the extra entry must
 * still be empty).
 */
#include <inttypes.h>
#include <string.h>

#include "qnvme.h"

#define PAGE 4096u
#define SQE_BYTES 64u
#define CQE_BYTES 16u

/* guest-physical layout (q35's default 128 MiB of RAM) */
#define BAR0 0xfe000000ull
#define ADMIN_SQ 0x100000ull
#define ADMIN_CQ 0x101000ull
#define IDENT_BUF 0x102000ull
#define PRP_LIST 0x103000ull
#define IO_SQ 0x200000ull           /* up to 4096 x 64 bytes */
#define IO_CQ 0x300000ull           /* up to 4096 x 16 bytes */
#define DATA_BUF 0x400000ull
#define HMB_BUF 0x10000000ull       /* never accessed (grant_hmb) */
#define MAX_XFER_BYTES (PAGE * (PAGE / 8))  /* what one PRP list page maps */
#define ADMIN_ENTRIES 16u
#define ADMIN_POLLS 5000

#define REG_CAP 0x00
#define REG_CC 0x14
#define REG_CSTS 0x1c
#define REG_AQA 0x24
#define REG_ASQ 0x28
#define REG_ACQ 0x30

typedef struct Pending {
    uint64_t done_ns;
    uint64_t seq;
    uint64_t submit_ns;
    uint16_t cid;
} Pending;

typedef enum { EV_STEP, EV_DOORBELL } EvKind;

typedef struct Event {
    EvKind kind;
    uint64_t value;             /* step: ns to go; doorbell: the tail */
    uint64_t at_ns;             /* step: the clock it must reach */
} Event;

struct NvmQnvme {
    NvmQtest *q;
    uint64_t bar0;
    unsigned dstrd;
    uint32_t lba_bytes;
    uint64_t nsze;

    unsigned a_tail, a_head, a_phase;
    uint16_t a_cid;

    unsigned entries;
    uint32_t max_bytes;
    uint64_t sq_db, cq_db;
    unsigned sq_tail;           /* after every queued submission */
    unsigned batch_first;       /* SQ slot of the batch's first entry */
    GByteArray *sqes;           /* the batch's entries */
    GArray *events;             /* the batch's steps and doorbells */
    bool db_pending;
    unsigned cq_head, cq_phase;
    uint8_t *cq_buf;            /* answer of the batch's CQ read */

    uint64_t dev_now;           /* device clock after the queued steps */
    uint64_t seq;               /* timed submissions so far */
    uint64_t seq_at_step;       /* ... when the last step was queued */
    GArray *heap;               /* Pending not yet reaped, min (done, seq) */
    GArray *expect;             /* this batch's reaps, in order */
    GError *err;
    NvmQnvmeCounters n;
};

/* ---- the outstanding commands, a binary min-heap by (done, seq) ------ */

static bool pend_less(const Pending *a, const Pending *b)
{
    return a->done_ns < b->done_ns ||
           (a->done_ns == b->done_ns && a->seq < b->seq);
}

static Pending *pend_at(NvmQnvme *d, guint i)
{
    return &g_array_index(d->heap, Pending, i);
}

static void pend_push(NvmQnvme *d, const Pending *p)
{
    guint i = d->heap->len;

    g_array_append_val(d->heap, *p);
    while (i && pend_less(pend_at(d, i), pend_at(d, (i - 1) / 2))) {
        Pending t = *pend_at(d, i);

        *pend_at(d, i) = *pend_at(d, (i - 1) / 2);
        *pend_at(d, (i - 1) / 2) = t;
        i = (i - 1) / 2;
    }
}

static void pend_pop(NvmQnvme *d)
{
    guint n = d->heap->len - 1, i = 0;

    *pend_at(d, 0) = *pend_at(d, n);
    g_array_set_size(d->heap, n);
    for (;;) {
        guint l = 2 * i + 1, r = l + 1, m = i;
        Pending t;

        if (l < n && pend_less(pend_at(d, l), pend_at(d, m))) {
            m = l;
        }
        if (r < n && pend_less(pend_at(d, r), pend_at(d, m))) {
            m = r;
        }
        if (m == i) {
            return;
        }
        t = *pend_at(d, i);
        *pend_at(d, i) = *pend_at(d, m);
        *pend_at(d, m) = t;
        i = m;
    }
}

/* ---- PCI, registers, admin commands ----------------------------------- */

static bool cfg_read(NvmQnvme *d, unsigned devfn, unsigned off,
                     uint32_t *v, GError **errp)
{
    uint64_t x;

    if (!nvm_qtest_cmd(d->q, NULL, errp, "outl 0xcf8 0x%x",
                       0x80000000u | devfn << 8 | (off & 0xfc)) ||
        !nvm_qtest_cmd(d->q, &x, errp, "inl 0xcfc")) {
        return false;
    }
    *v = (uint32_t)x;
    return true;
}

static bool cfg_write(NvmQnvme *d, unsigned devfn, unsigned off, uint32_t v,
                      GError **errp)
{
    return nvm_qtest_cmd(d->q, NULL, errp, "outl 0xcf8 0x%x",
                         0x80000000u | devfn << 8 | (off & 0xfc)) &&
           nvm_qtest_cmd(d->q, NULL, errp, "outl 0xcfc 0x%x", v);
}

static uint64_t doorbell(const NvmQnvme *d, unsigned qid, bool cq)
{
    return d->bar0 + 0x1000 + (2 * qid + (cq ? 1 : 0)) * (4u << d->dstrd);
}

static void put_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) {
        p[i] = v >> (8 * i);
    }
}

static void put_le64(uint8_t *p, uint64_t v)
{
    put_le32(p, (uint32_t)v);
    put_le32(p + 4, (uint32_t)(v >> 32));
}

static uint32_t get_le32(const uint8_t *p)
{
    return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* An admin command with Dwords 10 to 15 (@cdw[0..5]), polled. */
static bool admin_dw(NvmQnvme *d, uint8_t opc, uint32_t nsid, uint64_t prp1,
                     const uint32_t cdw[6], GError **errp)
{
    uint8_t sqe[SQE_BYTES] = { 0 };
    uint8_t cqe[CQE_BYTES];
    uint16_t cid = d->a_cid++;

    put_le32(sqe, opc | (uint32_t)cid << 16);
    put_le32(sqe + 4, nsid);
    put_le64(sqe + 24, prp1);
    for (int i = 0; i < 6; i++) {
        put_le32(sqe + 40 + 4 * i, cdw[i]);
    }
    d->a_tail = (d->a_tail + 1) % ADMIN_ENTRIES;
    nvm_qtest_queue_b64write(d->q, ADMIN_SQ + (uint64_t)((d->a_tail +
                             ADMIN_ENTRIES - 1) % ADMIN_ENTRIES) * SQE_BYTES,
                             sqe, sizeof(sqe));
    nvm_qtest_queue(d->q, "writel 0x%" PRIx64 " 0x%x", doorbell(d, 0, false),
                    d->a_tail);
    if (!nvm_qtest_flush(d->q, errp)) {
        return false;
    }
    /* untimed: posted from bottom halves, which run between round trips */
    for (int i = 0; i < ADMIN_POLLS; i++) {
        uint32_t dw3;

        if (!nvm_qtest_read(d->q, ADMIN_CQ + d->a_head * CQE_BYTES, cqe,
                            sizeof(cqe), errp)) {
            return false;
        }
        dw3 = get_le32(cqe + 12);
        if (((dw3 >> 16) & 1) != d->a_phase) {
            continue;
        }
        d->a_head = (d->a_head + 1) % ADMIN_ENTRIES;
        if (!d->a_head) {
            d->a_phase ^= 1;
        }
        if (!nvm_qtest_cmd(d->q, NULL, errp, "writel 0x%" PRIx64 " 0x%x",
                           doorbell(d, 0, true), d->a_head)) {
            return false;
        }
        if ((dw3 & 0xffff) != cid || (dw3 >> 17) & 0x7ff) {
            g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED,
                        "NVMe admin command 0x%02x: completion cid %u "
                        "status 0x%x (expected cid %u, status 0)", opc,
                        dw3 & 0xffff, (dw3 >> 17) & 0x7ff, cid);
            return false;
        }
        return true;
    }
    g_set_error(errp, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                "NVMe admin command 0x%02x never completed", opc);
    return false;
}

static bool admin(NvmQnvme *d, uint8_t opc, uint32_t nsid, uint64_t prp1,
                  uint32_t cdw10, uint32_t cdw11, GError **errp)
{
    const uint32_t cdw[6] = { cdw10, cdw11 };

    return admin_dw(d, opc, nsid, prp1, cdw, errp);
}

/*
 * A drive that asks for a host memory buffer (Identify HMPRE) gets one of
 * its preferred size, as Linux grants it: Set Features 0x0d with one
 * descriptor.  The device only times map misses against its size and
 * never touches the buffer, so HMB_BUF needs no contents.
 */
static bool grant_hmb(NvmQnvme *d, GError **errp)
{
    g_autofree uint8_t *id = g_malloc(PAGE);
    uint8_t desc[16] = { 0 };
    uint32_t hmpre;

    if (!admin(d, 0x06, 0, IDENT_BUF, 1, 0, errp) ||
        !nvm_qtest_read(d->q, IDENT_BUF, id, PAGE, errp)) {
        return false;
    }
    hmpre = get_le32(id + 272);         /* 4 KiB units */
    if (!hmpre) {
        return true;
    }
    put_le64(desc, HMB_BUF);
    put_le32(desc + 8, hmpre);          /* memory pages of 4 KiB (CC.MPS 0) */
    if (!nvm_qtest_write(d->q, IDENT_BUF, desc, sizeof(desc), errp)) {
        return false;
    }
    {
        const uint32_t cdw[6] = {
            0x0d,                               /* FID: host memory buffer */
            1,                                  /* EHM */
            hmpre,                              /* HSIZE */
            (uint32_t)IDENT_BUF,                /* HMDLLA */
            (uint32_t)(IDENT_BUF >> 32),        /* HMDLUA */
            1,                                  /* HMDLEC */
        };

        return admin_dw(d, 0x09, 0, 0, cdw, errp);
    }
}

static bool enable(NvmQnvme *d, GError **errp)
{
    uint64_t cap, csts = 0;
    int i;

    if (!nvm_qtest_cmd(d->q, &cap, errp, "readq 0x%" PRIx64,
                       d->bar0 + REG_CAP)) {
        return false;
    }
    d->dstrd = (cap >> 32) & 0xf;
    if ((cap & 0xffff) + 1 < d->entries) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED,
                    "the controller takes queues of up to %u entries, not "
                    "%u", (unsigned)(cap & 0xffff) + 1, d->entries);
        return false;
    }
    nvm_qtest_queue(d->q, "memset 0x%llx 0x%x 0x0", ADMIN_CQ,
                    ADMIN_ENTRIES * CQE_BYTES);
    nvm_qtest_queue(d->q, "writel 0x%" PRIx64 " 0x%x", d->bar0 + REG_AQA,
                    (ADMIN_ENTRIES - 1) << 16 | (ADMIN_ENTRIES - 1));
    nvm_qtest_queue(d->q, "writeq 0x%" PRIx64 " 0x%llx", d->bar0 + REG_ASQ,
                    ADMIN_SQ);
    nvm_qtest_queue(d->q, "writeq 0x%" PRIx64 " 0x%llx", d->bar0 + REG_ACQ,
                    ADMIN_CQ);
    /* CSS NVM, MPS 4 KiB, round robin, IOSQES 6, IOCQES 4, enable */
    nvm_qtest_queue(d->q, "writel 0x%" PRIx64 " 0x%x", d->bar0 + REG_CC,
                    6u << 16 | 4u << 20 | 1);
    if (!nvm_qtest_flush(d->q, errp)) {
        return false;
    }
    for (i = 0; i < ADMIN_POLLS && !(csts & 1); i++) {
        if (!nvm_qtest_cmd(d->q, &csts, errp, "readl 0x%" PRIx64,
                           d->bar0 + REG_CSTS)) {
            return false;
        }
        if (csts & 2) {
            break;
        }
    }
    if ((csts & 3) != 1) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED,
                    "the NVMe controller did not become ready (CSTS 0x%x)",
                    (unsigned)csts);
        return false;
    }
    d->a_phase = 1;
    return true;
}

NvmQnvme *nvm_qnvme_open(NvmQtest *q, unsigned slot, unsigned entries,
                         uint32_t max_bytes, GError **errp)
{
    NvmQnvme *d = g_new0(NvmQnvme, 1);
    unsigned devfn = slot << 3;
    uint8_t *id = NULL;
    uint32_t v;
    unsigned flbas, lbads;

    d->q = q;
    d->bar0 = BAR0;
    d->entries = entries;
    d->max_bytes = max_bytes;
    d->sqes = g_byte_array_new();
    d->events = g_array_new(FALSE, FALSE, sizeof(Event));
    d->heap = g_array_new(FALSE, FALSE, sizeof(Pending));
    d->expect = g_array_new(FALSE, FALSE, sizeof(Pending));
    d->cq_buf = g_malloc0((size_t)entries * CQE_BYTES);
    d->cq_phase = 1;
    if (entries < 16 || entries > 4096 || max_bytes > MAX_XFER_BYTES ||
        !max_bytes) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                    "qnvme: %u queue entries (16..4096) or %u-byte "
                    "transfers (up to %u) not supported", entries, max_bytes,
                    MAX_XFER_BYTES);
        goto fail;
    }

    if (!cfg_read(d, devfn, 0, &v, errp)) {
        goto fail;
    }
    if ((v & 0xffff) == 0xffff) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                    "no PCI device at 00:%02x.0", slot);
        goto fail;
    }
    if (!cfg_read(d, devfn, 8, &v, errp)) {
        goto fail;
    }
    if (v >> 8 != 0x010802) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                    "PCI device 00:%02x.0 is not an NVMe controller "
                    "(class 0x%06x)", slot, v >> 8);
        goto fail;
    }
    if (!cfg_write(d, devfn, 0x10, (uint32_t)d->bar0, errp) ||
        !cfg_write(d, devfn, 0x14, (uint32_t)(d->bar0 >> 32), errp) ||
        !cfg_read(d, devfn, 4, &v, errp) ||
        !cfg_write(d, devfn, 4, (v & 0xffff) | 0x6, errp) ||
        !enable(d, errp)) {
        goto fail;
    }

    id = g_malloc(PAGE);
    if (!admin(d, 0x06, 1, IDENT_BUF, 0, 0, errp) ||
        !nvm_qtest_read(q, IDENT_BUF, id, PAGE, errp)) {
        goto fail;
    }
    d->nsze = get_le32(id) | (uint64_t)get_le32(id + 4) << 32;
    flbas = (id[26] & 0xf) | ((id[26] >> 5) & 3) << 4;
    lbads = id[128 + 4 * flbas + 2];
    if (lbads < 9 || lbads > 16 || !d->nsze) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED,
                    "namespace 1: LBA data size 2^%u, %" PRIu64 " blocks?",
                    lbads, d->nsze);
        goto fail;
    }
    d->lba_bytes = 1u << lbads;
    if (!grant_hmb(d, errp)) {
        goto fail;
    }

    /* I/O queues, interrupts off: the completion queue is polled */
    nvm_qtest_queue(q, "memset 0x%llx 0x%x 0x0", IO_CQ,
                    entries * CQE_BYTES);
    if (!nvm_qtest_flush(q, errp) ||
        !admin(d, 0x05, 0, IO_CQ, (entries - 1) << 16 | 1, 1, errp) ||
        !admin(d, 0x01, 0, IO_SQ, (entries - 1) << 16 | 1, 1u << 16 | 1,
               errp)) {
        goto fail;
    }
    d->sq_db = doorbell(d, 1, false);
    d->cq_db = doorbell(d, 1, true);

    /* one data buffer for every transfer (the data is not looked at),
     * and a PRP list mapping it page by page */
    {
        g_autofree uint8_t *list = g_malloc(PAGE);

        for (unsigned i = 0; i < PAGE / 8; i++) {
            put_le64(list + 8 * i, DATA_BUF + (uint64_t)(i + 1) * PAGE);
        }
        if (!nvm_qtest_write(q, PRP_LIST, list, PAGE, errp)) {
            goto fail;
        }
    }
    g_free(id);
    return d;

fail:
    g_free(id);
    nvm_qnvme_free(d);
    return NULL;
}

void nvm_qnvme_free(NvmQnvme *d)
{
    if (!d) {
        return;
    }
    g_byte_array_free(d->sqes, TRUE);
    g_array_free(d->events, TRUE);
    g_array_free(d->heap, TRUE);
    g_array_free(d->expect, TRUE);
    g_free(d->cq_buf);
    if (d->err) {
        g_error_free(d->err);
    }
    g_free(d);
}

uint32_t nvm_qnvme_lba_bytes(const NvmQnvme *d)
{
    return d->lba_bytes;
}

uint64_t nvm_qnvme_capacity_bytes(const NvmQnvme *d)
{
    return d->nsze * d->lba_bytes;
}

/* ---- timed I/O ---------------------------------------------------------- */

static void add_event(NvmQnvme *d, EvKind k, uint64_t v, uint64_t at_ns)
{
    Event e = { k, v, at_ns };

    g_array_append_val(d->events, e);
}

static void ring_pending(NvmQnvme *d)
{
    if (d->db_pending) {
        add_event(d, EV_DOORBELL, d->sq_tail, 0);
        d->db_pending = false;
    }
}

static const char *op_name(uint8_t opc)
{
    return opc == 0x02 ? "read" : opc == 0x01 ? "write" :
           opc == 0x00 ? "flush" : opc == 0x08 ? "write-zeroes" : "?";
}

/* The expected or outstanding command @cid, for messages. */
static const Pending *find_pending(NvmQnvme *d, unsigned cid)
{
    for (guint i = 0; i < d->expect->len; i++) {
        if (g_array_index(d->expect, Pending, i).cid == cid) {
            return &g_array_index(d->expect, Pending, i);
        }
    }
    for (guint i = 0; i < d->heap->len; i++) {
        if (pend_at(d, i)->cid == cid) {
            return pend_at(d, i);
        }
    }
    return NULL;
}

/* Send the batch, read the completion queue, check what it holds. */
static bool flush_batch(NvmQnvme *d)
{
    NvmQtest *q = d->q;
    unsigned first = d->batch_first, n_sqe = d->sqes->len / SQE_BYTES;
    g_autoptr(GArray) steps = g_array_new(FALSE, FALSE, sizeof(guint64[2]));
    unsigned n_exp, k, head, rd1, rd2;

    if (d->err) {
        return false;
    }
    ring_pending(d);
    if (!n_sqe && !d->events->len && !d->heap->len) {
        return true;
    }
    /* 1. the entries, before any doorbell that hands them over */
    if (n_sqe) {
        unsigned n1 = MIN(n_sqe, d->entries - first);

        nvm_qtest_queue_b64write(q, IO_SQ + (uint64_t)first * SQE_BYTES,
                                 d->sqes->data, (size_t)n1 * SQE_BYTES);
        if (n1 < n_sqe) {
            nvm_qtest_queue_b64write(q, IO_SQ, d->sqes->data +
                                     (size_t)n1 * SQE_BYTES,
                                     (size_t)(n_sqe - n1) * SQE_BYTES);
        }
    }
    /* 2. clock steps and doorbells in time order */
    for (guint i = 0; i < d->events->len; i++) {
        const Event *e = &g_array_index(d->events, Event, i);

        if (e->kind == EV_STEP) {
            guint64 s[2];

            s[0] = nvm_qtest_queue(q, "clock_step %" PRIu64, e->value);
            s[1] = e->at_ns;
            g_array_append_val(steps, s);
        } else {
            nvm_qtest_queue(q, "writel 0x%" PRIx64 " 0x%x", d->sq_db,
                            (unsigned)e->value);
            d->n.doorbells++;
        }
    }
    /* 3. what must be complete by now: due before the clock, or due at it
     * and submitted before the step that brought the clock there */
    g_array_set_size(d->expect, 0);
    while (d->heap->len) {
        const Pending *p = pend_at(d, 0);

        if (p->done_ns > d->dev_now ||
            (p->done_ns == d->dev_now && p->seq >= d->seq_at_step)) {
            break;
        }
        g_array_append_val(d->expect, *p);
        pend_pop(d);
    }
    n_exp = d->expect->len;
    /* the expected entries and one more, which must still be empty */
    head = d->cq_head;
    rd1 = MIN(n_exp + 1, d->entries - head);
    rd2 = n_exp + 1 - rd1;
    nvm_qtest_queue_b64read(q, IO_CQ + (uint64_t)head * CQE_BYTES, d->cq_buf,
                            (size_t)rd1 * CQE_BYTES);
    if (rd2) {
        nvm_qtest_queue_b64read(q, IO_CQ, d->cq_buf + (size_t)rd1 * CQE_BYTES,
                                (size_t)rd2 * CQE_BYTES);
    }
    if (n_exp) {
        nvm_qtest_queue(q, "writel 0x%" PRIx64 " 0x%x", d->cq_db,
                        (head + n_exp) % d->entries);
    }
    if (!nvm_qtest_flush(q, &d->err)) {
        return false;
    }
    d->n.batches++;
    for (guint i = 0; i < steps->len; i++) {
        guint64 *s = &g_array_index(steps, guint64, 2 * i);

        if (nvm_qtest_u64(q, (unsigned)s[0]) != s[1]) {
            g_set_error(&d->err, G_IO_ERROR, G_IO_ERROR_FAILED,
                        "qtest: the clock stepped to %" PRIu64 " ns, not %"
                        PRIu64, nvm_qtest_u64(q, (unsigned)s[0]), s[1]);
            return false;
        }
    }
    for (k = 0; k <= n_exp; k++) {
        const uint8_t *cqe = d->cq_buf + (size_t)k * CQE_BYTES;
        uint32_t dw3 = get_le32(cqe + 12);
        unsigned slot = (head + k) % d->entries;
        unsigned phase = d->cq_phase ^ (head + k >= d->entries);
        const Pending *p;

        if (k == n_exp) {
            if (((dw3 >> 16) & 1) == phase) {
                g_set_error(&d->err, G_IO_ERROR, G_IO_ERROR_FAILED,
                            "device posted command %u before its time (the "
                            "clock is at %" PRIu64 " ns; expected %u "
                            "completions)", dw3 & 0xffff, d->dev_now,
                            n_exp);
                return false;
            }
            break;
        }
        p = &g_array_index(d->expect, Pending, k);
        if (((dw3 >> 16) & 1) != phase) {
            g_set_error(&d->err, G_IO_ERROR, G_IO_ERROR_FAILED,
                        "command %u (submitted at %" PRIu64 " ns, due at %"
                        PRIu64 " ns) is not in the completion queue at %"
                        PRIu64 " ns (slot %u)", p->cid, p->submit_ns,
                        p->done_ns, d->dev_now, slot);
            return false;
        }
        if ((dw3 & 0xffff) != p->cid || (dw3 >> 17) & 0x7ff) {
            const Pending *o = find_pending(d, dw3 & 0xffff);
            g_autofree char *when = o ? g_strdup_printf(
                " (submitted at %" PRIu64 " ns, due at %" PRIu64 " ns)",
                o->submit_ns, o->done_ns) : NULL;

            g_set_error(&d->err, G_IO_ERROR, G_IO_ERROR_FAILED,
                        "completion queue slot %u holds command %u%s status "
                        "0x%x; expected command %u (submitted at %" PRIu64
                        " ns, due at %" PRIu64 " ns), status 0",
                        slot, dw3 & 0xffff, when ? when : "",
                        (dw3 >> 17) & 0x7ff, p->cid, p->submit_ns,
                        p->done_ns);
            return false;
        }
    }
    d->n.completions += n_exp;
    if (head + n_exp >= d->entries) {
        d->cq_phase ^= 1;
    }
    d->cq_head = (head + n_exp) % d->entries;
    g_byte_array_set_size(d->sqes, 0);
    g_array_set_size(d->events, 0);
    d->batch_first = d->sq_tail;
    return true;
}

static void step_to(NvmQnvme *d, uint64_t t)
{
    if (t > d->dev_now) {
        ring_pending(d);
        add_event(d, EV_STEP, t - d->dev_now, t);
        d->dev_now = t;
        d->seq_at_step = d->seq;
        d->n.clock_steps++;
    }
}

void nvm_qnvme_submit(NvmQnvme *d, const NvmCmd *cmd, uint64_t t_ns,
                      uint64_t done_ns)
{
    uint8_t *e;
    uint64_t bytes = (uint64_t)cmd->nlb * d->lba_bytes;
    unsigned pages = (unsigned)((bytes + PAGE - 1) / PAGE);
    uint16_t cid = (uint16_t)d->seq;
    uint8_t opc;
    Pending p;

    if (d->err) {
        return;
    }
    switch (cmd->op) {
    case NVM_OP_READ:
        opc = 0x02;
        break;
    case NVM_OP_WRITE:
        opc = 0x01;
        break;
    case NVM_OP_FLUSH:
        opc = 0x00;
        break;
    case NVM_OP_WRITE_ZEROES:
        opc = 0x08;
        break;
    default:
        g_set_error(&d->err, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                    "qnvme: the load generator issues no deallocate");
        return;
    }
    if (t_ns < d->dev_now) {
        g_set_error(&d->err, G_IO_ERROR, G_IO_ERROR_FAILED,
                    "qnvme: submission at %" PRIu64 " ns is before the "
                    "device's clock (%" PRIu64 " ns)", t_ns, d->dev_now);
        return;
    }
    if ((opc == 0x01 || opc == 0x02) && (bytes > d->max_bytes || !bytes)) {
        g_set_error(&d->err, G_IO_ERROR, G_IO_ERROR_FAILED,
                    "qnvme: a %" PRIu64 "-byte %s is larger than the "
                    "%u-byte buffer", bytes, op_name(opc), d->max_bytes);
        return;
    }
    /* Room: every outstanding command may sit in the completion queue, and
     * the batch's entries may not lap the submission queue. */
    if (d->heap->len + 2 >= d->entries ||
        d->sqes->len / SQE_BYTES + 2 >= d->entries) {
        if (!flush_batch(d)) {
            return;
        }
        if (d->heap->len + 2 >= d->entries) {
            g_set_error(&d->err, G_IO_ERROR, G_IO_ERROR_FAILED,
                        "qnvme: more than %u commands outstanding",
                        d->entries - 3);
            return;
        }
    }
    step_to(d, t_ns);

    g_byte_array_set_size(d->sqes, d->sqes->len + SQE_BYTES);
    e = d->sqes->data + d->sqes->len - SQE_BYTES;
    memset(e, 0, SQE_BYTES);
    put_le32(e, opc | (uint32_t)cid << 16);
    put_le32(e + 4, 1);
    if (opc == 0x01 || opc == 0x02) {
        put_le64(e + 24, DATA_BUF);
        put_le64(e + 32, pages == 2 ? DATA_BUF + PAGE :
                         pages > 2 ? PRP_LIST : 0);
    }
    if (opc != 0x00) {
        put_le64(e + 40, cmd->slba);
        put_le32(e + 48, cmd->nlb - 1);
    }
    d->sq_tail = (d->sq_tail + 1) % d->entries;
    d->db_pending = true;

    p.done_ns = done_ns;
    p.seq = d->seq++;
    p.submit_ns = t_ns;
    p.cid = cid;
    pend_push(d, &p);
    d->n.ios++;
    d->n.outstanding_max = MAX(d->n.outstanding_max, d->heap->len);
}

bool nvm_qnvme_advance(NvmQnvme *d, uint64_t t_ns, GError **errp)
{
    if (!d->err) {
        if (t_ns < d->dev_now) {
            g_set_error(&d->err, G_IO_ERROR, G_IO_ERROR_FAILED,
                        "qnvme: cannot step back to %" PRIu64 " ns (the "
                        "device is at %" PRIu64 " ns)", t_ns, d->dev_now);
        } else {
            step_to(d, t_ns);
            flush_batch(d);
        }
    }
    return !nvm_qnvme_failed(d, errp);
}

bool nvm_qnvme_failed(const NvmQnvme *d, GError **errp)
{
    if (d->err) {
        if (errp) {
            *errp = g_error_copy(d->err);
        }
        return true;
    }
    return false;
}

void nvm_qnvme_counters(const NvmQnvme *d, NvmQnvmeCounters *c)
{
    *c = d->n;
}
