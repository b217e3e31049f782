/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Drive profiles: strict GKeyFile parsing of profiles/<drive>.ini.
 * Every key is declared once in key_table; unknown, missing or malformed
 * keys are rejected with one line naming the file, the key and the problem.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "nvmimic-model.h"

typedef enum KeyType {
    KT_STR,
    KT_U32,
    KT_U64,
    KT_I32,
    KT_DBL,
    KT_BOOL,
    KT_CELL,
    KT_MAP,
    KT_REVIEW,
    KT_VERSION,
} KeyType;

enum {
    KF_REQ = 1,         /* must be present */
    KF_POS = 2,         /* must be > 0 */
    KF_TLC = 4,         /* only (and required) when cell-mode = tlc */
    KF_QLC = 8,         /* only (and required) when cell-mode = qlc */
};

typedef struct KeyDesc {
    const char *group;
    const char *key;
    KeyType type;
    size_t off;
    unsigned flags;
    const char *doc;
} KeyDesc;

#define OFF(f) offsetof(NvmProfile, f)
#define RP (KF_REQ | KF_POS)

static const KeyDesc key_table[] = {
    { "identity", "description", KT_STR, OFF(description), 0,
      "one-line description shown by `nvmimic profiles`" },
    { "identity", "vendor", KT_STR, OFF(vendor), KF_REQ,
      "vendor name" },
    { "identity", "model-number", KT_STR, OFF(model_number), KF_REQ,
      "model number as Identify Controller reports it" },
    { "identity", "firmware", KT_STR, OFF(firmware), KF_REQ,
      "firmware revision (up to 8 characters)" },
    { "identity", "serial", KT_STR, OFF(serial), KF_REQ,
      "default serial number (the device may override it)" },
    { "identity", "pci-vendor-id", KT_U32, OFF(pci_vendor_id), RP,
      "PCI vendor ID (hex with 0x)" },
    { "identity", "pci-device-id", KT_U32, OFF(pci_device_id), RP,
      "PCI device ID" },
    { "identity", "pci-subsystem-vendor-id", KT_U32,
      OFF(pci_subsys_vendor_id), RP, "PCI subsystem vendor ID" },
    { "identity", "pci-subsystem-id", KT_U32, OFF(pci_subsys_id), RP,
      "PCI subsystem ID" },
    { "identity", "capacity-bytes", KT_U64, OFF(capacity_bytes), RP,
      "user capacity; a multiple of lba-bytes" },
    { "identity", "lba-bytes", KT_U32, OFF(lba_bytes), RP,
      "logical block size: 512 or 4096" },
    { "identity", "mdts-pages", KT_U32, OFF(mdts_pages), RP,
      "maximum data transfer in 4 KiB pages (power of two)" },
    { "identity", "nvme-version", KT_VERSION, OFF(nvme_version), KF_REQ,
      "NVMe version reported, e.g. 1.3" },
    { "identity", "volatile-write-cache", KT_BOOL,
      OFF(volatile_write_cache), KF_REQ,
      "Identify VWC: a volatile write cache is present" },
    { "identity", "endurance-tbw", KT_U64, OFF(endurance_tbw), RP,
      "rated endurance in TB written" },
    { "identity", "temp-warn-c", KT_I32, OFF(temp_warn_c), RP,
      "warning composite temperature threshold (WCTEMP)" },
    { "identity", "temp-crit-c", KT_I32, OFF(temp_crit_c), RP,
      "critical composite temperature threshold (CCTEMP)" },
    { "identity", "temp-idle-c", KT_I32, OFF(temp_idle_c), RP,
      "temperature reported at idle" },

    { "host-interface", "pcie-gen", KT_U32, OFF(pcie_gen), RP,
      "PCIe generation 1-5 (sets the per-lane rate and line coding)" },
    { "host-interface", "pcie-lanes", KT_U32, OFF(pcie_lanes), RP,
      "PCIe lanes" },
    { "host-interface", "max-payload-bytes", KT_U32,
      OFF(max_payload_bytes), RP, "TLP maximum payload size" },
    { "host-interface", "tlp-overhead-bytes", KT_U32,
      OFF(tlp_overhead_bytes), RP,
      "per-TLP header, sequence number, LCRC and framing" },
    { "host-interface", "cmd-overhead-bytes", KT_U32,
      OFF(cmd_overhead_bytes), RP,
      "per-command link traffic: SQE fetch, CQE, doorbell, MSI-X" },

    { "controller", "cores", KT_U32, OFF(cores), RP,
      "firmware cores that process commands" },
    { "controller", "read-cmd-ns", KT_DBL, OFF(read_cmd_ns), RP,
      "firmware time per read command on one core" },
    { "controller", "write-cmd-ns", KT_DBL, OFF(write_cmd_ns), RP,
      "firmware time per write command on one core" },
    { "controller", "flush-cmd-ns", KT_DBL, OFF(flush_cmd_ns), RP,
      "firmware time per flush command" },
    { "controller", "trim-cmd-ns", KT_DBL, OFF(trim_cmd_ns), RP,
      "firmware time per deallocate or write-zeroes command" },
    { "controller", "read-path-mbps", KT_DBL, OFF(read_path_mbps), RP,
      "read data path throughput (LDPC decode + DMA), shared" },
    { "controller", "write-path-mbps", KT_DBL, OFF(write_path_mbps), RP,
      "write data path throughput (DMA + encode), shared" },

    { "nand", "cell-mode", KT_CELL, OFF(cell_mode), KF_REQ,
      "native cell mode: tlc or qlc (SLC is the cache mode)" },
    { "nand", "channels", KT_U32, OFF(channels), RP,
      "flash channels" },
    { "nand", "dies-per-channel", KT_U32, OFF(dies_per_channel), RP,
      "dies (LUNs) on each channel" },
    { "nand", "planes", KT_U32, OFF(planes), RP, "planes per die" },
    { "nand", "page-bytes", KT_U32, OFF(page_bytes), RP,
      "page size per plane" },
    { "nand", "pages-per-block", KT_U32, OFF(pages_per_block), RP,
      "pages per block per plane in native mode" },
    { "nand", "channel-mbps", KT_DBL, OFF(channel_mbps), RP,
      "channel (bus) transfer rate" },
    { "nand", "raw-bytes", KT_U64, OFF(raw_bytes), RP,
      "raw NAND capacity in native mode (dies x die size)" },
    { "nand", "read-us-slc", KT_DBL, OFF(read_us_slc), RP,
      "page read time (tR) in SLC mode" },
    { "nand", "read-us-tlc", KT_DBL, OFF(read_us_native), RP | KF_TLC,
      "page read time in TLC mode" },
    { "nand", "read-us-qlc", KT_DBL, OFF(read_us_native), RP | KF_QLC,
      "page read time in QLC mode" },
    { "nand", "program-us-slc", KT_DBL, OFF(program_us_slc), RP,
      "multi-plane program time (tPROG) in SLC mode" },
    { "nand", "program-us-tlc", KT_DBL, OFF(program_us_native),
      RP | KF_TLC, "one-shot multi-plane program time of a TLC wordline" },
    { "nand", "program-us-qlc", KT_DBL, OFF(program_us_native),
      RP | KF_QLC, "multi-plane program time of a QLC wordline" },
    { "nand", "erase-us", KT_DBL, OFF(erase_us), RP,
      "block erase time (tBERS)" },
    { "nand", "independent-plane-reads", KT_BOOL,
      OFF(independent_plane_reads), KF_REQ,
      "planes of a die serve reads independently" },
    { "nand", "program-suspend", KT_BOOL, OFF(program_suspend), KF_REQ,
      "reads suspend a running program instead of waiting for it" },
    { "nand", "suspend-us", KT_DBL, OFF(suspend_us), RP,
      "cost a read pays to suspend a program" },

    { "cache", "write-buffer-bytes", KT_U64, OFF(write_buffer_bytes), RP,
      "DRAM/SRAM buffer holding written data until it is programmed" },
    { "cache", "slc-static-bytes", KT_U64, OFF(slc_static_bytes), KF_REQ,
      "static SLC cache (reserved blocks), host bytes" },
    { "cache", "slc-dynamic-max-bytes", KT_U64, OFF(slc_dynamic_max_bytes),
      KF_REQ, "largest dynamic SLC cache (empty drive), host bytes" },
    { "cache", "fold-idle-ms", KT_U32, OFF(fold_idle_ms), RP,
      "idle time before background folding of SLC into native starts" },

    { "map", "kind", KT_MAP, OFF(map_kind), KF_REQ,
      "where the logical-to-physical map lives: dram or hmb" },
    { "map", "cache-bytes", KT_U64, OFF(map_cache_bytes), RP,
      "map cache: DRAM size or host memory buffer size" },
    { "map", "entry-bytes", KT_U32, OFF(map_entry_bytes), RP,
      "bytes per map entry" },
    { "map", "unit-bytes", KT_U32, OFF(map_unit_bytes), RP,
      "data bytes per map entry (mapping granularity)" },
    { "map", "chunk-bytes", KT_U32, OFF(map_chunk_bytes), RP,
      "map bytes read from NAND (SLC) on a map cache miss" },
    { "map", "miss-blocks-core", KT_BOOL, OFF(map_miss_blocks_core), KF_REQ,
      "the firmware core waits for a map miss (synchronous load)" },

    { "gc", "reserved-bytes", KT_U64, OFF(gc_reserved_bytes), KF_REQ,
      "raw NAND not available to data or spare (firmware, parity)" },

    { "power", "states", KT_U32, OFF(n_power_states), RP,
      "number of [power-state-N] sections" },
    { "power", "apst-enabled", KT_BOOL, OFF(apst_enabled), KF_REQ,
      "autonomous power state transitions on by default" },
    { "power", "link-l1-idle-us", KT_DBL, OFF(link_l1_idle_us), RP,
      "idle time before the link enters ASPM L1" },
    { "power", "link-l1-exit-us", KT_DBL, OFF(link_l1_exit_us), RP,
      "ASPM L1 exit latency" },
    { "power", "core-idle-us", KT_DBL, OFF(core_idle_us), RP,
      "idle time before a firmware core is clock-gated" },
    { "power", "core-wake-us", KT_DBL, OFF(core_wake_us), RP,
      "time to wake a clock-gated core" },

    { "variability", "nand-jitter-pct", KT_DBL, OFF(nand_jitter_pct),
      KF_REQ, "standard deviation of NAND operation times, % of nominal" },
    { "variability", "read-retry-ppm", KT_DBL, OFF(read_retry_ppm), KF_REQ,
      "reads per million needing a retry, new drive" },
    { "variability", "read-retry-ppm-eol", KT_DBL, OFF(read_retry_ppm_eol),
      KF_REQ, "reads per million needing a retry at 100 % wear" },
    { "variability", "read-retry-us", KT_DBL, OFF(read_retry_us), RP,
      "extra time of a read retry" },

    { "review", "state", KT_REVIEW, OFF(review_state), KF_REQ,
      "review starting state: filled or erased" },
    { "review", "span-pct", KT_DBL, OFF(review_span_pct), RP,
      "test span, % of capacity" },
    { "review", "threads-4k-random-write", KT_U32,
      OFF(review_threads_4k_random_write), RP,
      "outstanding count the 4K write calibration was taken at" },
    { "review", "threads-64k-seq-write", KT_U32,
      OFF(review_threads_64k_seq_write), RP,
      "outstanding count the 64K write calibration was taken at" },
};

