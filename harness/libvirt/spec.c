/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A domain's description (NvmLvSpec): made, copied, checked before libvirt
 * sees it (the profile loads, the files exist, the drive is large enough),
 * and rewritten for a host that holds its files as storage volumes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmdline.h"
#include "lv-int.h"
#include "paths.h"

GQuark nvm_lv_error_quark(void)
{
    return g_quark_from_static_string("nvmimic-libvirt-error-quark");
}

void lv_disk_free(gpointer p)
{
    NvmLvDisk *d = p;

    g_free(d->file);
    g_free(d->format);
    g_free(d->serial);
    g_free(d->bus);
    g_free(d);
}

NvmLvSpec *nvm_lv_spec_new(void)
{
    NvmLvSpec *s = g_new0(NvmLvSpec, 1);

    s->disks = g_ptr_array_new_with_free_func(lv_disk_free);
    s->fw_dirs = g_strdupv((char **)nvm_qemu_firmware_dirs);
    s->domain_type = g_strdup("qemu");
    s->disk_format = g_strdup("raw");
    s->device_id = g_strdup("nvm0");
    s->qemu = g_strdup(nvm_path_qemu());
    return s;
}

void nvm_lv_spec_free(NvmLvSpec *s)
{
    if (!s) {
        return;
    }
    g_free(s->name);
    g_free(s->domain_type);
    g_free(s->qemu);
    g_free(s->profile);
    g_free(s->profile_dir);
    g_free(s->disk);
    g_free(s->disk_format);
    g_free(s->device_id);
    g_free(s->kernel);
    g_free(s->initrd);
    g_free(s->append);
    g_free(s->boot_disk);
    g_free(s->boot_bus);
    g_ptr_array_unref(s->disks);
    g_free(s->serial_log);
    g_free(s->net);
    g_free(s->pool);
    g_strfreev(s->fw_dirs);
    g_free(s);
}

static NvmLvDisk *disk_copy(const NvmLvDisk *d)
{
    NvmLvDisk *c = g_new0(NvmLvDisk, 1);

    *c = *d;
    c->file = g_strdup(d->file);
    c->format = g_strdup(d->format);
    c->serial = g_strdup(d->serial);
    c->bus = g_strdup(d->bus);
    return c;
}

static NvmLvSpec *spec_copy(const NvmLvSpec *s)
{
    NvmLvSpec *c = g_new0(NvmLvSpec, 1);

    *c = *s;
    c->name = g_strdup(s->name);
    c->domain_type = g_strdup(s->domain_type);
    c->qemu = g_strdup(s->qemu);
    c->profile = g_strdup(s->profile);
    c->profile_dir = g_strdup(s->profile_dir);
    c->disk = g_strdup(s->disk);
    c->disk_format = g_strdup(s->disk_format);
    c->device_id = g_strdup(s->device_id);
    c->kernel = g_strdup(s->kernel);
    c->initrd = g_strdup(s->initrd);
    c->append = g_strdup(s->append);
    c->boot_disk = g_strdup(s->boot_disk);
    c->boot_bus = g_strdup(s->boot_bus);
    c->disks = g_ptr_array_new_with_free_func(lv_disk_free);
    for (unsigned i = 0; i < s->disks->len; i++) {
        g_ptr_array_add(c->disks, disk_copy(g_ptr_array_index(s->disks, i)));
    }
    c->serial_log = g_strdup(s->serial_log);
    c->net = g_strdup(s->net);
    c->fw_dirs = g_strdupv(s->fw_dirs);
    c->pool = g_strdup(s->pool);
    return c;
}

/* The profile's file here: QEMU on another host cannot look a name up. */
static char *profile_file(const NvmLvSpec *s)
{
    if (strchr(s->profile, '/') || g_str_has_suffix(s->profile, ".ini")) {
        return g_canonicalize_filename(s->profile, NULL);
    }
    return g_strdup_printf("%s/%s.ini", s->profile_dir ? s->profile_dir : ".",
                           s->profile);
}

