/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Synchronous QMP client: one command in flight, events skipped.  Each
 * command carries its own "id", which QEMU echoes in its answer: a command
 * that timed out still gets its answer later, and the next command must
 * not take that answer for its own (a progress query that timed out while
 * QEMU was busy would otherwise hand every later command the answer of the
 * one before it).
 */
#include <math.h>

#include "guestctl.h"
#include "qmp.h"
#include "json-load.h"

struct NvmQmp {
    NvmLineSock *s;
    gint64 next_id;             /* the id of the next command sent */
};

/* A message's "id" member; -1 when it has none or it is not a number. */
static gint64 qmp_msg_id(JsonObject *o)
{
    JsonNode *id = json_object_get_member(o, "id");

    if (!id || !JSON_NODE_HOLDS_VALUE(id) ||
        json_node_get_value_type(id) != G_TYPE_INT64) {
        return -1;
    }
    return json_node_get_int(id);
}

/*
 * Read the next message that is not an event and, when @want_id is not -1,
 * whose "id" is @want_id (answers to earlier commands are dropped); returns
 * its root object.
 */
static JsonNode *qmp_read(NvmQmp *q, gint64 want_id, int timeout_ms,
                          GError **errp)
{
    gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;

    for (;;) {
        g_autofree char *line = NULL;
        g_autoptr(JsonParser) parser = json_parser_new();
        gint64 left = (deadline - g_get_monotonic_time()) / 1000;
        NvmLineStatus st = nvm_line_read(q->s, left > 0 ? (int)left : 0,
                                         &line);
        JsonNode *root;

        if (st == NVM_LINE_INTR) {
            continue;
        }
        if (st != NVM_LINE_OK) {
            g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED, "QMP: %s",
                        st == NVM_LINE_TIMEOUT ? "no reply in time" :
                        st == NVM_LINE_EOF ? "QEMU closed the connection" :
                        "read error");
            return NULL;
        }
        if (!*line) {
            continue;
        }
        if (!nvm_json_load(parser, line, -1, errp)) {
            return NULL;
        }
        root = json_parser_get_root(parser);
        if (!JSON_NODE_HOLDS_OBJECT(root)) {
            continue;
        }
        if (json_object_has_member(json_node_get_object(root), "event")) {
            continue;
        }
        if (want_id != -1 &&
            qmp_msg_id(json_node_get_object(root)) != want_id) {
            continue;           /* a late answer to a command given up */
        }
        return json_node_copy(root);
    }
}

NvmQmp *nvm_qmp_connect(const char *path, int timeout_ms, GError **errp)
{
    NvmQmp *q = g_new0(NvmQmp, 1);
    JsonNode *n;

    q->s = nvm_line_connect(path, timeout_ms, errp);
    if (!q->s) {
        g_free(q);
        return NULL;
    }
    n = qmp_read(q, -1, timeout_ms, errp);     /* the greeting */
    if (!n) {
        nvm_qmp_close(q);
        return NULL;
    }
    json_node_unref(n);
    n = nvm_qmp_exec(q, "qmp_capabilities", NULL, timeout_ms, errp);
    if (!n) {
        nvm_qmp_close(q);
        return NULL;
    }
    json_node_unref(n);
    return q;
}

void nvm_qmp_close(NvmQmp *q)
{
    if (q) {
        nvm_line_close(q->s);
        g_free(q);
    }
}

JsonNode *nvm_qmp_exec(NvmQmp *q, const char *cmd, const char *args,
                       int timeout_ms, GError **errp)
{
    gint64 id = q->next_id++;
    g_autofree char *msg = args ?
        g_strdup_printf("{\"execute\": \"%s\", \"arguments\": %s, "
                        "\"id\": %" G_GINT64_FORMAT "}", cmd, args, id) :
        g_strdup_printf("{\"execute\": \"%s\", \"id\": %" G_GINT64_FORMAT
                        "}", cmd, id);
    JsonNode *r;
    JsonObject *o;
    JsonNode *ret;

    if (!nvm_line_send(q->s, msg, errp)) {
        return NULL;
    }
    r = qmp_read(q, id, timeout_ms, errp);
    if (!r) {
        return NULL;
    }
    o = json_node_get_object(r);
    if (json_object_has_member(o, "error")) {
        JsonObject *e = json_object_get_object_member(o, "error");
        const char *desc = e && json_object_has_member(e, "desc") ?
                           json_object_get_string_member(e, "desc") : "?";

        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED, "QMP %s: %s", cmd,
                    desc);
        json_node_unref(r);
        return NULL;
    }
    ret = json_object_get_member(o, "return");
    ret = ret ? json_node_copy(ret) : json_node_new(JSON_NODE_NULL);
    json_node_unref(r);
    return ret;
}

double nvm_json_double(JsonObject *o, const char *name)
{
    JsonNode *n = o ? json_object_get_member(o, name) : NULL;

    return n && JSON_NODE_HOLDS_VALUE(n) ? json_node_get_double(n) : NAN;
}

NvmFig nvm_qmp_class_fig(JsonObject *cls, double interval_ns)
{
    bool t = interval_ns > 0;

    return (NvmFig){
        .iops = t ? nvm_json_double(cls, "count") * 1e9 / interval_ns : 0,
        .mbps = t ? nvm_json_double(cls, "bytes") * 1e3 / interval_ns : 0,
        .lat_us = nvm_json_double(cls, "mean-us"),
        .p50_us = nvm_json_double(cls, "p50-us"),
        .p99_us = nvm_json_double(cls, "p99-us"),
        .p999_us = nvm_json_double(cls, "p999-us"),
    };
}
