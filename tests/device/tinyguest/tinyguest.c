/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A tiny guest for the NVMe device under -icount: a polled/interrupt-driven
 * NVMe driver of a few hundred instructions per command, so that a test can
 * see what a guest sees in virtual time, which qtest cannot show (QEMU
 * refuses -icount with the qtest accelerator).
 *
 * Under -icount shift=0 the TSC counts QEMU_CLOCK_VIRTUAL nanoseconds, so
 * each command's doorbell write and the moment its CQE is seen are
 * reported in the device's own time base.  Output goes to the debug
 * console (isa-debugcon at port 0xe9), one line per fact:
 *
 *   start
 *   lba-bytes N
 *   io I OPCODE STATUS T_DOORBELL T_SEEN      (hex TSC values)
 *   regs CC CSTS                              (hex)
 *   done                                      (the guest then halts)
 *   FAIL what                                 (the guest then halts)
 *
 * Kernel command line (-append), words separated by spaces:
 *   mode=qd1     n=N commands, one at a time (default)
 *   mode=cqbar   an I/O CQ on the controller's own BAR0, two reads,
 *                then CC and CSTS after 20 ms of virtual time
 *   mode=qd      n=N reads, depth=D of them outstanding (D at most 15),
 *                waiting by polling; an io line per command, in the
 *                order the completions came, with the command's cid:
 *                  io CID 02 STATUS T_DOORBELL T_SEEN
 *                with idle=T: rounds of D reads, and T TSC ticks of
 *                idling after each round is done (time for APST to
 *                take the drive into a non-operational power state)
 *   mode=reset   depth=D reads submitted, then at once CC.EN cleared
 *                (their completions are held), then the I/O CQ watched
 *                for watch=T TSC ticks: "reset-cq SEEN_BEFORE SEEN_AFTER"
 *                (CQEs in it at the reset and after the wait); then the
 *                controller is enabled again and n=N reads run at QD1
 *   mode=eject   depth=D reads submitted, then at once the controller is
 *                ejected through ACPI PCI hotplug (machine pc: PIIX4 at
 *                0xae00), then the I/O CQ watched for watch=T TSC ticks:
 *                "eject-cq SEEN_BEFORE SEEN_AFTER"
 *   depth=D      outstanding commands (modes qd, reset, eject; default 8)
 *   watch=T      TSC ticks to watch a CQ after a reset or an eject
 *   n=N          commands in mode=qd1 (default 16, at most 4096)
 *   wait=irq     wait for each completion in HLT, woken by MSI-X (default)
 *   wait=poll    spin on the CQ
 *   op=read|write
 */
#include <stdint.h>

#define DEBUGCON 0xe9

#define NVME_CLASS 0x010802
#define REG_CAP 0x00
#define REG_CC 0x14
#define REG_CSTS 0x1c
#define REG_AQA 0x24
#define REG_ASQ 0x28
#define REG_ACQ 0x30

#define LAPIC 0xfee00000u
#define NVME_VECTOR 0x40

/* guest-physical memory, identity-mapped (paging is off) */
#define ASQ_ADDR 0x400000u
#define ACQ_ADDR 0x401000u
#define IOSQ_ADDR 0x402000u
#define IOCQ_ADDR 0x403000u
#define IDENT_ADDR 0x404000u
#define DATA_ADDR 0x410000u
#define QSIZE 16

volatile uint32_t tg_irqs;

typedef struct Sqe {
    uint32_t dw0, nsid, rsvd[2];
    uint64_t mptr, prp1, prp2;
    uint32_t cdw10, cdw11, cdw12, cdw13, cdw14, cdw15;
} Sqe;

typedef struct Cqe {
    uint32_t result, dw1;
    uint16_t sqhd, sqid, cid, status;
} Cqe;

typedef struct Queue {
    volatile Sqe *sq;
    volatile Cqe *cq;
    uint32_t sq_db, cq_db;
    uint16_t tail, head, phase, cid;
} Queue;

static uint32_t bar;
static uint32_t dstrd;
static Queue adminq, ioq;

/* ---- port I/O, MMIO, output ------------------------------------------ */

