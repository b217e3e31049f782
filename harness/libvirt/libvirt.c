/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic libvirt-xml: print a libvirt domain (type qemu, q35) that runs our
 * QEMU with the profiled NVMe drive.
 *
 * libvirt 9.0 (bookworm) has no emulated-NVMe disk bus (it came in 11.5), and
 * none has our profile= property, so the drive goes in through
 * <qemu:commandline>: a -drive with if=none and a -device nvme, plus the -L
 * firmware directories and NVMIMIC_PROFILE_DIR through <qemu:env>.  Every
 * other disk is an ordinary libvirt <disk>, so libvirt labels it for
 * DAC/AppArmor/SELinux itself; the drive under test is not (docs/libvirt.md).
 * libvirt owns the QMP monitor: a harness reaches query-nvmimic-stats and
 * nvmimic-set-state through virDomainQemuMonitorCommand.
 */
#define _GNU_SOURCE             /* SEEK_DATA, SEEK_HOLE */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lv.h"
#include "nvmimic-model.h"

#ifndef NVMIMIC_QEMU
#define NVMIMIC_QEMU "qemu-system-x86_64"
#endif

#define QEMU_NS "http://libvirt.org/schemas/domain/qemu/1.0"
/* Far above the slots libvirt fills with pcie-root-ports (8 per slot). */
#define NVM_LV_NVME_PCI_SLOT "0x10"

GQuark nvm_lv_error_quark(void)
{
    return g_quark_from_static_string("nvmimic-libvirt-error-quark");
}
#define LV_ERR NVM_LV_ERROR

static void disk_free(gpointer p)
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
    const char *fw[] = { "/usr/share/qemu", "/usr/share/seabios", NULL };

    s->disks = g_ptr_array_new_with_free_func(disk_free);
    s->fw_dirs = g_strdupv((char **)fw);
    s->domain_type = g_strdup("qemu");
    s->disk_format = g_strdup("raw");
    s->device_id = g_strdup("nvm0");
    s->qemu = g_strdup(g_getenv("NVMIMIC_QEMU") ? g_getenv("NVMIMIC_QEMU")
                                                : NVMIMIC_QEMU);
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
    c->disks = g_ptr_array_new_with_free_func(disk_free);
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

static bool is_qcow2(const char *path)
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

