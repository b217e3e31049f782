/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A small synchronous QMP client over a unix socket (json-glib): enough to
 * precondition the nvmimic drive and read its statistics.
 */
#ifndef NVMIMIC_QMP_H
#define NVMIMIC_QMP_H

#include <json-glib/json-glib.h>

#include "fig.h"

typedef struct NvmQmp NvmQmp;

/* Connect, read the greeting and leave capabilities negotiation. */
NvmQmp *nvm_qmp_connect(const char *path, int timeout_ms, GError **errp);
void nvm_qmp_close(NvmQmp *q);

/* Run @cmd with @args (a JSON object text, or NULL); returns the "return"
 * member (json_node_unref it) or NULL with the error QEMU gave. */
JsonNode *nvm_qmp_exec(NvmQmp *q, const char *cmd, const char *args,
                       int timeout_ms, GError **errp);

/* @o's member @name as a number (a QMP answer's, or fio's JSON); NAN when
 * @o or the member is missing or is not a value (null). */
double nvm_json_double(JsonObject *o, const char *name);

/*
 * One class of query-nvmimic-stats' answer ("read", "write", ...) as
 * figures: IOPS and MB/s over @interval_ns (0 when it is not positive),
 * the mean and percentile latencies as the device measured them.
 */
NvmFig nvm_qmp_class_fig(JsonObject *cls, double interval_ns);

#endif
