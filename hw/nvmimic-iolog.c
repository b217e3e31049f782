/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic: the I/O trace file (QMP nvmimic-trace-start).
 *
 * Recording a command formats one line into a buffer in memory: the
 * submission path makes no system call.  A bottom half writes the buffer
 * out once it holds IOLOG_FLUSH_BYTES, and the rest is written when the
 * trace stops, when the device goes away and when QEMU exits.  The file
 * holds at most max-bytes; commands past that are counted, not written.
 *
 * Copyright (c) 2026 the nvmimic authors
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qapi/error.h"
#include "qemu/error-report.h"
#include "qemu/main-loop.h"
#include "system/system.h"
#include "trace.h"

#include "nvmimic-iolog.h"

/* A bottom half writes the buffer out once it holds this much. */
#define IOLOG_FLUSH_BYTES (64 * KiB)
/*
 * Should the main loop not run the bottom half before the buffer holds
 * this much, the command that fills it writes it out itself: the memory
 * a trace takes stays bounded whatever the main loop does.
 */
#define IOLOG_BUF_MAX_BYTES (4 * MiB)
/* A formatted line: five numbers and an op name */
#define IOLOG_LINE_MAX 128

struct NvmimicIolog {
    int fd;
    char *path;
    GString *buf;               /* lines not written out yet */
    QEMUBH *bh;                 /* writes buf out */
    uint64_t max_bytes;
    uint64_t bytes;             /* written out or in buf */
    uint64_t commands;          /* recorded */
    uint64_t dropped;           /* not recorded: max_bytes reached */
    int64_t start_ns;
    int err;                    /* first write error, 0 if none */
    Notifier exit;              /* QEMU exits with the trace running */
};

static void iolog_write_out(NvmimicIolog *t)
{
    if (t->buf->len && !t->err &&
        qemu_write_full(t->fd, t->buf->str, t->buf->len) != t->buf->len) {
        t->err = errno ? errno : EIO;
    }
    g_string_truncate(t->buf, 0);
}

static void iolog_bh(void *opaque)
{
    iolog_write_out(opaque);
}

/* QEMU does not unrealize devices when it quits: keep the trace anyway. */
static void iolog_exit_notify(Notifier *notifier, void *data)
{
    iolog_write_out(container_of(notifier, NvmimicIolog, exit));
}

const char *nvmimic_iolog_path(const NvmimicIolog *t)
{
    return t->path;
}

NvmimicIolog *nvmimic_iolog_start(const char *path, uint64_t max_bytes,
                                  int64_t start_ns, const char *profile,
                                  uint32_t lba_bytes, uint64_t capacity_bytes,
                                  Error **errp)
{
    bool fdset = g_str_has_prefix(path, "/dev/fdset/");
    NvmimicIolog *t;
    struct stat st;
    int fd;

    if (max_bytes < NVMIMIC_IOLOG_MIN_MAX_BYTES) {
        error_setg(errp, "max-bytes %" PRIu64 " is less than %" PRId64,
                   max_bytes, NVMIMIC_IOLOG_MIN_MAX_BYTES);
        return NULL;
    }
    /*
     * A file descriptor passed in an fdset is the management layer's
     * choice.  A path is opened without following a symbolic link in its
     * last component (nor blocking on a FIFO) and must be a regular file.
     */
    fd = qemu_create(path, O_WRONLY | O_TRUNC |
                     (fdset ? 0 : O_NOFOLLOW | O_NONBLOCK), 0644, errp);
    if (fd < 0) {
        return NULL;
    }
    if (!fdset && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
        error_setg(errp, "%s: not a regular file", path);
        close(fd);
        return NULL;
    }

    t = g_new0(NvmimicIolog, 1);
    t->fd = fd;
    t->path = g_strdup(path);
    t->max_bytes = max_bytes;
    t->start_ns = start_ns;
    t->buf = g_string_sized_new(IOLOG_FLUSH_BYTES + IOLOG_LINE_MAX);
    t->bh = qemu_bh_new(iolog_bh, t);
    g_string_printf(t->buf, "# nvmimic trace 1\n"
                    "# profile=%s lba-bytes=%" PRIu32 " capacity-bytes=%"
                    PRIu64 " start-ns=%" PRId64 "\n"
                    "# submit_ns op slba nlb complete_ns\n", profile,
                    lba_bytes, capacity_bytes, start_ns);
    t->bytes = t->buf->len;
    t->exit.notify = iolog_exit_notify;
    qemu_add_exit_notifier(&t->exit);
    trace_nvmimic_iolog_start(path, max_bytes);
    return t;
}

void nvmimic_iolog_cmd(NvmimicIolog *t, int64_t submit_ns, const char *op,
                       uint64_t slba, uint64_t nlb, int64_t complete_ns)
{
    char line[IOLOG_LINE_MAX];
    int len;

    if (t->dropped) {
        t->dropped++;
        return;
    }
    len = snprintf(line, sizeof(line), "%" PRId64 " %s %" PRIu64 " %" PRIu64
                   " %" PRId64 "\n", submit_ns - t->start_ns, op, slba, nlb,
                   complete_ns - t->start_ns);
    if (t->bytes + len > t->max_bytes) {
        t->dropped++;
        warn_report("nvmimic: trace %s reached max-bytes %" PRIu64
                    ": commands from now on are not recorded", t->path,
                    t->max_bytes);
        trace_nvmimic_iolog_full(t->path, t->max_bytes, t->commands);
        return;
    }
    g_string_append_len(t->buf, line, len);
    t->bytes += len;
    t->commands++;
    if (t->buf->len >= IOLOG_BUF_MAX_BYTES) {
        iolog_write_out(t);
    } else if (t->buf->len >= IOLOG_FLUSH_BYTES) {
        qemu_bh_schedule(t->bh);
    }
}

void nvmimic_iolog_note(NvmimicIolog *t, int64_t ns, const char *text)
{
    g_autofree char *line = g_strdup_printf("# at-ns=%" PRId64 " %s\n",
                                            ns - t->start_ns, text);
    size_t len = strlen(line);

    if (t->dropped || t->bytes + len > t->max_bytes) {
        return;                 /* past max-bytes: the end line says so */
    }
    g_string_append_len(t->buf, line, len);
    t->bytes += len;
    qemu_bh_schedule(t->bh);
}

bool nvmimic_iolog_stop(NvmimicIolog *t, uint64_t *commands,
                        uint64_t *dropped, Error **errp)
{
    bool ok;

    if (t->dropped) {
        /* a comment line, as the header: readers skip it */
        g_string_append_printf(t->buf, "# max-bytes=%" PRIu64 " reached: "
                               "%" PRIu64 " later commands not recorded\n",
                               t->max_bytes, t->dropped);
    }
    iolog_write_out(t);
    if (close(t->fd) < 0 && !t->err) {
        t->err = errno;
    }
    ok = !t->err;
    if (!ok) {
        error_setg_errno(errp, t->err, "trace %s is incomplete (%" PRIu64
                         " commands recorded)", t->path, t->commands);
    }
    *commands = t->commands;
    *dropped = t->dropped;
    trace_nvmimic_iolog_stop(t->path, t->commands, t->dropped);
    qemu_remove_exit_notifier(&t->exit);
    qemu_bh_delete(t->bh);
    g_string_free(t->buf, true);
    g_free(t->path);
    g_free(t);
    return ok;
}