#define N_KEYS (sizeof(key_table) / sizeof(key_table[0]))

typedef struct PsKeyDesc {
    const char *key;
    KeyType type;
    size_t off;
    const char *doc;
} PsKeyDesc;

#define PSOFF(f) offsetof(NvmPowerState, f)

static const PsKeyDesc ps_table[] = {
    { "max-power-w", KT_DBL, PSOFF(max_power_w), "maximum power (MP)" },
    { "entry-latency-us", KT_U32, PSOFF(entry_lat_us), "ENLAT" },
    { "exit-latency-us", KT_U32, PSOFF(exit_lat_us), "EXLAT" },
    { "non-operational", KT_BOOL, PSOFF(non_operational), "NOPS" },
    { "idle-before-entry-ms", KT_U32, PSOFF(idle_before_entry_ms),
      "APST default idle time before entry, 0 = not entered" },
};

#define N_PS_KEYS (sizeof(ps_table) / sizeof(ps_table[0]))

static const char *type_name(KeyType t)
{
    switch (t) {
    case KT_STR:
        return "string";
    case KT_U32:
    case KT_U64:
        return "unsigned";
    case KT_I32:
        return "integer";
    case KT_DBL:
        return "number";
    case KT_BOOL:
        return "true|false";
    case KT_CELL:
        return "tlc|qlc";
    case KT_MAP:
        return "dram|hmb";
    case KT_REVIEW:
        return "filled|erased";
    case KT_VERSION:
        return "major.minor";
    }
    return "?";
}