GPtrArray *nvm_lv_spec_local_files(const NvmLvSpec *s)
{
    GPtrArray *f = g_ptr_array_new_with_free_func(g_free);

    if (s->kernel) {
        g_ptr_array_add(f, g_strdup(s->kernel));
    }
    if (s->initrd) {
        g_ptr_array_add(f, g_strdup(s->initrd));
    }
    g_ptr_array_add(f, profile_file(s));
    if (s->disk) {
        g_ptr_array_add(f, g_strdup(s->disk));
    }
    if (s->boot_disk) {
        g_ptr_array_add(f, g_strdup(s->boot_disk));
    }
    for (unsigned i = 0; i < s->disks->len; i++) {
        g_ptr_array_add(f, g_strdup(((NvmLvDisk *)
                                     g_ptr_array_index(s->disks, i))->file));
    }
    return f;
}

/* *path = its host path, or an error naming it. */
static bool host_path(char **path, GHashTable *host_paths, GError **err)
{
    const char *h = g_hash_table_lookup(host_paths, *path);

    if (!h) {
        g_set_error(err, LV_ERR, 0, "%s has no copy on the libvirt host",
                    *path);
        return false;
    }
    g_free(*path);
    *path = g_strdup(h);
    return true;
}

NvmLvSpec *nvm_lv_spec_for_host(const NvmLvSpec *s, GHashTable *host_paths,
                                GError **err)
{
    g_autoptr(NvmLvSpec) h = spec_copy(s);

    g_free(h->profile);
    h->profile = profile_file(s);
    g_clear_pointer(&h->profile_dir, g_free);
    if ((h->kernel && !host_path(&h->kernel, host_paths, err)) ||
        (h->initrd && !host_path(&h->initrd, host_paths, err)) ||
        (h->disk && !host_path(&h->disk, host_paths, err)) ||
        (h->boot_disk && !host_path(&h->boot_disk, host_paths, err)) ||
        !host_path(&h->profile, host_paths, err)) {
        return NULL;
    }
    for (unsigned i = 0; i < h->disks->len; i++) {
        NvmLvDisk *d = g_ptr_array_index(h->disks, i);

        if (!host_path(&d->file, host_paths, err)) {
            return NULL;
        }
    }
    /* serial0 a pty: nvmimic copies it into s->serial_log itself */
    g_clear_pointer(&h->serial_log, g_free);
    return g_steal_pointer(&h);
}

bool nvm_lv_name_valid(const char *name)
{
    size_t n = name ? strlen(name) : 0;

    if (n == 0 || n > 64 || name[0] == '.' || name[0] == '-') {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (!g_ascii_isalnum(name[i]) && !strchr("._+-", name[i])) {
            return false;
        }
    }
    return true;
}

/* Size a guest sees: a qcow2 file's virtual size, else the file/device size. */
static bool guest_size(const char *path, const char *format, uint64_t *size,
                       GError **err)
{
    unsigned char h[32];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n;
    off_t end;

    if (fd < 0) {
        g_set_error(err, LV_ERR, 0, "%s: %s", path, g_strerror(errno));
        return false;
    }
    n = pread(fd, h, sizeof(h), 0);
    if (format && !strcmp(format, "qcow2")) {
        if (n != sizeof(h) || memcmp(h, "QFI\xfb", 4)) {
            g_set_error(err, LV_ERR, 0, "%s: not a qcow2 image", path);
            close(fd);
            return false;
        }
        *size = 0;
        for (int i = 24; i < 32; i++) {
            *size = *size << 8 | h[i];
        }
        close(fd);
        return true;
    }
    end = lseek(fd, 0, SEEK_END);
    close(fd);
    if (end < 0) {
        g_set_error(err, LV_ERR, 0, "%s: %s", path, g_strerror(errno));
        return false;
    }
    *size = end;
    return true;
}

bool lv_is_qcow2(const char *path)
{
    unsigned char h[4];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    bool r;

    if (fd < 0) {
        return false;
    }
    r = pread(fd, h, 4, 0) == 4 && !memcmp(h, "QFI\xfb", 4);
    close(fd);
    return r;
}

/*
 * *@path made absolute (libvirt starts QEMU in another working directory),
 * and there: a file (not a directory), or with @dir a directory; false
 * with one line naming @what otherwise.
 */
