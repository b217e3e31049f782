/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic drive model: says when a specific real NVMe SSD, described by a
 * profile, completes each command.  Plain C, no QEMU types, no clock reads.
 */
#ifndef NVMIMIC_MODEL_H
#define NVMIMIC_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#define NVM_MAX_POWER_STATES 8
#define NVM_MAX_CORES 16
#define NVM_MAX_CHANNELS 32
#define NVM_MAX_DIES 512
#define NVM_MAX_PLANES 8
#define NVM_HIST_BUCKETS 336
#define NVM_MAX_LBA_FORMATS 16

/*
 * Bounds shared by the profile loader's key table and the model's
 * allocations (see nvm_model_max_memory_bytes).
 */
#define NVM_MAX_CAPACITY_BYTES (1ULL << 48)          /* 256 TiB */
#define NVM_MIN_PAGE_BYTES 4096
#define NVM_MAX_PAGE_BYTES 65536
#define NVM_MAX_WRITE_BUFFER_BYTES (1ULL << 30)      /* 1 GiB */
#define NVM_MAX_MAP_TAGS (1U << 20)                  /* partial map slots */
#define NVM_MAX_CKPT_CHUNKS (1U << 24)               /* checkpoints' chunks */
/* Mapping state: 4 KiB regions up to 2 TiB, coarser beyond (2^29 of them) */
#define NVM_MAX_MAP_REGIONS (1ULL << 29)
#define NVM_MAX_SUPERBLOCKS 65000

/* Cell modes, numbered by bits per cell. */
typedef enum NvmCellMode {
    NVM_CELL_SLC = 1,
    NVM_CELL_TLC = 3,
    NVM_CELL_QLC = 4,
} NvmCellMode;

typedef enum NvmMapKind {
    NVM_MAP_DRAM,        /* mapping table in on-board DRAM */
    NVM_MAP_HMB,         /* DRAM-less: part of the map cached in host memory */
} NvmMapKind;

typedef enum NvmReadPlacement {
    NVM_READ_PLACE_LBA,  /* reads timed on the dies the LBA stripes to */
    NVM_READ_PLACE_FTL,  /* ... where the write history put the data */
} NvmReadPlacement;

typedef enum NvmReviewState {
    NVM_REVIEW_FILLED,   /* whole drive written, then a span is tested */
    NVM_REVIEW_ERASED,   /* secure erase, then only the span is written */
} NvmReviewState;

/* How nvm_model_set_steady_random() reaches a span's steady state. */
typedef enum NvmSteadyState {
    NVM_STEADY_FORMULA,     /* computed: valid counts decaying with age */
    NVM_STEADY_SIMULATED,   /* random writes through the FTL until WA holds */
} NvmSteadyState;

typedef struct NvmPowerState {
    double max_power_w;
    uint32_t entry_lat_us;
    uint32_t exit_lat_us;
    bool non_operational;
    /* APST default: idle time before autonomous entry, 0 = never entered */
    uint32_t idle_before_entry_ms;
} NvmPowerState;

/* Identify Namespace LBA formats, in order: data size, Relative Performance */
typedef struct NvmLbaFormats {
    unsigned n;
    uint32_t bytes[NVM_MAX_LBA_FORMATS];
    uint8_t rp[NVM_MAX_LBA_FORMATS];
} NvmLbaFormats;

/* A parameter `nvmimic fit` may change: [fit] in the file that sets it. */
typedef struct NvmFreeParam {
    char *group;
    char *key;
    char *file;                 /* the part or drive file that sets it */
    double lo, hi;              /* the range the fit searches */
    /* "LO..HI prior P": the value before any fit, where cross-validation
     * starts (a published figure of a peer part, a typical one) */
    bool has_prior;
    double prior;
} NvmFreeParam;

/*
 * A drive profile, loaded from profiles/<name>.ini.  Identity fields are for
 * the device (Identify Controller, PCI config space, SMART); the rest drives
 * the model.  Times are as in the file (us/ms), sizes in bytes.
 */
