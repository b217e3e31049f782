/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic-fuzz: a libFuzzer target of QEMU's fuzzing build (make qemu-fuzz)
 * for a profiled NVMe controller, where generic-fuzz does not reach: QMP
 * state changes, marks and traces interleaved with the guest's commands.
 *
 *   QEMU_FUZZ_ARGS='-M q35 -nodefaults -drive ... -device nvme,id=nvm0,
 *                   drive=d0,profile=...' qemu-fuzz-x86_64 \
 *       --fuzz-target=nvmimic-fuzz
 *
 * The device must have id nvm0.  An input is a program of operations, each
 * one opcode byte and the operands it needs (read from the input, zero
 * past its end): set the controller up, submit admin and I/O commands
 * built from the input (data pointers inside the fuzzer's RAM window),
 * write registers and guest memory, step the virtual clock, consume the
 * completion queues, send nvmimic's vendor mark, inject faults (power cut,
 * media errors, latency, stalls, a hang; at marks, after delays, cleared),
 * and run nvmimic's QMP
 * commands through QEMU's own dispatcher, with values chosen to hit their
 * bounds, or with argument objects taken from the input as JSON.  Every
 * QMP answer must be a return or an error; anything else aborts.  Each
 * input starts from an erased drive with empty statistics, no trace and
 * no fault, and ends with a system reset.
 *
 * Copyright (c) 2026 the nvmimic authors
 */

#include "qemu/osdep.h"
#include "qapi/qmp-registry.h"
#include "qobject/qdict.h"
#include "qobject/qjson.h"
#include "qobject/qstring.h"
#include "tests/qtest/fuzz/fuzz.h"
#include "tests/qtest/libqos/pci-pc.h"
#include "hw/pci/pci.h"
#include "qom/object.h"

#include "../nvme.h"

/* QEMU's list of QMP commands (monitor/monitor-internal.h) */
extern QmpCommandList qmp_commands;

#define NVM_FUZZ_ID "nvm0"
#define NVM_FUZZ_QSIZE 32
#define NVM_FUZZ_ASQ 0x100000
#define NVM_FUZZ_ACQ 0x101000
#define NVM_FUZZ_IOCQ 0x102000
#define NVM_FUZZ_IOSQ 0x103000
#define NVM_FUZZ_DATA 0x110000          /* 16 pages of data */
#define NVM_FUZZ_DATA_PAGES 16
#define NVM_FUZZ_PRPL 0x120000          /* a PRP list (one page) */
#define NVM_FUZZ_WINDOW (NVM_FUZZ_PRPL + 0x1000 - NVM_FUZZ_DATA)
#define NVM_FUZZ_JSON_MAX 512

typedef struct NvmFuzz {
    QTestState *s;
    QPCIBus *bus;
    QPCIDevice *dev;
    QPCIBar bar;
    const uint8_t *in;
    size_t len, pos;
    uint16_t sq_tail[2];
    uint16_t cq_head[2];
    bool cq_phase[2];
    char *trace_path;
} NvmFuzz;

static int nvm_fuzz_devfn = -1;
static char *nvm_fuzz_trace_path;

static uint8_t take8(NvmFuzz *f)
{
    return f->pos < f->len ? f->in[f->pos++] : 0;
}

static uint16_t take16(NvmFuzz *f)
{
    return take8(f) | (uint16_t)take8(f) << 8;
}

static uint32_t take32(NvmFuzz *f)
{
    return take16(f) | (uint32_t)take16(f) << 16;
}

static uint64_t take64(NvmFuzz *f)
{
    return take32(f) | (uint64_t)take32(f) << 32;
}

/* Run a QMP command; the answer must be a return or an error. */
static void nvm_fuzz_qmp(const char *json)
{
    QObject *req = qobject_from_json(json, NULL);
    QDict *rsp;

    if (!req) {
        return;                 /* the input's JSON was not JSON */
    }
    rsp = qmp_dispatch(&qmp_commands, req, false, NULL);
    if (!rsp || (!qdict_haskey(rsp, "return") &&
                 !qdict_haskey(rsp, "error"))) {
        fprintf(stderr, "nvmimic-fuzz: %s: answer is neither a return "
                "nor an error\n", json);
        abort();
    }
    qobject_unref(rsp);
    qobject_unref(req);
}

