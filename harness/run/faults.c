/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic run --fault: faults the drive shows during a suite (QMP
 * nvmimic-fault, docs/faults.md).  They are queued while the guest has not
 * started, like the plan's states, so one at a mark starts at an exact
 * point of the guest's timeline; after the suite the drive's record of
 * them (query-nvmimic-faults) goes to DIR/guest[-SUITE]/faults.json and to
 * results.json's "faults".
 */
#include <string.h>

#include "run-int.h"
#include "json-load.h"

/* One fault: a JSON object of nvmimic-fault's arguments but "id". */
static bool fault_ok(JsonNode *n, unsigned i, GError **errp)
{
    JsonObject *o = JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n)
                                              : NULL;
    JsonNode *kind = o ? json_object_get_member(o, "kind") : NULL;
    JsonNode *machine = o ? json_object_get_member(o, "machine") : NULL;

    if (!o) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                    "fault %u is not a JSON object", i + 1);
        return false;
    }
    if (!kind || !JSON_NODE_HOLDS_VALUE(kind) ||
        json_node_get_value_type(kind) != G_TYPE_STRING) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                    "fault %u has no \"kind\" (power-cut, media-error, "
                    "latency, stall, hang, clear)", i + 1);
        return false;
    }
    if (json_object_has_member(o, "id")) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                    "fault %u: leave out \"id\" (the run's drive is nvm0)",
                    i + 1);
        return false;
    }
    if (machine && JSON_NODE_HOLDS_VALUE(machine) &&
        json_node_get_value_type(machine) == G_TYPE_BOOLEAN &&
        json_node_get_boolean(machine)) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                    "fault %u: a power cut with \"machine\": true ends the "
                    "run's QEMU; cut the drive alone here (machine false), "
                    "or see tests/vm/crash_consistency.py", i + 1);
        return false;
    }
    return true;
}

JsonNode *run_faults_parse(const char *text, GError **errp)
{
    g_autoptr(JsonParser) p = json_parser_new();
    g_autoptr(GError) err = NULL;
    JsonArray *a;
    JsonNode *n;
    guint len;

    if (!nvm_json_load(p, text, -1, &err) ||
        !json_parser_get_root(p)) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                    "not JSON (%s)", err ? err->message : "empty");
        return NULL;
    }
    n = json_node_copy(json_parser_get_root(p));
    if (JSON_NODE_HOLDS_OBJECT(n)) {
        /* one fault: an array of one */
        JsonNode *arr = json_node_new(JSON_NODE_ARRAY);

        a = json_array_new();
        json_array_add_element(a, n);
        json_node_take_array(arr, a);
        n = arr;
    }
    if (!JSON_NODE_HOLDS_ARRAY(n)) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                    "a JSON object or an array of them, e.g. '{\"kind\": "
                    "\"latency\", \"class\": \"read\", \"delay-us\": 500, "
                    "\"at-mark\": 3}'");
        json_node_unref(n);
        return NULL;
    }
    a = json_node_get_array(n);
    len = json_array_get_length(a);
    if (!len || len > 256) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                    "%u faults: give 1 to 256", len);
        json_node_unref(n);
        return NULL;
    }
    for (guint i = 0; i < len; i++) {
        if (!fault_ok(json_array_get_element(a, i), i, errp)) {
            json_node_unref(n);
            return NULL;
        }
    }
    return n;
}

bool run_faults_queue(Run *r, GError **errp)
{
    JsonArray *a;

    if (!r->faults) {
        return true;
    }
    a = json_node_get_array(r->faults);
    for (guint i = 0; i < json_array_get_length(a); i++) {
        JsonNode *spec = json_node_copy(json_array_get_element(a, i));
        g_autofree char *args = NULL;
        JsonNode *res;

        json_object_set_string_member(json_node_get_object(spec), "id",
                                      "nvm0");
        args = json_to_string(spec, FALSE);
        json_node_unref(spec);
        res = r->mon.exec(r->mon.h, "nvmimic-fault", args, RUN_QMP_WAIT_MS,
                          errp);
        if (!res) {
            g_prefix_error(errp, "--fault %u: ", i + 1);
            return false;
        }
        json_node_unref(res);
    }
    return true;
}

void run_faults_collect(Run *r, const char *suite)
{
    g_autoptr(GError) err = NULL;
    g_autofree char *path = NULL;
    g_autofree char *text = NULL;
    JsonNode *res;
    JsonObject *o;

    if (!r->faults || !r->mon.exec) {
        return;
    }
    res = r->mon.exec(r->mon.h, "query-nvmimic-faults", "{\"id\": \"nvm0\"}",
                      RUN_QMP_WAIT_MS, &err);
    if (!res || !JSON_NODE_HOLDS_OBJECT(res)) {
        fprintf(stderr, "nvmimic run: the drive's faults of suite %s were "
                "not read back: %s\n", suite, err ? err->message : "no "
                "object");
        if (res) {
            json_node_unref(res);
        }
        return;
    }
    text = json_to_string(res, TRUE);
    g_mkdir_with_parents(r->gdir, 0755);
    path = g_build_filename(r->gdir, "faults.json", NULL);
    g_file_set_contents(path, text, -1, NULL);
    o = json_node_get_object(res);
    json_object_set_string_member(o, "suite", suite);
    json_object_set_member(o, "requested", json_node_copy(r->faults));
    if (!r->fault_runs) {
        r->fault_runs = json_array_new();
    }
    json_array_add_object_element(r->fault_runs, json_object_ref(o));
    json_node_unref(res);
}
