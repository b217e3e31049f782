/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic libvirt-xml: a libvirt domain that runs our QEMU with a profiled
 * NVMe drive.  The spec / build split lets `run --connect` and `matrix` make
 * the same XML without going through the command line.
 */
#ifndef NVMIMIC_LIBVIRT_H
#define NVMIMIC_LIBVIRT_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>
#include <json-glib/json-glib.h>

typedef enum {
    NVM_LV_OS_LINUX,
    NVM_LV_OS_WINDOWS,
} NvmLvOs;

/* A disk libvirt itself manages (not the drive under test). */
typedef struct NvmLvDisk {
    char *file;          /* absolute after nvm_lv_spec_check() */
    char *format;        /* raw, qcow2; NULL: qcow2 if the file says so */
    char *serial;        /* NULL: none */
    char *bus;           /* virtio, sata, scsi; NULL: per OS and device */
    bool cdrom;
    bool readonly;
} NvmLvDisk;

typedef struct NvmLvSpec {
    char *name;
    NvmLvOs os;
    char *domain_type;   /* qemu (TCG, default) or kvm */
    char *qemu;          /* emulator binary */
    char *profile;       /* as given: a name or a path */
    char *profile_dir;   /* where names are looked up */
    char *disk;          /* backing file of the emulated NVMe drive */
    char *disk_format;   /* raw (default) or qcow2 */
    char *device_id;     /* QOM id of the nvme device, default nvm0 */
    unsigned memory_mib; /* 0: per OS default */
    unsigned vcpus;      /* 0: per OS default */
    char *kernel, *initrd, *append;
    char *boot_disk;     /* system disk (cloud image, Windows C:) */
    char *boot_bus;      /* NULL: virtio (linux), scsi on lsisas1068 (win) */
    GPtrArray *disks;    /* NvmLvDisk *: cdroms, job/results disks, ... */
    char *serial_log;    /* NULL: a pty */
    char *net;           /* NULL/none, network=NAME or bridge=BR */
    char **fw_dirs;      /* -L directories */
    bool icount;         /* -icount shift=0,sleep=off (simulated time) */
    bool graphics;       /* VNC on 127.0.0.1 (default for windows) */
    /* for nvmimic run --connect */
    uint64_t null_bytes; /* > 0: the drive on null-co of this size, no disk */
    uint64_t seed;       /* profile-seed= of the device (0: QEMU's default) */
    char *ctl_socket;    /* second serial port (ttyS1): a unix socket libvirt
                          * binds, for the guest agent's control channel */
    bool remote_emulator;/* the emulator is on the libvirt host: not checked
                          * here (nvm_lv_guest_start() asks that host) */
} NvmLvSpec;

NvmLvSpec *nvm_lv_spec_new(void);
void nvm_lv_spec_free(NvmLvSpec *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(NvmLvSpec, nvm_lv_spec_free)

/*
 * Check what can be checked before libvirt sees it (profile loads, files
 * exist, the NVMe file is large enough, the name is valid) and make every
 * path absolute.  One sentence in *err when not.
 */
bool nvm_lv_spec_check(NvmLvSpec *s, GError **err);

/* The domain XML; call nvm_lv_spec_check() first. */
char *nvm_lv_domain_xml(const NvmLvSpec *s);

/* Whether NAME is a name nvmimic hands to libvirt (letters, digits, . _ + -). */
bool nvm_lv_name_valid(const char *name);

/*
 * A domain run through libvirt's C API (nvmimic run --connect): define,
 * start, QMP passthrough (virDomainQemuMonitorCommand), state, destroy and
 * undefine.  Errors in the NVM_LV_ERROR domain; code NVM_LV_ERROR_HOST means
 * the host could not be reached or dropped (connection lost, domain
 * vanished or destroyed from outside): worth retrying on another host.
 */
#define NVM_LV_ERROR nvm_lv_error_quark()
GQuark nvm_lv_error_quark(void);
enum { NVM_LV_ERROR_FAILED, NVM_LV_ERROR_HOST };

typedef struct NvmLvGuest NvmLvGuest;

/* Whether @uri names a QEMU driver URI nvmimic can use (qemu[+transport]://). */
bool nvm_lv_uri_valid(const char *uri, GError **err);
/* Connect, check the host's emulator, define and start the domain of @s. */
NvmLvGuest *nvm_lv_guest_start(const char *uri, const NvmLvSpec *s,
                               GError **err);
/* A QMP command through libvirt; the "return" member or NULL. */
JsonNode *nvm_lv_guest_qmp(NvmLvGuest *g, const char *cmd, const char *args,
                           GError **err);
/* false with *err set when the domain is not running (NVM_LV_ERROR_HOST when
 * the host dropped it). */
bool nvm_lv_guest_running(NvmLvGuest *g, GError **err);
/* Wait up to @timeout_ms for the guest to power off; true if it did. */
bool nvm_lv_guest_wait_off(NvmLvGuest *g, int timeout_ms);
/* Destroy (if running), undefine, disconnect. */
void nvm_lv_guest_free(NvmLvGuest *g);

/* argv[1] is "libvirt-xml"; returns the process exit status. */
int nvm_cmd_libvirt_xml(int argc, char **argv, const char *profile_dir);

#endif
