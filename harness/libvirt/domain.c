/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A domain through libvirt's C API (nvmimic run --connect): define and
 * start it with its files uploaded and its serial ports opened, QMP through
 * virDomainQemuMonitorCommand, its state, and its removal.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lv-int.h"
#include "json-load.h"

/* Upload every file of @s; the spec with their paths on the host. */
static NvmLvSpec *upload_files(NvmLvGuest *g, const NvmLvSpec *s,
                               GError **err)
{
    g_autoptr(GPtrArray) files = nvm_lv_spec_local_files(s);
    g_autoptr(GHashTable) paths = g_hash_table_new(g_str_hash, g_str_equal);

    if (!lv_pool_setup(g, s, err)) {
        return NULL;
    }
    for (unsigned i = 0; i < files->len; i++) {
        const char *f = g_ptr_array_index(files, i);
        /* the drive under test and the boot disk are the run's own
         * copies: the guest writes them */
        bool writable = !g_strcmp0(s->disk, f) || !g_strcmp0(s->boot_disk, f);
        LvVol *v;

        if (g_hash_table_contains(paths, f)) {
            continue;
        }
        for (unsigned j = 0; j < s->disks->len; j++) {
            NvmLvDisk *d = g_ptr_array_index(s->disks, j);

            writable |= !strcmp(d->file, f) && !d->readonly && !d->cdrom;
        }
        v = lv_vol_upload(g, f, writable, err);
        if (!v) {
            return NULL;
        }
        g_hash_table_insert(paths, v->local, v->path);
    }
    return nvm_lv_spec_for_host(s, paths, err);
}

/* The serial ports through the connection: serial0 into s->serial_log,
 * serial1 as the control channel. */
static bool open_serials(NvmLvGuest *g, const NvmLvSpec *s, GError **err)
{
    if (s->upload && s->serial_log) {
        int fd = open(s->serial_log, O_WRONLY | O_CREAT | O_TRUNC |
                      O_CLOEXEC, 0644);

        if (fd < 0) {
            g_set_error(err, LV_ERR, 0, "%s: %s", s->serial_log,
                        g_strerror(errno));
            return false;
        }
        g->console = lv_chan_open(g, "serial0", fd, false, err);
        if (!g->console) {
            return false;
        }
    }
    if (s->ctl_serial) {
        int sv[2], big = 1 << 20;

        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
            g_set_error(err, LV_ERR, 0, "socketpair: %s", g_strerror(errno));
            return false;
        }
        /* the event thread never waits for a slow reader */
        setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
        setsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
        g->ctl = lv_chan_open(g, "serial1", sv[1], true, err);
        if (!g->ctl) {
            close(sv[0]);
            return false;
        }
        g_atomic_int_inc(&g->ctl->refs);
        g->ctl_line = nvm_line_new_fd(sv[0], lv_chan_send, lv_chan_unref,
                                      g->ctl);
    }
    return true;
}

NvmLvGuest *nvm_lv_guest_start(const char *uri, const NvmLvSpec *s,
                               GError **err)
{
    NvmLvGuest *g = g_new0(NvmLvGuest, 1);
    g_autoptr(NvmLvSpec) hs = NULL;
    bool serials = s->ctl_serial || (s->upload && s->serial_log);
    char *caps;

    lv_init();
    g->uri = g_strdup(uri);
    g->name = g_strdup(s->name);
    g->vols = g_ptr_array_new_with_free_func(lv_vol_free);
    g->conn = virConnectOpen(uri);
    if (!g->conn) {
        g_set_error(err, LV_ERR, NVM_LV_ERROR_HOST, "cannot reach libvirt at "
                    "%s: %s", uri, lv_msg());
        goto fail;
    }
    /* a host that stops answering is dropped after ~20 s (event loop) */
    virConnectSetKeepAlive(g->conn, 5, 3);
    /* the host's own answer to "is our QEMU there, and usable" */
    caps = virConnectGetDomainCapabilities(g->conn, s->qemu, "x86_64", "q35",
                                           s->domain_type, 0);
    if (!caps) {
        g_autofree char *m = NULL;

        lv_code(g, &m);
        /* another host may have it: retryable */
        g_set_error(err, LV_ERR, NVM_LV_ERROR_HOST, "libvirt host %s has no "
                    "usable QEMU at %s for domain type %s (install nvmimic's "
                    "QEMU there at that path, or pass --qemu PATH): %s", uri,
                    s->qemu, s->domain_type, m);
        goto fail;
    }
    free(caps);
    if (s->upload) {
        hs = upload_files(g, s, err);
        if (!hs) {
            goto fail;
        }
    }
    g->xml = nvm_lv_domain_xml(hs ? hs : s);
    g->dom = virDomainDefineXML(g->conn, g->xml);
    if (!g->dom) {
        g_autofree char *m = NULL;
        int code = lv_code(g, &m);

        g_set_error(err, LV_ERR, code, "libvirt %s: defining domain %s "
                    "failed: %s", uri, s->name, m);
        goto fail;
    }
    /* paused until the serial ports are open: nothing is lost */
    if (virDomainCreateWithFlags(g->dom, serials ? VIR_DOMAIN_START_PAUSED
                                                 : 0) < 0) {
        g_autofree char *m = NULL;
        int code = lv_code(g, &m);

        g_set_error(err, LV_ERR, code, "libvirt %s: starting domain %s "
                    "failed: %s", uri, s->name, m);
        goto fail;
    }
    if (serials && !open_serials(g, s, err)) {
        goto fail;
    }
    if (serials && virDomainResume(g->dom) < 0) {
        g_autofree char *m = NULL;
        int code = lv_code(g, &m);

        g_set_error(err, LV_ERR, code, "libvirt %s: resuming domain %s "
                    "failed: %s", uri, s->name, m);
        goto fail;
    }
    return g;

fail:
    nvm_lv_guest_free(g);
    return NULL;
}