static bool need_path(char **path, const char *what, bool dir, GError **err)
{
    char *abs;
    struct stat st;

    if (!*path || !**path) {
        g_set_error(err, LV_ERR, 0, "%s: no %s given", what,
                    dir ? "directory" : "file");
        return false;
    }
    abs = g_canonicalize_filename(*path, NULL);
    g_free(*path);
    *path = abs;
    if (stat(abs, &st) < 0) {
        g_set_error(err, LV_ERR, 0, "%s '%s' not found: %s", what, abs,
                    g_strerror(errno));
        return false;
    }
    if (!dir && S_ISDIR(st.st_mode)) {
        g_set_error(err, LV_ERR, 0, "%s '%s' is a directory, not a file",
                    what, abs);
        return false;
    }
    if (dir && !S_ISDIR(st.st_mode)) {
        g_set_error(err, LV_ERR, 0, "%s '%s' is not a directory", what, abs);
        return false;
    }
    return true;
}

static bool need_file(char **path, const char *what, GError **err)
{
    return need_path(path, what, false, err);
}

bool lv_one_of(const char *v, const char *const *list)
{
    for (; *list; list++) {
        if (v && !strcmp(v, *list)) {
            return true;
        }
    }
    return false;
}

static const char *const formats[] = { "raw", "qcow2", NULL };

static const char *const buses[] = { "virtio", "sata", "scsi", NULL };

