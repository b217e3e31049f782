/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Drive profiles: strict GKeyFile parsing of profiles/<drive>.ini.
 * Every key is declared once in key_table, with its bounds; unknown,
 * missing, malformed or out-of-range keys are rejected with one line naming
 * the file, the [section] key and the problem (for a value out of range:
 * the allowed range and why).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
    KT_LBAF,
} KeyType;

enum {
    KF_REQ = 1,         /* must be present */
    KF_POW2 = 2,        /* must be a power of two */
    KF_TLC = 4,         /* only (and required) when cell-mode = tlc */
    KF_QLC = 8,         /* only (and required) when cell-mode = qlc */
    KF_ASCII = 16,      /* printable ASCII (Identify fields) */
    KF_HEX = 32,        /* bounds shown in hex (IDs) */
};

/*
 * One profile key.  Every numeric key states its bounds: min and max are
 * inclusive, in unit (for strings: the length in characters; for
 * nvme-version: the VS register value), and why says where they come
 * from.  Integer bounds are whole numbers below 2^53, so the double holds
 * them exactly.  Keys of the enumerated types (bool, cell mode, map kind,
 * review state) take NO_BOUND: their values are the set.
 *
 * The bounds keep everything the model and the device compute from a
 * profile inside 64-bit arithmetic, every allocation inside
 * nvm_model_max_memory_bytes(), and every time a guest can be made to wait
 * in seconds, not days.  A new key declares its bound in its table line.
 */
typedef struct KeyBound {
    double min, max;
    const char *unit;
    const char *why;
} KeyBound;

typedef struct KeyDesc {
    const char *group;
    const char *key;
    KeyType type;
    size_t off;
    unsigned flags;
    KeyBound b;
    const char *doc;
} KeyDesc;

#define OFF(f) offsetof(NvmProfile, f)
#define BOUND(lo, hi, unit, why) { (lo), (hi), (unit), (why) }
#define NO_BOUND { 0, 0, NULL, NULL }

#define KIB 1024.0
#define MIB (1024.0 * 1024)
#define GIB (1024.0 * 1024 * 1024)
#define TIB (1024.0 * 1024 * 1024 * 1024)

#define WHY_PCI_ID "a 16-bit PCI ID; 0 and 0xffff are not IDs"
#define WHY_TEMP "drives work below 85 C and throttle before 125 C; " \
                 "NVMe reports Kelvin in 16 bits"
#define WHY_CMD_NS "firmware work per command is microseconds; 10 ms " \
                   "bounds what one command can cost"
#define WHY_PATH "real paths run 0.5-15 GB/s; at 10 MB/s a 2 MiB " \
                 "transfer takes 0.2 s"
#define WHY_READ_US "tR is 20-150 us; 10 ms bounds a read's wait"
#define WHY_PROG_US "tPROG is 0.1-3 ms, calibrated steady-state times " \
                    "up to 40 ms; 100 ms bounds a program's wait"
#define WHY_SPACE "at most the largest capacity (256 TiB)"
#define WHY_PPM "a probability in parts per million"

