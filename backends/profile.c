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
    { "host-interface", "hmb-rtt-ns", KT_DBL, OFF(hmb_rtt_ns), KF_REQ,
      BOUND(50, 100000, "ns",
            "a device read of host memory takes ~0.5-2 us on PCIe"),
      "round trip of a device read of host memory (an HMB map chunk)" },

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
    { "controller", "map-sram-bytes", KT_U64, OFF(map_sram_bytes), KF_REQ,
      BOUND(0, 64 * MIB, "bytes",
            "controllers carry a few MiB of SRAM; 4 B of tags per chunk"),
      "on-chip cache of map chunks in front of the HMB (0: none)" },
    { "controller", "max-channels", KT_U32, OFF(max_channels), KF_REQ,
      BOUND(1, NVM_MAX_CHANNELS, "channels", "controllers have 2-16"),
      "flash channels the controller drives" },
    { "controller", "max-dies-per-channel", KT_U32,
      OFF(max_dies_per_channel), KF_REQ,
      BOUND(1, NVM_MAX_DIES, "dies", "chip enables x LUNs per channel"),
      "dies the controller addresses on one channel (CE x LUN)" },
    { "controller", "nand-power-budget-mw", KT_DBL,
      OFF(nand_power_budget_mw), KF_REQ,
      BOUND(10, 100000, "mW",
            "a drive's NAND draws at most a few to tens of W"),
      "NAND power the controller allows at once: programs and erases "
      "start only while it lasts" },
    { "controller", "idle-w", KT_DBL, OFF(idle_w), KF_REQ,
      BOUND(0, 50, "W", "an M.2/U.2 drive draws at most tens of W"),
      "controller and DRAM power while idle in PS0 (thermal model)" },
    { "controller", "active-w", KT_DBL, OFF(active_w), KF_REQ,
      BOUND(0, 50, "W", "an M.2/U.2 drive draws at most tens of W"),
      "controller and DRAM power with every core busy (thermal model)" },

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
    { "nand", "die-bytes", KT_U64, OFF(die_bytes), KF_REQ,
      BOUND(MIB, 4 * TIB, "bytes", "dies hold 32 Gb to 2 Tb"),
      "raw capacity of one die in native mode" },
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
    { "nand", "resume-us", KT_DBL, OFF(resume_us), KF_REQ,
      BOUND(0, 1000, "us", "suspend and resume cost tens of us"),
      "extra time a suspended program or erase takes on resuming" },
    { "nand", "max-suspends", KT_U32, OFF(max_suspends), KF_REQ,
      BOUND(0, 100, "suspends",
            "parts allow a handful per operation; 0 = reads wait"),
      "suspends one program or erase allows (then reads wait)" },
    { "nand", "read-mw", KT_DBL, OFF(read_mw), KF_REQ,
      BOUND(0, 5000, "mW", "a die draws tens to hundreds of mW"),
      "power of one die reading (thermal model)" },
    { "nand", "program-mw", KT_DBL, OFF(program_mw), KF_REQ,
      BOUND(0, 5000, "mW", "a die draws tens to hundreds of mW"),
      "power of one die programming (thermal model)" },
    { "nand", "program-slc-mw", KT_DBL, OFF(program_slc_mw), KF_REQ,
      BOUND(0, 5000, "mW", "a die draws tens to hundreds of mW"),
      "power of one die programming in SLC mode" },
    { "nand", "erase-mw", KT_DBL, OFF(erase_mw), KF_REQ,
      BOUND(0, 5000, "mW", "a die draws tens to hundreds of mW"),
      "power of one die erasing (thermal model)" },

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
      "map cache: DRAM size, or the host memory buffer the drive asks "
      "for (Identify HMPRE)" },
    { "map", "hmb-min-bytes", KT_U64, OFF(map_hmb_min_bytes), KF_REQ,
      BOUND(0, 64 * GIB, "bytes",
            "at most cache-bytes (HMPRE); 0 for a drive with DRAM"),
      "smallest host memory buffer the drive uses (Identify HMMIN)" },
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
      "the firmware core waits for a read's map miss (synchronous load)" },
    { "map", "update-blocks-core", KT_BOOL, OFF(map_update_blocks_core),
      KF_REQ, NO_BOUND,
      "the core waits for the map chunk a write updates when it misses" },

    { "gc", "reserved-bytes", KT_U64, OFF(gc_reserved_bytes), KF_REQ,
      BOUND(0, 2 * NVM_MAX_CAPACITY_BYTES, "bytes", "at most raw-bytes"),
      "raw NAND not available to data or spare (firmware, parity)" },
    { "gc", "start-free-blocks", KT_U32, OFF(gc_start_free), KF_REQ,
      BOUND(2, 4096, "superblocks",
            "firmware keeps a few free blocks per die"),
      "GC reclaims superblocks while fewer than this many are free" },
    { "gc", "urgent-free-blocks", KT_U32, OFF(gc_urgent_free), KF_REQ,
      BOUND(1, 4096, "superblocks",
            "firmware keeps a few free blocks per die"),
      "at this many free superblocks host writes wait for GC" },

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

    { "thermal", "enabled", KT_BOOL, OFF(thermal_enabled), KF_REQ,
      NO_BOUND, "the thermal model runs (the device can turn it off)" },
    { "thermal", "c-per-w", KT_DBL, OFF(thermal_c_per_w), KF_REQ,
      BOUND(0.1, 100, "C/W", "an M.2 drive in air: a few C per W"),
      "temperature rise per watt above idle-w at steady state (an idle "
      "drive reads temp-idle-c)" },
    { "thermal", "time-constant-s", KT_DBL, OFF(thermal_tau_s), KF_REQ,
      BOUND(0.1, 3600, "s", "a drive heats up in tens of seconds"),
      "how fast the temperature follows the power" },
    { "thermal", "throttle-c", KT_DBL, OFF(throttle_c), KF_REQ,
      BOUND(30, 125, "C", WHY_TEMP),
      "temperature at which the firmware throttles" },
    { "thermal", "throttle-slowdown", KT_DBL, OFF(throttle_slowdown), KF_REQ,
      BOUND(1, 100, "x", "throttling halves to quarters the speed"),
      "NAND operations take this many times longer while throttled" },

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

