/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * QEMU's command line (cmdline.h): the one place nvmimic spells the
 * arguments that start our QEMU.
 */
#include <stdarg.h>
#include <string.h>

#include "cmdline.h"

const char *const nvm_qemu_firmware_dirs[] = {
    "/usr/share/qemu", "/usr/share/seabios", NULL,
};

NvmQemuLine *nvm_qemu_line_new(const char *qemu)
{
    NvmQemuLine *l = g_new0(NvmQemuLine, 1);

    l->argv = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(l->argv, g_strdup(qemu));
    g_ptr_array_add(l->argv, NULL);
    return l;
}

void nvm_qemu_line_free(NvmQemuLine *l)
{
    if (l) {
        g_ptr_array_free(l->argv, TRUE);
        g_free(l);
    }
}

/* Append @arg (taken), keeping the array NULL-terminated. */
static void take(NvmQemuLine *l, char *arg)
{
    g_ptr_array_index(l->argv, l->argv->len - 1) = arg;
    g_ptr_array_add(l->argv, NULL);
}

void nvm_qemu_add(NvmQemuLine *l, const char *arg, ...)
{
    va_list ap;

    va_start(ap, arg);
    for (const char *a = arg; a; a = va_arg(ap, const char *)) {
        take(l, g_strdup(a));
    }
    va_end(ap);
}

void nvm_qemu_addf(NvmQemuLine *l, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    take(l, g_strdup_vprintf(fmt, ap));
    va_end(ap);
}

const char *const *nvm_qemu_args(const NvmQemuLine *l)
{
    return (const char *const *)l->argv->pdata + 1;
}

char *const *nvm_qemu_argv(NvmQemuLine *l)
{
    return (char *const *)l->argv->pdata;
}

char *nvm_qemu_opt_value(const char *v)
{
    g_auto(GStrv) parts = g_strsplit(v, ",", -1);

    return g_strjoinv(",,", parts);
}

void nvm_qemu_firmware(NvmQemuLine *l)
{
    for (const char *const *d = nvm_qemu_firmware_dirs; *d; d++) {
        nvm_qemu_add(l, "-L", *d, NULL);
    }
}

void nvm_qemu_machine(NvmQemuLine *l, NvmQemuAccel accel)
{
    switch (accel) {
    case NVM_QEMU_KVM:
        nvm_qemu_add(l, "-machine", "q35,accel=kvm", "-cpu", "host", NULL);
        break;
    case NVM_QEMU_KVM_OR_TCG:
        /* QEMU takes the first accelerator that starts; "max" is the
         * host's CPU under KVM and every feature TCG has under TCG */
        nvm_qemu_add(l, "-machine", "q35", "-accel", "kvm", "-accel", "tcg",
                     "-cpu", "max", NULL);
        break;
    case NVM_QEMU_QTEST:
        nvm_qemu_add(l, "-machine", "q35", "-accel", "qtest", NULL);
        break;
    default:
        nvm_qemu_add(l, "-machine", "q35,accel=tcg", NULL);
    }
}

void nvm_qemu_icount(NvmQemuLine *l, int shift, bool rtc)
{
    nvm_qemu_add(l, "-icount", NULL);
    nvm_qemu_addf(l, "shift=%d,sleep=off", shift);
    if (rtc) {
        nvm_qemu_add(l, "-rtc", "base=2025-01-01T00:00:00,clock=vm", NULL);
    }
}

char *nvm_qemu_kernel_append(bool icount, const char *extra)
{
    return g_strdup_printf("%sconsole=ttyS0 panic=-1%s%s",
                           icount ? "edd=off " : "", extra && *extra ? " " : "",
                           extra ? extra : "");
}

void nvm_qemu_guest(NvmQemuLine *l, const char *guest_dir, const char *mem,
                    unsigned smp, const char *console, bool icount,
                    const char *append)
{
    nvm_qemu_add(l, "-m", mem, "-smp", NULL);
    nvm_qemu_addf(l, "%u", smp);
    nvm_qemu_add(l, "-nodefaults", "-no-user-config", "-nographic",
                 "-no-reboot", "-monitor", "none", "-serial", NULL);
    nvm_qemu_addf(l, "file:%s", console);
    nvm_qemu_add(l, "-kernel", NULL);
    take(l, g_build_filename(guest_dir, "vmlinuz", NULL));
    nvm_qemu_add(l, "-initrd", NULL);
    take(l, g_build_filename(guest_dir, "initramfs.cpio.gz", NULL));
    nvm_qemu_add(l, "-append", NULL);
    take(l, nvm_qemu_kernel_append(icount, append));
}

