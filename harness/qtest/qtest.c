/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * QEMU under qtest, and a client of the qtest protocol (system/qtest.c in
 * QEMU: one command per line, one answer line per command, "OK [value]" or
 * "FAIL ...").  Commands are queued and written together while the answers
 * are read as they come, so neither side's socket buffer can fill up and
 * stall the other.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "cmdline.h"
#include "qmp.h"
#include "qtest.h"

#define QTEST_READ_CHUNK (256 * 1024)

typedef struct Sink {
    size_t off;                 /* the command's text in q->out */
    uint64_t value;
    void *buf;                  /* b64read: decoded answer goes here */
    size_t len;
} Sink;

struct NvmQtest {
    GPid pid;
    bool reaped;
    char *tmpdir;
    char *log_path;
    bool own_log;
    int fd;
    NvmQmp *qmp;
    int timeout_ms;
    GString *out;
    GArray *sinks;
    bool flushed;               /* sinks hold the answers of a batch */
    GString *in;
    NvmQtestCounters n;
};

/* The last lines QEMU wrote, for error messages. */
static char *log_tail(const NvmQtest *q)
{
    g_autofree char *text = NULL;
    gsize len = 0;
    const char *p;
    int lines = 0;

    if (!g_file_get_contents(q->log_path, &text, &len, NULL) || !len) {
        return g_strdup("(QEMU printed nothing)");
    }
    while (len && text[len - 1] == '\n') {
        text[--len] = 0;
    }
    for (p = text + len; p > text && lines < 6; p--) {
        if (p[-1] == '\n') {
            lines++;
        }
    }
    return g_strdup_printf("QEMU said: %s", p == text ? p : p + 1);
}

/* Has QEMU exited?  Reaps it when it has. */
static bool qemu_gone(NvmQtest *q, int *status)
{
    pid_t r;

    if (q->reaped) {
        return true;
    }
    r = waitpid(q->pid, status, WNOHANG);
    if (r == q->pid) {
        q->reaped = true;
        return true;
    }
    return false;
}

static void set_died(NvmQtest *q, GError **errp, const char *what)
{
    g_autofree char *tail = NULL;
    int status = 0;
    int i;

    /* give it a moment to finish dying and say why */
    for (i = 0; i < 50 && !qemu_gone(q, &status); i++) {
        g_usleep(20 * 1000);
    }
    tail = log_tail(q);
    g_set_error(errp, G_IO_ERROR, G_IO_ERROR_BROKEN_PIPE,
                "qtest: %s: QEMU %s; %s", what,
                !q->reaped ? "stopped answering" :
                WIFSIGNALED(status) ? "was killed by a signal" : "exited",
                tail);
}

static int listen_unix(const char *path, GError **errp)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd;

    if (strlen(path) >= sizeof(sa.sun_path)) {
        g_set_error(errp, G_FILE_ERROR, G_FILE_ERROR_NAMETOOLONG,
                    "socket path '%s' is too long", path);
        return -1;
    }
    strcpy(sa.sun_path, path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
        listen(fd, 1) < 0) {
        int e = errno;

        if (fd >= 0) {
            close(fd);
        }
        g_set_error(errp, G_FILE_ERROR, g_file_error_from_errno(e),
                    "qtest socket %s: %s", path, g_strerror(e));
        return -1;
    }
    return fd;
}

