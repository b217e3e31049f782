/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic libvirt-xml: the command and its options.  Prints the domain for
 * the drive and the disks asked for.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "lv-int.h"
#include "paths.h"

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
        lv_disk_free(d);
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

/* What the command line says, before it becomes the NvmLvSpec. */
typedef struct LvCli {
    NvmLvSpec *s;               /* the disks go straight there, in order */
    const char *profile, *profile_dir, *disk, *disk_format, *os, *name;
    const char *kernel, *initrd, *append, *guest_dir, *boot_disk, *boot_bus;
    const char *device_id, *serial_log, *net, *domain_type, *qemu, *out;
    unsigned memory_mib, vcpus;
    uint64_t seed;              /* profile-seed=, 0: the device's */
    bool icount, graphics;
    GPtrArray *fw;              /* --firmware-dir */
} LvCli;

static bool add_cdrom(void *base, const char *v, char **why)
{
    NvmLvDisk *d = g_new0(NvmLvDisk, 1);

    (void)why;
    d->file = g_strdup(v);
    d->format = g_strdup("raw");
    d->cdrom = true;
    g_ptr_array_add(((LvCli *)base)->s->disks, d);
    return true;
}

static bool add_job_disk(void *base, const char *v, char **why)
{
    (void)why;
    g_ptr_array_add(((LvCli *)base)->s->disks,
                    serial_disk(v, "nvmimic-job", true));
    return true;
}

static bool add_results_disk(void *base, const char *v, char **why)
{
    (void)why;
    g_ptr_array_add(((LvCli *)base)->s->disks,
                    serial_disk(v, "nvmimic-results", false));
    return true;
}

static bool add_extra_disk(void *base, const char *v, char **why)
{
    NvmLvDisk *d = parse_disk(v, why);

    if (d) {
        g_ptr_array_add(((LvCli *)base)->s->disks, d);
    }
    return d != NULL;
}

static char *dup_or_null(const char *v)
{
    return v ? g_strdup(v) : NULL;
}

static void set(char **field, const char *v)
{
    if (v) {
        g_free(*field);
        *field = g_strdup(v);
    }
}

