/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic run: figures from what the guest and the device said.  fio's
 * JSON, query-nvmimic-stats' classes, the model's curve at a measured rate,
 * and whether a point is the drive's figure or the host's limit.
 */
#include <math.h>
#include <string.h>

#include "run-int.h"
#include "json-load.h"

/* fio's JSON (group_reporting: one job) into @f; false if unusable.
 * @dd_name: "read", "write", or "mixed" (unified_rw_reporting=mixed). */
bool run_parse_fio(const char *text, const char *dd_name, NvmFig *f,
                   GError **errp)
{
    return run_parse_fio_job(text, 0, dd_name, f, errp);
}

/* The same for entry @k of "jobs" (nvmimic-load: one per phase). */
bool run_parse_fio_job(const char *text, unsigned k, const char *dd_name,
                       NvmFig *f, GError **errp)
{
    g_autoptr(JsonParser) parser = json_parser_new();
    const char *brace = strchr(text, '{');
    JsonObject *root, *job, *dd, *lat, *pct;
    JsonArray *jobs;

    if (!brace) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED,
                    "fio produced no JSON");
        return false;
    }
    if (!nvm_json_load(parser, brace, -1, errp)) {
        return false;
    }
    root = json_node_get_object(json_parser_get_root(parser));
    jobs = root ? json_object_get_array_member(root, "jobs") : NULL;
    if (!jobs || json_array_get_length(jobs) <= k) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED,
                    "fio's JSON has no job %u", k);
        return false;
    }
    job = json_array_get_object_element(jobs, k);
    dd = json_object_has_member(job, dd_name) ?
         json_object_get_object_member(job, dd_name) : NULL;
    lat = dd ? json_object_get_object_member(dd, "lat_ns") : NULL;
    pct = lat && json_object_has_member(lat, "percentile") ?
          json_object_get_object_member(lat, "percentile") : NULL;
    if (!lat) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED,
                    "fio's JSON has no %s latency", dd_name);
        return false;
    }
    f->iops = nvm_json_double(dd, "iops");
    f->mbps = nvm_json_double(dd, "bw_bytes") / 1e6;
    f->lat_us = nvm_json_double(lat, "mean") / 1e3;
    f->p50_us = nvm_json_double(pct, "50.000000") / 1e3;
    f->p99_us = nvm_json_double(pct, "99.000000") / 1e3;
    f->p999_us = nvm_json_double(pct, "99.900000") / 1e3;
    return true;
}

/* One class ("read", "write", ...) of query-nvmimic-stats' return, or NULL. */
JsonObject *run_stats_class(JsonNode *n, const char *name)
{
    JsonObject *o = n && JSON_NODE_HOLDS_OBJECT(n) ?
                    json_node_get_object(n) : NULL;
    JsonArray *a = o && json_object_has_member(o, "classes") ?
                   json_object_get_array_member(o, "classes") : NULL;

    for (unsigned i = 0; a && i < json_array_get_length(a); i++) {
        JsonObject *c = json_array_get_object_element(a, i);

        if (!g_strcmp0(json_object_get_string_member(c, "class"), name)) {
            return c;
        }
    }
    return NULL;
}

/* The device's statistics over the interval since reset: the read or the
 * write class, or (@mixed) both together, whose percentiles cannot be
 * merged (NAN). */
bool run_parse_stats(JsonNode *n, bool write, bool mixed, NvmFig *f,
                     uint64_t *late, double *interval_s)
{
    JsonObject *o = JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n) : NULL;
    double interval_ns = nvm_json_double(o, "interval-ns");
    double count = 0, bytes = 0, lat_sum = 0;
    JsonObject *c;

    memset(f, 0, sizeof(*f));
    *late = 0;
    *interval_s = interval_ns / 1e9;
    if (!o || !json_object_has_member(o, "classes") || !(interval_ns > 0)) {
        return false;
    }
    if (!mixed) {
        c = run_stats_class(n, write ? "write" : "read");
        if (c) {
            *f = nvm_qmp_class_fig(c, interval_ns);
            *late = (uint64_t)nvm_json_double(c, "late");
        }
        return true;        /* no such class: no I/O of that kind */
    }
    for (int d = 0; d < 2; d++) {
        c = run_stats_class(n, d ? "write" : "read");
        if (c) {
            count += nvm_json_double(c, "count");
            bytes += nvm_json_double(c, "bytes");
            lat_sum += nvm_json_double(c, "count") *
                       nvm_json_double(c, "mean-us");
            *late += (uint64_t)nvm_json_double(c, "late");
        }
    }
    f->iops = count * 1e9 / interval_ns;
    f->mbps = bytes * 1e3 / interval_ns;
    f->lat_us = count ? lat_sum / count : 0;
    f->p50_us = f->p99_us = f->p999_us = NAN;
    return true;
}

