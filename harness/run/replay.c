/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic run --device-trace: after the suite, the model fed the drive's
 * own trace.  Each curve workload is replayed from the mark that set its
 * state (sim --trace --trace-from-ns, per workload: a fresh model in the
 * state the drive was given, every command at the time the guest submitted
 * it) up to the next workload's state, and each point gets the model's
 * mean latency over the commands the drive counted in that point's window
 * (trace_lat_us).  The drive runs the same model, so the two agree to the
 * draws: what the comparison with sim_lat_us (the model's own Poisson
 * arrivals) adds to it is the guest's arrival process, not the device.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "run-int.h"
#include "trace.h"

/* The marks of query-nvmimic-marks' return @marks, or NULL. */
static JsonArray *marks_array(JsonNode *marks)
{
    JsonObject *o = JSON_NODE_HOLDS_OBJECT(marks) ?
                    json_node_get_object(marks) : NULL;

    return o && json_object_has_member(o, "marks") ?
           json_object_get_array_member(o, "marks") : NULL;
}

/* Mark @n's time and its statistics' interval (the time since the reset
 * before it), from query-nvmimic-marks' return @marks; false if absent. */
static bool mark_at(JsonNode *marks, unsigned n, uint64_t *time_ns,
                    uint64_t *interval_ns)
{
    JsonArray *a = marks_array(marks);
    bool found = false;

    /* the last mark of that number, as query_mark() takes it */
    for (guint i = 0; a && i < json_array_get_length(a); i++) {
        JsonObject *m = json_array_get_object_element(a, i);
        JsonObject *st;

        if (!m || !json_object_has_member(m, "mark") ||
            json_object_get_int_member(m, "mark") != n ||
            !json_object_has_member(m, "time-ns")) {
            continue;
        }
        *time_ns = json_object_get_int_member(m, "time-ns");
        st = json_object_has_member(m, "stats") ?
             json_object_get_object_member(m, "stats") : NULL;
        *interval_ns = st && json_object_has_member(st, "interval-ns") ?
                       json_object_get_int_member(st, "interval-ns") : 0;
        found = true;
    }
    return found;
}

/* The model's mean latency over the commands of the point's class
 * submitted in [@open, @close) on the trace's clock; NAN if none. */
static double window_mean(const NvmTrace *t, const uint64_t *done,
                          uint64_t open, uint64_t close, bool write,
                          bool mixed)
{
    double sum = 0;
    uint64_t n = 0;
    guint lo = 0, hi = t->cmds->len;

    /* the first command submitted at @open or later (the trace is in
     * submission order): each point scans its own window only */
    while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;

        if (g_array_index(t->cmds, NvmTraceCmd, mid).submit_ns < open) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    for (guint i = lo; i < t->cmds->len; i++) {
        const NvmTraceCmd *c = &g_array_index(t->cmds, NvmTraceCmd, i);
        bool want = mixed ? c->op == NVM_OP_READ || c->op == NVM_OP_WRITE :
                    c->op == (write ? NVM_OP_WRITE : NVM_OP_READ);

        if (c->submit_ns >= close) {
            break;
        }
        if (!want || done[i] == NVM_TRACE_NO_COMPLETION) {
            continue;
        }
        sum += done[i] - c->submit_ns;
        n++;
    }
    return n ? sum / n / 1e3 : NAN;
}

/* The drive's wear at the mark taken at @time_ns (the one that set a
 * state: its snapshot comes before the state, which keeps the wear). */
static double wear_at(JsonNode *marks, uint64_t time_ns)
{
    JsonArray *a = marks_array(marks);

    for (guint i = 0; a && i < json_array_get_length(a); i++) {
        JsonObject *m = json_array_get_object_element(a, i);
        JsonObject *st = m && json_object_has_member(m, "stats") ?
                         json_object_get_object_member(m, "stats") : NULL;

        if (st && json_object_has_member(m, "time-ns") &&
            (uint64_t)json_object_get_int_member(m, "time-ns") == time_ns &&
            json_object_has_member(st, "wear-pct")) {
            return json_object_get_double_member(st, "wear-pct");
        }
    }
    return 0;
}

bool run_trace_points(Run *r, int suite, JsonNode *marks, GError **errp)
{
    g_autofree uint64_t *done = NULL;
    NvmTrace *t;
    Wl *wls[G_N_ELEMENTS(r->wls)];
    uint64_t state[G_N_ELEMENTS(r->wls)];
    unsigned n = 0;
    bool ok = false;

    if (!r->trace_path || !marks) {
        return true;
    }
    for (unsigned i = 0; i < r->n_wls; i++) {
        Wl *wl = &r->wls[i];
        uint64_t at, interval;

        if (wl->suite != suite || !wl->mark0 || !wl->peak.done) {
            continue;
        }
        if (!mark_at(marks, wl->mark0, &at, &interval) || interval > at) {
            g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED, "--device-trace:"
                        " %s: the drive has no mark %u", wl->wl.name,
                        wl->mark0);
            return false;
        }
        wls[n] = wl;
        state[n++] = at - interval;
    }
    if (!n) {
        return true;
    }
    if (r->o.connect && !g_file_test(r->trace_path, G_FILE_TEST_EXISTS)) {
        /* written on the libvirt host, not here: nothing to replay */
        fprintf(stderr, "nvmimic run: --device-trace %s is on the libvirt "
                "host; trace_lat_us is left out\n", r->trace_path);
        return true;
    }
    t = nvm_trace_load(r->trace_path, errp);
    if (!t) {
        g_prefix_error(errp, "--device-trace: ");
        return false;
    }
    done = g_new(uint64_t, MAX(t->cmds->len, 1));
    for (unsigned w = 0; w < n; w++) {
        Wl *wl = wls[w];
        NvmTraceReplay rep;
        NvmTraceReplayOpts ro = {
            .erased = r->p->review_state != NVM_REVIEW_FILLED,
            .reads_only = wl_reads_only(wl),
            .wear_pct = wear_at(marks, state[w]),
            .done_ns = done,
        };

        if (state[w] < t->start_ns) {
            g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED, "--device-trace:"
                        " %s's state was set before the trace started",
                        wl->wl.name);
            goto out;
        }
        ro.from_ns = state[w] - t->start_ns;
        /* the workloads are in the order the guest ran them */
        ro.until_ns = w + 1 < n && state[w + 1] > state[w] ?
                      state[w + 1] - t->start_ns : 0;
        if (!nvm_trace_replay(t, r->p, r->o.seed, &ro, &rep, errp)) {
            g_prefix_error(errp, "--device-trace: %s: ", wl->wl.name);
            goto out;
        }
        for (unsigned k = 0; k < 1 + wl->n_curve; k++) {
            Point *pt = k ? &wl->curve[k - 1] : &wl->peak;
            uint64_t open, close, iv;

            pt->trace_lat_us = NAN;
            if (!pt->done ||
                !mark_at(marks, wl->mark0 + 2 * k, &open, &iv) ||
                !mark_at(marks, wl->mark0 + 2 * k + 1, &close, &iv) ||
                open < t->start_ns || close < open) {
                continue;
            }
            pt->trace_lat_us = window_mean(t, done, open - t->start_ns,
                                           close - t->start_ns,
                                           wl->wl.op == NVM_OP_WRITE,
                                           wl->mix != NULL);
        }
    }
    ok = true;
out:
    nvm_trace_free(t);
    return ok;
}
