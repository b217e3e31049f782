/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic libvirt-xml's domain (type qemu, q35) for an NvmLvSpec.
 *
 * libvirt 9.0 (bookworm) has no emulated-NVMe disk bus (it came in 11.5), and
 * none has our profile= property, so the drive goes in through
 * <qemu:commandline>: its -blockdev and -device nvme as qemu/cmdline.c
 * spells them for every QEMU of nvmimic, the -L firmware directories,
 * simulated time, and NVMIMIC_PROFILE_DIR through <qemu:env>.  Every
 * other disk is an ordinary libvirt <disk>, so libvirt labels it for
 * DAC/AppArmor/SELinux itself; the drive under test is not (docs/libvirt.md).
 * libvirt owns the QMP monitor: a harness reaches query-nvmimic-stats and
 * nvmimic-set-state through virDomainQemuMonitorCommand.
 */
#include <stdio.h>
#include <string.h>

#include "cmdline.h"
#include "lv-int.h"

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
    g_autoptr(NvmQemuLine) line = nvm_qemu_line_new(s->qemu);
    /* A fixed slot on the root complex: libvirt assigns the addresses of
     * its own devices (pcie-root-ports from slot 1 up) without knowing about
     * this one, and QEMU may create it first, so an automatic slot would
     * collide with theirs. */
    NvmQemuDrive drive = {
        .node = drive_id, .null_bytes = s->null_bytes,
        .null_read_zeroes = true,
        .file = s->null_bytes ? NULL : s->disk, .format = s->disk_format,
        .id = s->device_id, .profile = s->profile, .has_seed = s->seed != 0,
        .seed = s->seed, .bus = "pcie.0", .addr = NVM_LV_NVME_PCI_SLOT,
    };

    for (unsigned i = 0; i < s->disks->len; i++) {
        NvmLvDisk *d = g_ptr_array_index(s->disks, i);

        scsi |= d->bus && !strcmp(d->bus, "scsi");
        any_cdrom |= d->cdrom;
    }
    for (char **d = s->fw_dirs; d && *d; d++) {
        nvm_qemu_add(line, "-L", *d, NULL);
    }
    if (s->icount) {
        nvm_qemu_icount(line, s->icount_shift, false);
    }
    nvm_qemu_drive(line, &drive);

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
                 lv_is_qcow2(s->boot_disk) ? "qcow2" : "raw", boot_bus, false,
                 false, NULL, !win || !any_cdrom);
    }
    for (unsigned i = 0; i < s->disks->len; i++) {
        NvmLvDisk *d = g_ptr_array_index(s->disks, i);
        const char *bus = d->bus ? d->bus
                                 : d->cdrom || win ? "sata" : "virtio";
        const char *fmt = d->format ? d->format
                                    : lv_is_qcow2(d->file) ? "qcow2" : "raw";

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
     * libvirt 11.5, and no profile= in any libvirt); its arguments are the
     * ones every QEMU of nvmimic gets (qemu/cmdline.c) */
    tag(x, 1, "qemu:commandline", false, NULL);
    for (const char *const *a = nvm_qemu_args(line); *a; a++) {
        qarg(x, *a);
    }
    if (s->profile_dir && !strchr(s->profile, '/')) {
        tag(x, 2, "qemu:env", true, "name", "NVMIMIC_PROFILE_DIR", "value",
            s->profile_dir, NULL);
    }
    end(x, 1, "qemu:commandline");
    end(x, 0, "domain");
    return g_string_free(x, FALSE);
}