static int libvirt_xml_main(int argc, char **argv)
{
    const NvmCommand *cmd = &nvm_cmd_libvirt_xml;
    g_autoptr(NvmLvSpec) s = nvm_lv_spec_new();
    g_autoptr(GError) err = NULL;
    g_autofree char *xml = NULL;
    LvCli c = { .s = s };
    int rc = nvm_opts_parse(cmd, argc, argv, &c, NULL);

    if (c.fw) {
        g_ptr_array_set_free_func(c.fw, NULL);
    }
    if (rc) {
        if (c.fw) {
            g_ptr_array_free(c.fw, TRUE);
        }
        return rc == NVM_OPTS_HELP ? 0 : rc;
    }
    s->profile = dup_or_null(c.profile);
    set(&s->profile_dir, c.profile_dir);
    s->disk = dup_or_null(c.disk);
    set(&s->disk_format, c.disk_format);
    s->name = dup_or_null(c.name);
    s->memory_mib = c.memory_mib;
    s->vcpus = c.vcpus;
    s->kernel = dup_or_null(c.kernel);
    s->initrd = dup_or_null(c.initrd);
    s->append = dup_or_null(c.append);
    s->boot_disk = dup_or_null(c.boot_disk);
    s->boot_bus = dup_or_null(c.boot_bus);
    set(&s->device_id, c.device_id);
    s->serial_log = dup_or_null(c.serial_log);
    s->net = dup_or_null(c.net);
    set(&s->domain_type, c.domain_type);
    set(&s->qemu, c.qemu);
    s->icount = c.icount;
    s->seed = c.seed;
    s->graphics = c.graphics;
    s->os = !strcmp(c.os, "windows") ? NVM_LV_OS_WINDOWS : NVM_LV_OS_LINUX;
    if (c.fw) {
        g_ptr_array_add(c.fw, NULL);
        g_strfreev(s->fw_dirs);
        s->fw_dirs = g_strdupv((char **)c.fw->pdata);
        g_ptr_array_free(c.fw, TRUE);
    }
    if (c.device_id && !nvm_lv_name_valid(c.device_id)) {
        return nvm_opts_error(cmd, "--device-id '%s' must be letters, "
                              "digits, '.', '_', '+', '-'", c.device_id);
    }
    if (!s->profile) {
        return nvm_opts_error(cmd, "needs --profile NAME|PATH (nvmimic "
                              "profiles lists them)");
    }
    if (c.guest_dir) {
        if (s->kernel || s->initrd) {
            return nvm_opts_error(cmd, "--guest-dir and --kernel/--initrd "
                                  "exclude each other");
        }
        if (s->os == NVM_LV_OS_WINDOWS) {
            return nvm_opts_error(cmd, "--guest-dir is a Linux guest, not "
                                  "--os windows");
        }
        s->kernel = g_build_filename(c.guest_dir, "vmlinuz", NULL);
        s->initrd = g_build_filename(c.guest_dir, "initramfs.cpio.gz", NULL);
        if (!g_file_test(s->kernel, G_FILE_TEST_EXISTS)) {
            fprintf(stderr, "nvmimic libvirt-xml: no guest in '%s' "
                    "(vmlinuz, initramfs.cpio.gz): build it with "
                    "vm-images/build-guest.sh\n", c.guest_dir);
            return 1;
        }
        if (!s->append) {
            s->append = nvm_qemu_kernel_append(s->icount, NULL);
        }
    }
    if (s->kernel && s->os == NVM_LV_OS_WINDOWS) {
        return nvm_opts_error(cmd, "--kernel is for Linux guests, not --os "
                              "windows");
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
    if (c.out) {
        if (!g_file_set_contents(c.out, xml, -1, &err)) {
            fprintf(stderr, "nvmimic libvirt-xml: %s\n", err->message);
            return 1;
        }
        return 0;
    }
    fputs(xml, stdout);
    return 0;
}

#define O(f) NVM_OPT_AT(LvCli, f)

/* --os windows: the reviews' SQL VM, 16 vCPUs, 64 GiB, LSI SAS */
static const NvmOptPreset libvirt_xml_presets[] = {
    { "os=windows", "memory", "65536" },
    { "os=windows", "vcpus", "16" },
    { "os=windows", "boot-bus", "scsi" },
    { NULL },
};

static const NvmOpt libvirt_xml_opts[] = {
    NVM_OPT("profile", NVM_OPT_STR, O(profile), "NAME|PATH",
            "the drive: a profile's name or a profile file"),
    NVM_OPT("disk", NVM_OPT_STR, O(disk), "FILE",
            "the NVMe drive's backing file (at least the profile's\n"
            "capacity; sparse is fine)"),
    NVM_OPT("disk-format", NVM_OPT_CHOICE, O(disk_format), NULL,
            "format of the drive's FILE", .choices = "raw|qcow2",
            .def = "raw"),
    NVM_OPT("os", NVM_OPT_CHOICE, O(os), NULL,
            "guest shape (windows: the reviews' SQL VM, the values marked\n"
            "below)", .choices = "linux|windows", .def = "linux"),
    NVM_OPT("name", NVM_OPT_STR, O(name), "N", "domain name",
            .def_doc = "nvmimic-PROFILE"),
    NVM_OPT("memory", NVM_OPT_UINT, O(memory_mib), "MiB", "guest RAM",
            .min = 64, .max = 16u << 20, .def = "512"),
    NVM_OPT("vcpus", NVM_OPT_UINT, O(vcpus), "N", "virtual CPUs", .min = 1,
            .max = 512, .def = "1"),
    NVM_OPT("kernel", NVM_OPT_STR, O(kernel), "K", "direct kernel boot"),
    NVM_OPT("initrd", NVM_OPT_STR, O(initrd), "I", "its initrd"),
    NVM_OPT("append", NVM_OPT_STR, O(append), "A", "its command line",
            .empty_ok = true),
    NVM_OPT("guest-dir", NVM_OPT_STR, O(guest_dir), "DIR",
            "direct boot of nvmimic's initramfs guest\n"
            "(DIR/vmlinuz, DIR/initramfs.cpio.gz)"),
    NVM_OPT("boot-disk", NVM_OPT_STR, O(boot_disk), "FILE",
            "system disk (cloud image, Windows C:)"),
    NVM_OPT("boot-bus", NVM_OPT_CHOICE, O(boot_bus), NULL,
            "the system disk's bus (scsi: on lsisas1068 for windows)",
            .choices = "virtio|sata|scsi", .def = "virtio"),
    NVM_OPT("cdrom", NVM_OPT_CALL, 0, "FILE", "a SATA CD-ROM",
            .parse = add_cdrom),
    NVM_OPT("job-disk", NVM_OPT_CALL, 0, "FILE",
            "read-only disk with serial nvmimic-job", .parse = add_job_disk),
    NVM_OPT("results-disk", NVM_OPT_CALL, 0, "FILE",
            "disk with serial nvmimic-results", .parse = add_results_disk),
    NVM_OPT("extra-disk", NVM_OPT_CALL, 0,
            "FILE[,serial=S][,format=raw|qcow2][,bus=virtio|sata|scsi]"
            "[,readonly][,cdrom]", "any other disk", .parse = add_extra_disk),
    NVM_OPT("device-id", NVM_OPT_STR, O(device_id), "ID",
            "QEMU id of the nvme device", .def = "nvm0"),
    NVM_OPT("serial-log", NVM_OPT_STR, O(serial_log), "FILE",
            "guest serial console to FILE", .def_doc = "a pty"),
    NVM_OPT("net", NVM_OPT_STR, O(net), "none|network=NAME|bridge=BR",
            "the guest's network", .def = "none"),
    NVM_OPT("domain-type", NVM_OPT_CHOICE, O(domain_type), NULL,
            "qemu (TCG) or kvm", .choices = "qemu|kvm", .def = "qemu"),
    NVM_OPT("icount", NVM_OPT_FLAG, O(icount), NULL,
            "simulated time (-icount shift=0,sleep=off)"),
    NVM_OPT("seed", NVM_OPT_U64, O(seed), "N",
            "the model's seed (the device's profile-seed=; 0: its own)"),
    NVM_OPT("graphics", NVM_OPT_FLAG, O(graphics), NULL,
            "VNC on 127.0.0.1 (always for windows)"),
    NVM_OPT("qemu", NVM_OPT_STR, O(qemu), "PATH",
            "emulator", .def_fn = nvm_path_qemu,
            .def_doc = "$NVMIMIC_QEMU, else nvmimic's own"),
    NVM_OPT("firmware-dir", NVM_OPT_LIST, O(fw), "DIR", "-L directory",
            .def_doc = "/usr/share/qemu and /usr/share/seabios"),
    NVM_OPT("out", NVM_OPT_STR, O(out), "FILE",
            "write the XML to FILE instead of stdout"),
    NVM_OPT_PROFILE_DIR(LvCli, profile_dir),
    NVM_OPT_END,
};

const NvmCommand nvm_cmd_libvirt_xml = {
    .name = "libvirt-xml",
    .synopsis = "--profile NAME|PATH --disk FILE [options]",
    .summary = "A libvirt domain XML that runs nvmimic's QEMU with the "
               "profiled drive.",
    .description =
"Prints a domain (type qemu, q35) with the profiled NVMe drive (QEMU id\n"
"nvm0) backed by FILE, passed through <qemu:commandline>; its QMP commands\n"
"are reached with virsh qemu-monitor-command (docs/libvirt.md).\n",
    .opts = libvirt_xml_opts,
    .presets = libvirt_xml_presets,
    .main = libvirt_xml_main,
};
