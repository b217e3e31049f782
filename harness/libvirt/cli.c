/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic libvirt-xml: the command line.  Prints the domain for the drive
 * and the disks asked for.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lv-int.h"

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