/* Where each key of a composed profile came from (errors name it). */
typedef struct Src {
    const char *drive;          /* the drive file */
    GHashTable *by_key;         /* "group\nkey" -> file; NULL: all drive */
    /* by KeyPart: the part file a missing key is looked for in */
    const char *part_file[3];
} Src;

typedef enum KeyPart {
    KP_DRIVE,
    KP_NAND,
    KP_CONTROLLER,
} KeyPart;

static const char *const part_names[] = { "drive", "nand", "controller" };

/*
 * Which file a key belongs in when a drive is composed of parts: NAND
 * properties in the NAND part, the controller's and its firmware's design
 * in the controller part, geometry, policy, identity in the drive.
 */
static KeyPart key_part(const char *group, const char *key)
{
    if (!strcmp(group, "controller") || !strcmp(group, "host-interface")) {
        return KP_CONTROLLER;
    }
    if (!strcmp(group, "variability")) {
        return KP_NAND;
    }
    if (!strcmp(group, "nand")) {
        return !strcmp(key, "channels") || !strcmp(key, "dies-per-channel")
               ? KP_DRIVE : KP_NAND;
    }
    if (!strcmp(group, "map")) {
        return !strcmp(key, "cache-bytes") ||
               !strcmp(key, "hmb-min-bytes") ? KP_DRIVE : KP_CONTROLLER;
    }
    if (!strcmp(group, "power")) {
        return g_str_has_prefix(key, "link-") || g_str_has_prefix(key, "core-")
               ? KP_CONTROLLER : KP_DRIVE;
    }
    return KP_DRIVE;
}

static const char *src_file(const Src *s, const char *group, const char *key)
{
    const char *f = NULL;

    if (s->by_key && key) {
        g_autofree char *k = g_strconcat(group, "\n", key, NULL);

        f = g_hash_table_lookup(s->by_key, k);
        if (!f) {
            /* a missing key: the file it belongs in */
            f = s->part_file[key_part(group, key)];
        }
    }
    return f ? f : s->drive;
}

/*
 * @val (a value, a group or a key name from the file) for an error line:
 * at most 40 bytes of it, then "...", with every byte outside printable
 * ASCII, the double quote and the backslash escaped as C escapes them
 * (\t, \303): one short line of text however long or binary the file.
 */
static char *quote_value(const char *val)
{
    g_autofree char *cut = NULL;

    if (strlen(val) > 40) {
        cut = g_strndup(val, 37);
        cut = g_realloc(cut, 41);
        strcat(cut, "...");
    }
    return g_strescape(cut ? cut : val, NULL);
}

static void set_err(GError **errp, const char *file, const char *group,
                    const char *key, const char *fmt, ...)
    G_GNUC_PRINTF(5, 6);