/* Make *path absolute in place and require it to exist (as a file). */
static bool need_file(char **path, const char *what, GError **err)
{
    char *abs;
    struct stat st;

    if (!*path || !**path) {
        g_set_error(err, LV_ERR, 0, "%s: no file given", what);
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
    if (S_ISDIR(st.st_mode)) {
        g_set_error(err, LV_ERR, 0, "%s '%s' is a directory, not a file",
                    what, abs);
        return false;
    }
    return true;
}

static bool one_of(const char *v, const char *const *list)
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
    if (!one_of(s->disk_format, formats)) {
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
    if (s->boot_bus && !one_of(s->boot_bus, buses)) {
        g_set_error(err, LV_ERR, 0, "boot disk bus must be virtio, sata or "
                    "scsi, not '%s'", s->boot_bus);
        return false;
    }
    for (unsigned i = 0; i < s->disks->len; i++) {
        NvmLvDisk *d = g_ptr_array_index(s->disks, i);

        if (!need_file(&d->file, d->cdrom ? "CD-ROM image" : "disk", err)) {
            return false;
        }
        if (d->format && !one_of(d->format, formats)) {
            g_set_error(err, LV_ERR, 0, "disk '%s': format must be raw or "
                        "qcow2, not '%s'", d->file, d->format);
            return false;
        }
        if (d->bus && !one_of(d->bus, buses)) {
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

/* ---- XML -------------------------------------------------------------- */

static void ind(GString *x, int depth)
{
    for (int i = 0; i < depth; i++) {
        g_string_append(x, "  ");
    }
}

/* <tag attr='v' .../> or <tag ...>: attrs are name/value pairs, escaped. */
static void tag(GString *x, int depth, const char *name, bool close, ...)
{
    va_list ap;
    const char *k;

    ind(x, depth);
    g_string_append_printf(x, "<%s", name);
    va_start(ap, close);
    while ((k = va_arg(ap, const char *))) {
        const char *v = va_arg(ap, const char *);
        g_autofree char *e = g_markup_escape_text(v, -1);

        g_string_append_printf(x, " %s='%s'", k, e);
    }
    va_end(ap);
    g_string_append(x, close ? "/>\n" : ">\n");
}

/* <name>text</name> */
static void elem(GString *x, int depth, const char *name, const char *text)
{
    g_autofree char *e = g_markup_escape_text(text, -1);

    ind(x, depth);
    g_string_append_printf(x, "<%s>%s</%s>\n", name, e, name);
}

static void end(GString *x, int depth, const char *name)
{
    ind(x, depth);
    g_string_append_printf(x, "</%s>\n", name);
}

/* A value inside a QEMU -drive/-device option list: ',' doubles. */
static char *qemu_opt(const char *v)
{
    g_auto(GStrv) parts = g_strsplit(v, ",", -1);

    return g_strjoinv(",,", parts);
}

static void qarg(GString *x, const char *v)
{
    tag(x, 2, "qemu:arg", true, "value", v, NULL);
}

typedef struct DevNames {
    unsigned vd, sd;
} DevNames;

static char *dev_name(DevNames *n, const char *bus)
{
    unsigned i = !strcmp(bus, "virtio") ? n->vd++ : n->sd++;
    const char *pre = !strcmp(bus, "virtio") ? "vd" : "sd";

    if (i < 26) {
        return g_strdup_printf("%s%c", pre, 'a' + i);
    }
    return g_strdup_printf("%s%c%c", pre, 'a' + i / 26 - 1, 'a' + i % 26);
}

static void disk_xml(GString *x, DevNames *n, const char *file,
                     const char *format, const char *bus, bool cdrom,
                     bool readonly, const char *serial, bool boot)
{
    g_autofree char *dev = dev_name(n, bus);

    tag(x, 2, "disk", false, "type", "file", "device",
        cdrom ? "cdrom" : "disk", NULL);
    tag(x, 3, "driver", true, "name", "qemu", "type", format, NULL);
    tag(x, 3, "source", true, "file", file, NULL);
    tag(x, 3, "target", true, "dev", dev, "bus", bus, NULL);
    if (boot) {
        tag(x, 3, "boot", true, "order", "1", NULL);
    }
    if (serial) {
        elem(x, 3, "serial", serial);
    }
    if (readonly || cdrom) {
        tag(x, 3, "readonly", true, NULL);
    }
    end(x, 2, "disk");
}

char *nvm_lv_domain_xml(const NvmLvSpec *s)
{
    GString *x = g_string_new(NULL);
    bool win = s->os == NVM_LV_OS_WINDOWS;
    bool kvm = !strcmp(s->domain_type, "kvm");
    bool graphics = s->graphics || win;
    unsigned mem = s->memory_mib ? s->memory_mib : win ? 65536 : 512;
    unsigned vcpus = s->vcpus ? s->vcpus : win ? 16 : 1;
    const char *boot_bus = s->boot_bus ? s->boot_bus : win ? "scsi"
                                                           : "virtio";
    bool scsi = s->boot_disk && !strcmp(boot_bus, "scsi");
    bool any_cdrom = false;
    DevNames names = { 0 };
    g_autofree char *cpustr = g_strdup_printf("%u", vcpus);
    g_autofree char *drive_id = g_strdup_printf("%s-drive", s->device_id);
    g_autofree char *q_disk = s->disk ? qemu_opt(s->disk) : NULL;
    g_autofree char *q_prof = qemu_opt(s->profile);
    g_autofree char *q_id = qemu_opt(s->device_id);
    g_autofree char *drive = NULL, *device = NULL;

    for (unsigned i = 0; i < s->disks->len; i++) {
        NvmLvDisk *d = g_ptr_array_index(s->disks, i);

        scsi |= d->bus && !strcmp(d->bus, "scsi");
        any_cdrom |= d->cdrom;
    }

    g_string_append(x, "<!-- nvmimic libvirt-xml: our QEMU with a profiled "
                       "NVMe drive (docs/libvirt.md) -->\n");
    tag(x, 0, "domain", false, "type", s->domain_type, "xmlns:qemu",
        QEMU_NS, NULL);
    elem(x, 1, "name", s->name);
    {
        g_autofree char *desc = g_strdup_printf(
            "nvmimic: %s guest, NVMe drive %s as profile %s (QEMU device id "
            "%s; query-nvmimic-stats through virsh qemu-monitor-command)",
            win ? "Windows" : "Linux", s->disk ? s->disk : "(null-co)",
            s->profile, s->device_id);

        elem(x, 1, "description", desc);
    }
    ind(x, 1);
    g_string_append_printf(x, "<memory unit='MiB'>%u</memory>\n", mem);
    elem(x, 1, "vcpu", cpustr);

    tag(x, 1, "os", false, NULL);
    ind(x, 2);
    g_string_append(x, "<type arch='x86_64' machine='q35'>hvm</type>\n");
    if (s->kernel) {
        elem(x, 2, "kernel", s->kernel);
        if (s->initrd) {
            elem(x, 2, "initrd", s->initrd);
        }
        elem(x, 2, "cmdline", s->append ? s->append : "console=ttyS0");
    } else if (win && any_cdrom) {
        /* an empty system disk falls through to the install DVD; once
         * Windows is installed it boots from the disk without a prompt */
        tag(x, 2, "boot", true, "dev", "hd", NULL);
        tag(x, 2, "boot", true, "dev", "cdrom", NULL);
    }
    end(x, 1, "os");

    /* libvirt 9.0 passes -no-acpi without <acpi/>, which QEMU 10 refuses */
    tag(x, 1, "features", false, NULL);
    tag(x, 2, "acpi", true, NULL);
    tag(x, 2, "apic", true, NULL);
    if (win && kvm) {
        tag(x, 2, "hyperv", false, "mode", "custom", NULL);
        tag(x, 3, "relaxed", true, "state", "on", NULL);
        tag(x, 3, "vapic", true, "state", "on", NULL);
        tag(x, 3, "spinlocks", true, "state", "on", "retries", "8191", NULL);
        tag(x, 3, "vpindex", true, "state", "on", NULL);
        tag(x, 3, "synic", true, "state", "on", NULL);
        tag(x, 3, "stimer", true, "state", "on", NULL);
        end(x, 2, "hyperv");
    }
    end(x, 1, "features");
    if (kvm) {
        tag(x, 1, "cpu", true, "mode", "host-passthrough", NULL);
    }
    if (win) {
        tag(x, 1, "clock", false, "offset", "localtime", NULL);
        tag(x, 2, "timer", true, "name", "rtc", "tickpolicy", "catchup",
            NULL);
        tag(x, 2, "timer", true, "name", "pit", "tickpolicy", "delay", NULL);
        tag(x, 2, "timer", true, "name", "hpet", "present", "no", NULL);
        if (kvm) {
            tag(x, 2, "timer", true, "name", "hypervclock", "present", "yes",
                NULL);
        }
        end(x, 1, "clock");
    } else {
        tag(x, 1, "clock", true, "offset", "utc", NULL);
    }
    elem(x, 1, "on_poweroff", "destroy");
    /* the initramfs guest never reboots on purpose (a panic is the end);
     * installers and cloud images do */
    elem(x, 1, "on_reboot", s->kernel && !s->boot_disk ? "destroy"
                                                        : "restart");
    elem(x, 1, "on_crash", "destroy");

    tag(x, 1, "devices", false, NULL);
    elem(x, 2, "emulator", s->qemu);
    if (scsi) {
        /* the reviews' SQL VMs: LSI Logic SAS (QEMU mptsas1068; Windows'
         * inbox lsi_sas driver) */
        tag(x, 2, "controller", true, "type", "scsi", "index", "0", "model",
            win ? "lsisas1068" : "virtio-scsi", NULL);
    }
    if (s->boot_disk) {
        disk_xml(x, &names, s->boot_disk,
                 is_qcow2(s->boot_disk) ? "qcow2" : "raw", boot_bus, false,
                 false, NULL, !win || !any_cdrom);
    }
    for (unsigned i = 0; i < s->disks->len; i++) {
        NvmLvDisk *d = g_ptr_array_index(s->disks, i);
        const char *bus = d->bus ? d->bus
                                 : d->cdrom || win ? "sata" : "virtio";
        const char *fmt = d->format ? d->format
                                    : is_qcow2(d->file) ? "qcow2" : "raw";

        disk_xml(x, &names, d->file, fmt, bus, d->cdrom, d->readonly,
                 d->serial, false);
    }
    if (s->net && g_str_has_prefix(s->net, "network=")) {
        tag(x, 2, "interface", false, "type", "network", NULL);
        tag(x, 3, "source", true, "network", s->net + 8, NULL);
    } else if (s->net && g_str_has_prefix(s->net, "bridge=")) {
        tag(x, 2, "interface", false, "type", "bridge", NULL);
        tag(x, 3, "source", true, "bridge", s->net + 7, NULL);
    }
    if (s->net && strcmp(s->net, "none")) {
        /* e1000e: Windows Server 2012 and later have it inbox */
        tag(x, 3, "model", true, "type", win ? "e1000e" : "virtio", NULL);
        end(x, 2, "interface");
    }
    if (s->serial_log) {
        tag(x, 2, "serial", false, "type", "file", NULL);
        tag(x, 3, "source", true, "path", s->serial_log, NULL);
        tag(x, 3, "target", true, "port", "0", NULL);
        end(x, 2, "serial");
    } else {
        tag(x, 2, "serial", false, "type", "pty", NULL);
        tag(x, 3, "target", true, "port", "0", NULL);
        end(x, 2, "serial");
    }
    if (s->ctl_serial) {
        /* ttyS1: the guest agent's control channel (vm-images/agent.sh), a
         * pty nvmimic reads through the connection (virDomainOpenConsole),
         * so it works when the host is another machine */
        tag(x, 2, "serial", false, "type", "pty", NULL);
        tag(x, 3, "target", true, "port", "1", NULL);
        end(x, 2, "serial");
    }
    if (graphics) {
        tag(x, 2, "input", true, "type", "tablet", "bus", "usb", NULL);
        tag(x, 2, "graphics", true, "type", "vnc", "port", "-1",
            "listen", "127.0.0.1", NULL);
        tag(x, 2, "video", false, NULL);
        tag(x, 3, "model", true, "type", "vga", NULL);
        end(x, 2, "video");
    } else {
        tag(x, 2, "controller", true, "type", "usb", "model", "none", NULL);
        tag(x, 2, "video", false, NULL);
        tag(x, 3, "model", true, "type", "none", NULL);
        end(x, 2, "video");
    }
    tag(x, 2, "memballoon", true, "model", "none", NULL);
    end(x, 1, "devices");

    /* the drive under test: not a libvirt <disk> (no bus for it before
     * libvirt 11.5, and no profile= in any libvirt) */
    tag(x, 1, "qemu:commandline", false, NULL);
    for (char **d = s->fw_dirs; d && *d; d++) {
        qarg(x, "-L");
        qarg(x, *d);
    }
    if (s->icount) {
        qarg(x, "-icount");
        qarg(x, "shift=0,sleep=off");
    }
    if (s->null_bytes) {
        drive = g_strdup_printf("driver=null-co,node-name=%s,size=%"
                                G_GUINT64_FORMAT ",read-zeroes=on", drive_id,
                                s->null_bytes);
    } else {
        drive = g_strdup_printf("file=%s,if=none,id=%s,format=%s", q_disk,
                                drive_id, s->disk_format);
    }
    /* A fixed slot on the root complex: libvirt assigns the addresses of
     * its own devices (pcie-root-ports from slot 1 up) without knowing about
     * this one, and QEMU may create it first, so an automatic slot would
     * collide with theirs. */
    device = g_strdup_printf("nvme,id=%s,drive=%s,profile=%s,bus=pcie.0,"
                             "addr=%s", q_id, drive_id, q_prof,
                             NVM_LV_NVME_PCI_SLOT);
    if (s->seed) {
        char *d = g_strdup_printf("%s,profile-seed=%" G_GUINT64_FORMAT,
                                  device, s->seed);

        g_free(device);
        device = d;
    }
    qarg(x, s->null_bytes ? "-blockdev" : "-drive");
    qarg(x, drive);
    qarg(x, "-device");
    qarg(x, device);
    if (s->profile_dir && !strchr(s->profile, '/')) {
        tag(x, 2, "qemu:env", true, "name", "NVMIMIC_PROFILE_DIR", "value",
            s->profile_dir, NULL);
    }
    end(x, 1, "qemu:commandline");
    end(x, 0, "domain");
    return g_string_free(x, FALSE);
}

/* ---- command line ------------------------------------------------------ */

static void lv_usage(FILE *f)
{
    fputs(
"usage: nvmimic libvirt-xml --profile NAME|PATH --disk FILE [options]\n"
"  prints a libvirt domain XML (type qemu, q35) that runs nvmimic's QEMU with\n"
"  the profiled NVMe drive (QEMU id nvm0) backed by FILE\n"
"  --os linux|windows        guest shape (default linux; windows: the\n"
"                            reviews' SQL VM: 16 vCPUs, 64 GiB, LSI SAS)\n"
"  --name N                  domain name (default nvmimic-PROFILE)\n"
"  --memory MiB --vcpus N    default 512 / 1 (linux), 65536 / 16 (windows)\n"
"  --kernel K [--initrd I] [--append A]   direct kernel boot\n"
"  --guest-dir DIR           direct boot of nvmimic's initramfs guest\n"
"                            (DIR/vmlinuz, DIR/initramfs.cpio.gz)\n"
"  --boot-disk FILE          system disk (cloud image, Windows C:)\n"
"  --boot-bus virtio|sata|scsi   (default virtio; windows: scsi on lsisas1068)\n"
"  --cdrom FILE              a SATA CD-ROM (repeatable)\n"
"  --job-disk FILE           read-only disk with serial nvmimic-job\n"
"  --results-disk FILE       disk with serial nvmimic-results\n"
"  --extra-disk FILE[,serial=S][,format=raw|qcow2][,bus=virtio|sata|scsi]\n"
"               [,readonly][,cdrom]   any other disk (repeatable)\n"
"  --disk-format raw|qcow2   format of the NVMe drive's FILE (default raw)\n"
"  --device-id ID            QEMU id of the nvme device (default nvm0)\n"
"  --serial-log FILE         guest serial console to FILE (default a pty)\n"
"  --net none|network=NAME|bridge=BR   (default none)\n"
"  --domain-type qemu|kvm    default qemu (TCG)\n"
"  --icount                  simulated time (-icount shift=0,sleep=off)\n"
"  --graphics                VNC on 127.0.0.1 (always for windows)\n"
"  --qemu PATH               emulator (default: this build's QEMU)\n"
"  --firmware-dir DIR        -L directory (repeatable; default\n"
"                            /usr/share/qemu and /usr/share/seabios)\n"
"  --out FILE                write the XML to FILE instead of stdout\n", f);
}

static int lv_die(const char *fmt, ...) G_GNUC_PRINTF(1, 2);

static int lv_die(const char *fmt, ...)
{
    va_list ap;

    fputs("nvmimic libvirt-xml: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\n", stderr);
    return 2;
}

static bool parse_uint(const char *v, unsigned lo, unsigned hi, unsigned *out)
{
    char *e;
    unsigned long long n;

    errno = 0;
    n = g_ascii_strtoull(v, &e, 10);
    if (errno || e == v || *e || *v == '-' || n < lo || n > hi) {
        return false;
    }
    *out = n;
    return true;
}

/* FILE[,key=value|flag...]: options are split off from the right, so FILE
 * may itself hold commas. */
static NvmLvDisk *parse_disk(const char *arg, char **why)
{
    static const char *const keys[] = { "serial=", "format=", "bus=", NULL };
    NvmLvDisk *d = g_new0(NvmLvDisk, 1);
    g_autofree char *s = g_strdup(arg);
    char *c;

    while ((c = strrchr(s, ','))) {
        const char *opt = c + 1;
        bool known = !strcmp(opt, "readonly") || !strcmp(opt, "cdrom");

        for (const char *const *k = keys; *k; k++) {
            known |= g_str_has_prefix(opt, *k);
        }
        if (!known) {
            break;
        }
        if (!strcmp(opt, "readonly")) {
            d->readonly = true;
        } else if (!strcmp(opt, "cdrom")) {
            d->cdrom = true;
        } else if (g_str_has_prefix(opt, "serial=")) {
            g_free(d->serial);
            d->serial = g_strdup(opt + 7);
        } else if (g_str_has_prefix(opt, "format=")) {
            g_free(d->format);
            d->format = g_strdup(opt + 7);
        } else {
            g_free(d->bus);
            d->bus = g_strdup(opt + 4);
        }
        *c = 0;
    }
    if (!*s) {
        *why = g_strdup_printf("'%s' names no file", arg);
        disk_free(d);
        return NULL;
    }
    d->file = g_strdup(s);
    return d;
}

static NvmLvDisk *serial_disk(const char *file, const char *serial, bool ro)
{
    NvmLvDisk *d = g_new0(NvmLvDisk, 1);

    d->file = g_strdup(file);
    d->serial = g_strdup(serial);
    d->format = g_strdup("raw");
    d->readonly = ro;
    return d;
}

static void set(char **field, const char *v)
{
    g_free(*field);
    *field = g_strdup(v);
}

int nvm_cmd_libvirt_xml(int argc, char **argv, const char *profile_dir)
{
    g_autoptr(NvmLvSpec) s = nvm_lv_spec_new();
    g_autoptr(GError) err = NULL;
    g_autoptr(GPtrArray) fw = g_ptr_array_new_with_free_func(g_free);
    g_autofree char *xml = NULL;
    const char *os = "linux", *out = NULL, *guest_dir = NULL;

    s->profile_dir = g_strdup(profile_dir);
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;

        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            lv_usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--icount")) {
            s->icount = true;
            continue;
        }
        if (!strcmp(a, "--graphics")) {
            s->graphics = true;
            continue;
        }
        if (strncmp(a, "--", 2)) {
            return lv_die("unexpected argument '%s' (see --help)", a);
        }
        if (!v) {
            return lv_die("option %s needs a value", a);
        }
        i++;
        if (!strcmp(a, "--profile")) {
            set(&s->profile, v);
        } else if (!strcmp(a, "--profile-dir")) {
            set(&s->profile_dir, v);
        } else if (!strcmp(a, "--disk")) {
            set(&s->disk, v);
        } else if (!strcmp(a, "--disk-format")) {
            set(&s->disk_format, v);
        } else if (!strcmp(a, "--os")) {
            os = v;
        } else if (!strcmp(a, "--name")) {
            set(&s->name, v);
        } else if (!strcmp(a, "--memory")) {
            if (!parse_uint(v, 64, 16u << 20, &s->memory_mib)) {
                return lv_die("--memory '%s' must be MiB between 64 and "
                              "16777216", v);
            }
        } else if (!strcmp(a, "--vcpus")) {
            if (!parse_uint(v, 1, 512, &s->vcpus)) {
                return lv_die("--vcpus '%s' must be between 1 and 512", v);
            }
        } else if (!strcmp(a, "--kernel")) {
            set(&s->kernel, v);
        } else if (!strcmp(a, "--initrd")) {
            set(&s->initrd, v);
        } else if (!strcmp(a, "--append")) {
            set(&s->append, v);
        } else if (!strcmp(a, "--guest-dir")) {
            guest_dir = v;
        } else if (!strcmp(a, "--boot-disk")) {
            set(&s->boot_disk, v);
        } else if (!strcmp(a, "--boot-bus")) {
            set(&s->boot_bus, v);
        } else if (!strcmp(a, "--cdrom")) {
            NvmLvDisk *d = g_new0(NvmLvDisk, 1);

            d->file = g_strdup(v);
            d->format = g_strdup("raw");
            d->cdrom = true;
            g_ptr_array_add(s->disks, d);
        } else if (!strcmp(a, "--job-disk")) {
            g_ptr_array_add(s->disks, serial_disk(v, "nvmimic-job", true));
        } else if (!strcmp(a, "--results-disk")) {
            g_ptr_array_add(s->disks,
                            serial_disk(v, "nvmimic-results", false));
        } else if (!strcmp(a, "--extra-disk")) {
            g_autofree char *why = NULL;
            NvmLvDisk *d = parse_disk(v, &why);

            if (!d) {
                return lv_die("--extra-disk %s", why);
            }
            g_ptr_array_add(s->disks, d);
        } else if (!strcmp(a, "--device-id")) {
            if (!nvm_lv_name_valid(v)) {
                return lv_die("--device-id '%s' must be letters, digits, "
                              "'.', '_', '+', '-'", v);
            }
            set(&s->device_id, v);
        } else if (!strcmp(a, "--serial-log")) {
            set(&s->serial_log, v);
        } else if (!strcmp(a, "--net")) {
            set(&s->net, v);
        } else if (!strcmp(a, "--domain-type")) {
            set(&s->domain_type, v);
        } else if (!strcmp(a, "--qemu")) {
            set(&s->qemu, v);
        } else if (!strcmp(a, "--firmware-dir")) {
            g_ptr_array_add(fw, g_strdup(v));
        } else if (!strcmp(a, "--out")) {
            out = v;
        } else {
            return lv_die("unknown option '%s' (see --help)", a);
        }
    }
    if (!strcmp(os, "linux")) {
        s->os = NVM_LV_OS_LINUX;
    } else if (!strcmp(os, "windows")) {
        s->os = NVM_LV_OS_WINDOWS;
    } else {
        return lv_die("--os must be linux or windows, not '%s'", os);
    }
    if (!s->profile) {
        return lv_die("needs --profile NAME|PATH (nvmimic profiles lists "
                      "them)");
    }
    if (guest_dir) {
        if (s->kernel || s->initrd) {
            return lv_die("--guest-dir and --kernel/--initrd exclude each "
                          "other");
        }
        if (s->os == NVM_LV_OS_WINDOWS) {
            return lv_die("--guest-dir is a Linux guest, not --os windows");
        }
        s->kernel = g_build_filename(guest_dir, "vmlinuz", NULL);
        s->initrd = g_build_filename(guest_dir, "initramfs.cpio.gz", NULL);
        if (!g_file_test(s->kernel, G_FILE_TEST_EXISTS)) {
            return lv_die("no guest in '%s' (vmlinuz, initramfs.cpio.gz): "
                          "build it with vm-images/build-guest.sh",
                          guest_dir);
        }
        if (!s->append) {
            s->append = g_strdup("console=ttyS0 panic=-1");
        }
    }
    if (s->kernel && s->os == NVM_LV_OS_WINDOWS) {
        return lv_die("--kernel is for Linux guests, not --os windows");
    }
    if (fw->len) {
        g_ptr_array_add(fw, NULL);
        g_strfreev(s->fw_dirs);
        s->fw_dirs = g_strdupv((char **)fw->pdata);
    }
    if (!s->name) {
        g_autofree char *base = g_path_get_basename(s->profile);
        char *dot = strrchr(base, '.');

        if (dot && !strcmp(dot, ".ini")) {
            *dot = 0;
        }
        s->name = g_strdup_printf("nvmimic-%s", base);
    }
    if (!nvm_lv_spec_check(s, &err)) {
        fprintf(stderr, "nvmimic libvirt-xml: %s\n", err->message);
        return 1;
    }
    xml = nvm_lv_domain_xml(s);
    if (out) {
        if (!g_file_set_contents(out, xml, -1, &err)) {
            fprintf(stderr, "nvmimic libvirt-xml: %s\n", err->message);
            return 1;
        }
        return 0;
    }
    fputs(xml, stdout);
    return 0;
}

/* ---- a domain through libvirt's C API (nvmimic run --connect) ---------- */

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

#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>

#include <libvirt/libvirt.h>
#include <libvirt/libvirt-qemu.h>
#include <libvirt/virterror.h>

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

/* libvirt prints every error on stderr by default; nvmimic words its own. */
static void lv_quiet(void *opaque, virErrorPtr e)
{
    (void)opaque;
    (void)e;
}

static const char *lv_msg(void)
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
        !one_of(scheme + 4, transports)) {
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
static int lv_code(NvmLvGuest *g, char **msg)
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

/* ---- the event loop ------------------------------------------------- */

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
static void lv_init(void)
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

/* ---- serial ports through the connection ------------------------------ */

static void chan_unref(gpointer p)
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
static bool chan_send(void *opaque, const char *buf, size_t len,
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
static LvChan *chan_open(NvmLvGuest *g, const char *dev, int sink,
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
                                  chan_unref) < 0) {
        g_set_error(err, LV_ERR, 0, "libvirt %s: cannot watch serial port "
                    "%s: %s", g->uri, dev, lv_msg());
        virStreamAbort(st);
        c->refs = 1;
        chan_unref(c);
        return NULL;
    }
    return c;
}

static void chan_close(LvChan *c)
{
    if (!c) {
        return;
    }
    g_mutex_lock(&c->lock);
    chan_end(c, false);
    g_mutex_unlock(&c->lock);
    chan_unref(c);
}

static bool chan_ended(LvChan *c)
{
    bool ended;

    g_mutex_lock(&c->lock);
    ended = c->sink < 0;
    g_mutex_unlock(&c->lock);
    return ended;
}

/* ---- files as storage volumes ----------------------------------------- */

static void vol_free(gpointer p)
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
static bool pool_setup(NvmLvGuest *g, const NvmLvSpec *s, GError **err)
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
static LvVol *vol_upload(NvmLvGuest *g, const char *local, bool writable,
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
    vol_free(v);
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

/* ---- the domain ------------------------------------------------------- */

/* Upload every file of @s; the spec with their paths on the host. */
static NvmLvSpec *upload_files(NvmLvGuest *g, const NvmLvSpec *s,
                               GError **err)
{
    g_autoptr(GPtrArray) files = nvm_lv_spec_local_files(s);
    g_autoptr(GHashTable) paths = g_hash_table_new(g_str_hash, g_str_equal);

    if (!pool_setup(g, s, err)) {
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
        v = vol_upload(g, f, writable, err);
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
        g->console = chan_open(g, "serial0", fd, false, err);
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
        g->ctl = chan_open(g, "serial1", sv[1], true, err);
        if (!g->ctl) {
            close(sv[0]);
            return false;
        }
        g_atomic_int_inc(&g->ctl->refs);
        g->ctl_line = nvm_line_new_fd(sv[0], chan_send, chan_unref, g->ctl);
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
    g->vols = g_ptr_array_new_with_free_func(vol_free);
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
    ok = json_parser_load_from_data(parser, reply, -1, NULL);
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
        if (state != VIR_DOMAIN_RUNNING && state != VIR_DOMAIN_BLOCKED) {
            break;
        }
        /* The control port's stream ends as QEMU dies, a moment before
         * the host marks the domain shut off (destroyed from outside,
         * crashed): give its state up to 5 s to say which. */
        if (!g->ctl || !chan_ended(g->ctl) || i == 50) {
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
            for (int j = 0; j < 50 && g->console && !chan_ended(g->console);
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
    chan_close(g->console);
    chan_close(g->ctl);
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
