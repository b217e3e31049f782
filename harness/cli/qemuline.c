/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic qemu-line: the QEMU command line of nvmimic's initramfs guest,
 * from the one builder (qemu/cmdline.c) that nvmimic run, qtest and
 * libvirt-xml use, for vm-images/run-guest.sh: the manual launcher and
 * the guest tests boot exactly the machine nvmimic run boots.  The drive
 * under test and anything else the caller adds come after it.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmdline.h"
#include "sim.h"

typedef struct LineOpts {
    const char *qemu;
    const char *guest;
    const char *console;
    const char *job_tar;
    const char *results_img;
    const char *accel;
    double icount_shift;
    bool icount;                /* --icount-shift given */
    const char *mem;
    unsigned smp;
    const char *append;
    bool fw_job;
    const char *format;
} LineOpts;

/*
 * Whether @s is a guest memory size QEMU's -m takes: a number of MiB, or
 * a number with a K, M, G or T suffix, from 16 MiB to 1 TiB (QEMU itself
 * would refuse junk only after the line is built, in words of its own).
 */
static bool mem_size_ok(const char *s)
{
    static const char units[] = "KMGT";
    size_t n = strspn(s, "0123456789");
    const char *u = NULL;
    double mib;

    /* digits, a fraction, one suffix: no sign, exponent or hex */
    if (!n) {
        return false;
    }
    if (s[n] == '.') {
        size_t f = strspn(s + n + 1, "0123456789");

        if (!f) {
            return false;
        }
        n += 1 + f;
    }
    if (s[n]) {
        u = strchr(units, g_ascii_toupper(s[n]));
        if (!u || s[n + 1]) {
            return false;
        }
    }
    mib = g_ascii_strtod(s, NULL);
    if (u) {
        mib *= pow(1024.0, (double)(u - units) - 1.0);
    }
    return mib >= 16.0 && mib <= 1024.0 * 1024.0;
}

static int qemu_line_main(int argc, char **argv)
{
    LineOpts o = { 0 };
    g_autoptr(NvmQemuLine) l = NULL;
    int rc = nvm_opts_parse(&nvm_cmd_qemu_line, argc, argv, &o, NULL);
    const struct { const char *opt, *val; } need[] = {
        { "--qemu", o.qemu }, { "--guest", o.guest },
        { "--console", o.console }, { "--job-tar", o.job_tar },
        { "--results-img", o.results_img },
    };

    if (rc) {
        return rc == NVM_OPTS_HELP ? 0 : rc;
    }
    for (size_t i = 0; i < G_N_ELEMENTS(need); i++) {
        if (!need[i].val) {
            return nvm_opts_error(&nvm_cmd_qemu_line, "needs %s",
                                  need[i].opt);
        }
    }
    if (!mem_size_ok(o.mem)) {
        g_autofree char *q = nvm_quote40(o.mem);

        return nvm_opts_error(&nvm_cmd_qemu_line, "--mem %s: a size such "
                              "as 512M or 2G (MiB without a suffix), from "
                              "16M to 1T", q);
    }
    if (o.icount && o.icount_shift != round(o.icount_shift)) {
        return nvm_opts_error(&nvm_cmd_qemu_line, "--icount-shift %g: a "
                              "whole number from -3 to 10", o.icount_shift);
    }
    if (o.icount && !strcmp(o.accel, "kvm")) {
        return nvm_opts_error(&nvm_cmd_qemu_line, "--icount-shift needs "
                              "TCG, not --accel kvm");
    }
    l = nvm_qemu_line_new(o.qemu);
    nvm_qemu_firmware(l);
    nvm_qemu_machine(l, !strcmp(o.accel, "kvm") ? NVM_QEMU_KVM
                                                 : NVM_QEMU_TCG);
    if (o.icount) {
        nvm_qemu_icount(l, (int)o.icount_shift, true);
    }
    nvm_qemu_guest(l, o.guest, o.mem, o.smp, o.console, o.icount, o.append);
    nvm_qemu_job_disks(l, o.job_tar, o.results_img, o.fw_job);
    if (!strcmp(o.format, "shell")) {
        g_autofree char *text = nvm_qemu_line_text(l);

        printf("%s\n", text);
    } else {
        for (char *const *a = nvm_qemu_argv(l); *a; a++) {
            fwrite(*a, 1, strlen(*a) + 1, stdout);
        }
    }
    return fflush(stdout) ? 1 : 0;
}

#define O(f) NVM_OPT_AT(LineOpts, f)

static const NvmOpt qemu_line_opts[] = {
    NVM_OPT("qemu", NVM_OPT_STR, O(qemu), "PATH",
            "the qemu-system-x86_64 binary (argv[0] of the line)"),
    NVM_OPT("guest", NVM_OPT_STR, O(guest), "DIR",
            "holds vmlinuz and initramfs.cpio.gz (vm-images/build-guest.sh)"),
    NVM_OPT("console", NVM_OPT_STR, O(console), "FILE",
            "the guest's console (first serial port) goes to FILE"),
    NVM_OPT("job-tar", NVM_OPT_STR, O(job_tar), "FILE",
            "the job: a tar of the job directory, a read-only virtio disk"),
    NVM_OPT("results-img", NVM_OPT_STR, O(results_img), "FILE",
            "the results disk the guest writes a tar onto"),
    NVM_OPT("accel", NVM_OPT_CHOICE, O(accel), NULL,
            "the accelerator (KVM with -cpu host)",
            .choices = "tcg|kvm", .def = "tcg"),
    NVM_OPT("icount-shift", NVM_OPT_DOUBLE, O(icount_shift), "N",
            "simulated time: -icount shift=N,sleep=off (TCG), the guest's\n"
            "clock from 2025-01-01 following virtual time",
            .min = -3, .max = 10, .given = NVM_OPT_GIVEN(LineOpts, icount)),
    NVM_OPT("mem", NVM_OPT_STR, O(mem), "SIZE",
            "guest memory (QEMU's -m): e.g. 512M or 2G, MiB without a\n"
            "suffix, 16M to 1T", .def = "512M"),
    NVM_OPT("smp", NVM_OPT_UINT, O(smp), "N", "virtual CPUs",
            .min = 1, .max = 64, .def = "1"),
    NVM_OPT("append", NVM_OPT_STR, O(append), "ARGS",
            "extra kernel command line", .empty_ok = true),
    NVM_OPT("fw-job", NVM_OPT_FLAG, O(fw_job), NULL,
            "also hand the job over through fw_cfg (opt/nvmimic/job.tar)"),
    NVM_OPT("format", NVM_OPT_CHOICE, O(format), NULL,
            "null: each argument ended by a NUL byte (bash: mapfile -d '');\n"
            "shell: one line, each argument quoted",
            .choices = "null|shell", .def = "null"),
    NVM_OPT_END,
};

const NvmCommand nvm_cmd_qemu_line = {
    .name = "qemu-line",
    .synopsis = "--qemu PATH --guest DIR --console FILE --job-tar FILE "
                "--results-img FILE [options]",
    .summary = "The QEMU command line of nvmimic's guest (for "
               "run-guest.sh).",
    .description =
"Prints the command line nvmimic run starts its initramfs guest with\n"
"(the same builder): firmware, machine and accelerator, simulated time,\n"
"the guest's kernel, console and job channel.  vm-images/run-guest.sh\n"
"boots it, adding the drive under test after it.\n",
    .opts = qemu_line_opts,
    .main = qemu_line_main,
};