void nvm_qemu_job_disks(NvmQemuLine *l, const char *job_tar,
                        const char *results_img, bool fw_job)
{
    g_autofree char *job = nvm_qemu_opt_value(job_tar);
    g_autofree char *res = nvm_qemu_opt_value(results_img);

    nvm_qemu_add(l, "-drive", NULL);
    nvm_qemu_addf(l, "file=%s,if=none,id=nvmimic-job,format=raw,"
                  "readonly=on", job);
    nvm_qemu_add(l, "-device", "virtio-blk-pci,drive=nvmimic-job,"
                 "serial=nvmimic-job", NULL);
    nvm_qemu_add(l, "-drive", NULL);
    nvm_qemu_addf(l, "file=%s,if=none,id=nvmimic-results,format=raw", res);
    nvm_qemu_add(l, "-device", "virtio-blk-pci,drive=nvmimic-results,"
                 "serial=nvmimic-results", NULL);
    if (fw_job) {
        nvm_qemu_add(l, "-fw_cfg", NULL);
        nvm_qemu_addf(l, "name=opt/nvmimic/job.tar,file=%s", job);
    }
}

char *nvm_qemu_drive_blockdev(const NvmQemuDrive *d)
{
    g_autofree char *file = d->file ? nvm_qemu_opt_value(d->file) : NULL;

    if (!d->file) {
        return g_strdup_printf("driver=null-co,node-name=%s,size=%"
                               G_GUINT64_FORMAT ",read-zeroes=%s", d->node,
                               d->null_bytes,
                               d->null_read_zeroes ? "on" : "off");
    }
    /* sparse backings stay sparse: zeroes and Format punch holes */
    return g_strdup_printf("driver=%s,node-name=%s,discard=unmap,"
                           "detect-zeroes=unmap,file.driver=file,"
                           "file.filename=%s",
                           d->format ? d->format : "raw", d->node, file);
}

/* The profile options the device and the filter share. */
static void profile_opts(GString *s, const NvmQemuDrive *d)
{
    g_autofree char *profile = nvm_qemu_opt_value(d->profile);

    g_string_append_printf(s, ",profile=%s", profile);
    if (d->has_seed) {
        g_string_append_printf(s, ",profile-seed=%" G_GUINT64_FORMAT,
                               d->seed);
    }
    if (d->map_allocated) {
        g_string_append(s, ",profile-map-allocated=on");
    }
}

char *nvm_qemu_drive_device(const NvmQemuDrive *d)
{
    GString *s = g_string_new(NULL);

    g_string_append_printf(s, "nvme,id=%s,drive=%s", d->id, d->node);
    if (d->serial) {
        g_string_append_printf(s, ",serial=%s", d->serial);
    }
    if (d->bus) {
        g_string_append_printf(s, ",bus=%s", d->bus);
    }
    if (d->addr) {
        g_string_append_printf(s, ",addr=%s", d->addr);
    }
    profile_opts(s, d);
    return g_string_free(s, FALSE);
}

char *nvm_qemu_drive_filter(const NvmQemuDrive *d)
{
    GString *s = g_string_new(NULL);

    g_string_append_printf(s, "driver=nvmimic,node-name=%s,file=%s,"
                           "discard=unmap", d->id, d->node);
    profile_opts(s, d);
    return g_string_free(s, FALSE);
}

void nvm_qemu_drive(NvmQemuLine *l, const NvmQemuDrive *d)
{
    nvm_qemu_add(l, "-blockdev", NULL);
    take(l, nvm_qemu_drive_blockdev(d));
    nvm_qemu_add(l, "-device", NULL);
    take(l, nvm_qemu_drive_device(d));
}

char *nvm_qemu_line_text(const NvmQemuLine *l)
{
    GString *s = g_string_new(NULL);

    for (unsigned i = 0; i + 1 < l->argv->len; i++) {
        g_autofree char *q = g_shell_quote(g_ptr_array_index(l->argv, i));

        g_string_append_printf(s, "%s%s", i ? " " : "", q);
    }
    return g_string_free(s, FALSE);
}