unsigned nvm_profile_key_count(void)
{
    return N_KEYS + N_PS_KEYS;
}

bool nvm_profile_key_info(unsigned i, NvmProfileKeyInfo *ki)
{
    if (i >= N_KEYS + N_PS_KEYS) {
        return false;
    }
    if (i < N_KEYS) {
        ki->group = key_table[i].group;
        ki->key = key_table[i].key;
        ki->type = type_name(key_table[i].type);
        ki->required = key_table[i].flags & (KF_REQ | KF_TLC | KF_QLC);
        ki->doc = key_table[i].doc;
    } else {
        ki->group = "power-state-N";
        ki->key = ps_table[i - N_KEYS].key;
        ki->type = type_name(ps_table[i - N_KEYS].type);
        ki->required = true;
        ki->doc = ps_table[i - N_KEYS].doc;
    }
    return true;
}

static void set_err(GError **errp, const char *file, const char *group,
                    const char *key, const char *fmt, ...)
    G_GNUC_PRINTF(5, 6);

static void set_err(GError **errp, const char *file, const char *group,
                    const char *key, const char *fmt, ...)
{
    va_list ap;
    char *msg;

    va_start(ap, fmt);
    msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    if (key) {
        g_set_error(errp, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                    "%s: [%s] %s: %s", file, group, key, msg);
    } else {
        g_set_error(errp, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                    "%s: [%s]: %s", file, group, msg);
    }
    g_free(msg);
}

