/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic run: the guest agent's protocol (vm-images/agent.sh on the
 * control serial port) and the device's QMP.  The agent runs the suite's
 * plan (plan.c) and answers each command with "MARK ID start", "MARK ID
 * stop" (progress), then "RESULT ID RC", the command's output and "END ID".
 * The device's window over a command lies between two in-band marks the
 * guest sent itself, so it covers the same stretch of the guest's timeline
 * as the guest's own figures, whatever the host's speed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run-int.h"

/*
 * The progress query, which the run can do without, waits
 * RUN_QMP_PROGRESS_MS (the others RUN_QMP_WAIT_MS, run-int.h); its late
 * answer is dropped (qemu/qmp.c).
 */
#define RUN_QMP_PROGRESS_MS 2000

bool run_qmp_state(Run *r, const char *args_fmt, GError **errp, ...)
{
    va_list ap;
    g_autofree char *extra = NULL;
    g_autofree char *args = NULL;
    JsonNode *n;

    va_start(ap, errp);
    extra = g_strdup_vprintf(args_fmt, ap);
    va_end(ap);
    args = g_strdup_printf("{\"id\": \"nvm0\"%s%s}", *extra ? ", " : "",
                           extra);
    n = r->mon.exec(r->mon.h, "nvmimic-set-state", args, RUN_QMP_WAIT_MS,
                    errp);
    if (!n) {
        return false;
    }
    json_node_unref(n);
    return true;
}

JsonNode *run_qmp_stats(Run *r, int timeout_ms, GError **errp)
{
    return r->mon.exec(r->mon.h, "query-nvmimic-stats",
                       "{\"id\": \"nvm0\"}", timeout_ms, errp);
}

/*
 * --device-trace: the drive records every command it times from now (the
 * guest has not started, or only boots) until QEMU exits, which flushes
 * the file.  No-op without it.
 */
bool run_trace_start(Run *r, GError **errp)
{
    g_autofree char *path = NULL;
    g_autofree char *args = NULL;
    JsonNode *n;

    if (!r->trace_path) {
        return true;
    }
    n = json_node_new(JSON_NODE_VALUE);
    json_node_set_string(n, r->trace_path);
    path = json_to_string(n, FALSE);
    json_node_unref(n);
    /* a whole run: the span's writes and every point, 1 GiB at most */
    args = g_strdup_printf("{\"id\": \"nvm0\", \"path\": %s, "
                           "\"max-bytes\": %" G_GUINT64_FORMAT "}", path,
                           (uint64_t)1 << 30);
    n = r->mon.exec(r->mon.h, "nvmimic-trace-start", args, RUN_QMP_WAIT_MS,
                    errp);
    if (!n) {
        g_prefix_error(errp, "--device-trace %s: ", r->trace_path);
        return false;
    }
    json_node_unref(n);
    return true;
}

JsonNode *run_qmp_marks(Run *r, int64_t mark, GError **errp)
{
    JsonNode *all = NULL;
    JsonArray *marks = json_array_new();
    uint64_t start = 0;

    for (;;) {
        g_autofree char *filter = mark >= 0 ?
            g_strdup_printf(", \"mark\": %" G_GINT64_FORMAT, mark) :
            g_strdup("");
        g_autofree char *args = g_strdup_printf(
            "{\"id\": \"nvm0\"%s, \"start\": %" G_GUINT64_FORMAT "}",
            filter, start);
        JsonNode *page = r->mon.exec(r->mon.h, "query-nvmimic-marks", args,
                                     RUN_QMP_WAIT_MS, errp);
        JsonObject *o = page && JSON_NODE_HOLDS_OBJECT(page) ?
                        json_node_get_object(page) : NULL;
        JsonArray *a = o && json_object_has_member(o, "marks") ?
                       json_object_get_array_member(o, "marks") : NULL;
        uint64_t next;

        if (!a) {
            if (page) {
                g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED,
                            "query-nvmimic-marks answered without marks");
                json_node_unref(page);
            }
            json_array_unref(marks);
            if (all) {
                json_node_unref(all);
            }
            return NULL;
        }
        for (guint i = 0; i < json_array_get_length(a); i++) {
            json_array_add_element(marks, json_node_copy(
                json_array_get_element(a, i)));
        }
        next = json_object_has_member(o, "next") ?
               (uint64_t)json_object_get_int_member(o, "next") : 0;
        if (all) {
            json_node_unref(all);
        }
        all = page;             /* dropped, pending: from the last page */
        /* a page's next is past its marks: anything else would not end */
        if (!json_object_has_member(o, "next") || next <= start) {
            break;
        }
        start = next;
    }
    json_object_set_array_member(json_node_get_object(all), "marks", marks);
    return all;
}