typedef struct NvmProfile {
    char *name;                 /* file name without .ini */
    char *path;
    char *description;
    /* [parts]: shared part files (NULL for a self-contained profile) */
    char *nand_part, *nand_part_path;
    char *controller_part, *controller_part_path;
    NvmFreeParam *free_params;  /* from the [fit] sections */
    unsigned n_free_params;

    /* [identity] */
    char *vendor;
    char *model_number;         /* as Identify Controller MN reports it */
    char *firmware;
    char *serial;
    uint32_t pci_vendor_id;
    uint32_t pci_device_id;
    uint32_t pci_subsys_vendor_id;
    uint32_t pci_subsys_id;
    uint64_t capacity_bytes;
    uint32_t lba_bytes;
    uint32_t mdts_pages;        /* in 4 KiB pages; mdts = log2 of it */
    uint32_t mdts;
    uint32_t nvme_version;      /* VS register: major << 16 | minor << 8 */
    bool volatile_write_cache;
    uint64_t endurance_tbw;
    int32_t temp_warn_c;
    int32_t temp_crit_c;
    int32_t temp_idle_c;

    /*
     * [identity], Identify Controller capabilities as the drive reports
     * them (field names of the NVMe specification); hw/ reports what it
     * implements of them.
     */
    uint32_t ieee_oui;
    uint32_t namespaces;        /* NN */
    uint32_t oacs;
    uint32_t oncs;
    uint32_t frmw;
    uint32_t lpa;
    uint32_t oaes;
    uint32_t sanicap;
    uint64_t tnvmcap_bytes;
    uint64_t unvmcap_bytes;
    uint32_t awun;              /* 0-based, in logical blocks */
    uint32_t awupf;
    NvmLbaFormats lba_formats;

    /* [host-interface] */
    uint32_t pcie_gen;
    uint32_t pcie_lanes;
    uint32_t max_payload_bytes;
    uint32_t tlp_overhead_bytes;
    uint32_t cmd_overhead_bytes;

    /* [controller] */
    uint32_t cores;
    double read_cmd_ns;
    double write_cmd_ns;
    double flush_cmd_ns;
    double trim_cmd_ns;
    double read_path_mbps;
    double read_path_slc_mbps;  /* data read from SLC pages (0: as above) */
    double write_path_mbps;
    uint64_t map_sram_bytes;    /* on-chip map cache of a DRAM-less design */
    uint32_t max_channels;      /* what the controller can drive */
    uint32_t max_dies_per_channel;
    double nand_power_budget_mw;    /* programs/erases at once, by power */
    double idle_w;              /* controller + DRAM power, idle */
    double active_w;            /* ... with every core busy */
    double hmb_rtt_ns;          /* device read of host memory, round trip */
    bool die_fifo;              /* reads wait for a die's queued operations */
    bool dynamic_alloc;         /* multi-plane pages written to a free die */
    bool data_path_streams;     /* data path stages overlap within a command */

    /* [nand] */
    NvmCellMode cell_mode;      /* native mode: TLC or QLC */
    uint32_t channels;
    uint32_t dies_per_channel;
    uint32_t planes;
    uint32_t page_bytes;
    uint32_t pages_per_block;
    double channel_mbps;
    uint64_t die_bytes;
    uint64_t raw_bytes;         /* derived: dies x die-bytes */
    double read_us_slc;
    double read_us_native;
    double program_us_slc;
    double program_us_native;
    double erase_us;
    bool independent_plane_reads;
    bool program_suspend;
    double suspend_us;
    double resume_us;           /* a suspended program/erase is this longer */
    uint32_t max_suspends;      /* per program or erase */
    double read_mw, program_mw, erase_mw;   /* one active die */
    double program_slc_mw;

    /* [cache] */
    uint64_t write_buffer_bytes;
    uint64_t slc_static_bytes;
    uint64_t slc_dynamic_max_bytes;
    uint32_t fold_idle_ms;
    bool slc_first_when_full;   /* full drive: writes still via SLC */

    /* [map] */
    NvmMapKind map_kind;
    uint64_t map_cache_bytes;
    uint64_t map_hmb_min_bytes;
    uint32_t map_entry_bytes;
    uint32_t map_unit_bytes;
    uint32_t map_chunk_bytes;
    bool map_miss_blocks_core;
    bool map_update_blocks_core;
    uint64_t map_checkpoint_bytes;

    /* [gc] */
    uint64_t gc_reserved_bytes;
    uint32_t gc_start_free;     /* superblocks: GC runs below this many free */
    uint32_t gc_urgent_free;    /* ... and stalls host writes at this many */

    /* [ftl] */
    NvmReadPlacement read_placement;

    /* [thermal] */
    bool thermal_enabled;
    double thermal_c_per_w;
    double thermal_tau_s;
    double throttle_c;
    double throttle_slowdown;

    /* [power] */
    uint32_t n_power_states;
    NvmPowerState ps[NVM_MAX_POWER_STATES];
    bool apst_enabled;
    double link_l1_idle_us;
    double link_l1_exit_us;
    double core_idle_us;
    double core_wake_us;

    /* [variability] */
    double nand_jitter_pct;
    double read_retry_ppm;
    double read_retry_ppm_eol;
    double read_retry_us;

    /* [review] */
    NvmReviewState review_state;
    double review_span_pct;
    uint32_t review_threads_4k_random_write;
    uint32_t review_threads_64k_seq_write;
    NvmSteadyState review_steady_state;
} NvmProfile;