/* Parse @val as @type into @dst; false with a reason in *why. */
static bool parse_value(const char *val, KeyType type, void *dst,
                        bool positive, const char **why)
{
    char *end = NULL;

    errno = 0;
    switch (type) {
    case KT_STR:
        if (!*val) {
            *why = "empty string";
            return false;
        }
        *(char **)dst = g_strdup(val);
        return true;
    case KT_U32:
    case KT_U64: {
        guint64 v;

        if (!g_ascii_isdigit(val[0])) {
            *why = val[0] == '-' ? "must not be negative"
                                 : "not an unsigned integer";
            return false;
        }
        v = g_ascii_strtoull(val, &end, 0);
        if (errno || *end) {
            *why = "not an unsigned integer";
            return false;
        }
        if (type == KT_U32 && v > UINT32_MAX) {
            *why = "too large";
            return false;
        }
        if (positive && v == 0) {
            *why = "must be greater than zero";
            return false;
        }
        if (type == KT_U32) {
            *(uint32_t *)dst = v;
        } else {
            *(uint64_t *)dst = v;
        }
        return true;
    }
    case KT_I32: {
        gint64 v = g_ascii_strtoll(val, &end, 10);

        if (errno || *end || end == val || v < INT32_MIN || v > INT32_MAX) {
            *why = "not an integer";
            return false;
        }
        if (positive && v <= 0) {
            *why = "must be greater than zero";
            return false;
        }
        *(int32_t *)dst = v;
        return true;
    }
    case KT_DBL: {
        double v = g_ascii_strtod(val, &end);

        if (errno || *end || end == val || !isfinite(v)) {
            *why = "not a number";
            return false;
        }
        if (v < 0) {
            *why = "must not be negative";
            return false;
        }
        if (positive && v <= 0) {
            *why = "must be greater than zero";
            return false;
        }
        *(double *)dst = v;
        return true;
    }
    case KT_BOOL:
        if (!strcmp(val, "true")) {
            *(bool *)dst = true;
        } else if (!strcmp(val, "false")) {
            *(bool *)dst = false;
        } else {
            *why = "not true or false";
            return false;
        }
        return true;
    case KT_CELL:
        if (!strcmp(val, "tlc")) {
            *(NvmCellMode *)dst = NVM_CELL_TLC;
        } else if (!strcmp(val, "qlc")) {
            *(NvmCellMode *)dst = NVM_CELL_QLC;
        } else {
            *why = "not tlc or qlc";
            return false;
        }
        return true;
    case KT_MAP:
        if (!strcmp(val, "dram")) {
            *(NvmMapKind *)dst = NVM_MAP_DRAM;
        } else if (!strcmp(val, "hmb")) {
            *(NvmMapKind *)dst = NVM_MAP_HMB;
        } else {
            *why = "not dram or hmb";
            return false;
        }
        return true;
    case KT_REVIEW:
        if (!strcmp(val, "filled")) {
            *(NvmReviewState *)dst = NVM_REVIEW_FILLED;
        } else if (!strcmp(val, "erased")) {
            *(NvmReviewState *)dst = NVM_REVIEW_ERASED;
        } else {
            *why = "not filled or erased";
            return false;
        }
        return true;
    case KT_VERSION: {
        unsigned maj, min;
        char extra;

        if (sscanf(val, "%u.%u%c", &maj, &min, &extra) != 2 || maj > 255 ||
            min > 255 || maj == 0) {
            *why = "not a version like 1.4";
            return false;
        }
        *(uint32_t *)dst = maj << 16 | min << 8;
        return true;
    }
    }
    *why = "unknown type";
    return false;
}