static const KeyDesc key_table[] = {
    { "identity", "description", KT_STR, OFF(description), 0,
      BOUND(1, 200, "characters", "one line in `nvmimic profiles`"),
      "one-line description shown by `nvmimic profiles`" },
    { "identity", "vendor", KT_STR, OFF(vendor), KF_REQ | KF_ASCII,
      BOUND(1, 64, "characters", "a name in reports"),
      "vendor name" },
    { "identity", "model-number", KT_STR, OFF(model_number),
      KF_REQ | KF_ASCII,
      BOUND(1, 40, "characters", "Identify Controller MN is 40 ASCII bytes"),
      "model number as Identify Controller reports it" },
    { "identity", "firmware", KT_STR, OFF(firmware), KF_REQ | KF_ASCII,
      BOUND(1, 8, "characters", "Identify Controller FR is 8 ASCII bytes"),
      "firmware revision (up to 8 characters)" },
    { "identity", "serial", KT_STR, OFF(serial), KF_REQ | KF_ASCII,
      BOUND(1, 20, "characters", "Identify Controller SN is 20 ASCII bytes"),
      "default serial number (the device may override it)" },
    { "identity", "pci-vendor-id", KT_U32, OFF(pci_vendor_id), KF_REQ | KF_HEX,
      BOUND(1, 0xfffe, "", WHY_PCI_ID),
      "PCI vendor ID (hex with 0x)" },
    { "identity", "pci-device-id", KT_U32, OFF(pci_device_id), KF_REQ | KF_HEX,
      BOUND(1, 0xfffe, "", WHY_PCI_ID),
      "PCI device ID" },
    { "identity", "pci-subsystem-vendor-id", KT_U32,
      OFF(pci_subsys_vendor_id), KF_REQ | KF_HEX,
      BOUND(1, 0xfffe, "", WHY_PCI_ID),
      "PCI subsystem vendor ID" },
    { "identity", "pci-subsystem-id", KT_U32, OFF(pci_subsys_id),
      KF_REQ | KF_HEX,
      BOUND(1, 0xfffe, "", WHY_PCI_ID),
      "PCI subsystem ID" },
    { "identity", "capacity-bytes", KT_U64, OFF(capacity_bytes), KF_REQ,
      BOUND(MIB, NVM_MAX_CAPACITY_BYTES, "bytes",
            "the largest drives hold ~128 TB; byte offsets stay exact in "
            "a double"),
      "user capacity; a multiple of lba-bytes" },
    { "identity", "lba-bytes", KT_U32, OFF(lba_bytes), KF_REQ,
      BOUND(512, 4096, "bytes", "512 or 4096, the formats drives ship"),
      "logical block size: 512 or 4096" },
    { "identity", "mdts-pages", KT_U32, OFF(mdts_pages), KF_REQ | KF_POW2,
      BOUND(2, 512, "pages of 4 KiB",
            "QEMU's nvme takes MDTS 1-9: 0 would mean no limit, 2^10 + 1 "
            "pages exceed IOV_MAX"),
      "maximum data transfer in 4 KiB pages (power of two)" },
    { "identity", "nvme-version", KT_VERSION, OFF(nvme_version), KF_REQ,
      BOUND(0x10000, 0x20100, "", "the NVMe versions published so far"),
      "NVMe version reported, e.g. 1.3" },
    { "identity", "volatile-write-cache", KT_BOOL,
      OFF(volatile_write_cache), KF_REQ, NO_BOUND,
      "Identify VWC: a volatile write cache is present" },
    { "identity", "endurance-tbw", KT_U64, OFF(endurance_tbw), KF_REQ,
      BOUND(1, 1000000, "TB",
            "enterprise drives rate ~200000 TBW; 255 % of 1 EB still fits "
            "64-bit byte counters"),
      "rated endurance in TB written" },
    { "identity", "temp-warn-c", KT_I32, OFF(temp_warn_c), KF_REQ,
      BOUND(1, 125, "C", WHY_TEMP),
      "warning composite temperature threshold (WCTEMP)" },
    { "identity", "temp-crit-c", KT_I32, OFF(temp_crit_c), KF_REQ,
      BOUND(1, 125, "C", WHY_TEMP),
      "critical composite temperature threshold (CCTEMP)" },
    { "identity", "temp-idle-c", KT_I32, OFF(temp_idle_c), KF_REQ,
      BOUND(1, 125, "C", WHY_TEMP),
      "temperature reported at idle" },
    /* Identify Controller capabilities, as the drive reports them */
    { "identity", "ieee-oui", KT_U32, OFF(ieee_oui), KF_REQ | KF_HEX,
      BOUND(0, 0xffffff, "", "Identify IEEE is a 24-bit OUI"),
      "IEEE OUI of the vendor (Identify Controller IEEE), e.g. 0x6479a7" },
    { "identity", "namespaces", KT_U32, OFF(namespaces), KF_REQ,
      BOUND(1, 256, "",
            "QEMU's controller has 256 namespace slots; nvmimic emulates one"),
      "number of namespaces reported (NN)" },
    { "identity", "oacs", KT_U32, OFF(oacs), KF_REQ | KF_HEX,
      BOUND(0, 0xffff, "", "OACS is a 16-bit field"),
      "Optional Admin Command Support bits (OACS)" },
    { "identity", "oncs", KT_U32, OFF(oncs), KF_REQ | KF_HEX,
      BOUND(0, 0xffff, "", "ONCS is a 16-bit field"),
      "Optional NVM Command Support bits (ONCS)" },
    { "identity", "frmw", KT_U32, OFF(frmw), KF_REQ | KF_HEX,
      BOUND(0x2, 0xff, "", "FRMW is 8 bits; bits 3:1 count 1-7 slots"),
      "Firmware Updates field (FRMW): slots, slot 1 read-only" },
    { "identity", "lpa", KT_U32, OFF(lpa), KF_REQ | KF_HEX,
      BOUND(0, 0xff, "", "LPA is an 8-bit field"),
      "Log Page Attributes bits (LPA)" },
    { "identity", "oaes", KT_U32, OFF(oaes), KF_REQ | KF_HEX,
      BOUND(0, 0xffffffff, "", "OAES is a 32-bit field"),
      "Optional Asynchronous Events Supported bits (OAES)" },
    { "identity", "sanicap", KT_U32, OFF(sanicap), KF_REQ | KF_HEX,
      BOUND(0, 0xffffffff, "", "SANICAP is a 32-bit field"),
      "Sanitize Capabilities (SANICAP); 0 = no Sanitize command" },
    { "identity", "tnvmcap-bytes", KT_U64, OFF(tnvmcap_bytes), KF_REQ,
      BOUND(0, NVM_MAX_CAPACITY_BYTES, "bytes", WHY_SPACE),
      "Total NVM Capacity (TNVMCAP); 0 where the drive reports 0" },
    { "identity", "unvmcap-bytes", KT_U64, OFF(unvmcap_bytes), KF_REQ,
      BOUND(0, NVM_MAX_CAPACITY_BYTES, "bytes", WHY_SPACE),
      "Unallocated NVM Capacity (UNVMCAP), at most TNVMCAP" },
    { "identity", "awun", KT_U32, OFF(awun), KF_REQ,
      BOUND(0, 0xffff, "logical blocks, 0-based", "AWUN is a 16-bit field"),
      "Atomic Write Unit Normal (AWUN)" },
    { "identity", "awupf", KT_U32, OFF(awupf), KF_REQ,
      BOUND(0, 0xffff, "logical blocks, 0-based", "AWUPF is a 16-bit field"),
      "Atomic Write Unit Power Fail (AWUPF)" },
    { "identity", "lba-formats", KT_LBAF, OFF(lba_formats), KF_REQ,
      BOUND(1, NVM_MAX_LBA_FORMATS, "formats",
            "NVMe lists up to 16 LBA formats; each 512 B to 64 KiB"),
      "LBA formats Identify Namespace lists, in order, as bytes[:relative "
      "performance 0-3], comma separated, e.g. 512:1,4096:0" },

    { "host-interface", "pcie-gen", KT_U32, OFF(pcie_gen), KF_REQ,
      BOUND(1, 5, "", "PCIe generations with a known lane rate"),
      "PCIe generation 1-5 (sets the per-lane rate and line coding)" },
    { "host-interface", "pcie-lanes", KT_U32, OFF(pcie_lanes),
      KF_REQ | KF_POW2,
      BOUND(1, 16, "lanes", "PCIe links are x1, x2, x4, x8 or x16"),
      "PCIe lanes" },
    { "host-interface", "max-payload-bytes", KT_U32,
      OFF(max_payload_bytes), KF_REQ | KF_POW2,
      BOUND(128, 4096, "bytes", "PCIe Max_Payload_Size encodings"),
      "TLP maximum payload size" },
    { "host-interface", "tlp-overhead-bytes", KT_U32,
      OFF(tlp_overhead_bytes), KF_REQ,
      BOUND(8, 64, "bytes",
            "12-16 B header, sequence number, LCRC, framing, ECRC"),
      "per-TLP header, sequence number, LCRC and framing" },
    { "host-interface", "cmd-overhead-bytes", KT_U32,
      OFF(cmd_overhead_bytes), KF_REQ,
      BOUND(1, 4096, "bytes", "a few TLPs per command"),
      "per-command link traffic: SQE fetch, CQE, doorbell, MSI-X" },

    { "controller", "cores", KT_U32, OFF(cores), KF_REQ,
      BOUND(1, NVM_MAX_CORES, "cores", "the model's per-core state"),
      "firmware cores that process commands" },
    { "controller", "read-cmd-ns", KT_DBL, OFF(read_cmd_ns), KF_REQ,
      BOUND(1, 1e7, "ns", WHY_CMD_NS),
      "firmware time per read command on one core" },
    { "controller", "write-cmd-ns", KT_DBL, OFF(write_cmd_ns), KF_REQ,
      BOUND(1, 1e7, "ns", WHY_CMD_NS),
      "firmware time per write command on one core" },
    { "controller", "flush-cmd-ns", KT_DBL, OFF(flush_cmd_ns), KF_REQ,
      BOUND(1, 1e7, "ns", WHY_CMD_NS),
      "firmware time per flush command" },
    { "controller", "trim-cmd-ns", KT_DBL, OFF(trim_cmd_ns), KF_REQ,
      BOUND(1, 1e7, "ns", WHY_CMD_NS),
      "firmware time per deallocate or write-zeroes command" },
    { "controller", "read-path-mbps", KT_DBL, OFF(read_path_mbps), KF_REQ,
      BOUND(10, 1e6, "MB/s", WHY_PATH),
      "read data path throughput (LDPC decode + DMA), shared" },
    { "controller", "write-path-mbps", KT_DBL, OFF(write_path_mbps), KF_REQ,
      BOUND(10, 1e6, "MB/s", WHY_PATH),
      "write data path throughput (DMA + encode), shared" },

    { "nand", "cell-mode", KT_CELL, OFF(cell_mode), KF_REQ, NO_BOUND,
      "native cell mode: tlc or qlc (SLC is the cache mode)" },
    { "nand", "channels", KT_U32, OFF(channels), KF_REQ,
      BOUND(1, NVM_MAX_CHANNELS, "channels",
            "controllers have 2-16; the model's per-channel state"),
      "flash channels" },
    { "nand", "dies-per-channel", KT_U32, OFF(dies_per_channel), KF_REQ,
      BOUND(1, NVM_MAX_DIES, "dies",
            "the model's per-die state; channels x dies is bounded too"),
      "dies (LUNs) on each channel" },
    { "nand", "planes", KT_U32, OFF(planes), KF_REQ,
      BOUND(1, NVM_MAX_PLANES, "planes", "NAND dies have 1-6 planes"),
      "planes per die" },
    { "nand", "page-bytes", KT_U32, OFF(page_bytes), KF_REQ | KF_POW2,
      BOUND(NVM_MIN_PAGE_BYTES, NVM_MAX_PAGE_BYTES, "bytes",
            "NAND pages are 4-16 KiB; keeps a program unit in 32 bits"),
      "page size per plane" },
    { "nand", "pages-per-block", KT_U32, OFF(pages_per_block), KF_REQ,
      BOUND(16, 16384, "pages",
            "blocks hold hundreds to a few thousand pages"),
      "pages per block per plane in native mode" },
    { "nand", "channel-mbps", KT_DBL, OFF(channel_mbps), KF_REQ,
      BOUND(10, 10000, "MB/s",
            "ONFI and Toggle buses run 40-3600 MT/s on 8 bits"),
      "channel (bus) transfer rate" },
    { "nand", "raw-bytes", KT_U64, OFF(raw_bytes), KF_REQ,
      BOUND(MIB, 2 * NVM_MAX_CAPACITY_BYTES, "bytes",
            "twice the largest capacity"),
      "raw NAND capacity in native mode (dies x die size)" },
    { "nand", "read-us-slc", KT_DBL, OFF(read_us_slc), KF_REQ,
      BOUND(1, 10000, "us", WHY_READ_US),
      "page read time (tR) in SLC mode" },
    { "nand", "read-us-tlc", KT_DBL, OFF(read_us_native), KF_REQ | KF_TLC,
      BOUND(1, 10000, "us", WHY_READ_US),
      "page read time in TLC mode" },
    { "nand", "read-us-qlc", KT_DBL, OFF(read_us_native), KF_REQ | KF_QLC,
      BOUND(1, 10000, "us", WHY_READ_US),
      "page read time in QLC mode" },
    { "nand", "program-us-slc", KT_DBL, OFF(program_us_slc), KF_REQ,
      BOUND(10, 100000, "us", WHY_PROG_US),
      "multi-plane program time (tPROG) in SLC mode" },
    { "nand", "program-us-tlc", KT_DBL, OFF(program_us_native),
      KF_REQ | KF_TLC, BOUND(10, 100000, "us", WHY_PROG_US),
      "one-shot multi-plane program time of a TLC wordline" },
    { "nand", "program-us-qlc", KT_DBL, OFF(program_us_native),
      KF_REQ | KF_QLC, BOUND(10, 100000, "us", WHY_PROG_US),
      "multi-plane program time of a QLC wordline" },
    { "nand", "erase-us", KT_DBL, OFF(erase_us), KF_REQ,
      BOUND(100, 100000, "us", "tBERS is 3-10 ms"),
      "block erase time (tBERS)" },
    { "nand", "independent-plane-reads", KT_BOOL,
      OFF(independent_plane_reads), KF_REQ, NO_BOUND,
      "planes of a die serve reads independently" },
    { "nand", "program-suspend", KT_BOOL, OFF(program_suspend), KF_REQ,
      NO_BOUND,
      "reads suspend a running program instead of waiting for it" },
    { "nand", "suspend-us", KT_DBL, OFF(suspend_us), KF_REQ,
      BOUND(0.1, 1000, "us", "suspend and resume cost tens of us"),
      "cost a read pays to suspend a program" },

    { "cache", "write-buffer-bytes", KT_U64, OFF(write_buffer_bytes), KF_REQ,
      BOUND(64 * KIB, NVM_MAX_WRITE_BUFFER_BYTES, "bytes",
            "SRAM/DRAM write buffers are a few MiB; the model keeps 8 B "
            "per 4 KiB of it"),
      "DRAM/SRAM buffer holding written data until it is programmed" },
    { "cache", "slc-static-bytes", KT_U64, OFF(slc_static_bytes), KF_REQ,
      BOUND(0, NVM_MAX_CAPACITY_BYTES, "bytes", WHY_SPACE),
      "static SLC cache (reserved blocks), host bytes" },
    { "cache", "slc-dynamic-max-bytes", KT_U64, OFF(slc_dynamic_max_bytes),
      KF_REQ, BOUND(0, NVM_MAX_CAPACITY_BYTES, "bytes", WHY_SPACE),
      "largest dynamic SLC cache (empty drive), host bytes" },
    { "cache", "fold-idle-ms", KT_U32, OFF(fold_idle_ms), KF_REQ,
      BOUND(1, 3600000, "ms", "firmware folds within an hour of idle"),
      "idle time before background folding of SLC into native starts" },

    { "map", "kind", KT_MAP, OFF(map_kind), KF_REQ, NO_BOUND,
      "where the logical-to-physical map lives: dram or hmb" },
    { "map", "cache-bytes", KT_U64, OFF(map_cache_bytes), KF_REQ,
      BOUND(4 * KIB, 64 * GIB, "bytes",
            "HMBs are tens of MB, DRAM ~1 GB per TB; a partial map's tag "
            "count is bounded too"),
      "map cache: DRAM size or host memory buffer size" },
    { "map", "entry-bytes", KT_U32, OFF(map_entry_bytes), KF_REQ | KF_POW2,
      BOUND(1, 16, "bytes", "page-level maps use 4-8 B entries"),
      "bytes per map entry" },
    { "map", "unit-bytes", KT_U32, OFF(map_unit_bytes), KF_REQ | KF_POW2,
      BOUND(512, 65536, "bytes",
            "FTLs map 4 KiB, some QLC drives 16-64 KiB"),
      "data bytes per map entry (mapping granularity)" },
    { "map", "chunk-bytes", KT_U32, OFF(map_chunk_bytes), KF_REQ | KF_POW2,
      BOUND(512, NVM_MAX_PAGE_BYTES, "bytes",
            "one ECC codeword to one page"),
      "map bytes read from NAND (SLC) on a map cache miss" },
    { "map", "miss-blocks-core", KT_BOOL, OFF(map_miss_blocks_core), KF_REQ,
      NO_BOUND,
      "the firmware core waits for a map miss (synchronous load)" },

    { "gc", "reserved-bytes", KT_U64, OFF(gc_reserved_bytes), KF_REQ,
      BOUND(0, 2 * NVM_MAX_CAPACITY_BYTES, "bytes", "at most raw-bytes"),
      "raw NAND not available to data or spare (firmware, parity)" },

    { "power", "states", KT_U32, OFF(n_power_states), KF_REQ,
      BOUND(1, NVM_MAX_POWER_STATES, "states",
            "drives report 3-5; the model's per-state table"),
      "number of [power-state-N] sections" },
    { "power", "apst-enabled", KT_BOOL, OFF(apst_enabled), KF_REQ, NO_BOUND,
      "autonomous power state transitions on by default" },
    { "power", "link-l1-idle-us", KT_DBL, OFF(link_l1_idle_us), KF_REQ,
      BOUND(1, 1e6, "us", "ASPM enters L1 after us to ms of idle"),
      "idle time before the link enters ASPM L1" },
    { "power", "link-l1-exit-us", KT_DBL, OFF(link_l1_exit_us), KF_REQ,
      BOUND(0.1, 10000, "us", "L1.2 exits in tens of us"),
      "ASPM L1 exit latency" },
    { "power", "core-idle-us", KT_DBL, OFF(core_idle_us), KF_REQ,
      BOUND(0.1, 1e6, "us", "clock gating after us to ms of idle"),
      "idle time before a firmware core is clock-gated" },
    { "power", "core-wake-us", KT_DBL, OFF(core_wake_us), KF_REQ,
      BOUND(0.01, 10000, "us", "a gated core wakes in a few us"),
      "time to wake a clock-gated core" },

    { "variability", "nand-jitter-pct", KT_DBL, OFF(nand_jitter_pct),
      KF_REQ, BOUND(0, 100, "%", "a share of the nominal time"),
      "standard deviation of NAND operation times, % of nominal" },
    { "variability", "read-retry-ppm", KT_DBL, OFF(read_retry_ppm), KF_REQ,
      BOUND(0, 1e6, "ppm", WHY_PPM),
      "reads per million needing a retry, new drive" },
    { "variability", "read-retry-ppm-eol", KT_DBL, OFF(read_retry_ppm_eol),
      KF_REQ, BOUND(0, 1e6, "ppm", WHY_PPM),
      "reads per million needing a retry at 100 % wear" },
    { "variability", "read-retry-us", KT_DBL, OFF(read_retry_us), KF_REQ,
      BOUND(1, 100000, "us",
            "a retry is a re-read plus soft decode: 0.1-10 ms"),
      "extra time of a read retry" },

    { "review", "state", KT_REVIEW, OFF(review_state), KF_REQ, NO_BOUND,
      "review starting state: filled or erased" },
    { "review", "span-pct", KT_DBL, OFF(review_span_pct), KF_REQ,
      BOUND(0.001, 100, "%", "a share of the capacity"),
      "test span, % of capacity" },
    { "review", "threads-4k-random-write", KT_U32,
      OFF(review_threads_4k_random_write), KF_REQ,
      BOUND(1, 65536, "commands", "an NVMe queue holds at most 64 Ki"),
      "outstanding count the 4K write calibration was taken at" },
    { "review", "threads-64k-seq-write", KT_U32,
      OFF(review_threads_64k_seq_write), KF_REQ,
      BOUND(1, 65536, "commands", "an NVMe queue holds at most 64 Ki"),
      "outstanding count the 64K write calibration was taken at" },
};