/*
 * Load @name_or_path: a path if it contains '/' or ends in ".ini", else
 * "<search_dir>/<name>.ini".  Returns NULL with a one-line error naming the
 * file, the key and the problem for any invalid profile.
 */
NvmProfile *nvm_profile_load(const char *name_or_path, const char *search_dir,
                             GError **errp);
/*
 * As nvm_profile_load, with values replaced after the files are composed:
 * @overrides holds "group", "key", "value" triples, NULL-terminated (the
 * fit's trial values, tests).  They pass the same checks as file values.
 */
NvmProfile *nvm_profile_load_with(const char *name_or_path,
                                  const char *search_dir,
                                  const char *const *overrides,
                                  GError **errp);
/*
 * The drive's key set composed from its part files and its own file, as
 * one self-contained profile text (no [parts], no [fit]): what the strict
 * loader checks.  Free with g_free.
 */
char *nvm_profile_compose_text(const char *name_or_path,
                               const char *search_dir, GError **errp);
/*
 * The same key set, checked as nvm_profile_load() checks it, one key at a
 * time in the files' order: @fn gets its group, key, value (as written,
 * without the blanks around it) and the file that sets it.  False with the
 * loader's error for an invalid profile.
 */
typedef void (*NvmProfileKeyFn)(const char *group, const char *key,
                                const char *value, const char *file,
                                void *opaque);
bool nvm_profile_compose_each(const char *name_or_path,
                              const char *search_dir, NvmProfileKeyFn fn,
                              void *opaque, GError **errp);
/* The same from @len bytes of profile text; @path names it in errors. */
NvmProfile *nvm_profile_load_data(const char *path, const char *data,
                                  size_t len, GError **errp);
void nvm_profile_free(NvmProfile *p);
/* Sorted profile names found in @dir (free with g_strfreev). */
char **nvm_profile_list(const char *dir, GError **errp);

/* The key reference, for generated documentation and table-driven tests. */
typedef struct NvmProfileKeyInfo {
    const char *group;
    const char *key;
    const char *type;
    bool required;
    const char *doc;
    bool bounded;               /* false: an enumerated type (true|false...) */
    bool integer;               /* an integer key (else number or string) */
    bool length;                /* a string: min/max bound its length */
    bool power_of_two;
    unsigned cell_mode;         /* only with this cell mode, 0 = always */
    double min, max;            /* inclusive bounds, in the key's unit */
    const char *why;            /* where the bounds come from */
    char range[96];             /* "1 to 65534 bytes", or the type's values */
} NvmProfileKeyInfo;
unsigned nvm_profile_key_count(void);
bool nvm_profile_key_info(unsigned i, NvmProfileKeyInfo *out);

typedef enum NvmOp {
    NVM_OP_READ,
    NVM_OP_WRITE,
    NVM_OP_FLUSH,
    NVM_OP_DISCARD,             /* Dataset Management, deallocate */
    NVM_OP_WRITE_ZEROES,
} NvmOp;

#define NVM_CLASS_COUNT 5

/* The operation's name as traces, QMP statistics and reports spell it
 * ("read", "write", "flush", "discard", "write-zeroes"); "?" if unknown. */
