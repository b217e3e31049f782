/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Files as storage volumes on the libvirt host: a pool (the run's own or
 * --pool), uploads that keep sparse files sparse, and the writable results
 * disk downloaded back at the end.
 */
#define _GNU_SOURCE             /* SEEK_DATA, SEEK_HOLE */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lv-int.h"

void lv_vol_free(gpointer p)
{
    LvVol *v = p;

    if (v->vol) {
        virStorageVolDelete(v->vol, 0);
        virStorageVolFree(v->vol);
    }
    g_free(v->local);
    g_free(v->path);
    g_free(v);
}

/* The pool the volumes go in: s->pool, or a dir pool of the run's own
 * (defined rather than transient, so that virStoragePoolDelete can remove
 * its directory at the end). */
bool lv_pool_setup(NvmLvGuest *g, const NvmLvSpec *s, GError **err)
{
    g_autofree char *m = NULL;
    g_autofree char *xml = NULL;
    g_autofree char *target = NULL;
    int code;

    if (s->pool) {
        g->pool = virStoragePoolLookupByName(g->conn, s->pool);
        if (!g->pool) {
            lv_code(g, &m);
            /* another host may have it: retryable */
            g_set_error(err, LV_ERR, NVM_LV_ERROR_HOST, "libvirt host %s has "
                        "no storage pool %s (virsh pool-list --all there, or "
                        "leave --pool out): %s", g->uri, s->pool, m);
            return false;
        }
        if (virStoragePoolIsActive(g->pool) != 1) {
            g_set_error(err, LV_ERR, NVM_LV_ERROR_HOST, "storage pool %s on "
                        "%s is not active (virsh pool-start %s)", s->pool,
                        g->uri, s->pool);
            return false;
        }
        return true;
    }
    target = g_strdup_printf("%s/%s", NVM_LV_POOL_ROOT, g->name);
    xml = g_strdup_printf("<pool type='dir'><name>%s</name><target><path>%s"
                          "</path><permissions><mode>0755</mode>"
                          "</permissions></target></pool>", g->name, target);
    g->pool = virStoragePoolDefineXML(g->conn, xml, 0);
    if (!g->pool) {
        code = lv_code(g, &m);
        g_set_error(err, LV_ERR, code, "libvirt %s: cannot define storage "
                    "pool %s at %s (or name one with --pool NAME): %s",
                    g->uri, g->name, target, m);
        return false;
    }
    g->own_pool = true;
    if (virStoragePoolBuild(g->pool, 0) < 0 ||
        virStoragePoolCreate(g->pool, 0) < 0) {
        code = lv_code(g, &m);
        g_set_error(err, LV_ERR, code, "libvirt %s: cannot create storage "
                    "pool %s at %s (or name one with --pool NAME): %s",
                    g->uri, g->name, target, m);
        return false;
    }
    return true;
}

typedef struct LvFile {
    int fd;
    off_t size;
} LvFile;

static int up_data(virStreamPtr st, char *buf, size_t n, void *opaque)
{
    LvFile *f = opaque;
    ssize_t r;

    (void)st;
    do {
        r = read(f->fd, buf, n);
    } while (r < 0 && errno == EINTR);
    return r;
}

/* Where the file is: in data or in a hole, and for how long. */
static int up_in_data(virStreamPtr st, int *in_data, long long *len,
                      void *opaque)
{
    LvFile *f = opaque;
    off_t cur = lseek(f->fd, 0, SEEK_CUR), data, hole;

    (void)st;
    if (cur < 0) {
        return -1;
    }
    if (cur >= f->size) {
        *in_data = 0;
        *len = 0;
        return 0;
    }
    data = lseek(f->fd, cur, SEEK_DATA);
    if (data < 0 && errno != ENXIO) {
        /* no SEEK_DATA here: all data */
        *in_data = 1;
        *len = f->size - cur;
    } else if (data < 0 || data > cur) {
        *in_data = 0;
        *len = (data < 0 ? f->size : data) - cur;
    } else {
        hole = lseek(f->fd, cur, SEEK_HOLE);
        *in_data = 1;
        *len = (hole < 0 ? f->size : hole) - cur;
    }
    return lseek(f->fd, cur, SEEK_SET) < 0 ? -1 : 0;
}

static int up_skip(virStreamPtr st, long long len, void *opaque)
{
    LvFile *f = opaque;

    (void)st;
    return lseek(f->fd, len, SEEK_CUR) < 0 ? -1 : 0;
}

static int down_data(virStreamPtr st, const char *buf, size_t n, void *opaque)
{
    LvFile *f = opaque;
    size_t done = 0;

    (void)st;
    while (done < n) {
        ssize_t w = write(f->fd, buf + done, n - done);

        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            return -1;
        }
        done += w;
    }
    return n;
}

static int down_hole(virStreamPtr st, long long len, void *opaque)
{
    LvFile *f = opaque;

    (void)st;
    return lseek(f->fd, len, SEEK_CUR) < 0 ? -1 : 0;
}

/* Upload @local into a new volume of the pool (mode 0644; 0666 when the
 * guest writes it), sparse. */