const char *nvm_lv_guest_xml(NvmLvGuest *g)
{
    return g->xml;
}

NvmLineSock *nvm_lv_guest_ctl(NvmLvGuest *g, GError **err)
{
    if (!g->ctl_line) {
        g_set_error(err, LV_ERR, 0, "domain %s has no control channel (or "
                    "it was taken)", g->name);
        return NULL;
    }
    return g_steal_pointer(&g->ctl_line);
}

JsonNode *nvm_lv_guest_qmp(NvmLvGuest *g, const char *cmd, const char *args,
                           GError **err)
{
    g_autofree char *msg = args ?
        g_strdup_printf("{\"execute\": \"%s\", \"arguments\": %s}", cmd, args) :
        g_strdup_printf("{\"execute\": \"%s\"}", cmd);
    g_autoptr(JsonParser) parser = json_parser_new();
    char *reply = NULL;
    JsonObject *o;
    JsonNode *ret;
    bool ok;

    if (virDomainQemuMonitorCommand(g->dom, msg, &reply, 0) < 0) {
        g_autofree char *m = NULL;
        int code = lv_code(g, &m);

        g_set_error(err, LV_ERR, code, "QMP %s through libvirt %s: %s%s", cmd,
                    g->uri, code == NVM_LV_ERROR_HOST ? "host dropped: " : "",
                    m);
        return NULL;
    }
    ok = nvm_json_load(parser, reply, -1, NULL);
    free(reply);
    if (!ok || !JSON_NODE_HOLDS_OBJECT(json_parser_get_root(parser))) {
        g_set_error(err, LV_ERR, 0, "QMP %s through libvirt %s: reply is "
                    "not a JSON object", cmd, g->uri);
        return NULL;
    }
    o = json_node_get_object(json_parser_get_root(parser));
    if (json_object_has_member(o, "error")) {
        JsonObject *e = json_object_get_object_member(o, "error");
        const char *desc = e && json_object_has_member(e, "desc") ?
                           json_object_get_string_member(e, "desc") : "?";

        g_set_error(err, LV_ERR, 0, "QMP %s: %s", cmd, desc);
        return NULL;
    }
    ret = json_object_get_member(o, "return");
    return ret ? json_node_copy(ret) : json_node_new(JSON_NODE_NULL);
}

bool nvm_lv_guest_running(NvmLvGuest *g, GError **err)
{
    int state, reason;

    for (int i = 0;; i++) {
        if (virDomainGetState(g->dom, &state, &reason, 0) < 0) {
            g_set_error(err, LV_ERR, NVM_LV_ERROR_HOST, "libvirt host %s "
                        "dropped domain %s: %s", g->uri, g->name, lv_msg());
            return false;
        }
        /* "being shut down" passes: a domain destroyed from outside goes
         * through it on its way to shut off (destroyed), which is retried
         * elsewhere; give it the same 5 s to settle. */
        if (state == VIR_DOMAIN_SHUTDOWN && i < 50) {
            g_usleep(100 * 1000);
            continue;
        }
        if (state != VIR_DOMAIN_RUNNING && state != VIR_DOMAIN_BLOCKED) {
            break;
        }
        /* The control port's stream ends as QEMU dies, a moment before
         * the host marks the domain shut off (destroyed from outside,
         * crashed): give its state up to 5 s to say which. */
        if (!g->ctl || !lv_chan_ended(g->ctl) || i == 50) {
            return true;
        }
        g_usleep(100 * 1000);
    }
    if (state == VIR_DOMAIN_SHUTOFF && reason == VIR_DOMAIN_SHUTOFF_DESTROYED) {
        g_set_error(err, LV_ERR, NVM_LV_ERROR_HOST, "domain %s on %s was "
                    "destroyed from outside nvmimic", g->name, g->uri);
        return false;
    }
    g_set_error(err, LV_ERR, 0, "the guest stopped (libvirt %s: domain %s "
                "state %d, reason %d; see the console log)", g->uri, g->name,
                state, reason);
    return false;
}

bool nvm_lv_guest_wait_off(NvmLvGuest *g, int timeout_ms)
{
    for (int i = 0; i <= timeout_ms / 100; i++) {
        int state, reason;

        if (virDomainGetState(g->dom, &state, &reason, 0) < 0) {
            return false;
        }
        if (state == VIR_DOMAIN_SHUTOFF) {
            /* the console's last lines are still on their way */
            for (int j = 0; j < 50 && g->console && !lv_chan_ended(g->console);
                 j++) {
                g_usleep(100 * 1000);
            }
            return true;
        }
        g_usleep(100 * 1000);
    }
    return false;
}

void nvm_lv_guest_free(NvmLvGuest *g)
{
    if (!g) {
        return;
    }
    lv_chan_close(g->console);
    lv_chan_close(g->ctl);
    nvm_line_close(g->ctl_line);
    if (g->dom) {
        if (virDomainIsActive(g->dom) == 1) {
            virDomainDestroy(g->dom);
        }
        virDomainUndefine(g->dom);
        virDomainFree(g->dom);
    }
    /* after the domain: QEMU no longer holds them */
    g_ptr_array_unref(g->vols);
    if (g->pool) {
        if (g->own_pool) {
            virStoragePoolDestroy(g->pool);
            virStoragePoolDelete(g->pool, 0);   /* its directory */
            virStoragePoolUndefine(g->pool);
        }
        virStoragePoolFree(g->pool);
    }
    if (g->conn) {
        virConnectClose(g->conn);
    }
    g_free(g->xml);
    g_free(g->uri);
    g_free(g->name);
    g_free(g);
}