void run_parse_late(JsonNode *n, bool write, bool mixed, Late *lt)
{
    *lt = (Late){ NAN, NAN, NAN };
    for (int d = 0; d < 2; d++) {
        JsonObject *c = (mixed || d == write) ?
                        run_stats_class(n, d ? "write" : "read") : NULL;

        if (!c || !(nvm_json_double(c, "posted") > 0)) {
            continue;
        }
        if (!mixed) {
            lt->p50_us = nvm_json_double(c, "late-p50-us");
        }
        /* fmax: NAN (none yet) gives way; the mix's p99 is at most the
         * larger of its classes' */
        lt->p99_us = fmax(lt->p99_us, nvm_json_double(c, "late-p99-us"));
        lt->max_us = fmax(lt->max_us, nvm_json_double(c, "late-max-us"));
    }
}

/* Latency of the model's curve at @iops (linear between its points). */
static double sim_lat_at(const NvmCornerResult *s, double iops)
{
    double x[NVM_CURVE_POINTS + 1], y[NVM_CURVE_POINTS + 1];
    unsigned n = 0;

    for (unsigned i = 0; i < s->n_curve; i++) {
        /* Only the rising part: points past the peak saturate. */
        if (n && s->curve[i].fig.iops <= x[n - 1]) {
            continue;
        }
        x[n] = s->curve[i].fig.iops;
        y[n++] = s->curve[i].fig.lat_us;
    }
    if (!n || iops < x[0] * 0.98 || iops > x[n - 1] * 1.02) {
        return NAN;
    }
    if (iops <= x[0]) {
        return y[0];
    }
    for (unsigned i = 1; i < n; i++) {
        if (iops <= x[i]) {
            return y[i - 1] + (y[i] - y[i - 1]) * (iops - x[i - 1]) /
                   (x[i] - x[i - 1]);
        }
    }
    return y[n - 1];
}

/* The IOPS of the model replaying the guest's schedule at @pt, or NAN. */
static double matched_iops(const Wl *wl, const Point *pt)
{
    const NvmCornerResult *m = wl->matched;

    if (!m) {
        return NAN;
    }
    if (!pt->target_pct) {
        return m->peak.fig.iops;
    }
    for (unsigned i = 0; i < m->n_curve; i++) {
        if (m->target_pct[i] == pt->target_pct) {
            return m->curve[i].fig.iops;
        }
    }
    return NAN;
}

void run_judge_point(const Wl *wl, Point *pt)
{
    double target = pt->target_pct ? pt->target_iops : wl->sim->peak.fig.iops;
    /* a mix with bursts queues only while it issues: its busy share of
     * the issuing time (a saturated P2 2 TB's vdi-initial-login, 80 % on,
     * had 82 % of its outstanding count queued over the whole time) */
    double duty = wl->mix && wl->mix->think_ns ?
                  (double)wl->mix->think_iotime_ns /
                  (wl->mix->think_iotime_ns + wl->mix->think_ns) : 1;
    double busy = pt->have_host ?
                  pt->host.iops * pt->host.lat_us / 1e6 / wl->wl.threads /
                  duty : 1;
    /* what the model achieved with the same arrivals (Poisson over a short
     * point is a few % either side of its rate, the drive's transients
     * more): the guest is short of it only by its own fault */
    double expect = matched_iops(wl, pt);

    pt->shortfall_pct = target > 0 && pt->guest.iops < target ?
                        100.0 * (1 - pt->guest.iops / target) : 0;
    if (pt->guest.iops < SHORT_FRAC * (isnan(expect) ? target : expect) &&
        busy < BUSY_FRAC) {
        pt->limit = "rate";
    } else if (pt->have_host &&
               pt->guest.lat_us - pt->host.lat_us >
               MAX(GUEST_US, GUEST_FRAC * pt->host.lat_us)) {
        pt->limit = "guest-latency";
    } else {
        pt->limit = NULL;
    }
    pt->host_limited = pt->limit != NULL;
    /* no lateness from the device (NAN) compares false: not limited */
    pt->timing_limited = pt->have_host && pt->host.lat_us > 0 &&
                         pt->late.p99_us > LATE_FRAC * pt->host.lat_us;
    pt->trace_lat_us = NAN;
    if (wl->matched) {
        /* the model at the same point of the same schedule */
        const NvmCornerResult *m = wl->matched;

        pt->sim_lat_us = NAN;
        if (!pt->target_pct) {
            pt->sim_lat_us = m->peak.fig.lat_us;
        }
        for (unsigned i = 0; pt->target_pct && i < m->n_curve; i++) {
            if (m->target_pct[i] == pt->target_pct) {
                pt->sim_lat_us = m->curve[i].fig.lat_us;
            }
        }
        return;
    }
    pt->sim_lat_us = sim_lat_at(wl->sim, pt->guest.iops);
    if (!pt->target_pct && !(pt->guest.iops < 1.02 * wl->sim->peak.fig.iops &&
                             pt->guest.iops > 0.98 * wl->sim->peak.fig.iops)) {
        pt->sim_lat_us = NAN;
    }
    if (!pt->target_pct && !isnan(wl->sim->peak.fig.lat_us) &&
        fabs(pt->guest.iops - wl->sim->peak.fig.iops) <=
        0.02 * wl->sim->peak.fig.iops) {
        pt->sim_lat_us = wl->sim->peak.fig.lat_us;
    }
}

