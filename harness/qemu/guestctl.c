/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Line-oriented unix socket client with timeouts (poll), used for the guest
 * agent's control port and for QMP; and the same reader on a growing file.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "guestctl.h"

struct NvmLineSock {
    int fd;
    GString *buf;
    bool eof;
    bool file;                  /* a regular file that grows: no poll() */
    NvmLineSendFn send;         /* NULL: send() on fd */
    GDestroyNotify release;
    void *opaque;
};

NvmLineSock *nvm_line_new_fd(int fd, NvmLineSendFn send,
                             GDestroyNotify release, void *opaque)
{
    NvmLineSock *s = g_new0(NvmLineSock, 1);

    s->fd = fd;
    s->buf = g_string_new(NULL);
    s->send = send;
    s->release = release;
    s->opaque = opaque;
    return s;
}

NvmLineSock *nvm_line_connect(const char *path, int timeout_ms, GError **errp)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
    int err = 0;

    if (strlen(path) >= sizeof(sa.sun_path)) {
        g_set_error(errp, G_FILE_ERROR, G_FILE_ERROR_NAMETOOLONG,
                    "socket path '%s' is too long", path);
        return NULL;
    }
    strcpy(sa.sun_path, path);
    for (;;) {
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

        if (fd < 0) {
            err = errno;
            break;
        }
        if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
            return nvm_line_new_fd(fd, NULL, NULL, NULL);
        }
        err = errno;
        close(fd);
        if (g_get_monotonic_time() >= deadline ||
            (err != ENOENT && err != ECONNREFUSED)) {
            break;
        }
        g_usleep(50 * 1000);
    }
    g_set_error(errp, G_FILE_ERROR, g_file_error_from_errno(err),
                "cannot connect to %s: %s", path, g_strerror(err));
    return NULL;
}

NvmLineSock *nvm_line_open_file(const char *path, GError **errp)
{
    int fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0600);
    NvmLineSock *s;

    if (fd < 0) {
        g_set_error(errp, G_FILE_ERROR, g_file_error_from_errno(errno),
                    "cannot open %s: %s", path, g_strerror(errno));
        return NULL;
    }
    s = nvm_line_new_fd(fd, NULL, NULL, NULL);
    s->file = true;
    return s;
}

void nvm_line_close(NvmLineSock *s)
{
    if (!s) {
        return;
    }
    close(s->fd);
    if (s->release) {
        s->release(s->opaque);
    }
    g_string_free(s->buf, TRUE);
    g_free(s);
}

bool nvm_line_send(NvmLineSock *s, const char *line, GError **errp)
{
    g_autofree char *msg = g_strconcat(line, "\n", NULL);
    size_t len = strlen(msg), off = 0;

    if (s->send) {
        return s->send(s->opaque, msg, len, errp);
    }
    if (s->file) {
        g_set_error(errp, G_FILE_ERROR, G_FILE_ERROR_BADF,
                    "the channel is a file: nothing can be sent");
        return false;
    }
    while (off < len) {
        ssize_t n = send(s->fd, msg + off, len - off, MSG_NOSIGNAL);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            g_set_error(errp, G_FILE_ERROR, g_file_error_from_errno(errno),
                        "send failed: %s", g_strerror(errno));
            return false;
        }
        off += n;
    }
    return true;
}

static bool take_line(NvmLineSock *s, char **line)
{
    char *nl = memchr(s->buf->str, '\n', s->buf->len);
    size_t n;

    if (!nl) {
        return false;
    }
    n = nl - s->buf->str;
    *line = g_strndup(s->buf->str, n);
    g_string_erase(s->buf, 0, n + 1);
    g_strchomp(*line);          /* the guest tty may add \r */
    return true;
}

NvmLineStatus nvm_line_read(NvmLineSock *s, int timeout_ms, char **line)
{
    gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;

    *line = NULL;
    for (;;) {
        struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
        char chunk[65536];
        gint64 left;
        ssize_t n;
        int rc;

        if (take_line(s, line)) {
            return NVM_LINE_OK;
        }
        if (s->eof) {
            return NVM_LINE_EOF;
        }
        left = (deadline - g_get_monotonic_time()) / 1000;
        if (s->file) {
            n = read(s->fd, chunk, sizeof(chunk));
            if (n < 0) {
                return errno == EINTR ? NVM_LINE_INTR : NVM_LINE_ERROR;
            }
            if (n > 0) {
                g_string_append_len(s->buf, chunk, n);
                continue;
            }
            if (left <= 0) {
                return NVM_LINE_TIMEOUT;
            }
            /* nothing new: look again shortly (a file cannot be polled) */
            g_usleep(MIN(left, 20) * 1000);
            continue;
        }
        rc = poll(&pfd, 1, left > 0 ? (int)left : 0);
        if (rc < 0) {
            return errno == EINTR ? NVM_LINE_INTR : NVM_LINE_ERROR;
        }
        if (rc == 0) {
            return NVM_LINE_TIMEOUT;
        }
        n = recv(s->fd, chunk, sizeof(chunk), 0);
        if (n < 0) {
            if (errno == EINTR) {
                return NVM_LINE_INTR;
            }
            return NVM_LINE_ERROR;
        }
        if (n == 0) {
            s->eof = true;
            if (s->buf->len) {
                g_string_append_c(s->buf, '\n');
            }
            continue;
        }
        g_string_append_len(s->buf, chunk, n);
    }
}