static inline void outb(uint16_t port, uint8_t v)
{
    __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outl(uint16_t port, uint32_t v)
{
    __asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint32_t inl(uint16_t port)
{
    uint32_t v;

    __asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

static inline uint32_t rd32(uint32_t addr)
{
    return *(volatile uint32_t *)addr;
}

static inline void wr32(uint32_t addr, uint32_t v)
{
    *(volatile uint32_t *)addr = v;
}

static inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;

    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

static void puts_(const char *s)
{
    while (*s) {
        outb(DEBUGCON, *s++);
    }
}

static void puthex(uint64_t v)
{
    char buf[17];
    int i;

    for (i = 15; i >= 0; i--) {
        buf[i] = "0123456789abcdef"[v & 0xf];
        v >>= 4;
    }
    buf[16] = 0;
    puts_(buf);
}

static void putdec(uint32_t v)
{
    char buf[11];
    int i = 10;

    buf[i] = 0;
    do {
        buf[--i] = '0' + v % 10;
        v /= 10;
    } while (v);
    puts_(buf + i);
}

static void halt(void)
{
    for (;;) {
        __asm__ volatile("cli; hlt");
    }
}

static void fail(const char *what)
{
    puts_("FAIL ");
    puts_(what);
    puts_("\n");
    halt();
}

void tg_bad_vector(void)
{
    fail("unexpected exception or interrupt");
}

/* the compiler may call these for struct copies and initializers */
void *memset(void *p, int c, unsigned long n);
void *memcpy(void *dst, const void *src, unsigned long n);

void *memset(void *p, int c, unsigned long n)
{
    volatile uint8_t *d = p;

    while (n--) {
        *d++ = c;
    }
    return p;
}

void *memcpy(void *dst, const void *src, unsigned long n)
{
    volatile uint8_t *d = dst;
    const uint8_t *s = src;

    while (n--) {
        *d++ = *s++;
    }
    return dst;
}

/* ---- PCI -------------------------------------------------------------- */

static uint32_t cfg_read(uint32_t devfn, uint32_t off)
{
    outl(0xcf8, 0x80000000u | (devfn << 8) | (off & 0xfc));
    return inl(0xcfc);
}

static void cfg_write(uint32_t devfn, uint32_t off, uint32_t v)
{
    outl(0xcf8, 0x80000000u | (devfn << 8) | (off & 0xfc));
    outl(0xcfc, v);
}

static uint32_t find_nvme(void)
{
    uint32_t devfn;

    for (devfn = 0; devfn < 256; devfn++) {
        if ((cfg_read(devfn, 0) & 0xffff) != 0xffff &&
            cfg_read(devfn, 8) >> 8 == NVME_CLASS) {
            return devfn;
        }
    }
    fail("no NVMe controller on bus 0");
    return 0;
}

/* MSI-X vector 1 -> local APIC 0, vector NVME_VECTOR; vector 0 masked */
static void setup_msix(uint32_t devfn)
{
    uint32_t ptr = cfg_read(devfn, 0x34) & 0xff;

    while (ptr) {
        uint32_t v = cfg_read(devfn, ptr);

        if ((v & 0xff) == 0x11) {
            uint32_t table = cfg_read(devfn, ptr + 4);
            uint32_t t = bar + (table & ~7u);

            if (table & 7) {
                fail("MSI-X table not in BAR0");
            }
            wr32(t + 12, 1);
            wr32(t + 16, LAPIC);
            wr32(t + 20, 0);
            wr32(t + 24, NVME_VECTOR);
            wr32(t + 28, 0);
            cfg_write(devfn, ptr, (v & 0x3fffffffu) | 0x80000000u);
            return;
        }
        ptr = (v >> 8) & 0xfc;
    }
    fail("no MSI-X capability");
}

static void setup_interrupts(void)
{
    outb(0x21, 0xff);                   /* both 8259s masked */
    outb(0xa1, 0xff);
    wr32(LAPIC + 0xf0, 0x1ff);          /* APIC on, spurious vector 0xff */
}

/* ---- NVMe ------------------------------------------------------------- */

static uint32_t doorbell(uint32_t qid, int cq)
{
    return bar + 0x1000 + (2 * qid + cq) * (4u << dstrd);
}

static void wait_rdy(uint32_t want)
{
    uint64_t t0 = rdtsc();

    while ((rd32(bar + REG_CSTS) & 1) != want) {
        if (rdtsc() - t0 > 1000000000ull) {
            fail("CSTS.RDY did not change");
        }
    }
}

static void queue_init(Queue *q, uint32_t qid, uint32_t sq, uint32_t cq)
{
    q->sq = (volatile Sqe *)sq;
    q->cq = (volatile Cqe *)cq;
    q->sq_db = doorbell(qid, 0);
    q->cq_db = doorbell(qid, 1);
    q->tail = q->head = q->cid = 0;
    q->phase = 1;
}

/* Write @c at the tail; returns its cid.  The doorbell is rung apart. */
static uint16_t queue_put(Queue *q, const Sqe *c)
{
    volatile uint32_t *e = (volatile uint32_t *)&q->sq[q->tail];
    const uint32_t *s = (const uint32_t *)c;
    uint16_t cid = q->cid++;
    int i;

    for (i = 0; i < 16; i++) {
        e[i] = s[i];
    }
    e[0] = (c->dw0 & 0xffff) | ((uint32_t)cid << 16);
    q->tail = (q->tail + 1) % QSIZE;
    return cid;
}

static int cqe_ready(Queue *q)
{
    return (q->cq[q->head].status & 1) == q->phase;
}

/* Take the CQE at the head; returns its status without the phase bit. */
static uint16_t queue_take(Queue *q)
{
    uint16_t status = q->cq[q->head].status >> 1;

    q->head = (q->head + 1) % QSIZE;
    if (!q->head) {
        q->phase ^= 1;
    }
    wr32(q->cq_db, q->head);
    return status;
}

static void admin(const Sqe *c, const char *what)
{
    uint64_t t0 = rdtsc();

    queue_put(&adminq, c);
    wr32(adminq.sq_db, adminq.tail);
    while (!cqe_ready(&adminq)) {
        if (rdtsc() - t0 > 1000000000ull) {
            fail(what);
        }
    }
    if (queue_take(&adminq)) {
        fail(what);
    }
}

static void ctrl_enable(void)
{
    uint32_t cap_hi = rd32(bar + REG_CAP + 4);

    dstrd = cap_hi & 0xf;
    wr32(bar + REG_CC, 0);
    wait_rdy(0);
    memset((void *)ACQ_ADDR, 0, 4096);
    wr32(bar + REG_AQA, ((QSIZE - 1) << 16) | (QSIZE - 1));
    wr32(bar + REG_ASQ, ASQ_ADDR);
    wr32(bar + REG_ASQ + 4, 0);
    wr32(bar + REG_ACQ, ACQ_ADDR);
    wr32(bar + REG_ACQ + 4, 0);
    wr32(bar + REG_CC, (4 << 20) | (6 << 16) | 1);
    wait_rdy(1);
    queue_init(&adminq, 0, ASQ_ADDR, ACQ_ADDR);
}

/* I/O queue pair @qid, its CQ at @cq (interrupts on vector 1 if @ien) */
static void create_io_queues(uint32_t qid, uint32_t cq, int ien)
{
    Sqe c = { 0 };

    c.dw0 = 0x05;                       /* Create I/O CQ */
    c.prp1 = cq;
    c.cdw10 = ((QSIZE - 1) << 16) | qid;
    c.cdw11 = ien ? (1 << 16) | 3 : 1;
    admin(&c, "Create I/O CQ");
    c.dw0 = 0x01;                       /* Create I/O SQ */
    c.prp1 = IOSQ_ADDR;
    c.cdw11 = (qid << 16) | 1;
    admin(&c, "Create I/O SQ");
}

static uint32_t lba_bytes(uint32_t *nsze)
{
    Sqe c = { 0 };
    volatile uint8_t *id = (volatile uint8_t *)IDENT_ADDR;
    uint32_t flbas, lbaf;

    c.dw0 = 0x06;                       /* Identify Namespace 1 */
    c.nsid = 1;
    c.prp1 = IDENT_ADDR;
    admin(&c, "Identify Namespace");
    *nsze = *(volatile uint32_t *)id;   /* low half is enough below 2 TiB */
    flbas = id[26] & 0xf;
    lbaf = *(volatile uint32_t *)(id + 128 + 4 * flbas);
    return 1u << ((lbaf >> 16) & 0xff);
}

/* ---- command line ------------------------------------------------------- */

static const char *arg(const char *cmdline, const char *key)
{
    const char *p = cmdline;

    while (p && *p) {
        const char *k = key, *q = p;

        while (*k && *q == *k) {
            k++;
            q++;
        }
        if (!*k && *q == '=' && (p == cmdline || p[-1] == ' ')) {
            return q + 1;
        }
        p++;
    }
    return 0;
}

static int arg_is(const char *cmdline, const char *key, const char *val)
{
    const char *v = arg(cmdline, key);

    if (!v) {
        return 0;
    }
    while (*val && *v == *val) {
        v++;
        val++;
    }
    return !*val && (!*v || *v == ' ');
}

static uint32_t arg_u32(const char *cmdline, const char *key, uint32_t dflt)
{
    const char *v = arg(cmdline, key);
    uint32_t n = 0;

    if (!v || *v < '0' || *v > '9') {
        return dflt;
    }
    while (*v >= '0' && *v <= '9') {
        n = n * 10 + (*v++ - '0');
    }
    return n;
}

/* ---- the modes ---------------------------------------------------------- */

static void mode_qd1(const char *cmdline, uint32_t devfn)
{
    uint32_t n = arg_u32(cmdline, "n", 16);
    int irq = !arg_is(cmdline, "wait", "poll");
    int write = arg_is(cmdline, "op", "write");
    uint32_t nsze, lb, blocks, i, x = 12345;

    if (n > 4096) {
        fail("n is above 4096");
    }
    if (irq) {
        setup_interrupts();
        setup_msix(devfn);
    }
    create_io_queues(1, IOCQ_ADDR, irq);
    lb = lba_bytes(&nsze);
    blocks = 4096 / lb;
    puts_("lba-bytes ");
    putdec(lb);
    puts_("\n");
    for (i = 0; i < n; i++) {
        Sqe c = { 0 };
        uint64_t t0, t1;
        uint32_t slba;
        uint16_t status;

        x = x * 1103515245u + 12345u;
        slba = ((x >> 4) % (nsze / blocks)) * blocks;
        c.dw0 = write ? 0x01 : 0x02;
        c.nsid = 1;
        c.prp1 = DATA_ADDR;
        c.cdw10 = slba;
        c.cdw12 = blocks - 1;
        queue_put(&ioq, &c);
        __asm__ volatile("cli");
        t0 = rdtsc();
        wr32(ioq.sq_db, ioq.tail);
        if (irq) {
            while (!cqe_ready(&ioq)) {
                __asm__ volatile("sti; hlt; cli");
            }
        } else {
            while (!cqe_ready(&ioq)) {
            }
        }
        t1 = rdtsc();
        status = queue_take(&ioq);
        puts_("io ");
        putdec(i);
        puts_(write ? " 01 " : " 02 ");
        puthex(status);
        puts_(" ");
        puthex(t0);
        puts_(" ");
        puthex(t1);
        puts_("\n");
    }
    puts_("irqs ");
    putdec(tg_irqs);
    puts_("\n");
}

/* A random 4 KiB-aligned read of namespace 1, to DATA_ADDR + 4 KiB * k. */
static void read_cmd(Sqe *c, uint32_t *x, uint32_t nsze, uint32_t blocks,
                     uint32_t k)
{
    *x = *x * 1103515245u + 12345u;
    memset(c, 0, sizeof(*c));
    c->dw0 = 0x02;
    c->nsid = 1;
    c->prp1 = DATA_ADDR + 4096 * k;
    c->cdw10 = ((*x >> 4) % (nsze / blocks)) * blocks;
    c->cdw12 = blocks - 1;
}

/* CQEs the guest has not taken yet, in the order the device posted them */
static uint32_t cq_count_new(Queue *q)
{
    uint32_t n = 0, head = q->head, phase = q->phase;

    while (n < QSIZE && (q->cq[head].status & 1) == phase) {
        n++;
        head = (head + 1) % QSIZE;
        if (!head) {
            phase ^= 1;
        }
    }
    return n;
}

static void mode_qd(const char *cmdline)
{
    uint32_t n = arg_u32(cmdline, "n", 64);
    uint32_t depth = arg_u32(cmdline, "depth", 8);
    uint32_t idle = arg_u32(cmdline, "idle", 0);
    uint32_t nsze, lb, blocks, sent = 0, done = 0, x = 12345;
    uint64_t t_db[QSIZE * 2];
    Sqe c;

    if (!depth || depth >= QSIZE) {
        fail("depth is not 1..15");
    }
    create_io_queues(1, IOCQ_ADDR, 0);
    lb = lba_bytes(&nsze);
    blocks = 4096 / lb;
    while (done < n) {
        uint64_t t0;
        uint16_t cid, status;

        if (idle && sent == done && sent) {
            /* rounds: all of the last one done; idle, then the next */
            t0 = rdtsc();
            while (rdtsc() - t0 < idle) {
            }
        }
        if (!idle || sent == done) {
            /* one doorbell for every command that fits */
            while (sent < n && sent - done < depth) {
                read_cmd(&c, &x, nsze, blocks, sent % QSIZE);
                cid = queue_put(&ioq, &c);
                sent++;
                t_db[cid % (QSIZE * 2)] = 0;
            }
            t0 = rdtsc();
            wr32(ioq.sq_db, ioq.tail);
            for (cid = ioq.cid - (sent - done); cid != ioq.cid; cid++) {
                if (!t_db[cid % (QSIZE * 2)]) {
                    t_db[cid % (QSIZE * 2)] = t0;
                }
            }
        }
        while (!cqe_ready(&ioq)) {
        }
        while (cqe_ready(&ioq)) {
            uint64_t t1 = rdtsc();

            cid = ioq.cq[ioq.head].cid;
            status = queue_take(&ioq);
            done++;
            puts_("io ");
            putdec(cid);
            puts_(" 02 ");
            puthex(status);
            puts_(" ");
            puthex(t_db[cid % (QSIZE * 2)]);
            puts_(" ");
            puthex(t1);
            puts_("\n");
        }
    }
}

/*
 * Submit @depth reads and ring once; then @stop() the controller at once,
 * while their completions are held, and watch the I/O CQ.
 */
static void held_then(const char *cmdline, const char *what,
                      void (*stop)(void))
{
    uint32_t depth = arg_u32(cmdline, "depth", 8);
    uint32_t wait = arg_u32(cmdline, "watch", 20000000);
    uint32_t nsze, lb, blocks, k, x = 777, before;
    uint64_t t0;
    Sqe c;

    if (!depth || depth >= QSIZE) {
        fail("depth is not 1..15");
    }
    create_io_queues(1, IOCQ_ADDR, 0);
    lb = lba_bytes(&nsze);
    blocks = 4096 / lb;
    for (k = 0; k < depth; k++) {
        read_cmd(&c, &x, nsze, blocks, k);
        queue_put(&ioq, &c);
    }
    wr32(ioq.sq_db, ioq.tail);
    stop();
    before = cq_count_new(&ioq);
    t0 = rdtsc();
    while (rdtsc() - t0 < wait) {
    }
    puts_(what);
    puts_(" ");
    putdec(before);
    puts_(" ");
    putdec(cq_count_new(&ioq));
    puts_("\n");
}

static void stop_reset(void)
{
    wr32(bar + REG_CC, 0);
    wait_rdy(0);
}

static uint32_t nvme_slot;

static void stop_eject(void)
{
    outl(0xae10, 0);                    /* the root bus */
    outl(0xae08, 1u << nvme_slot);      /* eject the slot */
}

static void mode_cqbar(void)
{
    Sqe c = { 0 };
    uint32_t nsze, lb = lba_bytes(&nsze);
    uint64_t t0;

    /* entry 1 of this CQ covers INTMC, CC, a reserved dword and CSTS */
    create_io_queues(1, bar, 0);
    c.dw0 = 0x02;
    c.nsid = 1;
    c.prp1 = DATA_ADDR;
    c.cdw12 = 4096 / lb - 1;
    queue_put(&ioq, &c);
    c.cdw10 = 4096 / lb;
    queue_put(&ioq, &c);
    t0 = rdtsc();
    wr32(ioq.sq_db, ioq.tail);
    while (rdtsc() - t0 < 20000000ull) {
    }
    puts_("regs ");
    puthex(rd32(bar + REG_CC));
    puts_(" ");
    puthex(rd32(bar + REG_CSTS));
    puts_("\n");
}

void tg_main(const uint32_t *mbi);

void tg_main(const uint32_t *mbi)
{
    const char *cmdline = (mbi[0] & 4) ? (const char *)mbi[4] : "";
    uint32_t devfn, bar_hi;

    puts_("start\n");
    devfn = find_nvme();
    bar = cfg_read(devfn, 0x10) & ~0xfu;
    bar_hi = cfg_read(devfn, 0x14);
    if (bar_hi || !bar) {
        fail("BAR0 is not below 4 GiB");
    }
    cfg_write(devfn, 0x04, (cfg_read(devfn, 0x04) & 0xffff) | 0x6);
    ctrl_enable();
    queue_init(&ioq, 1, IOSQ_ADDR, IOCQ_ADDR);
    memset((void *)IOCQ_ADDR, 0, 4096);
    nvme_slot = devfn >> 3;
    if (arg_is(cmdline, "mode", "cqbar")) {
        ioq.cq = (volatile Cqe *)IOCQ_ADDR;     /* never read: it is BAR0 */
        mode_cqbar();
    } else if (arg_is(cmdline, "mode", "qd")) {
        mode_qd(cmdline);
    } else if (arg_is(cmdline, "mode", "reset")) {
        held_then(cmdline, "reset-cq", stop_reset);
        ctrl_enable();
        queue_init(&ioq, 1, IOSQ_ADDR, IOCQ_ADDR);
        memset((void *)IOCQ_ADDR, 0, 4096);
        mode_qd1(cmdline, devfn);
    } else if (arg_is(cmdline, "mode", "eject")) {
        held_then(cmdline, "eject-cq", stop_eject);
    } else {
        mode_qd1(cmdline, devfn);
    }
    puts_("done\n");
    halt();
}