static const KeyDesc *find_key(const char *group, const char *key)
{
    for (size_t i = 0; i < N_KEYS; i++) {
        if (!strcmp(key_table[i].group, group) &&
            !strcmp(key_table[i].key, key)) {
            return &key_table[i];
        }
    }
    return NULL;
}

static bool group_known(const char *group)
{
    for (size_t i = 0; i < N_KEYS; i++) {
        if (!strcmp(key_table[i].group, group)) {
            return true;
        }
    }
    return false;
}

static bool is_pow2(uint64_t v)
{
    return v && !(v & (v - 1));
}

/* Cross-key checks: geometry and sizes that cannot exist. */
static bool check_geometry(const NvmProfile *p, const char *f, GError **errp)
{
    uint64_t dies = (uint64_t)p->channels * p->dies_per_channel;
    uint64_t unit = (uint64_t)p->planes * p->page_bytes * p->cell_mode;

    if (p->lba_bytes != 512 && p->lba_bytes != 4096) {
        set_err(errp, f, "identity", "lba-bytes", "must be 512 or 4096");
        return false;
    }
    if (p->capacity_bytes % p->lba_bytes) {
        set_err(errp, f, "identity", "capacity-bytes",
                "%" G_GUINT64_FORMAT " is not a multiple of lba-bytes %u",
                p->capacity_bytes, p->lba_bytes);
        return false;
    }
    if (!is_pow2(p->mdts_pages)) {
        set_err(errp, f, "identity", "mdts-pages", "must be a power of two");
        return false;
    }
    if (p->temp_crit_c <= p->temp_warn_c) {
        set_err(errp, f, "identity", "temp-crit-c",
                "must be above temp-warn-c");
        return false;
    }
    if (p->pcie_gen > 5) {
        set_err(errp, f, "host-interface", "pcie-gen", "must be 1 to 5");
        return false;
    }
    if (!is_pow2(p->pcie_lanes) || p->pcie_lanes > 16) {
        set_err(errp, f, "host-interface", "pcie-lanes",
                "must be 1, 2, 4, 8 or 16");
        return false;
    }
    if (p->cores > NVM_MAX_CORES) {
        set_err(errp, f, "controller", "cores", "more than %d",
                NVM_MAX_CORES);
        return false;
    }
    if (p->channels > NVM_MAX_CHANNELS) {
        set_err(errp, f, "nand", "channels", "more than %d",
                NVM_MAX_CHANNELS);
        return false;
    }
    if (dies > NVM_MAX_DIES) {
        set_err(errp, f, "nand", "dies-per-channel",
                "channels x dies-per-channel exceeds %d", NVM_MAX_DIES);
        return false;
    }
    if (p->planes > NVM_MAX_PLANES) {
        set_err(errp, f, "nand", "planes", "more than %d", NVM_MAX_PLANES);
        return false;
    }
    if (!is_pow2(p->page_bytes) || p->page_bytes < 4096) {
        set_err(errp, f, "nand", "page-bytes",
                "must be a power of two of at least 4096");
        return false;
    }
    if (p->raw_bytes < p->capacity_bytes + p->gc_reserved_bytes +
        p->slc_static_bytes * p->cell_mode) {
        set_err(errp, f, "nand", "raw-bytes",
                "smaller than capacity + reserved + static SLC: "
                "no room for the data");
        return false;
    }
    if (p->raw_bytes % (dies * p->planes * p->page_bytes)) {
        set_err(errp, f, "nand", "raw-bytes",
                "not a whole number of pages on every plane of every die");
        return false;
    }
    if (p->write_buffer_bytes < 2 * unit) {
        set_err(errp, f, "cache", "write-buffer-bytes",
                "must hold two native program units (%" G_GUINT64_FORMAT
                " bytes)", 2 * unit);
        return false;
    }
    if (p->map_unit_bytes % p->lba_bytes || !is_pow2(p->map_unit_bytes)) {
        set_err(errp, f, "map", "unit-bytes",
                "must be a power-of-two multiple of lba-bytes");
        return false;
    }
    if (p->map_entry_bytes > p->map_chunk_bytes) {
        set_err(errp, f, "map", "entry-bytes", "larger than chunk-bytes");
        return false;
    }
    if (!is_pow2(p->map_chunk_bytes) || p->map_chunk_bytes > p->page_bytes ||
        !is_pow2(p->map_entry_bytes)) {
        set_err(errp, f, "map", "chunk-bytes",
                "must be a power of two no larger than page-bytes, "
                "with a power-of-two entry-bytes");
        return false;
    }
    if (p->n_power_states > NVM_MAX_POWER_STATES) {
        set_err(errp, f, "power", "states", "more than %d",
                NVM_MAX_POWER_STATES);
        return false;
    }
    if (p->review_span_pct > 100) {
        set_err(errp, f, "review", "span-pct", "more than 100");
        return false;
    }
    return true;
}