#define N_KEYS (sizeof(key_table) / sizeof(key_table[0]))

#define PSOFF(f) offsetof(NvmPowerState, f)

/* The keys of each [power-state-N] section; @off is into NvmPowerState. */
static const KeyDesc ps_table[] = {
    { "power-state-N", "max-power-w", KT_DBL, PSOFF(max_power_w), KF_REQ,
      BOUND(0.0001, 655.35, "W",
            "the descriptor's MP field: 16 bits of 0.01 W, or 0.0001 W"),
      "maximum power (MP)" },
    { "power-state-N", "entry-latency-us", KT_U32, PSOFF(entry_lat_us),
      KF_REQ, BOUND(0, 1e6, "us",
                    "drives report up to ~100 ms; 1 s bounds the wait"),
      "ENLAT" },
    { "power-state-N", "exit-latency-us", KT_U32, PSOFF(exit_lat_us),
      KF_REQ, BOUND(0, 1e6, "us",
                    "drives report up to ~100 ms; 1 s bounds the wait"),
      "EXLAT" },
    { "power-state-N", "non-operational", KT_BOOL, PSOFF(non_operational),
      KF_REQ, NO_BOUND, "NOPS" },
    { "power-state-N", "idle-before-entry-ms", KT_U32,
      PSOFF(idle_before_entry_ms), KF_REQ,
      BOUND(0, 0xffffff, "ms", "APST's ITPT field is 24 bits of ms"),
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
    case KT_LBAF:
        return "bytes[:rp],...";
    }
    return "?";
}

