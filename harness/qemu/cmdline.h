/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * QEMU's command line, built in one place for every way nvmimic starts our
 * QEMU: nvmimic run's guests, nvmimic qtest's machines, and the drive a
 * libvirt domain passes through <qemu:commandline>
 * (tests/harness/check_qemu_cmdline.py compares the three).  A line is a
 * list of arguments; the functions below add the pieces nvmimic knows how
 * to spell: the machine and its accelerator, simulated time, the firmware,
 * a guest booted from its kernel with the job channel, and the profiled
 * drive.  Values that go inside a QEMU option list (a path, a profile)
 * have their commas doubled.
 */
#ifndef NVMIMIC_QEMU_CMDLINE_H
#define NVMIMIC_QEMU_CMDLINE_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

/* The arguments of one QEMU command line (argv[0] the binary). */
typedef struct NvmQemuLine {
    GPtrArray *argv;            /* owned strings */
} NvmQemuLine;

NvmQemuLine *nvm_qemu_line_new(const char *qemu);
void nvm_qemu_line_free(NvmQemuLine *l);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(NvmQemuLine, nvm_qemu_line_free)

/* Add arguments (NULL-terminated), or one made by printf. */
void nvm_qemu_add(NvmQemuLine *l, const char *arg, ...) G_GNUC_NULL_TERMINATED;
void nvm_qemu_addf(NvmQemuLine *l, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
/* The arguments after the binary, NULL-terminated (the line's own). */
const char *const *nvm_qemu_args(const NvmQemuLine *l);
/* The whole line, NULL-terminated, for execv (the line's own). */
char *const *nvm_qemu_argv(NvmQemuLine *l);

/* @v with its commas doubled, as a value inside a QEMU option list. */
char *nvm_qemu_opt_value(const char *v);

/* The firmware directories: -L /usr/share/qemu -L /usr/share/seabios
 * (Debian's, where our QEMU does not install its own). */
extern const char *const nvm_qemu_firmware_dirs[];
void nvm_qemu_firmware(NvmQemuLine *l);

typedef enum {
    NVM_QEMU_TCG,
    NVM_QEMU_KVM,               /* with -cpu host */
    NVM_QEMU_KVM_OR_TCG,        /* KVM where it starts, else TCG (-cpu max) */
    NVM_QEMU_QTEST,             /* no CPU: the qtest protocol drives it */
} NvmQemuAccel;

/* -machine q35 with @accel. */
void nvm_qemu_machine(NvmQemuLine *l, NvmQemuAccel accel);
/* Simulated time: -icount shift=@shift,sleep=off, the guest's clock from
 * 2025-01-01 00:00 UTC following virtual time (@rtc; libvirt sets the clock
 * itself). */
void nvm_qemu_icount(NvmQemuLine *l, int shift, bool rtc);

/*
 * The kernel command line of nvmimic's guests: the console on the first
 * serial port, a panic ends the run, then @extra (or NULL).  In simulated
 * time (@icount) the kernel skips its EDD probe, which reads every disk
 * through the BIOS at host speed, before the guest's clock starts.
 */
char *nvm_qemu_kernel_append(bool icount, const char *extra);
/*
 * A guest booted from @guest_dir's vmlinuz and initramfs.cpio.gz without
 * a display or a default device: @mem (QEMU's -m), @smp vCPUs, its console
 * on the first serial port into the file @console, the kernel command line
 * nvm_qemu_kernel_append(@icount, @append).  -no-reboot: a panic ends the
 * run.
 */
void nvm_qemu_guest(NvmQemuLine *l, const char *guest_dir, const char *mem,
                    unsigned smp, const char *console, bool icount,
                    const char *append);
/*
 * The job channel of nvmimic's guests (vm-images/guest-init): the job, a
 * tar of the job directory, as a read-only virtio disk with serial
 * nvmimic-job (and through fw_cfg as opt/nvmimic/job.tar when @fw_job:
 * the guest then reads it before touching any disk); the results disk, on
 * which the guest writes a tar of its results, serial nvmimic-results.
 */
void nvm_qemu_job_disks(NvmQemuLine *l, const char *job_tar,
                        const char *results_img, bool fw_job);

/* The profiled drive: its data, then the device or filter that times it. */
typedef struct NvmQemuDrive {
    const char *node;           /* its block node's name */
    uint64_t null_bytes;        /* null-co of this size, or: */
    bool null_read_zeroes;      /* reads return zeroes (else garbage) */
    const char *file;           /* a file (sparse stays sparse: discard */
    const char *format;         /* and detect-zeroes unmap), raw or qcow2 */
    /* -device nvme: */
    const char *id;             /* its QEMU id, QMP's id= (nvm0) */
    const char *profile;        /* a profile's name or path */
    bool has_seed;
    uint64_t seed;              /* profile-seed= */
    bool map_allocated;         /* profile-map-allocated=on */
    const char *serial;         /* or NULL: QEMU's */
    const char *bus;            /* or NULL: QEMU's choice */
    const char *addr;           /* PCI slot, or NULL: QEMU's choice */
} NvmQemuDrive;

/* -blockdev of @d's data (node @d->node). */
char *nvm_qemu_drive_blockdev(const NvmQemuDrive *d);
/* -device nvme of @d on node @d->node. */
char *nvm_qemu_drive_device(const NvmQemuDrive *d);
/* Both, as -blockdev BLOCKDEV -device DEVICE. */
void nvm_qemu_drive(NvmQemuLine *l, const NvmQemuDrive *d);
/*
 * The nvmimic block filter instead of the device, for a disk on another
 * bus: a -blockdev node named @d->id over @d's data (node @d->node), timed
 * by the same profile options as the device.
 */
char *nvm_qemu_drive_filter(const NvmQemuDrive *d);

/* The line as one shell command, each argument quoted (for a log). */
char *nvm_qemu_line_text(const NvmQemuLine *l);

#endif