NvmQtest *nvm_qtest_start(const char *qemu, const char *const *args,
                          const char *log_path, int timeout_ms,
                          GError **errp)
{
    NvmQtest *q = g_new0(NvmQtest, 1);
    g_autofree char *qtest_path = NULL;
    g_autofree char *qmp_path = NULL;
    g_autofree char *qtest_arg = NULL;
    g_autoptr(NvmQemuLine) line = nvm_qemu_line_new(qemu);
    gint64 deadline;
    int lfd = -1, logfd;

    q->fd = -1;
    q->timeout_ms = timeout_ms;
    q->out = g_string_sized_new(64 * 1024);
    q->in = g_string_sized_new(QTEST_READ_CHUNK);
    q->sinks = g_array_new(FALSE, FALSE, sizeof(Sink));
    q->reaped = true;
    if (!g_file_test(qemu, G_FILE_TEST_IS_EXECUTABLE)) {
        g_set_error(errp, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                    "QEMU binary %s not found or not executable (make "
                    "qemu, or give --qemu)", qemu);
        goto fail;
    }
    q->tmpdir = g_dir_make_tmp("nvmimic-qtest-XXXXXX", errp);
    if (!q->tmpdir) {
        goto fail;
    }
    q->own_log = !log_path;
    q->log_path = log_path ? g_strdup(log_path)
                           : g_build_filename(q->tmpdir, "qemu.log", NULL);
    qtest_path = g_build_filename(q->tmpdir, "qtest.sock", NULL);
    qmp_path = g_build_filename(q->tmpdir, "qmp.sock", NULL);
    lfd = listen_unix(qtest_path, errp);
    if (lfd < 0) {
        goto fail;
    }
    logfd = open(q->log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                 0644);
    if (logfd < 0) {
        g_set_error(errp, G_FILE_ERROR, g_file_error_from_errno(errno),
                    "%s: %s", q->log_path, g_strerror(errno));
        goto fail;
    }
    qtest_arg = g_strdup_printf("unix:%s", qtest_path);
    nvm_qemu_machine(line, NVM_QEMU_QTEST);
    /* without -qtest-log, qtest logs every command to stderr */
    nvm_qemu_add(line, "-qtest", qtest_arg, "-qtest-log", "none", "-qmp",
                 NULL);
    nvm_qemu_addf(line, "unix:%s,server=on,wait=off", qmp_path);
    nvm_qemu_add(line, "-display", "none", "-nodefaults", NULL);
    nvm_qemu_firmware(line);
    for (unsigned i = 0; args && args[i]; i++) {
        nvm_qemu_add(line, args[i], NULL);
    }
    if (!g_spawn_async_with_fds(NULL, (char **)nvm_qemu_argv(line), NULL,
                                G_SPAWN_DO_NOT_REAP_CHILD |
                                G_SPAWN_STDIN_FROM_DEV_NULL,
                                NULL, NULL, &q->pid, -1, logfd, logfd,
                                errp)) {
        close(logfd);
        goto fail;
    }
    close(logfd);
    q->reaped = false;

    deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
    while (q->fd < 0) {
        struct pollfd p = { .fd = lfd, .events = POLLIN };

        if (poll(&p, 1, 50) > 0) {
            q->fd = accept(lfd, NULL, NULL);
            if (q->fd >= 0) {
                struct timeval tv = {
                    .tv_sec = timeout_ms / 1000,
                    .tv_usec = (timeout_ms % 1000) * 1000,
                };

                fcntl(q->fd, F_SETFD, FD_CLOEXEC);
                /* bounds the blocking reads of nvm_qtest_flush() */
                setsockopt(q->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
            }
            continue;
        }
        if (qemu_gone(q, NULL) || g_get_monotonic_time() > deadline) {
            set_died(q, errp, "start-up");
            goto fail;
        }
    }
    close(lfd);
    lfd = -1;
    q->qmp = nvm_qmp_connect(qmp_path, timeout_ms, errp);
    if (!q->qmp) {
        goto fail;
    }
    return q;

fail:
    if (lfd >= 0) {
        close(lfd);
    }
    nvm_qtest_quit(q);
    return NULL;
}

void nvm_qtest_quit(NvmQtest *q)
{
    if (!q) {
        return;
    }
    if (q->qmp) {
        JsonNode *r = nvm_qmp_exec(q->qmp, "quit", NULL, 2000, NULL);

        if (r) {
            json_node_unref(r);
        }
        nvm_qmp_close(q->qmp);
    }
    if (q->fd >= 0) {
        close(q->fd);
    }
    if (!q->reaped) {
        int i;

        for (i = 0; i < 250 && !qemu_gone(q, NULL); i++) {
            g_usleep(20 * 1000);
        }
        if (!q->reaped) {
            kill(q->pid, SIGKILL);
            waitpid(q->pid, NULL, 0);
        }
        g_spawn_close_pid(q->pid);
    }
    if (q->tmpdir) {
        g_autofree char *a = g_build_filename(q->tmpdir, "qtest.sock", NULL);
        g_autofree char *b = g_build_filename(q->tmpdir, "qmp.sock", NULL);

        g_unlink(a);
        g_unlink(b);
        if (q->own_log) {
            g_unlink(q->log_path);
        }
        g_rmdir(q->tmpdir);
    }
    g_free(q->tmpdir);
    g_free(q->log_path);
    g_string_free(q->out, TRUE);
    g_string_free(q->in, TRUE);
    g_array_free(q->sinks, TRUE);
    g_free(q);
}

/* ---- the batch ---------------------------------------------------------- */

static Sink *new_sink(NvmQtest *q)
{
    Sink s = { .off = q->out->len };

    if (q->flushed) {
        g_array_set_size(q->sinks, 0);
        q->flushed = false;
        s.off = 0;
    }
    g_array_append_val(q->sinks, s);
    return &g_array_index(q->sinks, Sink, q->sinks->len - 1);
}

unsigned nvm_qtest_queue(NvmQtest *q, const char *fmt, ...)
{
    va_list ap;

    new_sink(q);
    va_start(ap, fmt);
    g_string_append_vprintf(q->out, fmt, ap);
    va_end(ap);
    g_string_append_c(q->out, '\n');
    return q->sinks->len - 1;
}

unsigned nvm_qtest_queue_b64read(NvmQtest *q, uint64_t addr, void *buf,
                                 size_t len)
{
    Sink *s = new_sink(q);

    s->buf = buf;
    s->len = len;
    g_string_append_printf(q->out, "b64read 0x%" PRIx64 " 0x%zx\n", addr,
                           len);
    return q->sinks->len - 1;
}

unsigned nvm_qtest_queue_b64write(NvmQtest *q, uint64_t addr,
                                  const void *buf, size_t len)
{
    gint state = 0, save = 0;
    gsize at, n;

    new_sink(q);
    g_string_append_printf(q->out, "b64write 0x%" PRIx64 " 0x%zx ", addr,
                           len);
    at = q->out->len;
    /* room for the encoding: 4 per 3 bytes, plus a line break each 72 */
    g_string_set_size(q->out, at + (len / 3 + 1) * 4 + 4);
    n = g_base64_encode_step(buf, len, FALSE, q->out->str + at, &state,
                             &save);
    n += g_base64_encode_close(FALSE, q->out->str + at + n, &state, &save);
    g_string_set_size(q->out, at + n);
    g_string_append_c(q->out, '\n');
    return q->sinks->len - 1;
}

/* The command text of sink @i, for messages. */
static char *cmd_text(const NvmQtest *q, unsigned i)
{
    const Sink *s = &g_array_index(q->sinks, Sink, i);
    const char *p = q->out->str + s->off;
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);

    return g_strndup(p, MIN(len, 72));
}