const char *nvm_op_name(NvmOp op);
/* The operation named @name; false if none is. */
bool nvm_op_from_name(const char *name, NvmOp *op);

/* NvmCmd.flags */
#define NVM_CMD_FUA 1u          /* write: complete once it is on NAND */

/*
 * A command's name in a device trace: its operation's, with "-fua" after a
 * write's or a write zeroes' that carries NVM_CMD_FUA ("write-fua",
 * "write-zeroes-fua"); the other operations are named without it (the
 * model's FUA path is the writes'); "?" for an unknown operation.  One
 * table for the drive that writes traces and the tools that read them.
 */
const char *nvm_cmd_name(NvmOp op, uint32_t flags);
/* The operation and flags (NVM_CMD_FUA or 0) named @name, as nvm_cmd_name
 * spells them; false if none is. */
bool nvm_cmd_from_name(const char *name, NvmOp *op, uint32_t *flags);

typedef struct NvmCmd {
    NvmOp op;
    uint64_t slba;
    uint32_t nlb;               /* number of logical blocks (not 0-based) */
    uint32_t flags;             /* NVM_CMD_* */
} NvmCmd;

typedef struct NvmModel NvmModel;

/* The model copies what it needs from @p; @p may be freed afterwards. */
NvmModel *nvm_model_new(const NvmProfile *p, uint64_t seed);
void nvm_model_free(NvmModel *m);
size_t nvm_model_memory_bytes(const NvmModel *m);
/* The most this model's memory can grow to (every map chunk detailed). */
size_t nvm_model_memory_bound(const NvmModel *m);
/* The most nvm_model_memory_bytes can be for any profile the loader accepts. */
size_t nvm_model_max_memory_bytes(void);

/*
 * Submit @cmd at @now_ns (non-decreasing across calls); returns its
 * completion time in ns, >= now_ns.  Completions may be out of order.
 */
uint64_t nvm_model_submit(NvmModel *m, const NvmCmd *cmd, uint64_t now_ns);

/*
 * Host write data passes through the write buffer as one stream.  The
 * bytes appended to it so far (never decreasing, across state changes
 * too), and the prefix of them that is on NAND at @now_ns: every program
 * unit up to there has finished.  A power cut at @now_ns keeps that
 * prefix and loses the rest of the buffer (a drive without power-loss
 * protection).  A write submitted with nvm_model_submit() occupies the
 * stream up to nvm_model_stream_bytes() read right after it.
 */
uint64_t nvm_model_stream_bytes(const NvmModel *m);
uint64_t nvm_model_stream_programmed(const NvmModel *m, uint64_t now_ns);

/* State injection.  Out-of-range arguments: false and @errp set. */
bool nvm_model_set_fill(NvmModel *m, double pct, GError **errp);
bool nvm_model_set_slc_used(NvmModel *m, uint64_t bytes, GError **errp);
bool nvm_model_set_wear(NvmModel *m, double pct, GError **errp);
/*
 * The map cache as a run over [@start_bytes, +@span_bytes) leaves it: the
 * chunks of that range cached, the latest where two compete for a slot
 * (for simulated runs shorter than the minutes a review's point lasts).
 */
void nvm_model_warm_map(NvmModel *m, uint64_t start_bytes,
                        uint64_t span_bytes);
/*
 * Right after a fill: [@start_bytes, +@span_bytes) rewritten at random
 * until greedy GC reached its steady state (the state the reviews' earlier
 * write tests leave on their span).  Computed (the profile's [review]
 * steady-state = formula, the default), or simulated with
 * nvm_model_precondition_random() and its default pass limit (simulated).
 */
bool nvm_model_set_steady_random(NvmModel *m, uint64_t start_bytes,
                                 uint64_t span_bytes, GError **errp);

/* What nvm_model_precondition_random() did. */
typedef struct NvmPrecondition {
    unsigned passes;            /* passes of one span's worth of writes */
    double wa;                  /* write amplification of the last pass */
    double wa_prev;             /* of the pass before it (0: none) */
    uint64_t victims;           /* GC victims in the last pass */
    double victim_valid;        /* their mean valid share (0..1) */
    double folded_share;        /* last pass: units folded / units written */
} NvmPrecondition;

#define NVM_PRECONDITION_MAX_PASSES 30

