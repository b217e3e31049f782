/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The connection to a libvirt host (nvmimic run --connect): URIs, libvirt's
 * errors in our words, its event loop in a thread of its own, and the
 * serial ports read through the connection (virDomainOpenConsole).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lv-int.h"

/* libvirt prints every error on stderr by default; nvmimic words its own. */
static void lv_quiet(void *opaque, virErrorPtr e)
{
    (void)opaque;
    (void)e;
}

const char *lv_msg(void)
{
    const char *m = virGetLastErrorMessage();

    return m && *m ? m : "unknown libvirt error";
}

static const char *const transports[] = {
    "", "+unix", "+ssh", "+libssh", "+libssh2", "+tcp", "+tls", "+ext", NULL
};

bool nvm_lv_uri_valid(const char *uri, GError **err)
{
    const char *sep = uri ? strstr(uri, "://") : NULL;
    g_autofree char *scheme = sep ? g_strndup(uri, sep - uri) : NULL;
    const char *path;
    size_t plen;

    if (!uri || !*uri) {
        g_set_error(err, LV_ERR, 0, "empty libvirt URI");
        return false;
    }
    if (!sep) {
        g_set_error(err, LV_ERR, 0, "'%s' is not a libvirt URI "
                    "(qemu:///system, qemu+ssh://HOST/system, ...)", uri);
        return false;
    }
    if (!g_str_has_prefix(scheme, "qemu") ||
        !lv_one_of(scheme + 4, transports)) {
        g_set_error(err, LV_ERR, 0, "unknown URI scheme '%s' in '%s' "
                    "(nvmimic needs libvirt's QEMU driver: qemu, qemu+ssh, "
                    "qemu+libssh, qemu+libssh2, qemu+unix, qemu+tcp, "
                    "qemu+tls, qemu+ext)", scheme, uri);
        return false;
    }
    path = strchr(sep + 3, '/');
    plen = path ? strcspn(path, "?#") : 0;
    if (!path || !((plen == 7 && !strncmp(path, "/system", 7)) ||
                   (plen == 8 && !strncmp(path, "/session", 8)))) {
        g_set_error(err, LV_ERR, 0, "libvirt URI '%s' names no /system or "
                    "/session path", uri);
        return false;
    }
    return true;
}

/* After a failed call: the host is gone (retry elsewhere) or it refused.
 * Sets *msg to libvirt's message first (the next call resets it).  A call
 * on a domain destroyed from outside fails "domain is not running"
 * (VIR_ERR_OPERATION_INVALID, the domain stays defined): the host's doing
 * as well, like nvm_lv_guest_running says when it looks first. */
int lv_code(NvmLvGuest *g, char **msg)
{
    virErrorPtr e = virGetLastError();
    bool gone = e && e->code == VIR_ERR_NO_DOMAIN;
    int state, reason;

    *msg = g_strdup(lv_msg());
    if (gone || (g->conn && virConnectIsAlive(g->conn) != 1)) {
        return NVM_LV_ERROR_HOST;
    }
    if (g->dom && virDomainGetState(g->dom, &state, &reason, 0) == 0 &&
        state == VIR_DOMAIN_SHUTOFF &&
        reason == VIR_DOMAIN_SHUTOFF_DESTROYED) {
        return NVM_LV_ERROR_HOST;
    }
    return NVM_LV_ERROR_FAILED;
}

static gpointer lv_event_loop(gpointer opaque)
{
    (void)opaque;
    for (;;) {
        if (virEventRunDefaultImpl() < 0) {
            g_usleep(100 * 1000);
        }
    }
    return NULL;
}

/* Once, before the first connection: libvirt's event loop in a thread that
 * takes no signals (Ctrl-C stays with the main thread, whose poll() it
 * interrupts). */
void lv_init(void)
{
    static gsize done;

    if (g_once_init_enter(&done)) {
        sigset_t all, old;

        virSetErrorFunc(NULL, lv_quiet);
        virEventRegisterDefaultImpl();
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, &old);
        g_thread_unref(g_thread_new("nvmimic-libvirt", lv_event_loop, NULL));
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        g_once_init_leave(&done, 1);
    }
}

void lv_chan_unref(gpointer p)
{
    LvChan *c = p;

    if (!c || !g_atomic_int_dec_and_test(&c->refs)) {
        return;
    }
    if (c->sink >= 0) {
        close(c->sink);
    }
    if (c->st) {
        virStreamFree(c->st);
    }
    g_mutex_clear(&c->lock);
    g_free(c->dev);
    g_free(c);
}

/* The stream is done (@eof: cleanly); the sink's reader sees EOF.  With
 * c->lock held. */
