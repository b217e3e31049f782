/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The I/O trace file of an nvmimic drive (QMP nvmimic-trace-start): one
 * text line per timed command, read by nvmimic trace2iolog and nvmimic
 * sim --trace (format: harness/sim/trace.h), bounded in size.
 */
#ifndef HW_NVME_NVMIMIC_IOLOG_H
#define HW_NVME_NVMIMIC_IOLOG_H

#include "qemu/units.h"

/* The bound when nvmimic-trace-start gives none: ~25 M commands. */
#define NVMIMIC_IOLOG_DEFAULT_MAX_BYTES (1 * GiB)
/* The smallest bound accepted: the header and a few commands. */
#define NVMIMIC_IOLOG_MIN_MAX_BYTES (4 * KiB)

typedef struct NvmimicIolog NvmimicIolog;

/*
 * Create or truncate @path (QEMU's file helpers: /dev/fdset/N works; a
 * path must name a regular file, not a symbolic link) and write the
 * header.  Times are recorded relative to @start_ns.
 */
NvmimicIolog *nvmimic_iolog_start(const char *path, uint64_t max_bytes,
                                  int64_t start_ns, const char *profile,
                                  uint32_t lba_bytes, uint64_t capacity_bytes,
                                  Error **errp);
/*
 * Record one command: appended to memory only; the file is written from
 * a bottom half.  Past max-bytes nothing more is recorded (counted as
 * dropped, and reported once).
 */
void nvmimic_iolog_cmd(NvmimicIolog *t, int64_t submit_ns, const char *op,
                       uint64_t slba, uint64_t nlb, int64_t complete_ns);
/*
 * Record an event at @ns (a fault) as a comment line "# at-ns=N TEXT",
 * which readers of the format skip.  @text: key=value words.
 */
void nvmimic_iolog_note(NvmimicIolog *t, int64_t ns, const char *text);
/*
 * Write out what is left, close and free @t.  False (with @errp set) if
 * the file could not be written completely.
 */
bool nvmimic_iolog_stop(NvmimicIolog *t, uint64_t *commands,
                        uint64_t *dropped, Error **errp);
const char *nvmimic_iolog_path(const NvmimicIolog *t);

#endif