LvVol *lv_vol_upload(NvmLvGuest *g, const char *local, bool writable,
                     GError **err)
{
    g_autofree char *base = g_path_get_basename(local);
    g_autofree char *vname = NULL;
    g_autofree char *ename = NULL;
    g_autofree char *xml = NULL;
    g_autofree char *m = NULL;
    virStreamPtr st = NULL;
    LvFile f = { .fd = -1 };
    struct stat sb;
    LvVol *v;
    int code;

    /* in a shared pool, the domain's name keeps runs apart */
    vname = g->own_pool ? g_strdup(base)
                        : g_strdup_printf("%s-%s", g->name, base);
    for (unsigned i = 0; i < g->vols->len; i++) {
        LvVol *o = g_ptr_array_index(g->vols, i);
        g_autofree char *used = g_path_get_basename(o->path);

        if (!strcmp(used, vname)) {
            char *n = g_strdup_printf("%u-%s", i, vname);

            g_free(vname);
            vname = n;
        }
    }
    f.fd = open(local, O_RDONLY | O_CLOEXEC);
    if (f.fd < 0 || fstat(f.fd, &sb) < 0) {
        g_set_error(err, LV_ERR, 0, "%s: %s", local, g_strerror(errno));
        if (f.fd >= 0) {
            close(f.fd);
        }
        return NULL;
    }
    f.size = sb.st_size;
    ename = g_markup_escape_text(vname, -1);
    xml = g_strdup_printf("<volume><name>%s</name><capacity unit='bytes'>%"
                          G_GUINT64_FORMAT "</capacity><allocation "
                          "unit='bytes'>0</allocation><target><format "
                          "type='raw'/><permissions><mode>%s</mode>"
                          "</permissions></target></volume>", ename,
                          (guint64)MAX(f.size, 1), writable ? "0666" : "0644");
    v = g_new0(LvVol, 1);
    v->local = g_strdup(local);
    v->vol = virStorageVolCreateXML(g->pool, xml, 0);
    v->path = v->vol ? virStorageVolGetPath(v->vol) : NULL;
    if (!v->path) {
        code = lv_code(g, &m);
        g_set_error(err, LV_ERR, code, "libvirt %s: cannot create volume %s "
                    "for %s: %s", g->uri, vname, local, m);
        goto fail;
    }
    g_ptr_array_add(g->vols, v);    /* deleted with g from here on */
    st = virStreamNew(g->conn, 0);
    if (!st ||
        virStorageVolUpload(v->vol, st, 0, f.size,
                            VIR_STORAGE_VOL_UPLOAD_SPARSE_STREAM) < 0 ||
        virStreamSparseSendAll(st, up_data, up_in_data, up_skip, &f) < 0 ||
        virStreamFinish(st) < 0) {
        code = lv_code(g, &m);
        g_set_error(err, LV_ERR, code, "libvirt %s: uploading %s to %s "
                    "failed: %s", g->uri, local, v->path, m);
        if (st) {
            virStreamAbort(st);
            virStreamFree(st);
        }
        close(f.fd);
        return NULL;
    }
    virStreamFree(st);
    close(f.fd);
    return v;

fail:
    close(f.fd);
    lv_vol_free(v);
    return NULL;
}

bool nvm_lv_guest_download(NvmLvGuest *g, const char *local, GError **err)
{
    LvVol *v = NULL;
    LvFile f;
    virStreamPtr st;
    g_autofree char *m = NULL;
    off_t end;
    int code;

    for (unsigned i = 0; g->vols && i < g->vols->len; i++) {
        LvVol *o = g_ptr_array_index(g->vols, i);

        if (!strcmp(o->local, local)) {
            v = o;
        }
    }
    if (!v) {
        g_set_error(err, LV_ERR, 0, "%s was not uploaded to %s", local,
                    g->uri);
        return false;
    }
    f.fd = open(local, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (f.fd < 0) {
        g_set_error(err, LV_ERR, 0, "%s: %s", local, g_strerror(errno));
        return false;
    }
    st = virStreamNew(g->conn, 0);
    if (!st ||
        virStorageVolDownload(v->vol, st, 0, 0,
                              VIR_STORAGE_VOL_DOWNLOAD_SPARSE_STREAM) < 0 ||
        virStreamSparseRecvAll(st, down_data, down_hole, &f) < 0 ||
        virStreamFinish(st) < 0) {
        code = lv_code(g, &m);
        g_set_error(err, LV_ERR, code, "libvirt %s: downloading %s into %s "
                    "failed: %s", g->uri, v->path, local, m);
        if (st) {
            virStreamAbort(st);
            virStreamFree(st);
        }
        close(f.fd);
        return false;
    }
    virStreamFree(st);
    /* a trailing hole: the file still has the volume's size */
    end = lseek(f.fd, 0, SEEK_CUR);
    if (end < 0 || ftruncate(f.fd, end) < 0) {
        g_set_error(err, LV_ERR, 0, "%s: %s", local, g_strerror(errno));
        close(f.fd);
        return false;
    }
    close(f.fd);
    return true;
}