/* Query mark @n: the last one of that number, or NULL (errp set). */
static JsonObject *query_mark(Run *r, unsigned n, JsonNode **owner,
                              GError **errp)
{
    JsonNode *res = run_qmp_marks(r, n, errp);
    JsonObject *o = res && JSON_NODE_HOLDS_OBJECT(res) ?
                    json_node_get_object(res) : NULL;
    JsonArray *a = o && json_object_has_member(o, "marks") ?
                   json_object_get_array_member(o, "marks") : NULL;
    guint len = a ? json_array_get_length(a) : 0;

    *owner = res;
    if (!res) {
        return NULL;
    }
    if (!len) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED, "the drive never "
                    "took in-band mark %u (is the guest's nvme-cli there, and "
                    "the drive nvmimic's?)", n);
        return NULL;
    }
    return json_array_get_object_element(a, len - 1);
}

/* Did the drive take the state queued at mark @mark (@what: for errors)? */
bool run_mark_applied(Run *r, const char *what, uint32_t mark, GError **errp)
{
    g_autoptr(JsonNode) owner = NULL;
    JsonObject *m = query_mark(r, mark, &owner, errp);

    if (!m) {
        g_prefix_error(errp, "%s: ", what);
        return false;
    }
    if (!json_object_has_member(m, "state-applied") ||
        !json_object_get_boolean_member(m, "state-applied")) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: the drive did "
                    "not take the queued state at mark %u: %s", what, mark,
                    json_object_has_member(m, "state-error") ?
                    json_object_get_string_member(m, "state-error") :
                    "it was not queued");
        return false;
    }
    return true;
}

/* The device's window that in-band mark @mark closed, for @what. */
JsonNode *run_mark_stats(Run *r, const char *what, uint32_t mark,
                         GError **errp)
{
    g_autoptr(JsonNode) owner = NULL;
    JsonObject *m = query_mark(r, mark, &owner, errp);
    JsonNode *stats;

    if (!m) {
        g_prefix_error(errp, "%s: ", what);
        return NULL;
    }
    stats = json_object_get_member(m, "stats");
    if (!stats) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: the drive's "
                    "mark %u has no statistics", what, mark);
        return NULL;
    }
    return json_node_copy(stats);
}

/* Wait for the agent's HELLO on the control port. */
bool run_wait_hello(Run *r, GError **errp)
{
    gint64 t0 = g_get_monotonic_time();     /* this guest's boot */

    for (;;) {
        g_autofree char *line = NULL;
        g_autofree char *why = NULL;
        NvmLineStatus st = nvm_line_read(r->ctl, 1000, &line);

        if (run_interrupted) {
            g_set_error(errp, G_IO_ERROR, G_IO_ERROR_CANCELLED, "interrupted");
            return false;
        }
        if (st == NVM_LINE_OK && !strcmp(line, "HELLO")) {
            return true;
        }
        if (!run_guest_alive(r, &why)) {
            g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED,
                        "guest died while booting: %s", why);
            return false;
        }
        if (st == NVM_LINE_EOF || st == NVM_LINE_ERROR ||
            (g_get_monotonic_time() - t0) / 1e6 > BOOT_TIMEOUT_S) {
            g_set_error(errp, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                        "the guest agent did not start within %d s (see "
                        "%s/console.log)", BOOT_TIMEOUT_S, r->gdir);
            return false;
        }
    }
}

/*
 * The result of one command of the plan (the agent runs it from /job/plan):
 * its device window (@stats, when not NULL) is the snapshot at the in-band
 * mark that closed it, read over QMP once the command is over.  The
 * command's JSON goes to *json; when it fails, the last lines of its log
 * to *tail.
 */