static bool take_answer(NvmQtest *q, unsigned i, char *line, GError **errp)
{
    Sink *s = &g_array_index(q->sinks, Sink, i);
    char *val;

    if (strcmp(line, "OK") && strncmp(line, "OK ", 3)) {
        g_autofree char *cmd = cmd_text(q, i);

        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED,
                    "qtest: '%s' was answered '%.120s'", cmd, line);
        return false;
    }
    val = line[2] ? line + 3 : NULL;
    if (s->buf) {
        gsize n = 0;

        if (val) {
            g_base64_decode_inplace(val, &n);
        }
        if (n != s->len) {
            g_autofree char *cmd = cmd_text(q, i);

            g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED,
                        "qtest: '%s' returned %zu bytes, not %zu", cmd,
                        (size_t)n, s->len);
            return false;
        }
        memcpy(s->buf, val, n);
    } else if (val) {
        s->value = g_ascii_strtoull(val, NULL, 0);
    }
    return true;
}

bool nvm_qtest_flush(NvmQtest *q, GError **errp)
{
    unsigned n = q->flushed ? 0 : q->sinks->len;
    unsigned got = 0;
    size_t sent = 0, parsed = 0;
    GString *out = q->out;

    if (!n) {
        return true;
    }
    q->n.round_trips++;
    q->n.commands += n;
    q->n.bytes_sent += out->len;
    g_string_truncate(q->in, 0);
    while (got < n) {
        struct pollfd p = {
            .fd = q->fd,
            .events = POLLIN | (sent < out->len ? POLLOUT : 0),
        };
        int r = poll(&p, 1, q->timeout_ms);

        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            g_autofree char *cmd = cmd_text(q, got);

            if (r == 0) {
                set_died(q, errp, "no answer in time");
            } else {
                g_set_error(errp, G_IO_ERROR, g_io_error_from_errno(errno),
                            "qtest: poll: %s", g_strerror(errno));
            }
            g_prefix_error(errp, "while waiting on '%s': ", cmd);
            return false;
        }
        if (p.revents & POLLOUT) {
            ssize_t w = send(q->fd, out->str + sent, out->len - sent,
                             MSG_DONTWAIT | MSG_NOSIGNAL);

            if (w > 0) {
                sent += w;
            } else if (w < 0 && errno != EAGAIN && errno != EINTR) {
                set_died(q, errp, "send");
                return false;
            }
        }
        if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
            size_t at = q->in->len;
            /*
             * Once everything is sent, wait in recv() for as many bytes as
             * the answers still due take at least ("OK\n" each): QEMU
             * writes every answer on its own, and waking up for each would
             * cost more than QEMU's work.
             */
            size_t held = q->in->len - parsed;    /* of the next answer */
            size_t due = (size_t)(n - got) * 3;
            bool wait = sent == out->len && due > held;
            ssize_t rd;
            char *nl;

            g_string_set_size(q->in, at + QTEST_READ_CHUNK);
            rd = recv(q->fd, q->in->str + at,
                      wait ? MIN(due - held, QTEST_READ_CHUNK)
                           : QTEST_READ_CHUNK,
                      wait ? MSG_WAITALL : MSG_DONTWAIT);
            g_string_set_size(q->in, at + MAX(rd, 0));
            if (rd == 0 || (rd < 0 && errno != EAGAIN && errno != EINTR)) {
                set_died(q, errp, "reading answers");
                return false;
            }
            if (rd < 0) {
                continue;
            }
            q->n.bytes_received += rd;
            while (got < n &&
                   (nl = memchr(q->in->str + parsed, '\n',
                                q->in->len - parsed))) {
                char *line = q->in->str + parsed;

                *nl = 0;
                parsed = nl + 1 - q->in->str;
                if (!strncmp(line, "IRQ ", 4)) {
                    continue;
                }
                if (!take_answer(q, got++, line, errp)) {
                    return false;
                }
            }
            if (parsed == q->in->len) {
                g_string_truncate(q->in, 0);
                parsed = 0;
            }
        }
    }
    g_string_truncate(q->out, 0);
    q->flushed = true;
    return true;
}

