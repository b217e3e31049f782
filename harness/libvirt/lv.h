/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic libvirt-xml: a libvirt domain that runs our QEMU with a profiled
 * NVMe drive.  The spec / build split lets `run --connect` and `matrix` make
 * the same XML without going through the command line.
 */
#ifndef NVMIMIC_LV_H
#define NVMIMIC_LV_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "guestctl.h"
#include "opts.h"

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
    bool icount;         /* -icount shift=N,sleep=off (simulated time) */
    int icount_shift;    /* N: 2^N ns per guest instruction, -3..10 */
    bool graphics;       /* VNC on 127.0.0.1 (default for windows) */
    /* for nvmimic run --connect */
    uint64_t null_bytes; /* > 0: the drive on null-co of this size, no disk */
    uint64_t seed;       /* profile-seed= of the device (0: QEMU's default) */
    bool ctl_serial;     /* a second serial port (ttyS1), a pty: the guest
                          * agent's control channel (nvm_lv_guest_ctl()) */
    bool remote_emulator;/* the emulator is on the libvirt host: not checked
                          * here (nvm_lv_guest_start() asks that host) */
    /*
     * The libvirt host may be another machine: nvm_lv_guest_start() uploads
     * the kernel, initrd, profile file, the drive's backing file, the boot
     * disk and the other disks as storage volumes (in
     * @pool, or in a pool of its own under NVM_LV_POOL_ROOT), and reads the
     * serial ports through the connection (virDomainOpenConsole): serial0
     * into @serial_log here, serial1 as nvm_lv_guest_ctl().
     */
    bool upload;
    char *pool;          /* NULL: a dir pool of the run's own */
} NvmLvSpec;

/* Where a run's own storage pool goes on the libvirt host (a directory
 * named after the domain, removed at the end). */
#define NVM_LV_POOL_ROOT "/var/lib/libvirt/nvmimic"

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

/*
 * The spec as the libvirt host sees it (for upload): every local file the
 * domain names (kernel, initrd, profile file, disks) replaced by its path in
 * @host_paths (local path -> path on the host), the profile always a path,
 * serial0 a pty (its log is captured here).  NULL with *err when a file has
 * no host path.
 */
NvmLvSpec *nvm_lv_spec_for_host(const NvmLvSpec *s, GHashTable *host_paths,
                                GError **err);
/* The files of @s that go to the host (local paths, absolute). */
GPtrArray *nvm_lv_spec_local_files(const NvmLvSpec *s);

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
/* Connect, check the host's emulator, upload the files (s->upload), define
 * and start the domain of @s. */
NvmLvGuest *nvm_lv_guest_start(const char *uri, const NvmLvSpec *s,
                               GError **err);
/* The domain XML as defined on the host. */
const char *nvm_lv_guest_xml(NvmLvGuest *g);
/* The control channel (s->ctl_serial), once; close it with nvm_line_close()
 * (it stays valid after nvm_lv_guest_free() and then reads EOF). */
NvmLineSock *nvm_lv_guest_ctl(NvmLvGuest *g, GError **err);
/* After power-off: copy the volume uploaded from @local (a writable disk)
 * back into @local. */
bool nvm_lv_guest_download(NvmLvGuest *g, const char *local, GError **err);
/* A QMP command through libvirt; the "return" member or NULL. */
JsonNode *nvm_lv_guest_qmp(NvmLvGuest *g, const char *cmd, const char *args,
                           GError **err);
/* false with *err set when the domain is not running (NVM_LV_ERROR_HOST when
 * the host dropped it). */
bool nvm_lv_guest_running(NvmLvGuest *g, GError **err);
/* Wait up to @timeout_ms for the guest to power off; true if it did (and
 * then, for a few seconds at most, for the rest of its console output). */
bool nvm_lv_guest_wait_off(NvmLvGuest *g, int timeout_ms);
/* Destroy (if running), undefine, delete the uploaded volumes and the
 * run's own pool, disconnect. */
void nvm_lv_guest_free(NvmLvGuest *g);

/* The command (cli/opts.h). */
extern const NvmCommand nvm_cmd_libvirt_xml;

#endif