/*
 * Right after a fill (or another preconditioning): uniform random writes
 * of one map unit each over [@start_bytes, +@span_bytes) through the
 * model's own mapping state and its policies for host writes (SLC or
 * native, folding, greedy GC from start-free-blocks, urgent GC), with no
 * timing, in passes of one span's worth of writes, until a pass's write
 * amplification is within 1 % of the pass before (at least 2 passes, at
 * most @max_passes; 0: NVM_PRECONDITION_MAX_PASSES; 1: exactly one).  The
 * addresses are drawn from the model's seed.  Then the model is quiesced
 * as after a fill; statistics and lifetime counters do not see the
 * writes.  @out (may be NULL) says what it did.
 */
bool nvm_model_precondition_random(NvmModel *m, uint64_t start_bytes,
                                   uint64_t span_bytes, unsigned max_passes,
                                   NvmPrecondition *out, GError **errp);
/*
 * A preconditioning is computed once per process for a given starting
 * state, span, seed and write policy, and copied into every later model
 * that asks for the same (model-state.c says why that is exact).  @on
 * false turns that off (tests: the fresh computation to compare with);
 * either call forgets every checkpoint and the count of their uses.
 */
void nvm_model_precondition_checkpoints(bool on);
/* How many preconditionings were copied from a checkpoint (tests). */
uint64_t nvm_model_precondition_checkpoint_hits(void);
/* A digest of the mapping state: equal digests, equal states (tests). */
uint64_t nvm_model_state_digest(const NvmModel *m);
/*
 * Self-check of the mapping state (tests): every count against a recount,
 * no write the mapping state had no room for, valid data as filled.
 * False with a newly allocated reason in @why.
 */
bool nvm_model_check_state(const NvmModel *m, char **why);
void nvm_model_secure_erase(NvmModel *m);
/*
 * The state injected by the calls above holds from @now_ns: the drive was
 * busy until then (a fill ends with it writing, the tests follow at once),
 * so the idle time before it is not time spent folding SLC or in a low
 * power state.
 */
void nvm_model_state_at(NvmModel *m, uint64_t now_ns);
void nvm_model_reset_stats(NvmModel *m, uint64_t now_ns);

/* LBAs [slba, slba + nlb), in the profile's LBA size. */
typedef struct NvmLbaRange {
    uint64_t slba;
    uint64_t nlb;
} NvmLbaRange;

/*
 * The mapping a host leaves that wrote exactly @ranges (sorted, disjoint,
 * within the capacity, none empty) long enough ago for the data to sit on
 * native cells, and deallocated every other LBA: as after a secure erase
 * and those writes (an image loaded onto the drive).  Wear is kept.
 */
bool nvm_model_set_mapped(NvmModel *m, const NvmLbaRange *ranges, size_t n,
                          GError **errp);

/*
 * Autonomous power state transitions as the guest sets them (Set Features
 * APST): @idle_ms[i] is the idle time before entering state i, 0 = never.
 * @n must equal the profile's state count.  nvm_model_reset_apst restores
 * the profile's values.
 */
bool nvm_model_set_apst(NvmModel *m, bool enabled, const uint32_t *idle_ms,
                        unsigned n, GError **errp);
void nvm_model_reset_apst(NvmModel *m);

/*
 * Host Memory Buffer the host granted (Set Features 0x0d), in bytes; 0 =
 * none.  Only for a DRAM-less profile ([map] kind = hmb); a new model
 * starts with the profile's cache-bytes, as a host that honours HMPRE.
 */
bool nvm_model_set_hmb(NvmModel *m, uint64_t bytes, GError **errp);
/* Thermal model on or off (the profile's [thermal] enabled by default). */
void nvm_model_set_thermal(NvmModel *m, bool enabled);

typedef struct NvmClassStats {
    uint64_t count;
    uint64_t bytes;
    double mean_us;
    double p50_us;
    double p99_us;
    double p999_us;
    double max_us;
    uint64_t hist[NVM_HIST_BUCKETS];    /* see nvm_hist_bucket_upper_ns */
} NvmClassStats;