static bool load_power_states(GKeyFile *kf, NvmProfile *p, const char *f,
                              GError **errp)
{
    for (unsigned s = 0; s < p->n_power_states; s++) {
        char group[32];
        g_auto(GStrv) keys = NULL;

        snprintf(group, sizeof(group), "power-state-%u", s);
        keys = g_key_file_get_keys(kf, group, NULL, NULL);
        if (!keys) {
            set_err(errp, f, group, NULL,
                    "missing section ([power] states = %u)",
                    p->n_power_states);
            return false;
        }
        for (char **k = keys; *k; k++) {
            bool found = false;

            for (size_t i = 0; i < N_PS_KEYS; i++) {
                found |= !strcmp(*k, ps_table[i].key);
            }
            if (!found) {
                set_err(errp, f, group, *k, "unknown key");
                return false;
            }
        }
        for (size_t i = 0; i < N_PS_KEYS; i++) {
            g_autofree char *val = g_key_file_get_value(kf, group,
                                                        ps_table[i].key,
                                                        NULL);
            const char *why = NULL;

            if (!val) {
                set_err(errp, f, group, ps_table[i].key,
                        "missing required key");
                return false;
            }
            g_strstrip(val);
            if (!parse_value(val, ps_table[i].type,
                             (char *)&p->ps[s] + ps_table[i].off, false,
                             &why)) {
                set_err(errp, f, group, ps_table[i].key, "'%s': %s", val,
                        why);
                return false;
            }
        }
        if (s == 0 && p->ps[s].non_operational) {
            set_err(errp, f, group, "non-operational",
                    "power state 0 must be operational");
            return false;
        }
        if (p->ps[s].max_power_w <= 0) {
            set_err(errp, f, group, "max-power-w",
                    "must be greater than zero");
            return false;
        }
        if (p->ps[s].idle_before_entry_ms && !p->ps[s].non_operational) {
            set_err(errp, f, group, "idle-before-entry-ms",
                    "APST only enters non-operational states");
            return false;
        }
    }
    return true;
}

static bool power_group_in_range(const char *group, unsigned n)
{
    unsigned s;
    char extra;

    if (sscanf(group, "power-state-%u%c", &s, &extra) != 1) {
        return false;
    }
    return s < n;
}