static bool is_bounded(const KeyDesc *d)
{
    return d->b.why != NULL;
}

static bool is_integer(KeyType t)
{
    return t == KT_U32 || t == KT_U64 || t == KT_I32;
}

/* "1 to 65534 bytes", in hex when @hex; "" for keys without bounds. */
static void format_range(const KeyDesc *d, bool hex, char *buf, size_t n)
{
    const char *sp = d->b.unit && *d->b.unit ? " " : "";
    const char *unit = d->b.unit ? d->b.unit : "";

    if (!is_bounded(d)) {
        snprintf(buf, n, "%s", type_name(d->type));
    } else if (d->type == KT_VERSION) {
        uint32_t lo = d->b.min, hi = d->b.max;

        snprintf(buf, n, "%u.%u to %u.%u", lo >> 16, lo >> 8 & 0xff,
                 hi >> 16, hi >> 8 & 0xff);
    } else if (hex && is_integer(d->type)) {
        snprintf(buf, n, "0x%" PRIx64 " to 0x%" PRIx64 "%s%s",
                 (uint64_t)d->b.min, (uint64_t)d->b.max, sp, unit);
    } else if (is_integer(d->type) || d->type == KT_STR) {
        snprintf(buf, n, "%.0f to %.0f%s%s", d->b.min, d->b.max, sp, unit);
    } else {
        snprintf(buf, n, "%g to %g%s%s", d->b.min, d->b.max, sp, unit);
    }
}