typedef struct NvmStats {
    NvmClassStats cls[NVM_CLASS_COUNT]; /* indexed by NvmOp */
    uint64_t host_bytes_written;        /* since reset */
    uint64_t nand_bytes_written;        /* since reset, incl. GC and folding */
    uint64_t nand_bytes_read;
    uint64_t total_host_bytes_written;  /* lifetime, incl. injected wear */
    uint64_t total_nand_bytes_written;
    double write_amplification;         /* nand / host since reset */
    double gc_wa_now;                   /* WA of the latest GC victim */
    double wear_pct;                    /* of rated endurance */
    double fill_pct;
    uint64_t valid_bytes;
    uint64_t slc_used_bytes;
    uint64_t slc_size_bytes;
    uint64_t map_misses;
    uint64_t map_writebacks;            /* dirty map chunks evicted */
    uint64_t map_checkpoints;           /* map checkpoints taken */
    uint64_t map_checkpointed;          /* map chunks written by checkpoints */
    uint64_t power_exits;
    unsigned power_state;               /* state at the time of the query */
    uint64_t ps_time_ns[NVM_MAX_POWER_STATES];
    /* since reset, unless noted */
    uint64_t buffer_read_hits;          /* reads served from the buffer */
    uint64_t gc_bytes;                  /* relocated by GC */
    uint64_t fold_bytes;                /* moved from SLC to native */
    uint64_t erases;                    /* die block erases */
    uint64_t suspends;                  /* program/erase suspends */
    uint32_t free_superblocks;          /* now */
    uint64_t hmb_bytes;                 /* now */
    double temp_c;                      /* now */
    uint64_t throttled_ns;              /* time at the throttle threshold */
    uint64_t throttles;                 /* lifetime: times throttling began */
    uint64_t total_throttled_ns;        /* lifetime */
    uint64_t map_state_bytes;           /* now: the mapping state */
} NvmStats;

/*
 * Statistics up to @now_ns.  Background work (folding, GC) that the drive
 * does by @now_ns is accounted first (it would be at the next command
 * anyway): the results do not depend on when or how often they are read.
 */
void nvm_model_get_stats(const NvmModel *m, uint64_t now_ns, NvmStats *st);

/*
 * Die time reserved since the model was made or last given a state (which
 * clears its timelines), over all @dies: @op_ns of programs, erases and
 * relocation copies (their own time with their suspend and resume
 * overheads), @read_ns of page reads (with the suspend latency a read
 * waits), and @until_ns, the latest time a die is reserved to.  A die does
 * one thing at a time: where a die has one read timeline (no independent
 * plane reads), op + read never exceeds dies x until.
 */
typedef struct NvmDieTime {
    uint64_t op_ns, read_ns, until_ns;
    unsigned dies;
    /* operations a die's full queue forgot while they ran (0 expected) */
    uint64_t forgotten;
} NvmDieTime;

void nvm_model_die_time(const NvmModel *m, NvmDieTime *dt);

/*
 * Probe: where host commands' time goes, summed since the statistics were
 * last reset (nvm_model_reset_stats(); bench/vdi-probe, docs/vdi.md).  All
 * times in ns.  Counting only: it changes no result.
 */
typedef struct NvmProbe {
    uint64_t rd_n, rd_core_wait, rd_core, rd_map, rd_nand, rd_post;
    uint64_t rd_nand_cmds;          /* reads that touched NAND */
    uint64_t pg_n, pg_tr, pg_wait, pg_chan;  /* host page reads */
    uint64_t pg_susp_n, pg_susp_ns; /* reads that suspended an operation */
    uint64_t pg_opwait_n, pg_opwait_ns;  /* waited for a running op */
    uint64_t wr_n, wr_core_wait, wr_core, wr_front, wr_buf;
    uint64_t wr_buf_n;              /* writes that waited for the buffer */
    uint64_t slot_n[3], slot_wait[3];   /* power budget slots */
    uint64_t push_n[3], push_wait[3];   /* die queue (prog, erase, copy) */
    uint64_t push_dur[3];
} NvmProbe;
void nvm_model_probe(const NvmModel *m, NvmProbe *pr);
uint64_t nvm_hist_bucket_upper_ns(unsigned bucket);
/* The bucket @ns falls in (for histograms of other times, in ns). */
unsigned nvm_hist_bucket(uint64_t ns);
double nvm_hist_percentile_us(const uint64_t *hist, uint64_t count, double q);

#endif