static void set_err(GError **errp, const char *file, const char *group,
                    const char *key, const char *fmt, ...)
{
    va_list ap;
    char *msg;
    /* the names come from the file: shown as values are */
    g_autofree char *g = quote_value(group);
    g_autofree char *k = key ? quote_value(key) : NULL;

    va_start(ap, fmt);
    msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    if (key) {
        g_set_error(errp, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                    "%s: [%s] %s: %s", file, g, k, msg);
    } else {
        g_set_error(errp, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                    "%s: [%s]: %s", file, g, msg);
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
static bool load_key(GKeyFile *kf, const Src *src, const char *group,
                     const KeyDesc *d, void *base, GError **errp)
{
    const char *f = src_file(src, group, d->key);

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

#define F(g, k) src_file(src, (g), (k))

/* Identify Controller fields: agreement with each other and the rest. */
static bool check_identify(const NvmProfile *p, const Src *src,
                           GError **errp)
{
    bool found = false;

    if (!(p->frmw & 0xe)) {
        set_err(errp, F("identity", "frmw"), "identity", "frmw",
                "bits 3:1 give the number of firmware slots, 1 to 7");
        return false;
    }
    if (p->unvmcap_bytes > p->tnvmcap_bytes) {
        set_err(errp, F("identity", "unvmcap-bytes"), "identity",
                "unvmcap-bytes",
                "more than tnvmcap-bytes");
        return false;
    }
    for (unsigned i = 0; i < p->lba_formats.n; i++) {
        found |= p->lba_formats.bytes[i] == p->lba_bytes;
    }
    if (!found) {
        set_err(errp, F("identity", "lba-formats"), "identity", "lba-formats",
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
static bool check_geometry(NvmProfile *p, const Src *src, GError **errp)
{
    uint64_t dies = (uint64_t)p->channels * p->dies_per_channel;
    uint64_t block = (uint64_t)p->pages_per_block * p->planes *
                     p->page_bytes;
    uint64_t sb_bytes, nsb, need;
    uint64_t unit = (uint64_t)p->planes * p->page_bytes * p->cell_mode;
    uint64_t map_bytes = p->capacity_bytes / p->map_unit_bytes *
                         p->map_entry_bytes;

    if (p->lba_bytes != 512 && p->lba_bytes != 4096) {
        set_err(errp, F("identity", "lba-bytes"), "identity", "lba-bytes",
                "must be 512 or 4096");
        return false;
    }
    if (!check_identify(p, src, errp)) {
        return false;
    }
    if (p->capacity_bytes % p->lba_bytes) {
        set_err(errp, F("identity", "capacity-bytes"), "identity",
                "capacity-bytes",
                "%" G_GUINT64_FORMAT " is not a multiple of lba-bytes %u",
                p->capacity_bytes, p->lba_bytes);
        return false;
    }
    if (p->temp_crit_c <= p->temp_warn_c) {
        set_err(errp, F("identity", "temp-crit-c"), "identity", "temp-crit-c",
                "must be above temp-warn-c");
        return false;
    }
    if (dies > NVM_MAX_DIES) {
        set_err(errp, F("nand", "dies-per-channel"), "nand", "dies-per-channel",
                "channels x dies-per-channel exceeds %d", NVM_MAX_DIES);
        return false;
    }
    if (p->channels > p->max_channels) {
        set_err(errp, F("nand", "channels"), "nand", "channels",
                "%u, but the controller%s%s drives at most %u", p->channels,
                p->controller_part ? " " : "",
                p->controller_part ? p->controller_part : "",
                p->max_channels);
        return false;
    }
    if (p->dies_per_channel > p->max_dies_per_channel) {
        set_err(errp, F("nand", "dies-per-channel"), "nand",
                "dies-per-channel",
                "%u, but the controller%s%s addresses at most %u per "
                "channel", p->dies_per_channel,
                p->controller_part ? " " : "",
                p->controller_part ? p->controller_part : "",
                p->max_dies_per_channel);
        return false;
    }
    if (p->die_bytes < 4 * block) {
        set_err(errp, F("nand", "die-bytes"), "nand", "die-bytes",
                "holds fewer than 4 blocks (pages-per-block x planes x "
                "page-bytes = %" G_GUINT64_FORMAT ")", block);
        return false;
    }
    if (p->pages_per_block % p->cell_mode) {
        set_err(errp, F("nand", "pages-per-block"), "nand",
                "pages-per-block", "not a multiple of the %u bits per cell",
                (unsigned)p->cell_mode);
        return false;
    }
    p->raw_bytes = dies * p->die_bytes;
    if (p->raw_bytes < p->capacity_bytes + p->gc_reserved_bytes +
        p->slc_static_bytes * p->cell_mode) {
        set_err(errp, F("nand", "dies-per-channel"), "nand",
                "dies-per-channel",
                "%" G_GUINT64_FORMAT " dies of die-bytes hold less than "
                "capacity + reserved + static SLC: no room for the data",
                dies);
        return false;
    }
    /* Superblocks: one block per die; the FTL records them in 16 bits. */
    sb_bytes = dies * block;
    nsb = p->die_bytes / block - (p->gc_reserved_bytes + sb_bytes - 1) /
          sb_bytes;
    need = (p->capacity_bytes + sb_bytes - 1) / sb_bytes +
           (p->slc_static_bytes * p->cell_mode + sb_bytes - 1) / sb_bytes +
           p->gc_urgent_free + 3;
    if (nsb > NVM_MAX_SUPERBLOCKS) {
        set_err(errp, F("nand", "pages-per-block"), "nand",
                "pages-per-block", "%" G_GUINT64_FORMAT " blocks per die; "
                "at most %u are modelled", nsb, NVM_MAX_SUPERBLOCKS);
        return false;
    }
    if (nsb < need) {
        set_err(errp, F("gc", "reserved-bytes"), "gc", "reserved-bytes",
                "leaves %" G_GUINT64_FORMAT " superblocks of %"
                G_GUINT64_FORMAT " bytes; the data, static SLC and "
                "urgent-free-blocks + 3 open ones need %" G_GUINT64_FORMAT,
                nsb, sb_bytes, need);
        return false;
    }
    if (p->gc_urgent_free >= p->gc_start_free) {
        set_err(errp, F("gc", "urgent-free-blocks"), "gc",
                "urgent-free-blocks", "must be below start-free-blocks");
        return false;
    }
    if (p->active_w < p->idle_w) {
        set_err(errp, F("controller", "active-w"), "controller", "active-w",
                "below idle-w");
        return false;
    }
    if (p->map_unit_bytes > p->page_bytes) {
        set_err(errp, F("map", "unit-bytes"), "map", "unit-bytes",
                "larger than page-bytes");
        return false;
    }
    if (p->write_buffer_bytes < 2 * unit) {
        set_err(errp, F("cache", "write-buffer-bytes"), "cache",
                "write-buffer-bytes",
                "must hold two native program units (%" G_GUINT64_FORMAT
                " bytes)", 2 * unit);
        return false;
    }
    if (p->map_unit_bytes % p->lba_bytes) {
        set_err(errp, F("map", "unit-bytes"), "map", "unit-bytes",
                "must be a multiple of lba-bytes");
        return false;
    }
    if (p->map_entry_bytes > p->map_chunk_bytes) {
        set_err(errp, F("map", "entry-bytes"), "map", "entry-bytes",
                "larger than chunk-bytes");
        return false;
    }
    if (p->map_chunk_bytes > p->page_bytes) {
        set_err(errp, F("map", "chunk-bytes"), "map", "chunk-bytes",
                "larger than page-bytes");
        return false;
    }
    if (p->map_kind == NVM_MAP_DRAM ? p->map_hmb_min_bytes != 0 :
        p->map_hmb_min_bytes > p->map_cache_bytes ||
        p->map_cache_bytes % 4096 || p->map_hmb_min_bytes % 4096 ||
        p->map_cache_bytes / 4096 > UINT32_MAX) {
        set_err(errp, F("map", "hmb-min-bytes"), "map", "hmb-min-bytes",
                "must be 0 for kind = dram; for kind = hmb at most "
                "cache-bytes, both whole 4 KiB units (Identify HMPRE/HMMIN)");
        return false;
    }
    /* A partial map keeps one tag per chunk the cache holds. */
    if (p->map_cache_bytes < map_bytes &&
        p->map_cache_bytes / p->map_chunk_bytes > NVM_MAX_MAP_TAGS) {
        set_err(errp, F("map", "cache-bytes"), "map", "cache-bytes",
                "a partial map of %" G_GUINT64_FORMAT " chunks of "
                "chunk-bytes; at most %u are modelled",
                p->map_cache_bytes / p->map_chunk_bytes, NVM_MAX_MAP_TAGS);
        return false;
    }
    return true;
}

static bool load_power_states(GKeyFile *kf, NvmProfile *p, const Src *src,
                              GError **errp)
{
    for (unsigned s = 0; s < p->n_power_states; s++) {
        char group[32];
        g_auto(GStrv) keys = NULL;

        snprintf(group, sizeof(group), "power-state-%u", s);
        keys = g_key_file_get_keys(kf, group, NULL, NULL);
        if (!keys) {
            set_err(errp, F("power", "states"), group, NULL,
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
                set_err(errp, F(group, *k), group, *k, "unknown key");
                return false;
            }
        }
        for (size_t i = 0; i < N_PS_KEYS; i++) {
            if (!load_key(kf, src, group, &ps_table[i], &p->ps[s], errp)) {
                return false;
            }
        }
        if (s == 0 && p->ps[s].non_operational) {
            set_err(errp, F(group, "non-operational"), group,
                    "non-operational", "power state 0 must be operational");
            return false;
        }
        if (p->ps[s].idle_before_entry_ms && !p->ps[s].non_operational) {
            set_err(errp, F(group, "idle-before-entry-ms"), group,
                    "idle-before-entry-ms",
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

static NvmProfile *profile_parse(GKeyFile *kf, const Src *src,
                                 NvmProfile *p, GError **errp)
{
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
        !load_key(kf, src, "power", find_key("power", "states"), p, errp)) {
        goto fail;
    }

    /* Unknown groups and keys. */
    for (char **g = groups; *g; g++) {
        g_auto(GStrv) keys = NULL;

        if (power_group_in_range(*g, p->n_power_states)) {
            continue;
        }
        keys = g_key_file_get_keys(kf, *g, NULL, NULL);
        if (!group_known(*g)) {
            set_err(errp, F(*g, keys && *keys ? *keys : NULL), *g, NULL,
                    "unknown section");
            goto fail;
        }
        for (char **k = keys; k && *k; k++) {
            const KeyDesc *d = find_key(*g, *k);

            if (!d) {
                set_err(errp, F(*g, *k), *g, *k, "unknown key");
                goto fail;
            }
            if ((d->flags & (KF_TLC | KF_QLC)) && mode_flag &&
                !(d->flags & mode_flag)) {
                set_err(errp, F(*g, *k), *g, *k,
                        "not used with cell-mode = %s", cell);
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
        if (!load_key(kf, src, d->group, d, p, errp)) {
            goto fail;
        }
    }

    if (!load_power_states(kf, p, src, errp)) {
        goto fail;
    }
    if (!check_geometry(p, src, errp)) {
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

/* @data (of @path) as a key file; NULL with one line naming the file. */
static GKeyFile *load_key_data(const char *path, const char *data,
                               size_t len, GError **errp)
{
    GKeyFile *kf = g_key_file_new();
    g_autoptr(GError) err = NULL;
    const char *nul = memchr(data, 0, len);

    /* GKeyFile would end the line there: "Cru\0cial" would load as "Cru" */
    if (nul) {
        unsigned line = 1;

        for (const char *c = data; c < nul; c++) {
            line += *c == '\n';
        }
        g_set_error(errp, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE,
                    "%s: not a profile: line %u holds a NUL byte", path,
                    line);
        g_key_file_free(kf);
        return NULL;
    }
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
        g_key_file_free(kf);
        return NULL;
    }
    return kf;
}

/* ------------------------------------------------------------------ */
/*
 * Composition: a drive file may name shared part files in [parts]
 * (nand = NAME, controller = NAME), found as parts/<kind>/NAME.ini beside
 * the drive file or under the search directory.  Their keys and the
 * drive's are merged into one key set, each key set by exactly one file
 * (a drive does not override its parts), then checked as one profile.
 * [fit] sections name the keys of their own file that `nvmimic fit` may
 * change ("group.key = LO..HI").
 */

typedef struct Compose {
    GKeyFile *kf;               /* the composed key set */
    Src src;
    GPtrArray *files;           /* owns the file names src points to */
    GArray *free;               /* NvmFreeParam */
    char *part_name[3];
} Compose;

static void compose_clear(Compose *c)
{
    if (c->kf) {
        g_key_file_free(c->kf);
    }
    if (c->src.by_key) {
        g_hash_table_destroy(c->src.by_key);
    }
    if (c->files) {
        g_ptr_array_free(c->files, TRUE);
    }
    if (c->free) {
        for (unsigned i = 0; i < c->free->len; i++) {
            NvmFreeParam *f = &g_array_index(c->free, NvmFreeParam, i);

            g_free(f->group);
            g_free(f->key);
            g_free(f->file);
        }
        g_array_free(c->free, TRUE);
    }
    for (int i = 0; i < 3; i++) {
        g_free(c->part_name[i]);
    }
    memset(c, 0, sizeof(*c));
}

static const char *compose_keep(Compose *c, const char *file)
{
    char *f = g_strdup(file);

    g_ptr_array_add(c->files, f);
    return f;
}

/* [fit] of @file: "group.key = LO..HI" for keys @file itself sets. */
static bool compose_fit(Compose *c, GKeyFile *kf, const char *file,
                        GError **errp)
{
    g_auto(GStrv) keys = g_key_file_get_keys(kf, "fit", NULL, NULL);

    for (char **k = keys; k && *k; k++) {
        g_autofree char *val = g_key_file_get_value(kf, "fit", *k, NULL);
        const char *dot = strchr(*k, '.');
        g_autofree char *group = dot ? g_strndup(*k, dot - *k) : NULL;
        NvmFreeParam fp = { 0 };
        const KeyDesc *d;
        char *end = NULL, *sep;
        g_autofree char *shown = NULL;

        d = dot ? find_key(group, dot + 1) : NULL;
        if (!d || d->type != KT_DBL) {
            set_err(errp, file, "fit", *k, "not a numeric key of the "
                    "profile (write group.key, e.g. nand.read-us-tlc)");
            return false;
        }
        if (!g_key_file_has_key(kf, group, dot + 1, NULL)) {
            set_err(errp, file, "fit", *k, "this file does not set [%s] %s",
                    group, dot + 1);
            return false;
        }
        g_strstrip(val);
        shown = quote_value(val);
        sep = strstr(val, "..");
        if (sep) {
            *sep = 0;
            fp.lo = g_ascii_strtod(val, &end);
        }
        if (!sep || *end || end == val) {
            set_err(errp, file, "fit", *k, "'%s' is not a range LO..HI",
                    shown);
            return false;
        }
        fp.hi = g_ascii_strtod(sep + 2, &end);
        if (*end || end == sep + 2 || !(fp.lo > 0 && fp.lo < fp.hi) ||
            fp.lo < d->b.min || fp.hi > d->b.max) {
            set_err(errp, file, "fit", *k, "'%s' is not a range LO..HI "
                    "with 0 < LO < HI inside the key's bounds", shown);
            return false;
        }
        fp.group = g_strdup(group);
        fp.key = g_strdup(dot + 1);
        fp.file = g_strdup(file);
        g_array_append_val(c->free, fp);
    }
    return true;
}

/* Add the keys of @kf (from @file, a @kind file) to the composed set. */
static bool compose_add(Compose *c, GKeyFile *kf, const char *file,
                        KeyPart kind, bool has_parts, GError **errp)
{
    g_auto(GStrv) groups = g_key_file_get_groups(kf, NULL);
    const char *f = compose_keep(c, file);

    for (char **g = groups; *g; g++) {
        g_auto(GStrv) keys = NULL;

        if (!strcmp(*g, "parts") || !strcmp(*g, "fit")) {
            continue;
        }
        keys = g_key_file_get_keys(kf, *g, NULL, NULL);
        for (char **k = keys; *k; k++) {
            g_autofree char *val = g_key_file_get_value(kf, *g, *k, NULL);
            g_autofree char *id = g_strconcat(*g, "\n", *k, NULL);
            const char *prev = g_hash_table_lookup(c->src.by_key, id);
            KeyPart home = key_part(*g, *k);

            if (prev) {
                set_err(errp, f, *g, *k, "also set in %s; a key is set in "
                        "one file (a drive does not override its parts)",
                        prev);
                return false;
            }
            if (kind != KP_DRIVE && home != kind && find_key(*g, *k)) {
                set_err(errp, f, *g, *k, "belongs in the %s file, not in "
                        "a %s part", part_names[home], part_names[kind]);
                return false;
            }
            if (kind == KP_DRIVE && has_parts && home != KP_DRIVE &&
                c->part_name[home] && find_key(*g, *k)) {
                set_err(errp, f, *g, *k, "belongs in the %s part (%s)",
                        part_names[home], c->part_name[home]);
                return false;
            }
            g_key_file_set_value(c->kf, *g, *k, val);
            g_hash_table_insert(c->src.by_key, g_steal_pointer(&id),
                                (gpointer)f);
        }
    }
    return compose_fit(c, kf, f, errp);
}

static bool part_name_ok(const char *n)
{
    if (!*n || *n == '.') {
        return false;
    }
    for (; *n; n++) {
        if (!g_ascii_isalnum(*n) && *n != '-' && *n != '_' && *n != '.') {
            return false;
        }
    }
    return true;
}

/* Compose @drive_kf (read from @path) with the parts it names. */
static bool compose(Compose *c, GKeyFile *drive_kf, const char *path,
                    const char *search_dir, GError **errp)
{
    g_autofree char *dir = g_path_get_dirname(path);
    bool has_parts = g_key_file_has_group(drive_kf, "parts");
    GKeyFile *part_kf[3] = { NULL };
    bool ok = false;

    c->kf = g_key_file_new();
    c->files = g_ptr_array_new_with_free_func(g_free);
    c->src.by_key = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                          NULL);
    c->src.drive = compose_keep(c, path);
    c->free = g_array_new(FALSE, TRUE, sizeof(NvmFreeParam));

    if (has_parts) {
        g_auto(GStrv) keys = g_key_file_get_keys(drive_kf, "parts", NULL,
                                                 NULL);

        for (char **k = keys; k && *k; k++) {
            KeyPart kind = !strcmp(*k, "nand") ? KP_NAND
                         : !strcmp(*k, "controller") ? KP_CONTROLLER
                         : KP_DRIVE;
            g_autofree char *name = g_key_file_get_value(drive_kf, "parts",
                                                         *k, NULL);
            g_autofree char *p1 = NULL, *p2 = NULL;
            const char *found = NULL;
            gsize len;

            if (kind == KP_DRIVE) {
                set_err(errp, path, "parts", *k,
                        "unknown key (parts are nand and controller)");
                goto out;
            }
            if (c->part_name[kind]) {
                set_err(errp, path, "parts", *k, "set twice");
                goto out;
            }
            g_strstrip(name);
            if (!part_name_ok(name)) {
                g_autofree char *q = quote_value(name);

                set_err(errp, path, "parts", *k, "'%s' is not a part name",
                        q);
                goto out;
            }
            p1 = g_strdup_printf("%s/parts/%s/%s.ini", dir, *k, name);
            if (search_dir) {
                p2 = g_strdup_printf("%s/parts/%s/%s.ini", search_dir, *k,
                                     name);
            }
            found = g_file_test(p1, G_FILE_TEST_IS_REGULAR) ? p1
                  : p2 && g_file_test(p2, G_FILE_TEST_IS_REGULAR) ? p2
                  : NULL;
            if (!found) {
                set_err(errp, path, "parts", *k, "no %s part '%s' (looked "
                        "for %s%s%s)", *k, name, p1, p2 ? " and " : "",
                        p2 ? p2 : "");
                goto out;
            }
            {
                g_autofree char *text = read_profile_file(found, &len, errp);

                part_kf[kind] = text ? load_key_data(found, text, len, errp)
                                     : NULL;
                if (!part_kf[kind]) {
                    goto out;
                }
            }
            c->part_name[kind] = g_strdup(name);
            c->src.part_file[kind] = compose_keep(c, found);
        }
        for (int i = KP_NAND; i <= KP_CONTROLLER; i++) {
            if (part_kf[i] && !compose_add(c, part_kf[i],
                                           c->src.part_file[i], i, true,
                                           errp)) {
                goto out;
            }
        }
    }
    ok = compose_add(c, drive_kf, path, KP_DRIVE, has_parts, errp);
out:
    for (int i = 0; i < 3; i++) {
        if (part_kf[i]) {
            g_key_file_free(part_kf[i]);
        }
    }
    return ok;
}

/* Parse the composed set into a profile named after @path. */
static NvmProfile *compose_parse(Compose *c, const char *path, GError **errp)
{
    NvmProfile *p = g_new0(NvmProfile, 1);

    p->nand_part = g_strdup(c->part_name[KP_NAND]);
    p->controller_part = g_strdup(c->part_name[KP_CONTROLLER]);
    p->nand_part_path = g_strdup(c->src.part_file[KP_NAND]);
    p->controller_part_path = g_strdup(c->src.part_file[KP_CONTROLLER]);
    if (!profile_parse(c->kf, &c->src, p, errp)) {
        return NULL;
    }
    p->n_free_params = c->free->len;
    p->free_params = (NvmFreeParam *)g_array_free(c->free, FALSE);
    c->free = NULL;
    return profile_named(p, path);
}

NvmProfile *nvm_profile_load_data(const char *path, const char *data,
                                  size_t len, GError **errp)
{
    g_autoptr(GKeyFile) kf = load_key_data(path, data, len, errp);
    Compose c = { 0 };
    NvmProfile *p = NULL;

    if (!kf) {
        return NULL;
    }
    if (compose(&c, kf, path, NULL, errp)) {
        p = compose_parse(&c, path, errp);
    }
    compose_clear(&c);
    return p;
}

static char *profile_path(const char *name_or_path, const char *search_dir)
{
    if (strchr(name_or_path, '/') || g_str_has_suffix(name_or_path, ".ini")) {
        return g_strdup(name_or_path);
    }
    return g_strdup_printf("%s/%s.ini", search_dir ? search_dir : ".",
                           name_or_path);
}

/* Read and compose the drive file; false with the error set. */
static bool compose_file(Compose *c, const char *name_or_path,
                         const char *search_dir, char **path_out,
                         GError **errp)
{
    g_autofree char *text = NULL;
    g_autoptr(GKeyFile) kf = NULL;
    g_autoptr(GError) err = NULL;
    char *path;
    gsize len;

    if (!name_or_path || !*name_or_path) {
        g_set_error(errp, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "no profile name given");
        return false;
    }
    path = profile_path(name_or_path, search_dir);
    *path_out = path;
    text = read_profile_file(path, &len, &err);
    if (!text) {
        if (g_error_matches(err, G_FILE_ERROR, G_FILE_ERROR_NOENT)) {
            g_set_error(errp, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                        "%s: no such profile (try `nvmimic profiles`)",
                        path);
        } else {
            g_propagate_error(errp, g_steal_pointer(&err));
        }
        return false;
    }
    kf = load_key_data(path, text, len, errp);
    return kf && compose(c, kf, path, search_dir, errp);
}

NvmProfile *nvm_profile_load_with(const char *name_or_path,
                                  const char *search_dir,
                                  const char *const *overrides,
                                  GError **errp)
{
    g_autofree char *path = NULL;
    Compose c = { 0 };
    NvmProfile *p = NULL;

    if (compose_file(&c, name_or_path, search_dir, &path, errp)) {
        for (const char *const *o = overrides; o && o[0]; o += 3) {
            g_autofree char *id = NULL;

            if (!o[1] || !o[2]) {
                g_set_error(errp, G_KEY_FILE_ERROR,
                            G_KEY_FILE_ERROR_INVALID_VALUE,
                            "%s: incomplete override list", path);
                goto out;
            }
            id = g_strconcat(o[0], "\n", o[1], NULL);
            g_key_file_set_value(c.kf, o[0], o[1], o[2]);
            g_hash_table_insert(c.src.by_key, g_steal_pointer(&id),
                                (gpointer)"(override)");
        }
        p = compose_parse(&c, path, errp);
    }
out:
    compose_clear(&c);
    return p;
}

NvmProfile *nvm_profile_load(const char *name_or_path, const char *search_dir,
                             GError **errp)
{
    return nvm_profile_load_with(name_or_path, search_dir, NULL, errp);
}

char *nvm_profile_compose_text(const char *name_or_path,
                               const char *search_dir, GError **errp)
{
    g_autofree char *path = NULL;
    Compose c = { 0 };
    char *text = NULL;

    if (compose_file(&c, name_or_path, search_dir, &path, errp)) {
        text = g_key_file_to_data(c.kf, NULL, NULL);
    }
    compose_clear(&c);
    return text;
}

bool nvm_profile_compose_each(const char *name_or_path,
                              const char *search_dir, NvmProfileKeyFn fn,
                              void *opaque, GError **errp)
{
    g_autofree char *path = NULL;
    g_auto(GStrv) groups = NULL;
    Compose c = { 0 };
    NvmProfile *p = NULL;
    bool ok;

    if (compose_file(&c, name_or_path, search_dir, &path, errp)) {
        p = compose_parse(&c, path, errp);
    }
    ok = p != NULL;
    if (ok) {
        groups = g_key_file_get_groups(c.kf, NULL);
        for (char **g = groups; *g; g++) {
            g_auto(GStrv) keys = g_key_file_get_keys(c.kf, *g, NULL, NULL);

            for (char **k = keys; k && *k; k++) {
                g_autofree char *v = g_key_file_get_value(c.kf, *g, *k,
                                                          NULL);
                g_autofree char *id = g_strconcat(*g, "\n", *k, NULL);
                const char *file = g_hash_table_lookup(c.src.by_key, id);

                fn(*g, *k, g_strstrip(v), file ? file : c.src.drive, opaque);
            }
        }
        nvm_profile_free(p);
    }
    compose_clear(&c);
    return ok;
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
    for (unsigned i = 0; i < p->n_free_params; i++) {
        g_free(p->free_params[i].group);
        g_free(p->free_params[i].key);
        g_free(p->free_params[i].file);
    }
    g_free(p->free_params);
    g_free(p->nand_part);
    g_free(p->nand_part_path);
    g_free(p->controller_part);
    g_free(p->controller_part_path);
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
