/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A QEMU under qtest (-accel qtest) and a batching client of its text
 * protocol: commands are queued and sent in one write, their answers read
 * back together, so a batch costs one round trip however many it holds.
 */
#ifndef NVMIMIC_QTEST_H
#define NVMIMIC_QTEST_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>
#include <json-glib/json-glib.h>

typedef struct NvmQtest NvmQtest;

/*
 * Start @qemu as a q35 machine with the qtest accelerator, its qtest
 * socket connected to us and a QMP socket, plus @args (NULL-terminated).
 * QEMU's output goes to @log_path (NULL: a file in a temporary directory,
 * removed at the end).  @timeout_ms bounds every wait for QEMU.
 */
NvmQtest *nvm_qtest_start(const char *qemu, const char *const *args,
                          const char *log_path, int timeout_ms,
                          GError **errp);
/* Quit QEMU (QMP quit, then SIGKILL after a while) and free @q. */
void nvm_qtest_quit(NvmQtest *q);

/*
 * Queue a command (one line, without its newline).  Its answer must be
 * "OK"; the answer's value (the clock of clock_step, the value of readl, a
 * b64read's decoded bytes) is kept for nvm_qtest_u64() or copied to @buf.
 * Returns the command's index in the batch.
 */
unsigned nvm_qtest_queue(NvmQtest *q, const char *fmt, ...)
    G_GNUC_PRINTF(2, 3);
unsigned nvm_qtest_queue_b64read(NvmQtest *q, uint64_t addr, void *buf,
                                 size_t len);
unsigned nvm_qtest_queue_b64write(NvmQtest *q, uint64_t addr,
                                  const void *buf, size_t len);
/* Send the queued commands and read every answer. */
bool nvm_qtest_flush(NvmQtest *q, GError **errp);
/* After a flush: the value answered by command @i of that batch. */
uint64_t nvm_qtest_u64(const NvmQtest *q, unsigned i);

/* One command, flushed at once (a round trip each). */
bool nvm_qtest_cmd(NvmQtest *q, uint64_t *value, GError **errp,
                   const char *fmt, ...) G_GNUC_PRINTF(4, 5);
bool nvm_qtest_read(NvmQtest *q, uint64_t addr, void *buf, size_t len,
                    GError **errp);
bool nvm_qtest_write(NvmQtest *q, uint64_t addr, const void *buf,
                     size_t len, GError **errp);

/* A QMP command (@args: a JSON object text or NULL); see qmp.h. */
JsonNode *nvm_qtest_qmp(NvmQtest *q, const char *cmd, const char *args,
                        GError **errp);

typedef struct NvmQtestCounters {
    uint64_t round_trips;       /* batches sent */
    uint64_t commands;
    uint64_t bytes_sent;
    uint64_t bytes_received;
} NvmQtestCounters;

void nvm_qtest_counters(const NvmQtest *q, NvmQtestCounters *c);

#endif
