/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The parts of libvirt/ (spec.c, xml.c, cli.c, conn.c, volumes.c, domain.c)
 * and what they share: a domain run through libvirt's C API, its console
 * channels and uploaded volumes.  Internal; lv.h is the public face.
 */
#ifndef NVMIMIC_LV_INT_H
#define NVMIMIC_LV_INT_H

#include <libvirt/libvirt.h>
#include <libvirt/libvirt-qemu.h>
#include <libvirt/virterror.h>

#include "lv.h"
#include "nvmimic-model.h"

#define QEMU_NS "http://libvirt.org/schemas/domain/qemu/1.0"
/* Far above the slots libvirt fills with pcie-root-ports (8 per slot). */
#define NVM_LV_NVME_PCI_SLOT "0x10"
#define LV_ERR NVM_LV_ERROR

/*
 * The libvirt host may be another machine (qemu+ssh://HOST/system), so
 * nothing below assumes a file system shared with it: the files the domain
 * names go up as storage volumes (virStorageVolUpload), the writable disk
 * comes back with virStorageVolDownload, and both serial ports are ptys read
 * through the connection (virDomainOpenConsole).  The console streams are
 * non-blocking and event driven: libvirt's default event loop runs in a
 * thread of its own, which also keeps the connection alive (keepalive), so
 * a host that drops off is noticed.
 */

/* One serial port read through the connection into @sink: a file (the
 * console log) or a socket whose other end is a NvmLineSock (the control
 * channel; lines to the guest go straight to the stream, chan_send()). */
typedef struct LvChan {
    gint refs;
    GMutex lock;
    virStreamPtr st;
    int sink;                   /* -1 once the stream has ended */
    bool sink_sock;
    char *dev;                  /* serial0, serial1 */
} LvChan;

/* A file uploaded to the host. */
typedef struct LvVol {
    char *local;
    char *path;                 /* on the host */
    virStorageVolPtr vol;
} LvVol;

struct NvmLvGuest {
    char *uri;
    char *name;
    virConnectPtr conn;
    virDomainPtr dom;
    char *xml;
    virStoragePoolPtr pool;
    bool own_pool;              /* made for this run: removed at the end */
    GPtrArray *vols;            /* LvVol * */
    LvChan *console, *ctl;
    NvmLineSock *ctl_line;      /* until nvm_lv_guest_ctl() hands it out */
};

/* spec.c */
void lv_disk_free(gpointer p);
bool lv_is_qcow2(const char *path);
bool lv_one_of(const char *v, const char *const *list);

/* conn.c */
const char *lv_msg(void);
int lv_code(NvmLvGuest *g, char **msg);
void lv_init(void);
void lv_chan_unref(gpointer p);
bool lv_chan_send(void *opaque, const char *buf, size_t len,
                  GError **errp);
LvChan *lv_chan_open(NvmLvGuest *g, const char *dev, int sink,
                     bool sink_sock, GError **err);
void lv_chan_close(LvChan *c);
bool lv_chan_ended(LvChan *c);

/* volumes.c */
void lv_vol_free(gpointer p);
bool lv_pool_setup(NvmLvGuest *g, const NvmLvSpec *s, GError **err);
LvVol *lv_vol_upload(NvmLvGuest *g, const char *local, bool writable,
                     GError **err);

#endif