uint64_t nvm_qtest_u64(const NvmQtest *q, unsigned i)
{
    g_assert(q->flushed && i < q->sinks->len);
    return g_array_index(q->sinks, Sink, i).value;
}

bool nvm_qtest_cmd(NvmQtest *q, uint64_t *value, GError **errp,
                   const char *fmt, ...)
{
    va_list ap;
    unsigned i;

    new_sink(q);
    va_start(ap, fmt);
    g_string_append_vprintf(q->out, fmt, ap);
    va_end(ap);
    g_string_append_c(q->out, '\n');
    i = q->sinks->len - 1;
    if (!nvm_qtest_flush(q, errp)) {
        return false;
    }
    if (value) {
        *value = nvm_qtest_u64(q, i);
    }
    return true;
}

bool nvm_qtest_read(NvmQtest *q, uint64_t addr, void *buf, size_t len,
                    GError **errp)
{
    nvm_qtest_queue_b64read(q, addr, buf, len);
    return nvm_qtest_flush(q, errp);
}

bool nvm_qtest_write(NvmQtest *q, uint64_t addr, const void *buf,
                     size_t len, GError **errp)
{
    nvm_qtest_queue_b64write(q, addr, buf, len);
    return nvm_qtest_flush(q, errp);
}

JsonNode *nvm_qtest_qmp(NvmQtest *q, const char *cmd, const char *args,
                        GError **errp)
{
    return nvm_qmp_exec(q->qmp, cmd, args, q->timeout_ms, errp);
}

void nvm_qtest_counters(const NvmQtest *q, NvmQtestCounters *c)
{
    *c = q->n;
}