bool run_guest_cmd(Run *r, const GuestCmd *c, JsonNode **stats,
                   char **json, char **tail, GError **errp)
{
    g_autofree char *resprefix = g_strdup_printf("RESULT %s ", c->id);
    g_autofree char *endline = g_strdup_printf("END %s", c->id);
    g_autofree char *markstart = g_strdup_printf("MARK %s start", c->id);
    g_autofree char *markstop = g_strdup_printf("MARK %s stop", c->id);
    g_autoptr(JsonNode) qmp_stats = NULL;
    gint64 start = g_get_monotonic_time();
    GString *js = NULL;
    bool in_result = false, started = c->window == WIN_WHOLE;
    int rc = -1;

    *json = NULL;
    if (tail) {
        *tail = NULL;
    }
    if (stats) {
        *stats = NULL;
    }
    for (;;) {
        g_autofree char *line = NULL;
        g_autofree char *why = NULL;
        NvmLineStatus st = nvm_line_read(r->ctl, 500, &line);
        double wall = (g_get_monotonic_time() - start) / 1e6;

        if (run_interrupted) {
            g_set_error(errp, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                        "interrupted (Ctrl-C)");
            break;
        }
        if (st == NVM_LINE_OK) {
            if (in_result) {
                if (!strcmp(line, endline)) {
                    break;
                }
                g_string_append(js, line);
                g_string_append_c(js, '\n');
            } else if (g_str_has_prefix(line, resprefix)) {
                rc = atoi(line + strlen(resprefix));
                js = g_string_new(NULL);
                in_result = true;
            } else if (!strcmp(line, markstart)) {
                started = true;
                if (c->qmp_window &&
                    !run_qmp_state(r, "\"reset-stats\": true", errp)) {
                    break;
                }
            } else if (c->qmp_window && !strcmp(line, markstop)) {
                if (qmp_stats) {
                    json_node_unref(qmp_stats);
                }
                qmp_stats = run_qmp_stats(r, RUN_QMP_WAIT_MS, errp);
                if (!qmp_stats) {
                    break;
                }
            } else if (g_str_has_prefix(line, "ERROR ")) {
                g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED,
                            "the guest agent: %s", line + 6);
                break;
            }
            continue;
        }
        if (st == NVM_LINE_EOF || st == NVM_LINE_ERROR) {
            if (!run_guest_alive(r, &why)) {
                g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED, "%s", why);
            } else {
                g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED,
                            "the guest's control port closed");
            }
            break;
        }
        if (!run_guest_alive(r, &why)) {
            g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED, "%s", why);
            break;
        }
        if (wall > c->timeout_s) {
            g_set_error(errp, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                        "the guest did not finish within %.0f s wall; it was "
                        "killed", c->timeout_s);
            break;
        }
        if (st == NVM_LINE_TIMEOUT && !in_result && c->pt && started) {
            /* the drive's figures so far: a query changes nothing the
             * guest sees (the model's statistics are read, not advanced) */
            JsonNode *n = run_qmp_stats(r, RUN_QMP_PROGRESS_MS, NULL);

            if (n) {
                NvmFig f;
                uint64_t late;
                double iv;

                run_parse_stats(n, c->write, c->mixed, &f, &late, &iv);
                json_node_unref(n);
                run_progress(r, c->label, c->pt, MIN(iv, c->total_s),
                             c->total_s, f.iops, false);
            }
        }
    }
    if (c->pt) {
        c->pt->wall_s = (g_get_monotonic_time() - start) / 1e6;
    }
    if (!js || *errp) {
        if (js) {
            g_string_free(js, TRUE);
        }
        return false;
    }
    if (rc != 0) {
        g_autofree char *text = g_string_free(js, FALSE);
        g_auto(GStrv) lines = g_strsplit(g_strstrip(text), "\n", -1);
        const char *last = lines[0] ? lines[g_strv_length(lines) - 1] : "";

        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED,
                    "%s exited with status %d in the guest%s%s (log: %s/%s.log)",
                    !strcmp(c->verb, "RUN") ? "fio" : c->id, rc,
                    *last ? ": " : "", last, r->gdir, c->id);
        if (tail) {
            *tail = g_strdup(text);
        }
        return false;
    }
    *json = g_string_free(js, FALSE);
    if (stats && c->qmp_window) {
        if (!qmp_stats) {
            g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED, "%s never "
                        "reported its window's end (MARK %s stop)", c->id,
                        c->id);
            return false;
        }
        *stats = g_steal_pointer(&qmp_stats);
    } else if (stats) {
        *stats = run_mark_stats(r, c->id, c->mark + 1, errp);
        if (!*stats) {
            return false;
        }
    }
    return true;
}