static NvmProfile *profile_parse(GKeyFile *kf, const char *f, GError **errp)
{
    NvmProfile *p = g_new0(NvmProfile, 1);
    g_auto(GStrv) groups = g_key_file_get_groups(kf, NULL);
    g_autofree char *cell = g_key_file_get_value(kf, "nand", "cell-mode",
                                                 NULL);
    unsigned mode_flag = 0;

    if (cell) {
        g_strstrip(cell);
        mode_flag = !strcmp(cell, "tlc") ? KF_TLC
                  : !strcmp(cell, "qlc") ? KF_QLC : 0;
    }

    /* Pass 1: the number of power states decides which groups exist. */
    {
        g_autofree char *n = g_key_file_get_value(kf, "power", "states",
                                                  NULL);
        const char *why = NULL;

        if (n && !parse_value(g_strstrip(n), KT_U32, &p->n_power_states,
                              true, &why)) {
            set_err(errp, f, "power", "states", "'%s': %s", n, why);
            goto fail;
        }
    }

    /* Unknown groups and keys. */
    for (char **g = groups; *g; g++) {
        g_auto(GStrv) keys = NULL;

        if (power_group_in_range(*g, p->n_power_states)) {
            continue;
        }
        if (!group_known(*g)) {
            set_err(errp, f, *g, NULL, "unknown section");
            goto fail;
        }
        keys = g_key_file_get_keys(kf, *g, NULL, NULL);
        for (char **k = keys; k && *k; k++) {
            const KeyDesc *d = find_key(*g, *k);

            if (!d) {
                set_err(errp, f, *g, *k, "unknown key");
                goto fail;
            }
            if ((d->flags & (KF_TLC | KF_QLC)) && mode_flag &&
                !(d->flags & mode_flag)) {
                set_err(errp, f, *g, *k, "not used with cell-mode = %s",
                        cell);
                goto fail;
            }
        }
    }

    for (size_t i = 0; i < N_KEYS; i++) {
        const KeyDesc *d = &key_table[i];
        g_autofree char *val = NULL;
        const char *why = NULL;
        bool required = d->flags & KF_REQ;

        if (d->flags & (KF_TLC | KF_QLC)) {
            if (!mode_flag || !(d->flags & mode_flag)) {
                continue;
            }
        }
        val = g_key_file_get_value(kf, d->group, d->key, NULL);
        if (!val) {
            if (required) {
                set_err(errp, f, d->group, d->key, "missing required key");
                goto fail;
            }
            continue;
        }
        g_strstrip(val);
        if (!parse_value(val, d->type, (char *)p + d->off,
                         d->flags & KF_POS, &why)) {
            set_err(errp, f, d->group, d->key, "'%s': %s", val, why);
            goto fail;
        }
    }

    if (!load_power_states(kf, p, f, errp)) {
        goto fail;
    }
    if (!check_geometry(p, f, errp)) {
        goto fail;
    }
    p->mdts = g_bit_nth_msf(p->mdts_pages, -1);
    return p;

fail:
    nvm_profile_free(p);
    return NULL;
}

NvmProfile *nvm_profile_load(const char *name_or_path, const char *search_dir,
                             GError **errp)
{
    g_autofree char *path = NULL;
    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_autoptr(GError) err = NULL;
    NvmProfile *p;
    char *base;

    if (!name_or_path || !*name_or_path) {
        g_set_error(errp, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "no profile name given");
        return NULL;
    }
    if (strchr(name_or_path, '/') || g_str_has_suffix(name_or_path, ".ini")) {
        path = g_strdup(name_or_path);
    } else {
        path = g_strdup_printf("%s/%s.ini", search_dir ? search_dir : ".",
                               name_or_path);
    }
    if (!g_key_file_load_from_file(kf, path, G_KEY_FILE_NONE, &err)) {
        if (g_error_matches(err, G_FILE_ERROR, G_FILE_ERROR_NOENT)) {
            g_set_error(errp, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                        "%s: no such profile (try `nvmimic profiles`)",
                        path);
        } else {
            g_set_error(errp, err->domain, err->code, "%s: %s", path,
                        err->message);
        }
        return NULL;
    }
    p = profile_parse(kf, path, errp);
    if (!p) {
        return NULL;
    }
    p->path = g_strdup(path);
    base = g_path_get_basename(path);
    if (g_str_has_suffix(base, ".ini")) {
        base[strlen(base) - 4] = 0;
    }
    p->name = base;
    return p;
}

void nvm_profile_free(NvmProfile *p)
{
    if (!p) {
        return;
    }
    for (size_t i = 0; i < N_KEYS; i++) {
        if (key_table[i].type == KT_STR) {
            g_free(*(char **)((char *)p + key_table[i].off));
        }
    }
    g_free(p->name);
    g_free(p->path);
    g_free(p);
}

static gint cmp_str(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char **nvm_profile_list(const char *dir, GError **errp)
{
    g_autoptr(GDir) d = g_dir_open(dir, 0, errp);
    GPtrArray *names;
    const char *ent;

    if (!d) {
        return NULL;
    }
    names = g_ptr_array_new();
    while ((ent = g_dir_read_name(d))) {
        if (g_str_has_suffix(ent, ".ini")) {
            g_ptr_array_add(names, g_strndup(ent, strlen(ent) - 4));
        }
    }
    g_ptr_array_sort(names, cmp_str);
    g_ptr_array_add(names, NULL);
    return (char **)g_ptr_array_free(names, FALSE);
}