unsigned nvm_profile_key_count(void)
{
    return N_KEYS + N_PS_KEYS;
}

bool nvm_profile_key_info(unsigned i, NvmProfileKeyInfo *ki)
{
    const KeyDesc *d;

    if (i >= N_KEYS + N_PS_KEYS) {
        return false;
    }
    d = i < N_KEYS ? &key_table[i] : &ps_table[i - N_KEYS];
    ki->group = d->group;
    ki->key = d->key;
    ki->type = type_name(d->type);
    ki->required = d->flags & (KF_REQ | KF_TLC | KF_QLC);
    ki->doc = d->doc;
    ki->bounded = is_bounded(d);
    ki->integer = is_integer(d->type);
    ki->length = d->type == KT_STR;
    ki->min = d->b.min;
    ki->max = d->b.max;
    ki->why = d->b.why;
    ki->power_of_two = d->flags & KF_POW2;
    ki->cell_mode = d->flags & KF_TLC ? NVM_CELL_TLC
                  : d->flags & KF_QLC ? NVM_CELL_QLC : 0;
    format_range(d, d->flags & KF_HEX, ki->range, sizeof(ki->range));
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

static bool is_pow2(uint64_t v)
{
    return v && !(v & (v - 1));
}

static bool is_ascii_printable(const char *s)
{
    for (; *s; s++) {
        if (*s < 0x20 || *s > 0x7e) {
            return false;
        }
    }
    return true;
}

/* "512:1,4096:0": LBA data sizes (powers of two) with Relative Performance */
static bool parse_lba_formats(const char *val, NvmLbaFormats *f,
                              const char **why)
{
    g_auto(GStrv) items = g_strsplit(val, ",", -1);

    f->n = 0;
    for (char **it = items; *it; it++) {
        char *item = g_strstrip(*it), *end = NULL;
        guint64 bytes, rp = 0;

        errno = 0;
        bytes = g_ascii_strtoull(item, &end, 10);
        if (!g_ascii_isdigit(item[0]) || errno || bytes < 512 ||
            bytes > 65536 || (bytes & (bytes - 1))) {
            *why = "an LBA size must be a power of two from 512 to 65536";
            return false;
        }
        if (*end == ':') {
            char *rp_s = end + 1;

            rp = g_ascii_strtoull(rp_s, &end, 10);
            if (!g_ascii_isdigit(rp_s[0]) || rp > 3) {
                *why = "relative performance must be 0 to 3";
                return false;
            }
        }
        if (*end) {
            *why = "not a list like 512:1,4096:0";
            return false;
        }
        for (unsigned i = 0; i < f->n; i++) {
            if (f->bytes[i] == bytes) {
                *why = "an LBA size is listed twice";
                return false;
            }
        }
        f->bytes[f->n] = bytes;
        f->rp[f->n++] = rp;
    }
    return true;
}

/* @val for an error line: escaped, at most 40 characters. */
static char *quote_value(const char *val)
{
    char high[129] = "";
    g_autofree char *cut = NULL;

    for (int i = 0; i < 128; i++) {
        high[i] = (char)(0x80 + i);         /* keep UTF-8 as it is */
    }
    if (g_utf8_validate(val, -1, NULL) && g_utf8_strlen(val, -1) > 40) {
        g_autofree char *head = g_utf8_substring(val, 0, 37);

        cut = g_strconcat(head, "...", NULL);
    } else if (strlen(val) > 40) {
        cut = g_strndup(val, 37);
        cut = g_realloc(cut, 41);
        strcat(cut, "...");
    }
    return g_strescape(cut ? cut : val, high);
}

/*
 * Parse @val for key @d into @dst.  On failure, false with the reason in
 * *why (static) or, for a value outside the key's bounds, in *range_err
 * (allocated): "'VAL' is outside the allowed range MIN to MAX UNIT (WHY)".
 */
static bool parse_value(const char *val, const KeyDesc *d, void *dst,
                        const char **why, char **range_err)
{
    char *end = NULL;
    bool hex = g_str_has_prefix(val, "0x") || g_str_has_prefix(val, "0X");
    bool out = false;
    char range[96];
    g_autofree char *q = NULL;

    errno = 0;
    switch (d->type) {
    case KT_STR: {
        long len;

        if (!g_utf8_validate(val, -1, NULL)) {
            *why = "not valid UTF-8";
            return false;
        }
        if ((d->flags & KF_ASCII) && !is_ascii_printable(val)) {
            *why = "must be printable ASCII";
            return false;
        }
        len = g_utf8_strlen(val, -1);
        if (len < d->b.min || len > d->b.max) {
            out = true;
            break;
        }
        *(char **)dst = g_strdup(val);
        return true;
    }
    case KT_U32:
    case KT_U64: {
        guint64 v;

        /* Decimal, or hex with 0x; never octal (a leading 0 is decimal). */
        if (val[0] == '-' && g_ascii_isdigit(val[1])) {
            out = true;
            break;
        }
        if (!g_ascii_isdigit(val[0])) {
            *why = "not an unsigned integer";
            return false;
        }
        v = g_ascii_strtoull(hex ? val + 2 : val, &end, hex ? 16 : 10);
        if (*end || end == val + (hex ? 2 : 0)) {
            *why = "not an unsigned integer";
            return false;
        }
        if (errno == ERANGE || v < (guint64)d->b.min ||
            v > (guint64)d->b.max) {
            out = true;
            break;
        }
        if (d->type == KT_U32) {
            *(uint32_t *)dst = v;
        } else {
            *(uint64_t *)dst = v;
        }
        if ((d->flags & KF_POW2) && !is_pow2(v)) {
            *why = "must be a power of two";
            return false;
        }
        return true;
    }
    case KT_I32: {
        gint64 v = g_ascii_strtoll(val, &end, 10);

        if (*end || end == val) {
            *why = "not an integer";
            return false;
        }
        if (errno == ERANGE || v < (gint64)d->b.min ||
            v > (gint64)d->b.max) {
            out = true;
            break;
        }
        *(int32_t *)dst = v;
        return true;
    }
    case KT_DBL: {
        double v = g_ascii_strtod(val, &end);

        if (*end || end == val || isnan(v)) {
            *why = "not a number";
            return false;
        }
        if (!(v >= d->b.min && v <= d->b.max)) {
            out = true;
            break;
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
        uint32_t vs;

        if (sscanf(val, "%3u.%3u%c", &maj, &min, &extra) != 2 ||
            !g_ascii_isdigit(val[0]) || maj > 255 || min > 255) {
            *why = "not a version like 1.4";
            return false;
        }
        vs = maj << 16 | min << 8;
        if (vs < d->b.min || vs > d->b.max) {
            out = true;
            break;
        }
        *(uint32_t *)dst = vs;
        return true;
    }
    case KT_LBAF: {
        g_auto(GStrv) items = g_strsplit(val, ",", -1);
        guint n = g_strv_length(items);

        if (n < d->b.min || n > d->b.max) {
            out = true;
            break;
        }
        return parse_lba_formats(val, dst, why);
    }
    }
    if (!out) {
        *why = "unknown type";
        return false;
    }
    format_range(d, hex || (d->flags & KF_HEX), range, sizeof(range));
    q = quote_value(val);
    *range_err = g_strdup_printf("'%s' is outside the allowed range %s (%s)",
                                 q, range, d->b.why);
    return false;
}

/* Parse key @d of [@group] in @kf into @base; false with the error set. */
static bool load_key(GKeyFile *kf, const char *f, const char *group,
                     const KeyDesc *d, void *base, GError **errp)
{
    g_autofree char *val = g_key_file_get_value(kf, group, d->key, NULL);
    g_autofree char *range_err = NULL;
    const char *why = NULL;

    if (!val) {
        if (d->flags & (KF_REQ | KF_TLC | KF_QLC)) {
            set_err(errp, f, group, d->key, "missing required key");
            return false;
        }
        return true;
    }
    g_strstrip(val);
    if (!parse_value(val, d, (char *)base + d->off, &why, &range_err)) {
        if (range_err) {
            set_err(errp, f, group, d->key, "%s", range_err);
        } else {
            g_autofree char *q = quote_value(val);

            set_err(errp, f, group, d->key, "'%s': %s", q, why);
        }
        return false;
    }
    return true;
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

/* Identify Controller fields: agreement with each other and the rest. */
static bool check_identify(const NvmProfile *p, const char *f, GError **errp)
{
    bool found = false;

    if (!(p->frmw & 0xe)) {
        set_err(errp, f, "identity", "frmw",
                "bits 3:1 give the number of firmware slots, 1 to 7");
        return false;
    }
    if (p->unvmcap_bytes > p->tnvmcap_bytes) {
        set_err(errp, f, "identity", "unvmcap-bytes",
                "more than tnvmcap-bytes");
        return false;
    }
    for (unsigned i = 0; i < p->lba_formats.n; i++) {
        found |= p->lba_formats.bytes[i] == p->lba_bytes;
    }
    if (!found) {
        set_err(errp, f, "identity", "lba-formats",
                "does not list lba-bytes %u, the format the drive ships in",
                p->lba_bytes);
        return false;
    }
    return true;
}

/*
 * Cross-key checks: geometry and sizes that cannot exist.  The per-key
 * bounds keep every product here far below 2^64.
 */
static bool check_geometry(const NvmProfile *p, const char *f, GError **errp)
{
    uint64_t dies = (uint64_t)p->channels * p->dies_per_channel;
    uint64_t unit = (uint64_t)p->planes * p->page_bytes * p->cell_mode;
    uint64_t map_bytes = p->capacity_bytes / p->map_unit_bytes *
                         p->map_entry_bytes;

    if (p->lba_bytes != 512 && p->lba_bytes != 4096) {
        set_err(errp, f, "identity", "lba-bytes", "must be 512 or 4096");
        return false;
    }
    if (!check_identify(p, f, errp)) {
        return false;
    }
    if (p->capacity_bytes % p->lba_bytes) {
        set_err(errp, f, "identity", "capacity-bytes",
                "%" G_GUINT64_FORMAT " is not a multiple of lba-bytes %u",
                p->capacity_bytes, p->lba_bytes);
        return false;
    }
    if (p->temp_crit_c <= p->temp_warn_c) {
        set_err(errp, f, "identity", "temp-crit-c",
                "must be above temp-warn-c");
        return false;
    }
    if (dies > NVM_MAX_DIES) {
        set_err(errp, f, "nand", "dies-per-channel",
                "channels x dies-per-channel exceeds %d", NVM_MAX_DIES);
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
    if (p->map_unit_bytes % p->lba_bytes) {
        set_err(errp, f, "map", "unit-bytes",
                "must be a multiple of lba-bytes");
        return false;
    }
    if (p->map_entry_bytes > p->map_chunk_bytes) {
        set_err(errp, f, "map", "entry-bytes", "larger than chunk-bytes");
        return false;
    }
    if (p->map_chunk_bytes > p->page_bytes) {
        set_err(errp, f, "map", "chunk-bytes", "larger than page-bytes");
        return false;
    }
    /* A partial map keeps one tag per chunk the cache holds. */
    if (p->map_cache_bytes < map_bytes &&
        p->map_cache_bytes / p->map_chunk_bytes > NVM_MAX_MAP_TAGS) {
        set_err(errp, f, "map", "cache-bytes",
                "a partial map of %" G_GUINT64_FORMAT " chunks of "
                "chunk-bytes; at most %u are modelled",
                p->map_cache_bytes / p->map_chunk_bytes, NVM_MAX_MAP_TAGS);
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
            if (!load_key(kf, f, group, &ps_table[i], &p->ps[s], errp)) {
                return false;
            }
        }
        if (s == 0 && p->ps[s].non_operational) {
            set_err(errp, f, group, "non-operational",
                    "power state 0 must be operational");
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
    if (g_key_file_has_key(kf, "power", "states", NULL) &&
        !load_key(kf, f, "power", find_key("power", "states"), p, errp)) {
        goto fail;
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

        if (d->flags & (KF_TLC | KF_QLC)) {
            if (!mode_flag || !(d->flags & mode_flag)) {
                continue;
            }
        }
        if (!load_key(kf, f, d->group, d, p, errp)) {
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

/* Fill in the name (file name without .ini) and path of a parsed profile. */
static NvmProfile *profile_named(NvmProfile *p, const char *path)
{
    char *base;

    p->path = g_strdup(path);
    base = g_path_get_basename(path);
    if (g_str_has_suffix(base, ".ini")) {
        base[strlen(base) - 4] = 0;
    }
    p->name = base;
    return p;
}

/* A profile is a few KiB of text: a bound for files that are not one. */
#define NVM_PROFILE_MAX_BYTES (1 << 20)

/*
 * Read @path whole: a regular file of at most NVM_PROFILE_MAX_BYTES.  The
 * name is the user's (profile= can be any file QEMU may read), so errors
 * name the file and the problem, never what it holds.
 */
static char *read_profile_file(const char *path, gsize *len, GError **errp)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    char *data;
    struct stat st;
    gsize got = 0;
    int e = 0;

    if (fd < 0 || fstat(fd, &st) < 0) {
        e = errno;
        g_set_error(errp, G_FILE_ERROR, g_file_error_from_errno(e), "%s: %s",
                    path, g_strerror(e));
        if (fd >= 0) {
            close(fd);
        }
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        g_set_error(errp, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "%s: not a regular file", path);
        close(fd);
        return NULL;
    }
    /* st_size may be stale: read at most one byte past the limit */
    data = g_malloc(NVM_PROFILE_MAX_BYTES + 1);
    while (got <= NVM_PROFILE_MAX_BYTES) {
        ssize_t n = read(fd, data + got, NVM_PROFILE_MAX_BYTES + 1 - got);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            e = errno;
        }
        if (n <= 0) {
            break;
        }
        got += n;
    }
    close(fd);
    if (e) {
        g_set_error(errp, G_FILE_ERROR, g_file_error_from_errno(e), "%s: %s",
                    path, g_strerror(e));
    } else if (got > NVM_PROFILE_MAX_BYTES) {
        g_set_error(errp, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "%s: larger than %d bytes, the most a profile may have",
                    path, NVM_PROFILE_MAX_BYTES);
    }
    if (e || got > NVM_PROFILE_MAX_BYTES) {
        g_free(data);
        return NULL;
    }
    data = g_realloc(data, got + 1);
    data[got] = 0;
    *len = got;
    return data;
}

/*
 * The first line of @text that GKeyFile refuses: not blank, a # comment,
 * a [group] or a key = value after a group (0 when none is found).
 */
static unsigned first_bad_line(const char *text, gsize len)
{
    g_autofree char *copy = NULL;
    g_auto(GStrv) lines = NULL;
    bool in_group = false;

    if (!g_utf8_validate(text, len, NULL) || memchr(text, 0, len)) {
        return 0;
    }
    /* @text holds @len bytes and need not end in a NUL */
    copy = g_strndup(text, len);
    lines = g_strsplit(copy, "\n", -1);
    for (unsigned i = 0; lines[i]; i++) {
        const char *l = g_strstrip(lines[i]);
        size_t n = strlen(l);

        if (!n || l[0] == '#') {
            continue;
        }
        if (l[0] == '[' && l[n - 1] == ']') {
            in_group = true;
            continue;
        }
        if (!in_group || !strchr(l, '=') || l[0] == '=') {
            return i + 1;
        }
    }
    return 0;
}

NvmProfile *nvm_profile_load_data(const char *path, const char *data,
                                  size_t len, GError **errp)
{
    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_autoptr(GError) err = NULL;
    NvmProfile *p;

    if (!g_key_file_load_from_data(kf, data, len, G_KEY_FILE_NONE, &err)) {
        /* GKeyFile's message quotes the offending line: not repeated */
        unsigned bad = first_bad_line(data, len);

        if (bad) {
            g_set_error(errp, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE,
                        "%s: not a profile: line %u is not a [group], a "
                        "key = value in a group or a # comment", path, bad);
        } else {
            g_set_error(errp, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE,
                        "%s: not a profile: not a key file of UTF-8 text",
                        path);
        }
        return NULL;
    }
    p = profile_parse(kf, path, errp);
    return p ? profile_named(p, path) : NULL;
}

NvmProfile *nvm_profile_load(const char *name_or_path, const char *search_dir,
                             GError **errp)
{
    g_autofree char *path = NULL;
    g_autofree char *text = NULL;
    g_autoptr(GError) err = NULL;
    gsize len;

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
    text = read_profile_file(path, &len, &err);
    if (!text) {
        if (g_error_matches(err, G_FILE_ERROR, G_FILE_ERROR_NOENT)) {
            g_set_error(errp, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                        "%s: no such profile (try `nvmimic profiles`)",
                        path);
        } else {
            g_propagate_error(errp, g_steal_pointer(&err));
        }
        return NULL;
    }
    return nvm_profile_load_data(path, text, len, errp);
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
