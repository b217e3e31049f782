/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Drive profiles: the keys.  Every key is declared once in
 * nvm_prof_key_table (the [power-state-N] keys in nvm_prof_ps_table), with
 * its type, its bounds and why;
 * the lookups by name and by the file a key belongs in, and the key
 * descriptions behind `nvmimic profile-keys` and profiles/README.md.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "profile-int.h"

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

const KeyDesc nvm_prof_key_table[] = {
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
    { "controller", "read-path-slc-mbps", KT_DBL, OFF(read_path_slc_mbps), 0,
      BOUND(0, 1e6, "MB/s", "0 (as read-path-mbps) or a data path's rate, "
            "at least 10 MB/s"),
      "read data path throughput for data read from SLC pages, whose low "
      "bit error rate needs fewer LDPC decode iterations (0, the default: "
      "read-path-mbps); data from the buffer or unmapped takes it too" },
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
    { "controller", "die-queue-fifo", KT_BOOL, OFF(die_fifo), 0, NO_BOUND,
      "the firmware issues each die's operations in arrival order: a read "
      "of host data waits for the programs, copies and erases already "
      "queued on its die and suspends none; map chunk loads keep read "
      "priority (default false: reads go ahead of queued operations and "
      "suspend a running one within the NAND's limits)" },
    { "controller", "dynamic-allocation", KT_BOOL, OFF(dynamic_alloc), 0,
      NO_BOUND,
      "the firmware writes each multi-plane page (a page on every plane "
      "of one die) to a die that is free, not to the dies in turn: with "
      "[ftl] read-placement = ftl a run's pages are read in groups of "
      "planes on a die drawn per group (default false: page by page over "
      "the dies)" },
    { "controller", "data-path-streams", KT_BOOL, OFF(data_path_streams), 0,
      NO_BOUND,
      "each stage of a command's data path (the link, the read or write "
      "path) passes the data on in 4 KiB units as they arrive, so a large "
      "command's stages overlap (default false: store and forward, each "
      "stage takes the whole command before the next starts)" },
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
    { "cache", "slc-first-when-full", KT_BOOL, OFF(slc_first_when_full), 0,
      NO_BOUND,
      "on a full drive (no dynamic SLC left) host writes still go through "
      "the static SLC cache, folded as they arrive, instead of straight to "
      "native programs (default false)" },

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
    { "map", "checkpoint-bytes", KT_U64, OFF(map_checkpoint_bytes), 0,
      BOUND(0, 1024 * GIB, "bytes", "0 (none) or host bytes written "
            "between two checkpoints"),
      "host bytes written between map checkpoints, which program every "
      "map chunk changed since the last one (SLC); 0 (default): the map "
      "goes back to NAND only when its cache evicts it" },

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

    { "ftl", "read-placement", KT_PLACEMENT, OFF(read_placement), 0,
      NO_BOUND,
      "where reads are timed: lba (every read on the dies its LBA stripes "
      "to, as the fill lays data out) or ftl (where the write history put "
      "it: runs written in order striped as written, data rewritten at "
      "random one page read per unit on a die drawn per unit; "
      "default lba)" },

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
    { "review", "steady-state", KT_STEADY, OFF(review_steady_state), 0,
      NO_BOUND,
      "how a filled drive's span reaches random-write steady state: "
      "formula (valid counts decaying with age, computed) or simulated "
      "(random 4 KiB writes through the FTL until the write amplification "
      "holds; default formula)" },
};

const size_t nvm_prof_key_table_len = G_N_ELEMENTS(nvm_prof_key_table);

#define PSOFF(f) offsetof(NvmPowerState, f)

/* The keys of each [power-state-N] section; @off is into NvmPowerState. */
const KeyDesc nvm_prof_ps_table[] = {
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

const size_t nvm_prof_ps_table_len = G_N_ELEMENTS(nvm_prof_ps_table);

/* profile-parse.c stores each of these enums as an int */
_Static_assert(sizeof(NvmCellMode) == sizeof(int) &&
               sizeof(NvmMapKind) == sizeof(int) &&
               sizeof(NvmReviewState) == sizeof(int) &&
               sizeof(NvmReadPlacement) == sizeof(int) &&
               sizeof(NvmSteadyState) == sizeof(int),
               "a two-name key's enum is not the size of an int");

const KeyChoice *nvm_prof_key_choice(KeyType t)
{
    static const KeyChoice cell = {
        { "tlc", "qlc" }, { NVM_CELL_TLC, NVM_CELL_QLC },
        "tlc|qlc", "not tlc or qlc",
    };
    static const KeyChoice map = {
        { "dram", "hmb" }, { NVM_MAP_DRAM, NVM_MAP_HMB },
        "dram|hmb", "not dram or hmb",
    };
    static const KeyChoice review = {
        { "filled", "erased" }, { NVM_REVIEW_FILLED, NVM_REVIEW_ERASED },
        "filled|erased", "not filled or erased",
    };
    static const KeyChoice placement = {
        { "lba", "ftl" }, { NVM_READ_PLACE_LBA, NVM_READ_PLACE_FTL },
        "lba|ftl", "not lba or ftl",
    };
    static const KeyChoice steady = {
        { "formula", "simulated" },
        { NVM_STEADY_FORMULA, NVM_STEADY_SIMULATED },
        "formula|simulated", "not formula or simulated",
    };

    switch (t) {
    case KT_CELL:
        return &cell;
    case KT_MAP:
        return &map;
    case KT_REVIEW:
        return &review;
    case KT_PLACEMENT:
        return &placement;
    case KT_STEADY:
        return &steady;
    default:
        return NULL;
    }
}

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
    case KT_MAP:
    case KT_REVIEW:
    case KT_PLACEMENT:
    case KT_STEADY:
        return nvm_prof_key_choice(t)->type_name;
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
void nvm_prof_format_range(const KeyDesc *d, bool hex, char *buf, size_t n)
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
    d = i < N_KEYS ? &nvm_prof_key_table[i] : &nvm_prof_ps_table[i - N_KEYS];
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
    nvm_prof_format_range(d, d->flags & KF_HEX, ki->range, sizeof(ki->range));
    return true;
}

const char *const nvm_prof_part_names[] = { "drive", "nand", "controller" };

/*
 * Which file a key belongs in when a drive is composed of parts: NAND
 * properties in the NAND part, the controller's and its firmware's design
 * in the controller part, geometry, policy, identity in the drive.
 */
KeyPart nvm_prof_key_part(const char *group, const char *key)
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

const KeyDesc *nvm_prof_find_key(const char *group, const char *key)
{
    for (size_t i = 0; i < N_KEYS; i++) {
        if (!strcmp(nvm_prof_key_table[i].group, group) &&
            !strcmp(nvm_prof_key_table[i].key, key)) {
            return &nvm_prof_key_table[i];
        }
    }
    return NULL;
}

bool nvm_prof_group_known(const char *group)
{
    for (size_t i = 0; i < N_KEYS; i++) {
        if (!strcmp(nvm_prof_key_table[i].group, group)) {
            return true;
        }
    }
    return false;
}