static void nvm_fuzz_qmpf(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
static void nvm_fuzz_qmpf(const char *fmt, ...)
{
    va_list ap;
    g_autofree char *json = NULL;

    va_start(ap, fmt);
    json = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    nvm_fuzz_qmp(json);
}

static void reg_write(NvmFuzz *f, uint32_t off, uint32_t val)
{
    qpci_io_writel(f->dev, f->bar, off, val);
}

/* Ring queue @q's SQ tail doorbell (0: admin, 1: I/O), DSTRD 0. */
static void submit(NvmFuzz *f, unsigned q, const uint8_t *sqe)
{
    uint64_t base = q ? NVM_FUZZ_IOSQ : NVM_FUZZ_ASQ;

    qtest_memwrite(f->s, base + f->sq_tail[q] * 64, sqe, 64);
    f->sq_tail[q] = (f->sq_tail[q] + 1) % NVM_FUZZ_QSIZE;
    reg_write(f, 0x1000 + 8 * q, f->sq_tail[q]);
}

static void sqe_set(uint8_t *sqe, uint8_t opc, uint16_t cid, uint32_t nsid,
                    uint64_t prp1, uint64_t prp2, const uint32_t *cdw)
{
    memset(sqe, 0, 64);
    sqe[0] = opc;
    stw_le_p(sqe + 2, cid);
    stl_le_p(sqe + 4, nsid);
    stq_le_p(sqe + 24, prp1);
    stq_le_p(sqe + 32, prp2);
    for (int i = 0; i < 6; i++) {
        stl_le_p(sqe + 40 + 4 * i, cdw[i]);
    }
}

/* Consume the posted entries of both completion queues. */
static void drain(NvmFuzz *f)
{
    for (unsigned q = 0; q < 2; q++) {
        uint64_t base = q ? NVM_FUZZ_IOCQ : NVM_FUZZ_ACQ;
        unsigned n = 0;

        while (n++ < NVM_FUZZ_QSIZE) {
            uint16_t status;

            qtest_memread(f->s, base + f->cq_head[q] * 16 + 14, &status, 2);
            if ((le16_to_cpu(status) & 1) != f->cq_phase[q]) {
                break;
            }
            if (++f->cq_head[q] == NVM_FUZZ_QSIZE) {
                f->cq_head[q] = 0;
                f->cq_phase[q] = !f->cq_phase[q];
            }
        }
        reg_write(f, 0x1004 + 8 * q, f->cq_head[q]);
    }
}

/*
 * The controller enabled with an admin queue pair and I/O queue pair 1,
 * as a driver sets it up (the queues' memory zeroed first).
 */
static void enable(NvmFuzz *f)
{
    static const uint8_t zero[0x1000];
    uint32_t cdw[6] = { 0 };
    uint8_t sqe[64];

    reg_write(f, 0x14, 0);                              /* CC.EN = 0 */
    for (uint64_t a = NVM_FUZZ_ASQ; a <= NVM_FUZZ_IOSQ; a += sizeof(zero)) {
        qtest_memwrite(f->s, a, zero, sizeof(zero));
    }
    memset(f->sq_tail, 0, sizeof(f->sq_tail));
    memset(f->cq_head, 0, sizeof(f->cq_head));
    f->cq_phase[0] = f->cq_phase[1] = true;
    reg_write(f, 0x24, (NVM_FUZZ_QSIZE - 1) << 16 | (NVM_FUZZ_QSIZE - 1));
    reg_write(f, 0x28, NVM_FUZZ_ASQ);
    reg_write(f, 0x2c, 0);
    reg_write(f, 0x30, NVM_FUZZ_ACQ);
    reg_write(f, 0x34, 0);
    reg_write(f, 0x14, 1 | 6 << 16 | 4 << 20);          /* EN, 64/16 B */
    cdw[0] = (NVM_FUZZ_QSIZE - 1) << 16 | 1;
    cdw[1] = 1;                                          /* contiguous */
    sqe_set(sqe, 0x05, 1, 0, NVM_FUZZ_IOCQ, 0, cdw);      /* Create I/O CQ */
    submit(f, 0, sqe);
    cdw[1] = 1 << 16 | 1;                                /* CQ 1 */
    sqe_set(sqe, 0x01, 2, 0, NVM_FUZZ_IOSQ, 0, cdw);      /* Create I/O SQ */
    submit(f, 0, sqe);
    flush_events(f->s);
    drain(f);
}

/* A command built from the input, its data inside the fuzzer's window. */
static void command(NvmFuzz *f, unsigned q)
{
    uint8_t opc = take8(f);
    uint8_t page = take8(f);
    uint32_t cdw[6];
    uint32_t nsid;
    uint8_t sqe[64];

    nsid = take8(f) & 0x80 ? take32(f) : 1;
    for (int i = 0; i < 6; i++) {
        cdw[i] = take32(f);
    }
    sqe_set(sqe, opc, take16(f), nsid,
            NVM_FUZZ_DATA + (page % NVM_FUZZ_DATA_PAGES) * 0x1000 +
            (page & 0x80 ? 0x200 : 0),
            page & 0x40 ? NVM_FUZZ_PRPL :
            NVM_FUZZ_DATA + ((page + 1) % NVM_FUZZ_DATA_PAGES) * 0x1000, cdw);
    sqe[1] = take8(f) & 0xc3;                            /* FUSE, PSDT */
    submit(f, q, sqe);
}

static void set_state(NvmFuzz *f)
{
    uint8_t which = take8(f);
    uint8_t how = take8(f);
    GString *a = g_string_new(NULL);

    g_string_append_printf(a, "{'execute': 'nvmimic-set-state', "
                           "'arguments': {'id': '%s'", NVM_FUZZ_ID);
    if (which & 0x01) {
        /* whole percent, then edges: -1, 100.5, 1e300 */
        static const char *const edge[] = { "-1", "100.5", "1e300", "0" };
        uint8_t v = take8(f);

        if (how & 0x01) {
            g_string_append_printf(a, ", 'fill-pct': %s", edge[v % 4]);
        } else {
            g_string_append_printf(a, ", 'fill-pct': %u", v % 101);
        }
    }
    if (which & 0x02) {
        g_string_append_printf(a, ", 'slc-used-bytes': %" PRIu64,
                               how & 0x02 ? take64(f) :
                               (uint64_t)take16(f) << 20);
    }
    if (which & 0x04) {
        g_string_append_printf(a, ", 'wear-pct': %d", (int8_t)take8(f) * 3);
    }
    if (which & 0x08) {
        g_string_append_printf(a, ", 'thermal': %s",
                               how & 0x04 ? "true" : "false");
    }
    if (which & 0x10) {
        g_string_append_printf(a, ", 'steady-random-bytes': %" PRIu64,
                               how & 0x08 ? take64(f) :
                               (uint64_t)take16(f) << 24);
    }
    if (which & 0x20) {
        g_string_append_printf(a, ", 'warm-map-bytes': %" PRIu64,
                               how & 0x10 ? take64(f) :
                               (uint64_t)take16(f) << 24);
    }
    if (which & 0x40) {
        g_string_append_printf(a, ", 'reset-stats': true");
    }
    if (which & 0x80) {
        g_string_append_printf(a, ", 'secure-erase': true");
    }
    if (how & 0x80) {
        g_string_append_printf(a, ", 'at-mark': %u", take8(f) % 8);
    }
    g_string_append(a, "}}");
    nvm_fuzz_qmp(a->str);
    g_string_free(a, true);
}

/*
 * nvmimic-fault with operands from the input: each kind, at a mark or
 * after a delay or at once, with LBA ranges, classes and durations at and
 * beyond their bounds.  A power cut stays the drive's own (machine: false):
 * the whole machine's would end the fuzzing process.
 */
static void fault(NvmFuzz *f)
{
    static const char *const classes[] = {
        "read", "write", "flush", "discard", "write-zeroes", "all",
    };
    static const char *const kinds[] = {
        "power-cut", "media-error", "latency", "stall", "hang", "clear",
    };
    uint8_t k = take8(f), when = take8(f);
    const char *kind = kinds[k % G_N_ELEMENTS(kinds)];
    const char *cls = classes[(k >> 3) % G_N_ELEMENTS(classes)];
    GString *a = g_string_new(NULL);

    g_string_append_printf(a, "{'execute': 'nvmimic-fault', 'arguments': "
                           "{'id': '%s', 'kind': '%s'", NVM_FUZZ_ID, kind);
    if (when & 1) {
        g_string_append_printf(a, ", 'at-mark': %u", take8(f) % 9);
    }
    if (when & 2) {
        g_string_append_printf(a, ", 'delay-ns': %" PRIu64,
                               when & 4 ? take64(f) : take32(f));
    }
    switch (k % G_N_ELEMENTS(kinds)) {
    case 0:
        g_string_append_printf(a, ", 'machine': false, 'volatile': %s",
                               when & 8 ? "true" : "false");
        break;
    case 1:
        g_string_append_printf(a, ", 'error': '%s', 'nsid': %u, "
                               "'slba': %" PRIu64 ", 'nlb': %" PRIu64,
                               when & 8 ? "write-fault" : "unrecovered-read",
                               when & 16 ? take32(f) : 1,
                               when & 32 ? take64(f) : take32(f),
                               when & 64 ? take64(f) : take16(f));
        break;
    case 2:
        g_string_append_printf(a, ", 'class': '%s', 'delay-us': %" PRIu64,
                               cls, when & 8 ? take64(f) : take32(f));
        if (when & 16) {
            g_string_append_printf(a, ", 'count': %u", take32(f));
        }
        break;
    case 3:
        g_string_append_printf(a, ", 'class': '%s'", cls);
        if (when & 8) {
            g_string_append_printf(a, ", 'duration-us': %" PRIu64,
                                   when & 16 ? take64(f) : take32(f));
        }
        break;
    case 5:
        if (when & 8) {
            g_string_append_printf(a, ", 'kinds': ['%s']",
                                   kinds[take8(f) % G_N_ELEMENTS(kinds)]);
        }
        break;
    }
    g_string_append(a, "}}");
    nvm_fuzz_qmp(a->str);
    g_string_free(a, true);
    if (when & 128) {
        nvm_fuzz_qmpf("{'execute': 'query-nvmimic-faults', "
                      "'arguments': {'id': '%s'}}", NVM_FUZZ_ID);
    }
}

/* One of nvmimic's QMP commands with an argument object from the input. */
static void qmp_raw(NvmFuzz *f)
{
    static const char *const cmds[] = {
        "nvmimic-set-state", "query-nvmimic-stats", "query-nvmimic-marks",
        "nvmimic-trace-start", "nvmimic-trace-stop", "nvmimic-fault",
        "query-nvmimic-faults",
    };
    const char *cmd = cmds[take8(f) % G_N_ELEMENTS(cmds)];
    size_t n = MIN(take16(f) % NVM_FUZZ_JSON_MAX, f->len - f->pos);
    g_autofree char *args = g_strndup((const char *)f->in + f->pos, n);
    QObject *obj;

    f->pos += n;
    obj = qobject_from_json(args, NULL);
    if (!obj || qobject_type(obj) != QTYPE_QDICT) {
        qobject_unref(obj);
        return;
    }
    qobject_unref(obj);
    nvm_fuzz_qmpf("{'execute': '%s', 'arguments': %s}", cmd, args);
}

static void op(NvmFuzz *f, uint8_t code)
{
    uint8_t sqe[64];
    uint32_t cdw[6] = { 0 };

    switch (code % 14) {
    case 0:
        enable(f);
        break;
    case 1:
        command(f, 0);
        break;
    case 2:
    case 3:
        command(f, 1);
        break;
    case 4:
        reg_write(f, take16(f) & 0x1ffc, take32(f));
        break;
    case 5: {
        uint32_t off = take16(f) % NVM_FUZZ_WINDOW;
        size_t n = MIN(MIN(take8(f), f->len - f->pos),
                       NVM_FUZZ_WINDOW - off);

        qtest_memwrite(f->s, NVM_FUZZ_DATA + off, f->in + f->pos, n);
        f->pos += n;
        break;
    }
    case 6: {
        uint32_t ns = take32(f);

        if (ns) {
            qtest_clock_step(f->s, ns);
        } else {
            qtest_clock_step_next(f->s);
        }
        break;
    }
    case 7:
        drain(f);
        break;
    case 8:
        /* the vendor mark: number, flags (bit 0: reset the statistics) */
        cdw[2] = take8(f) % 8;
        cdw[3] = take8(f) % 3;
        sqe_set(sqe, 0xc0, take16(f), 0, 0, 0, cdw);
        submit(f, 0, sqe);
        break;
    case 9:
        set_state(f);
        break;
    case 10:
        if (take8(f) & 1) {
            nvm_fuzz_qmpf("{'execute': 'query-nvmimic-stats', "
                          "'arguments': {'id': '%s'}}", NVM_FUZZ_ID);
        } else {
            nvm_fuzz_qmpf("{'execute': 'query-nvmimic-marks', "
                          "'arguments': {'id': '%s', 'mark': %u}}",
                          NVM_FUZZ_ID, take8(f) % 8);
        }
        break;
    case 11:
        if (take8(f) & 1) {
            nvm_fuzz_qmpf("{'execute': 'nvmimic-trace-start', 'arguments': "
                          "{'id': '%s', 'path': '%s', 'max-bytes': %u}}",
                          NVM_FUZZ_ID, nvm_fuzz_trace_path, take32(f));
        } else {
            nvm_fuzz_qmpf("{'execute': 'nvmimic-trace-stop', "
                          "'arguments': {'id': '%s'}}", NVM_FUZZ_ID);
        }
        break;
    case 12:
        qmp_raw(f);
        break;
    case 13:
        fault(f);
        break;
    }
}

static void nvm_fuzz(QTestState *s, const unsigned char *data, size_t size)
{
    NvmFuzz f = { .s = s, .in = data, .len = size };

    /* every input from the same drive: erased, no statistics, no trace */
    nvm_fuzz_qmpf("{'execute': 'nvmimic-trace-stop', "
                  "'arguments': {'id': '%s'}}", NVM_FUZZ_ID);
    nvm_fuzz_qmpf("{'execute': 'nvmimic-fault', 'arguments': "
                  "{'id': '%s', 'kind': 'clear'}}", NVM_FUZZ_ID);
    nvm_fuzz_qmpf("{'execute': 'nvmimic-set-state', 'arguments': "
                  "{'id': '%s', 'secure-erase': true, 'reset-stats': true}}",
                  NVM_FUZZ_ID);
    f.bus = qpci_new_pc(s, NULL);
    f.dev = qpci_device_find(f.bus, nvm_fuzz_devfn);
    g_assert(f.dev);
    qpci_device_enable(f.dev);
    f.bar = qpci_iomap(f.dev, 0, NULL);
    while (f.pos < f.len) {
        op(&f, take8(&f));
        flush_events(s);
    }
    qpci_iounmap(f.dev, f.bar);
    g_free(f.dev);
    qpci_free_pc(f.bus);
    fuzz_reset(s);
}

static void nvm_fuzz_pre(QTestState *s)
{
    Object *obj = object_resolve_path_type("", "nvme", NULL);

    if (!obj) {
        fprintf(stderr, "nvmimic-fuzz: QEMU_FUZZ_ARGS has no nvme device "
                "(id=%s, profile=...)\n", NVM_FUZZ_ID);
        exit(1);
    }
    nvm_fuzz_devfn = PCI_DEVICE(obj)->devfn;
    nvm_fuzz_trace_path = g_strdup_printf("%s/nvmimic-fuzz-%d.trace",
                                          g_get_tmp_dir(), getpid());
}

static GString *nvm_fuzz_cmdline(FuzzTarget *t)
{
    GString *cmd = g_string_new(getenv("QEMU_FUZZ_ARGS"));

    if (!getenv("QEMU_FUZZ_ARGS")) {
        fprintf(stderr, "nvmimic-fuzz: set QEMU_FUZZ_ARGS to the machine "
                "with a profiled -device nvme,id=%s\n", NVM_FUZZ_ID);
        exit(1);
    }
    g_string_prepend(cmd, TARGET_NAME " -display none -machine accel=qtest "
                     "-m 64 ");
    return cmd;
}

static void nvm_fuzz_register(void)
{
    fuzz_add_target(&(FuzzTarget){
        .name = "nvmimic-fuzz",
        .description = "a profiled nvme controller: guest commands, marks "
                       "and nvmimic's QMP commands interleaved",
        .get_init_cmdline = nvm_fuzz_cmdline,
        .pre_fuzz = nvm_fuzz_pre,
        .fuzz = nvm_fuzz,
    });
}

fuzz_target_init(nvm_fuzz_register);