JsonNode *run_parse_json(const char *text, const char *what, GError **errp)
{
    g_autoptr(JsonParser) p = json_parser_new();
    const char *brace = text ? strchr(text, '{') : NULL;

    if (!brace || !nvm_json_load(p, brace, -1, errp)) {
        if (errp && !*errp) {
            g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED,
                        "%s produced no JSON", what);
        } else {
            g_prefix_error(errp, "%s's JSON: ", what);
        }
        return NULL;
    }
    return json_node_copy(json_parser_get_root(p));
}

double run_dev_lat(JsonNode *n, const char *cls, const char *field)
{
    JsonObject *c = run_stats_class(n, cls);

    return c ? nvm_json_double(c, field) : NAN;
}

/* query-nvmimic-stats' return as results' DEVICE: per class with commands,
 * IOPS and MB/s over the span the drive had commands (active-ns: first
 * arrival to last completion), not the host's idle time around them. */
void run_device_from_qmp(JsonNode *n, NvmResDev *d)
{
    JsonObject *o = n && JSON_NODE_HOLDS_OBJECT(n) ?
                    json_node_get_object(n) : NULL;
    JsonArray *cls = o && json_object_has_member(o, "classes") ?
                     json_object_get_array_member(o, "classes") : NULL;
    double interval_ns;

    memset(d, 0, sizeof(*d));
    d->interval_s = d->active_s = NAN;
    if (!cls || !json_object_has_member(o, "interval-ns")) {
        return;
    }
    d->has = true;
    interval_ns = json_object_get_double_member(o, "interval-ns");
    d->interval_s = interval_ns / 1e9;
    if (json_object_has_member(o, "active-ns")) {
        double active_ns = json_object_get_double_member(o, "active-ns");

        d->active_s = active_ns / 1e9;
        if (active_ns > 0) {
            interval_ns = active_ns;
        }
    }
    for (unsigned i = 0; i < json_array_get_length(cls); i++) {
        JsonObject *c = json_array_get_object_element(cls, i);
        double count = json_object_get_double_member(c, "count");
        NvmOp op;
        NvmResDevFig *f;

        if (!count ||
            !nvm_op_from_name(json_object_get_string_member(c, "class"),
                              &op)) {
            continue;
        }
        f = &d->cls[op];
        f->has = true;
        f->count = count;
        f->fig = nvm_qmp_class_fig(c, interval_ns);
        f->max_us = json_object_get_double_member(c, "max-us");
    }
}

/* The guest's mean latency of @cls on the database disk (tpcc.sh's
 * guest_disk), NAN when it did not record one. */
double run_sql_guest_lat(JsonNode *result, const char *cls)
{
    JsonObject *o = result && JSON_NODE_HOLDS_OBJECT(result) ?
                    json_node_get_object(result) : NULL;
    JsonObject *d = o && json_object_has_member(o, "guest_disk") ?
                    json_object_get_object_member(o, "guest_disk") : NULL;
    JsonObject *c = d && json_object_has_member(d, cls) ?
                    json_object_get_object_member(d, cls) : NULL;
    JsonNode *m = c ? json_object_get_member(c, "mean_us") : NULL;

    return m && JSON_NODE_HOLDS_VALUE(m) ? json_node_get_double(m) : NAN;
}
