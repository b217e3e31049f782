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
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libvirt.h"
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
    g_free(s->ctl_socket);
    g_strfreev(s->fw_dirs);
    g_free(s);
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
    if (s->ctl_socket) {
        /* ttyS1: the guest agent's control channel (vm-images/agent.sh);
         * libvirt binds the socket, nvmimic connects to it */
        tag(x, 2, "serial", false, "type", "unix", NULL);
        tag(x, 3, "source", true, "mode", "bind", "path", s->ctl_socket,
            NULL);
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

#include <libvirt/libvirt.h>
#include <libvirt/libvirt-qemu.h>
#include <libvirt/virterror.h>

struct NvmLvGuest {
    char *uri;
    char *name;
    virConnectPtr conn;
    virDomainPtr dom;
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
 * Sets *msg to libvirt's message first (the next call resets it). */
static int lv_code(NvmLvGuest *g, char **msg)
{
    virErrorPtr e = virGetLastError();
    bool gone = e && e->code == VIR_ERR_NO_DOMAIN;

    *msg = g_strdup(lv_msg());
    if (gone || (g->conn && virConnectIsAlive(g->conn) != 1)) {
        return NVM_LV_ERROR_HOST;
    }
    return NVM_LV_ERROR_FAILED;
}

NvmLvGuest *nvm_lv_guest_start(const char *uri, const NvmLvSpec *s,
                               GError **err)
{
    NvmLvGuest *g = g_new0(NvmLvGuest, 1);
    g_autofree char *xml = NULL;
    char *caps;

    virSetErrorFunc(NULL, lv_quiet);
    g->uri = g_strdup(uri);
    g->name = g_strdup(s->name);
    g->conn = virConnectOpen(uri);
    if (!g->conn) {
        g_set_error(err, LV_ERR, NVM_LV_ERROR_HOST, "cannot reach libvirt at "
                    "%s: %s", uri, lv_msg());
        goto fail;
    }
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
    xml = nvm_lv_domain_xml(s);
    g->dom = virDomainDefineXML(g->conn, xml);
    if (!g->dom) {
        g_autofree char *m = NULL;
        int code = lv_code(g, &m);

        g_set_error(err, LV_ERR, code, "libvirt %s: defining domain %s "
                    "failed: %s", uri, s->name, m);
        goto fail;
    }
    if (virDomainCreate(g->dom) < 0) {
        g_autofree char *m = NULL;
        int code = lv_code(g, &m);

        g_set_error(err, LV_ERR, code, "libvirt %s: starting domain %s "
                    "failed: %s", uri, s->name, m);
        goto fail;
    }
    return g;

fail:
    nvm_lv_guest_free(g);
    return NULL;
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

    if (virDomainGetState(g->dom, &state, &reason, 0) < 0) {
        g_set_error(err, LV_ERR, NVM_LV_ERROR_HOST, "libvirt host %s dropped "
                    "domain %s: %s", g->uri, g->name, lv_msg());
        return false;
    }
    if (state == VIR_DOMAIN_RUNNING || state == VIR_DOMAIN_BLOCKED) {
        return true;
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
    if (g->dom) {
        if (virDomainIsActive(g->dom) == 1) {
            virDomainDestroy(g->dom);
        }
        virDomainUndefine(g->dom);
        virDomainFree(g->dom);
    }
    if (g->conn) {
        virConnectClose(g->conn);
    }
    g_free(g->uri);
    g_free(g->name);
    g_free(g);
}
