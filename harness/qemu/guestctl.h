/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Line-oriented client of a unix stream socket: the guest agent's serial
 * port (a QEMU socket chardev, or a libvirt console stream fed into a socket
 * pair) and the transport under the QMP client; or a reader of a file that
 * grows (the agent's serial port as a QEMU file chardev).
 */
#ifndef NVMIMIC_GUESTCTL_H
#define NVMIMIC_GUESTCTL_H

#include <stdbool.h>

#include <glib.h>

typedef struct NvmLineSock NvmLineSock;

/* Connect to @path, retrying until @timeout_ms has passed. */
NvmLineSock *nvm_line_connect(const char *path, int timeout_ms,
                              GError **errp);
/*
 * A line channel on the connected stream socket @fd (taken over), which
 * someone else feeds with the peer's bytes.  Lines are written with @send
 * when given (e.g. to a libvirt stream), else to @fd; @release(@opaque) runs
 * in nvm_line_close() after @fd is closed.
 */
typedef bool (*NvmLineSendFn)(void *opaque, const char *buf, size_t len,
                              GError **errp);
NvmLineSock *nvm_line_new_fd(int fd, NvmLineSendFn send,
                             GDestroyNotify release, void *opaque);
/*
 * Lines appended to the file @path (created if missing) by someone else,
 * e.g. QEMU's file chardev: the guest's writes never wait for us.  Read
 * only; nvm_line_read() never reports EOF on it.
 */
NvmLineSock *nvm_line_open_file(const char *path, GError **errp);
void nvm_line_close(NvmLineSock *s);
bool nvm_line_send(NvmLineSock *s, const char *line, GError **errp);

typedef enum {
    NVM_LINE_OK,
    NVM_LINE_TIMEOUT,       /* nothing complete within the time given */
    NVM_LINE_EOF,           /* the peer closed the socket */
    NVM_LINE_ERROR,
    NVM_LINE_INTR,          /* a signal arrived (the caller checks why) */
} NvmLineStatus;

/* Read one line (without its \r\n) into *line (g_free it), waiting up to
 * @timeout_ms (0: only what is buffered or ready now). */
NvmLineStatus nvm_line_read(NvmLineSock *s, int timeout_ms, char **line);

#endif