static void chan_end(LvChan *c, bool eof)
{
    if (c->sink < 0) {
        return;
    }
    virStreamEventRemoveCallback(c->st);
    if (eof) {
        virStreamFinish(c->st);
    } else {
        virStreamAbort(c->st);
    }
    close(c->sink);
    c->sink = -1;
}

static void chan_put(LvChan *c, const char *buf, size_t len)
{
    while (len) {
        ssize_t n = c->sink_sock ? send(c->sink, buf, len, MSG_NOSIGNAL)
                                 : write(c->sink, buf, len);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return;             /* nobody reads any more: drop it */
        }
        buf += n;
        len -= n;
    }
}

/* In the event loop's thread. */
static void chan_event(virStreamPtr st, int events, void *opaque)
{
    LvChan *c = opaque;
    char buf[16384];

    g_mutex_lock(&c->lock);
    while (c->sink >= 0 && (events & VIR_STREAM_EVENT_READABLE)) {
        int n = virStreamRecv(st, buf, sizeof(buf));

        if (n > 0) {
            chan_put(c, buf, n);
            continue;
        }
        if (n != -2) {
            chan_end(c, n == 0);
        }
        break;
    }
    if (events & (VIR_STREAM_EVENT_ERROR | VIR_STREAM_EVENT_HANGUP)) {
        chan_end(c, false);
    }
    g_mutex_unlock(&c->lock);
}

/* NvmLineSock's send: a line to the guest, straight into the stream. */
bool lv_chan_send(void *opaque, const char *buf, size_t len,
                  GError **errp)
{
    LvChan *c = opaque;
    gint64 deadline = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;
    bool ok = false;

    g_mutex_lock(&c->lock);
    for (;;) {
        int n;

        if (!len) {
            ok = true;
            break;
        }
        if (c->sink < 0) {
            g_set_error(errp, LV_ERR, 0, "the guest's serial port %s is "
                        "closed (the domain stopped or the host dropped)",
                        c->dev);
            break;
        }
        n = virStreamSend(c->st, buf, len);
        if (n > 0) {
            buf += n;
            len -= n;
        } else if (n == -2 && g_get_monotonic_time() < deadline) {
            g_mutex_unlock(&c->lock);
            g_usleep(10 * 1000);
            g_mutex_lock(&c->lock);
        } else {
            g_set_error(errp, LV_ERR, 0, "sending to the guest's serial "
                        "port %s failed: %s", c->dev,
                        n == -2 ? "no room for 10 s" : lv_msg());
            break;
        }
    }
    g_mutex_unlock(&c->lock);
    return ok;
}

/* Open serial port @dev (a pty) of the domain into @sink (taken over). */
LvChan *lv_chan_open(NvmLvGuest *g, const char *dev, int sink,
                     bool sink_sock, GError **err)
{
    virStreamPtr st = virStreamNew(g->conn, VIR_STREAM_NONBLOCK);
    LvChan *c;

    if (!st || virDomainOpenConsole(g->dom, dev, st,
                                    VIR_DOMAIN_CONSOLE_FORCE) < 0) {
        g_autofree char *m = NULL;
        int code = lv_code(g, &m);

        g_set_error(err, LV_ERR, code, "libvirt %s: cannot open serial port "
                    "%s of domain %s: %s", g->uri, dev, g->name, m);
        if (st) {
            virStreamFree(st);
        }
        close(sink);
        return NULL;
    }
    c = g_new0(LvChan, 1);
    c->refs = 2;                /* g's and the stream callback's */
    g_mutex_init(&c->lock);
    c->st = st;
    c->sink = sink;
    c->sink_sock = sink_sock;
    c->dev = g_strdup(dev);
    if (virStreamEventAddCallback(st, VIR_STREAM_EVENT_READABLE |
                                  VIR_STREAM_EVENT_ERROR |
                                  VIR_STREAM_EVENT_HANGUP, chan_event, c,
                                  lv_chan_unref) < 0) {
        g_set_error(err, LV_ERR, 0, "libvirt %s: cannot watch serial port "
                    "%s: %s", g->uri, dev, lv_msg());
        virStreamAbort(st);
        c->refs = 1;
        lv_chan_unref(c);
        return NULL;
    }
    return c;
}

void lv_chan_close(LvChan *c)
{
    if (!c) {
        return;
    }
    g_mutex_lock(&c->lock);
    chan_end(c, false);
    g_mutex_unlock(&c->lock);
    lv_chan_unref(c);
}

bool lv_chan_ended(LvChan *c)
{
    bool ended;

    g_mutex_lock(&c->lock);
    ended = c->sink < 0;
    g_mutex_unlock(&c->lock);
    return ended;
}