bool nvm_lv_spec_check(NvmLvSpec *s, GError **err)
{
    g_autoptr(GError) e = NULL;
    NvmProfile *p;
    uint64_t size;

    if (!nvm_lv_name_valid(s->name)) {
        g_set_error(err, LV_ERR, 0, "domain name '%s' is not valid: 1-64 "
                    "letters, digits, '.', '_', '+', '-', not starting with "
                    "'.' or '-'", s->name ? s->name : "");
        return false;
    }
    if (strcmp(s->domain_type, "qemu") && strcmp(s->domain_type, "kvm")) {
        g_set_error(err, LV_ERR, 0, "domain type must be qemu (TCG) or kvm, "
                    "not '%s'", s->domain_type);
        return false;
    }
    if (!s->profile) {
        g_set_error(err, LV_ERR, 0, "no profile given (--profile NAME|PATH)");
        return false;
    }
    p = nvm_profile_load(s->profile, s->profile_dir, &e);
    if (!p) {
        g_set_error(err, LV_ERR, 0, "profile %s: %s", s->profile,
                    e->message);
        return false;
    }
    if (strchr(s->profile, '/') || g_str_has_suffix(s->profile, ".ini")) {
        /* QEMU reads the same file, from its own working directory */
        g_free(s->profile);
        s->profile = g_canonicalize_filename(p->path, NULL);
    }
    if (s->profile_dir) {
        char *abs = g_canonicalize_filename(s->profile_dir, NULL);

        g_free(s->profile_dir);
        s->profile_dir = abs;
    }
    if (!lv_one_of(s->disk_format, formats)) {
        g_set_error(err, LV_ERR, 0, "disk format must be raw or qcow2, not "
                    "'%s'", s->disk_format);
        nvm_profile_free(p);
        return false;
    }
    if (s->null_bytes) {
        /* run --connect: a null-co drive, no file */
    } else if (!s->disk) {
        g_set_error(err, LV_ERR, 0, "no disk given for the NVMe drive "
                    "(--disk FILE; create one with: truncate -s %"
                    G_GUINT64_FORMAT " FILE)", p->capacity_bytes);
        nvm_profile_free(p);
        return false;
    } else if (!need_file(&s->disk, "NVMe disk", &e)) {
        g_autofree char *hint = strcmp(s->disk_format, "raw")
            ? g_strdup_printf("qemu-img create -f qcow2 %s %" G_GUINT64_FORMAT,
                              s->disk, p->capacity_bytes)
            : g_strdup_printf("truncate -s %" G_GUINT64_FORMAT " %s",
                              p->capacity_bytes, s->disk);

        g_set_error(err, LV_ERR, 0, "%s (create it, sparse, with: %s)",
                    e->message, hint);
        nvm_profile_free(p);
        return false;
    } else if (!guest_size(s->disk, s->disk_format, &size, err)) {
        nvm_profile_free(p);
        return false;
    } else if (size < p->capacity_bytes) {
        g_set_error(err, LV_ERR, 0, "NVMe disk '%s' holds %" G_GUINT64_FORMAT
                    " bytes, less than profile %s's capacity of %"
                    G_GUINT64_FORMAT " (make it large enough with: %s%"
                    G_GUINT64_FORMAT " %s)", s->disk, size, p->name,
                    p->capacity_bytes,
                    strcmp(s->disk_format, "raw") ? "qemu-img resize "
                                                  : "truncate -s ",
                    p->capacity_bytes, s->disk);
        nvm_profile_free(p);
        return false;
    }
    nvm_profile_free(p);

    if (s->remote_emulator) {
        /* the libvirt host's path: nvm_lv_guest_start() asks that host */
    } else if (!need_file(&s->qemu, "QEMU binary", &e)) {
        g_set_error(err, LV_ERR, 0, "%s (build it with: make qemu)",
                    e->message);
        return false;
    }
    if (!s->remote_emulator && access(s->qemu, X_OK) < 0) {
        g_set_error(err, LV_ERR, 0, "QEMU binary '%s' is not executable",
                    s->qemu);
        return false;
    }
    /*
     * QEMU's firmware directories: libvirt starts QEMU in another working
     * directory, so a relative one is made absolute; a missing one used to
     * go into the XML as given and fail when the domain started.
     */
    for (char **d = s->fw_dirs; !s->remote_emulator && d && *d; d++) {
        if (!need_path(d, "firmware directory (--firmware-dir)", true, err)) {
            return false;
        }
    }
    if ((s->initrd || s->append) && !s->kernel) {
        g_set_error(err, LV_ERR, 0, "--initrd and --append need --kernel");
        return false;
    }
    if (s->kernel && !need_file(&s->kernel, "kernel", err)) {
        return false;
    }
    if (s->initrd && !need_file(&s->initrd, "initrd", err)) {
        return false;
    }
    if (s->boot_disk && !need_file(&s->boot_disk, "boot disk", err)) {
        return false;
    }
    if (s->boot_bus && !lv_one_of(s->boot_bus, buses)) {
        g_set_error(err, LV_ERR, 0, "boot disk bus must be virtio, sata or "
                    "scsi, not '%s'", s->boot_bus);
        return false;
    }
    for (unsigned i = 0; i < s->disks->len; i++) {
        NvmLvDisk *d = g_ptr_array_index(s->disks, i);

        if (!need_file(&d->file, d->cdrom ? "CD-ROM image" : "disk", err)) {
            return false;
        }
        if (d->format && !lv_one_of(d->format, formats)) {
            g_set_error(err, LV_ERR, 0, "disk '%s': format must be raw or "
                        "qcow2, not '%s'", d->file, d->format);
            return false;
        }
        if (d->bus && !lv_one_of(d->bus, buses)) {
            g_set_error(err, LV_ERR, 0, "disk '%s': bus must be virtio, sata "
                        "or scsi, not '%s'", d->file, d->bus);
            return false;
        }
        if (d->serial && (!*d->serial || strlen(d->serial) > 20)) {
            g_set_error(err, LV_ERR, 0, "disk '%s': serial must be 1-20 "
                        "characters", d->file);
            return false;
        }
    }
    if (s->serial_log) {
        char *abs = g_canonicalize_filename(s->serial_log, NULL);

        g_free(s->serial_log);
        s->serial_log = abs;
    }
    if (s->net && strcmp(s->net, "none") &&
        !g_str_has_prefix(s->net, "network=") &&
        !g_str_has_prefix(s->net, "bridge=")) {
        g_set_error(err, LV_ERR, 0, "--net must be none, network=NAME or "
                    "bridge=BRIDGE, not '%s' (this QEMU has no user-mode "
                    "networking)", s->net);
        return false;
    }
    if (s->net && strchr(s->net, '=') && !strchr(s->net, '=')[1]) {
        g_set_error(err, LV_ERR, 0, "--net %s: name missing", s->net);
        return false;
    }
    return true;
}
