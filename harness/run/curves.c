/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic run: the curve driver of the four-corners and VDI suites.  Per
 * workload: the review's preconditioning, an unthrottled peak at the
 * workload's outstanding count, then Poisson rates of 10..120 % of the peak
 * the guest measured, each point a fio run in the guest with the device's
 * statistics over the same window, compared with the model's curve.  The
 * whole suite is one plan (plan.c) the guest runs by itself.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "burst.h"
#include "run-int.h"

static void wl_review(Wl *wl, const NvmProfile *p, GArray *rows)
{
    wl->review_iops = wl->review_lat_us = NAN;
    for (unsigned k = 0; rows && k < rows->len; k++) {
        NvmReviewRow *row = &g_array_index(rows, NvmReviewRow, k);

        if (!strcmp(row->drive, p->name) &&
            !strcmp(row->workload, wl->wl.name)) {
            wl->review_iops = row->peak_iops;
            wl->review_lat_us = row->lat_us;
        }
    }
}

bool run_setup(Run *r, GError **errp)
{
    NvmWorkload all[NVM_FOUR_CORNERS];
    g_auto(GStrv) want = r->o.workloads ?
                         g_strsplit(r->o.workloads, ",", -1) : NULL;
    g_autofree char *rev = g_build_filename(r->o.profile_dir, "reviews",
                                            "four-corners.tsv", NULL);
    GArray *rows;
    NvmSimOptions so = { 0 };
    bool fc = run_has_suite(r, S_FC), vdi = run_has_suite(r, S_VDI);

    nvm_four_corners(all, !strcmp(r->o.threads, "implied"));
    if (want) {
        for (char **w = want; *w; w++) {
            bool found = false;

            for (unsigned i = 0; fc && i < NVM_FOUR_CORNERS; i++) {
                found |= !strcmp(*w, all[i].name);
            }
            found |= vdi && nvm_vdi_index(*w) >= 0;
            if (!found) {
                g_autoptr(GString) l = g_string_new(NULL);

                for (unsigned i = 0; fc && i < NVM_FOUR_CORNERS; i++) {
                    g_string_append_printf(l, "%s%s", l->len ? ", " : "",
                                           all[i].name);
                }
                for (unsigned i = 0; vdi && i < NVM_VDI_WORKLOADS; i++) {
                    g_string_append_printf(l, "%s%s", l->len ? ", " : "",
                                           nvm_vdi_names[i]);
                }
                g_set_error(errp, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                            "unknown workload '%s' (%s)", *w,
                            l->len ? l->str : "this suite has none");
                return false;
            }
        }
    }
    so.seed = r->o.seed;
    so.implied_threads = !strcmp(r->o.threads, "implied");
    so.duration_s = r->sim_duration_s;
    if (fc) {
        nvm_sim_four_corners(r->p, &so, r->sim);
    }
    if (vdi) {
        if (!nvm_sim_vdi(r->p, &so, r->o.workload_dir, r->vdi, errp)) {
            return false;
        }
        r->have_vdi = true;
    }

    rows = nvm_reviews_load(rev, NULL);
    for (unsigned i = 0; fc && i < NVM_FOUR_CORNERS; i++) {
        Wl *wl;

        if (want && !g_strv_contains((const char *const *)want,
                                     all[i].name)) {
            continue;
        }
        wl = &r->wls[r->n_wls++];
        wl->suite = S_FC;
        wl->wl = all[i];
        wl->sim = &r->sim[i];
        /* nvmimic-load: one process, the threads as the model's */
        wl->jobs = 1;
        wl->iodepth = wl->wl.threads;
        wl_review(wl, r->p, rows);
    }
    for (unsigned i = 0; vdi && i < NVM_VDI_WORKLOADS; i++) {
        NvmVdiResult *v = &r->vdi[i];
        NvmCornerResult *cs = &r->vdi_sim[i];
        Wl *wl;

        if (want && !g_strv_contains((const char *const *)want,
                                     nvm_vdi_names[i])) {
            continue;
        }
        wl = &r->wls[r->n_wls++];
        wl->suite = S_VDI;
        wl->mix = v->mix;
        wl->jobfile = g_path_get_basename(v->path);
        wl->wl.name = nvm_vdi_names[i];
        wl->wl.op = NVM_OP_READ;        /* unused: the mix decides */
        wl->wl.threads = nvm_mix_outstanding(v->mix);
        wl->wl.block_bytes = (uint32_t)lround(
            nvm_mix_mean_block_bytes(v->mix));
        wl->jobs = v->mix->numjobs;
        wl->fio = r->o.fio_opts != NULL;
        wl->iodepth = v->mix->iodepth;
        /* The model's mix, reads and writes together, as a curve. */
        cs->wl = wl->wl;
        cs->peak = v->peak.all;
        cs->n_curve = v->n_curve;
        for (unsigned k = 0; k < v->n_curve; k++) {
            cs->target_pct[k] = v->target_pct[k];
            cs->target_iops[k] = v->target_iops[k];
            cs->curve[k] = v->curve[k].all;
        }
        wl->sim = cs;
        wl_review(wl, r->p, rows);      /* the reviews' VDI peaks: none */
    }
    for (unsigned w = 0; w < r->n_wls; w++) {
        Wl *wl = &r->wls[w];

        wl->peak.target_pct = 0;
        wl->n_curve = r->n_pcts;
        for (unsigned k = 0; k < r->n_pcts; k++) {
            wl->curve[k].target_pct = r->pcts[k];
        }
    }
    if (rows) {
        nvm_reviews_free(rows);
    }
    return true;
}

/*
 * fio's arguments for a point.  @rate_pct: 0 for the unthrottled peak, else
 * the point's share of the peak the guest measured with command @peak_id:
 * the agent works the rate out from that command's JSON (@RATE:...@, see
 * vm-images/agent.sh) with the same arithmetic as nvm_curve_rate() and the
 * per-job split below, so the host needs to tell the guest nothing between
 * the points.
 */
static char *fio_args(const Run *r, const Wl *wl, const char *name,
                      double ramp_s, double run_s, int rate_pct,
                      const char *peak_id, uint64_t seed)
{
    const NvmWorkload *w = &wl->wl;
    GString *s = g_string_new(NULL);
    const char *rw;

    if (wl->mix) {
        /* The job file holds the mix; these options precede it and apply
         * to its job as [global] ones would. */
        double rd = wl->mix->read_pct / 100;
        /*
         * A job with bursts (thinktime_iotime) issues only while it is on,
         * as the model's does (sim/mix.c): at the point's rate / duty
         * during the burst, the point's rate on average.  fio's default
         * would instead catch up after each think time, issuing what it
         * "missed" while idle as one burst as deep as its iodepth, so the
         * drive would see a full queue at the start of every cycle at any
         * rate; rate_ignore_thinktime=1 counts the idle time as served.
         */
        double duty = wl->mix->think_ns ?
                      (double)wl->mix->think_iotime_ns /
                      (wl->mix->think_iotime_ns + wl->mix->think_ns) : 1;

        g_string_append_printf(s, "--offset=0 --size=%" G_GUINT64_FORMAT
                               " --norandommap=1 --randrepeat=0 "
                               "--randseed=%" G_GUINT64_FORMAT
                               " --time_based=1 --ramp_time=%.0fms "
                               "--runtime=%.0fms --lat_percentiles=1 "
                               "--percentile_list=50:99:99.9 "
                               "--unified_rw_reporting=mixed",
                               r->span_bytes, seed, ramp_s * 1e3,
                               run_s * 1e3);
        if (rate_pct > 0) {
            /* fio limits reads and writes apart: split in the mix's ratio */
            g_string_append_printf(s, " --rate_iops=@RATE:%s:mixed:%d:%u:"
                                   "%.17g@,@RATE:%s:mixed:%d:%u:%.17g@ "
                                   "--rate_process=poisson", peak_id,
                                   rate_pct, wl->mix->numjobs, rd / duty,
                                   peak_id, rate_pct, wl->mix->numjobs,
                                   (1 - rd) / duty);
            if (duty < 1) {
                g_string_append(s, " --rate_ignore_thinktime=1");
            }
        }
        if (r->o.fio_opts) {
            g_string_append_printf(s, " %s", r->o.fio_opts);
        }
        g_string_append_printf(s, " /job/%s", wl->jobfile);
        (void)name;
        return g_string_free(s, FALSE);
    }
    rw = w->op == NVM_OP_WRITE ?
                     (w->sequential ? "write" : "randwrite") :
                     (w->sequential ? "read" : "randread");

    g_string_append_printf(s, "--name=%s --filename=/dev/nvme0n1 --direct=1 "
                           "--ioengine=libaio --rw=%s --bs=%u --iodepth=%u "
                           "--numjobs=%u --group_reporting=1 --offset=0 "
                           "--size=%" G_GUINT64_FORMAT " --norandommap=1 "
                           "--randrepeat=0 --randseed=%" G_GUINT64_FORMAT
                           " --time_based=1 --ramp_time=%.0fms "
                           "--runtime=%.0fms --lat_percentiles=1 "
                           "--percentile_list=50:99:99.9",
                           name, rw, w->block_bytes, wl->iodepth, wl->jobs,
                           r->span_bytes, seed, ramp_s * 1e3, run_s * 1e3);
    if (rate_pct > 0) {
        g_string_append_printf(s, " --rate_iops=@RATE:%s:%s:%d:%u:1@ "
                               "--rate_process=poisson", peak_id,
                               w->op == NVM_OP_WRITE ? "write" : "read",
                               rate_pct, wl->jobs);
    }
    if (r->o.fio_opts) {
        /* after ours, so they win (fio takes the last of an option) */
        g_string_append_printf(s, " %s", r->o.fio_opts);
    }
    return g_string_free(s, FALSE);
}

/* Wall seconds allowed for a point: TCG under icount runs ~3 K guest I/Os
 * per wall second here; allow a wide margin. */
static double point_timeout(const Run *r, double virt_s, double rate_iops)
{
    double ios = virt_s * (rate_iops > 0 ? MIN(rate_iops, 80000) : 80000);

    if (r->o.point_timeout_s > 0) {
        return r->o.point_timeout_s;
    }
    return 120 + 3 * ios / 1500;
}

/*
 * nvmimic-set-state's members for a drive reviewed filled, as
 * nvm_sim_review_state_hook() starts each workload: a fresh drive, filled,
 * the SLC cache full, the span at its random-write steady state (unless
 * the workload @reads_only: then as the fill laid it out) and the map
 * cache warm over it; the statistics from there.
 */
static char *filled_state(const Run *r, bool reads_only)
{
    g_autofree char *steady = reads_only ? g_strdup("") :
        g_strdup_printf("\"steady-random-bytes\": %" G_GUINT64_FORMAT ", ",
                        r->span_bytes);

    return g_strdup_printf("\"secure-erase\": true, \"fill-pct\": 100, "
                           "\"slc-used-bytes\": %" G_GUINT64_FORMAT ", %s"
                           "\"warm-map-bytes\": %" G_GUINT64_FORMAT ", "
                           "\"reset-stats\": true", r->p->slc_static_bytes,
                           steady, r->span_bytes);
}

/*
 * The review's starting state for one workload, in the plan: a mark where
 * the drive takes it (queued before the guest starts), and for a drive
 * reviewed erased, the span written once by fio in the guest.
 */
static void plan_precondition(Run *r, Wl *wl, Plan *p)
{
    g_autofree char *id = g_strdup_printf("%s-precondition", wl->wl.name);
    g_autofree char *what = g_strdup_printf("%s precondition", wl->wl.name);

    if (r->p->review_state == NVM_REVIEW_FILLED) {
        g_autofree char *state = filled_state(r, wl_reads_only(wl));

        run_plan_mark(p, id, what, state, true);
    } else {
        GuestCmd c = { .verb = "RUN", .id = id, .label = wl->wl.name };
        g_autofree char *args = g_strdup_printf(
            "--name=precondition --filename=/dev/nvme0n1 --direct=1 "
            "--ioengine=libaio --rw=write --bs=1m --iodepth=8 --offset=0 "
            "--size=%" G_GUINT64_FORMAT, r->span_bytes);
        PlanStep *st;

        run_plan_mark(p, id, what, "\"secure-erase\": true", true);
        c.args = args;
        c.timeout_s = 120 + r->span_bytes / 1048576.0 / 100;
        st = run_plan_cmd(p, &c, what, NULL, NULL, NULL);
        st->progress = g_strdup_printf("%s %s: writing the %.1f GB span once "
                                       "after the secure erase", r->p->name,
                                       wl->wl.name, r->span_bytes / 1e9);
    }
}

/* @s as nvmimic-load and the model run it: whole burst cycles of @wl's
 * mix, at least @min_cycles (nvm_burst_whole), or as it is; in ns. */
static uint64_t mix_whole_ns(const Wl *wl, double s, uint64_t min_cycles)
{
    uint64_t ns = (uint64_t)(s * 1e9);

    if (!wl->mix) {
        return ns;
    }
    return nvm_burst_whole(wl->mix->think_iotime_ns, wl->mix->think_ns, ns,
                           min_cycles);
}

/* Seconds of one burst cycle of @wl's mix (fio's thinktime_iotime), 0: none */
static double burst_cycle_s(const Wl *wl)
{
    if (!wl->mix || !wl->mix->think_ns) {
        return 0;
    }
    return (wl->mix->think_ns + wl->mix->think_iotime_ns) / 1e9;
}

/* A point's result: fio's figures, the device's over its window. */
static bool point_done(Run *r, PlanStep *st, JsonNode *stats,
                       const char *json, GError **errp)
{
    Wl *wl = st->opaque;
    Point *pt = st->opaque2;
    bool write = wl->wl.op == NVM_OP_WRITE;
    double total = st->c.total_s;

    pt->have_host = run_parse_stats(stats, write, wl->mix != NULL, &pt->host,
                                    &pt->host_late, &pt->host_interval_s);
    run_parse_late(stats, write, wl->mix != NULL, &pt->late);
    if (!run_parse_fio(json, wl->mix ? "mixed" : write ? "write" : "read",
                       &pt->guest, errp)) {
        return false;
    }
    if (pt == &wl->peak) {
        /* the rates the guest now runs the curve at (fio_args) */
        for (unsigned i = 0; i < wl->n_curve; i++) {
            wl->curve[i].target_iops = nvm_curve_rate(wl->peak.guest.iops,
                                                      wl->curve[i].target_pct);
        }
    }
    run_judge_point(wl, pt);
    pt->done = true;
    run_progress(r, wl->wl.name, pt, total, total, pt->guest.iops, true);
    run_save_results(r);
    return true;
}

/* The workload's place in the four corners (it picks sim's seeds). */
static unsigned fc_index(const Wl *wl)
{
    NvmWorkload all[NVM_FOUR_CORNERS];

    nvm_four_corners(all, false);
    for (unsigned i = 0; i < NVM_FOUR_CORNERS; i++) {
        if (!strcmp(all[i].name, wl->wl.name)) {
            return i;
        }
    }
    return 0;
}

/*
 * The peak's warm-up: --ramp-s's (a fifth of the point by default), but a
 * four-corners write that short would measure the drive's first seconds
 * from the review's state (the SLC cache's room, the free blocks), not the
 * reviews' minutes-long point: then as long as nvm_sim_peak_warmup_ns()
 * finds on the model, which the model replaying the guest's schedule then
 * uses as well (matched_model()).
 */
static double wl_peak_ramp_s(const Run *r, Wl *wl)
{
    if (wl->peak_ramp_s > 0) {
        return wl->peak_ramp_s;
    }
    wl->peak_ramp_s = r->o.peak_ramp_s;
    if (!wl->mix) {
        wl->peak_ramp_s = nvm_sim_peak_warmup_ns(
            r->p, &wl->wl, r->o.seed, 0, r->o.seed * 7919 + fc_index(wl),
            (uint64_t)(r->o.run_s * 1e9),
            (uint64_t)(r->o.peak_ramp_s * 1e9)) / 1e9;
    }
    return wl->peak_ramp_s;
}

static void plan_point(Run *r, Wl *wl, Point *pt, unsigned wi, unsigned pi,
                       Plan *p)
{
    bool peak = !pt->target_pct;
    double ramp = peak ? wl_peak_ramp_s(r, wl) : r->o.ramp_s;
    double run = r->o.run_s;
    double cycle = burst_cycle_s(wl);
    g_autofree char *id = peak ? g_strdup_printf("%s-peak", wl->wl.name) :
                          g_strdup_printf("%s-%d", wl->wl.name,
                                          pt->target_pct);
    g_autofree char *peak_id = g_strdup_printf("%s-peak", wl->wl.name);
    g_autofree char *what = peak ? g_strdup_printf("%s peak", wl->wl.name) :
                            g_strdup_printf("%s %d %%", wl->wl.name,
                                            pt->target_pct);
    uint64_t seed = r->o.seed * 7919 + wi * 131 + pi;
    g_autofree char *args = NULL;
    /*
     * The device window: from 5 % into fio's measured time to 90 %.  A
     * mix with bursts (fio's thinktime_iotime) is measured, as the model
     * measures it, over whole burst cycles, or a short point would see
     * only the issuing part of a cycle: ramp and run are rounded up to
     * whole cycles, the run to at least three, and the window is fio's
     * own measured time (from the ramp's end after the first I/O, as long
     * as the run), so that the guest and the device average the same
     * I/Os.  A window of the inner cycles only (two of three) averaged
     * other cycles than fio: a 1 s cycle's mean latency at a few thousand
     * IOPS varies by 10-20 % from cycle to cycle (p99 5-10x the mean), and
     * monday-login's 100 % point came out 17 % below the device's in the
     * guest (1,227 vs 1,482 us on a P2 2 TB).
     */
    uint64_t marks[2] = {
        (uint64_t)((ramp + 0.05 * run) * 1e6),
        (uint64_t)(0.85 * run * 1e6),
    };

    if (cycle > 0) {
        ramp = ceil(ramp / cycle - 1e-9) * cycle;
        run = MAX(ceil(run / cycle - 1e-9), 3) * cycle;
        marks[0] = (uint64_t)(ramp * 1e6);
        marks[1] = (uint64_t)(run * 1e6);
    }
    args = fio_args(r, wl, id, ramp, run, pt->target_pct, peak_id, seed);
    GuestCmd c = {
        .verb = "RUN", .id = id, .label = wl->wl.name, .args = args,
        .window = WIN_TIMED,
        .marks_us = { marks[0], marks[1] },
        .total_s = ramp + run,
        /* the rate is the guest's to work out: allow the peak's */
        .timeout_s = point_timeout(r, ramp + run, 0),
        .pt = pt, .write = wl->wl.op == NVM_OP_WRITE,
        .mixed = wl->mix != NULL,
    };

    run_plan_cmd(p, &c, what, point_done, wl, pt);
}

/* The workload's index among nvmimic sim's VDI workloads. */
static unsigned vdi_index(const Wl *wl)
{
    int i = nvm_vdi_index(wl->wl.name);

    return i < 0 ? 0 : i;
}

/* The index of nvm_sim_curve() (its seeds) of @wl in nvmimic sim. */
static unsigned sim_index(const Wl *wl)
{
    return wl->mix ? NVM_VDI_SEED_BASE + vdi_index(wl) : fc_index(wl);
}

/*
 * The model replaying the guest's schedule for workload @wl: the review
 * state, the guest's idle before its first I/O, the peak, then the
 * guest's points at their percentages of the peak the guest measured, each
 * as long as the guest's.  Each point of the guest then compares with the
 * model's at the same target, not with the model's own curve, whose rates
 * follow the model's peak: near the knee a 1 % difference between the two
 * peaks moves a point a long way along a steep curve.
 */
static void matched_model(Run *r, Wl *wl)
{
    int pcts[MAX_PCTS];
    NvmSimOptions so = {
        .seed = r->o.seed,
        .implied_threads = !strcmp(r->o.threads, "implied"),
        .duration_s = r->sim_duration_s,
        .pcts = pcts,
        .n_pcts = wl->n_curve,
        .base_iops = wl->peak.guest.iops,
        .idle_ns = (uint64_t)(wl->idle_s * 1e9),
        .peak_warmup_ns = wl->mix ? 0 :
                          (uint64_t)(wl_peak_ramp_s(r, wl) * 1e9),
    };
    NvmModel *m;

    if (wl->n_curve > NVM_CURVE_POINTS) {
        return;                 /* compared with the model's curve */
    }
    for (unsigned i = 0; i < wl->n_curve; i++) {
        pcts[i] = wl->curve[i].target_pct;
    }
    g_free(wl->matched);
    wl->matched = g_new0(NvmCornerResult, 1);
    m = nvm_model_new(r->p, so.seed);
    if (wl->mix) {
        /* the mix's results, reads and writes together, as a curve */
        NvmVdiResult v = { .mix = (NvmMix *)wl->mix };
        NvmCornerResult *c = wl->matched;

        nvm_sim_vdi_one(r->p, &so, vdi_index(wl), m, NULL, &v);
        c->wl = wl->wl;
        c->peak = v.peak.all;
        c->n_curve = v.n_curve;
        for (unsigned k = 0; k < v.n_curve; k++) {
            c->target_pct[k] = v.target_pct[k];
            c->target_iops[k] = v.target_iops[k];
            c->curve[k] = v.curve[k].all;
        }
    } else {
        nvm_sim_corner(r->p, &so, fc_index(wl), m, NULL, wl->matched);
    }
    nvm_model_free(m);
}

/* Mark @n's snapshot of the drive's statistics (a copy), or NULL. */
/*
 * A four-corners or VDI workload's result: the load generator's JSON (a job
 * per phase: the peak, then each point), and the device's statistics over
 * each phase's measured time, the snapshots at the in-band marks the load
 * generator sent where each phase's window closed.
 */
static bool curve_done(Run *r, PlanStep *st, JsonNode *stats0,
                       const char *json, GError **errp)
{
    Wl *wl = st->opaque;
    const NvmWorkload *w = &wl->wl;
    bool write = w->op == NVM_OP_WRITE;
    bool mixed = wl->mix != NULL;
    bool erased = r->p->review_state != NVM_REVIEW_FILLED;
    g_autoptr(JsonNode) first = NULL;

    (void)stats0;
    for (unsigned k = 0; k < 1 + wl->n_curve; k++) {
        Point *pt = k ? &wl->curve[k - 1] : &wl->peak;

        if (!run_parse_fio_job(json, k, mixed ? "mixed" :
                               write ? "write" : "read", &pt->guest, errp)) {
            return false;
        }
    }
    /*
     * The drive idled from the mark that set its state until the load
     * generator's first I/O (its start-up, in virtual time): the peak's
     * opening mark snapshots that stretch (interval, active).  QLC: that
     * idle came before the span's writes, on an erased drive, where it
     * changes nothing.
     */
    wl->idle_s = 0;
    if (!erased) {
        JsonObject *o;

        first = run_mark_stats(r, st->what, st->c.mark, errp);
        if (!first) {
            return false;
        }
        o = json_node_get_object(first);
        if (wl->mix) {
            /*
             * A mix's warm-up has idle stretches of its own (think time):
             * the idle is what the stretch holds beyond the warm-up, whose
             * length nvmimic-load and the model share.
             */
            wl->idle_s = MAX(0, json_object_get_int_member(o, "interval-ns") -
                                (int64_t)mix_whole_ns(wl, r->o.peak_ramp_s,
                                                      0)) / 1e9;
        } else {
            wl->idle_s = MAX(0, json_object_get_int_member(o, "interval-ns") -
                                json_object_get_int_member(o, "active-ns")) /
                         1e9;
        }
    }
    matched_model(r, wl);
    wl->mark0 = st->c.mark;
    for (unsigned k = 0; k < 1 + wl->n_curve; k++) {
        Point *pt = k ? &wl->curve[k - 1] : &wl->peak;
        g_autoptr(JsonNode) stats = run_mark_stats(r, st->what,
                                                   st->c.mark + 2 * k + 1,
                                                   errp);

        if (!stats) {
            g_prefix_error(errp, "%s point %u: ", w->name, k);
            return false;
        }
        pt->have_host = run_parse_stats(stats, write, mixed, &pt->host,
                                        &pt->host_late,
                                        &pt->host_interval_s);
        run_parse_late(stats, write, mixed, &pt->late);
        if (k) {
            pt->target_iops = nvm_curve_rate(wl->peak.guest.iops,
                                             pt->target_pct);
        }
        run_judge_point(wl, pt);
        pt->done = true;
        run_progress(r, w->name, pt, 0, 0, pt->guest.iops, true);
    }
    run_save_results(r);
    return true;
}

/*
 * A four-corners or VDI workload: its whole curve in one run of the guest's
 * load generator (vm-images/nvmimic-load.c; VDI: --mix, the job file's mix
 * as harness/sim/mix.c drives the model), as nvmimic sim runs it: (QLC: the
 * span written once after the secure erase), the peak, then each rate,
 * every phase right after the previous one, so the drive never idles
 * between points.  It sends the in-band marks around each phase's
 * measured time itself (WIN_CMD, two marks per phase).
 *
 * The review's state is taken at a mark before it: filled (TLC), or
 * erased and the span written by the load generator itself (QLC).  A
 * filled drive is erased first: what the previous workload left in the
 * model (its map cache, for one) would otherwise carry over, where nvmimic
 * sim starts each workload from a fresh model (a P2 500 GB's 4K write peak
 * came out 12 % higher after the 4K reads).
 */
static void plan_curve(Run *r, Wl *wl, Plan *p)
{
    const NvmWorkload *w = &wl->wl;
    bool write = w->op == NVM_OP_WRITE;
    bool erased = r->p->review_state != NVM_REVIEW_FILLED;
    g_autoptr(GString) pcts = g_string_new(NULL);
    g_autoptr(GString) seeds = g_string_new(NULL);
    g_autoptr(GString) what_io = g_string_new(NULL);
    unsigned fc = sim_index(wl);
    g_autofree char *args = NULL;
    g_autofree char *state = NULL;
    g_autofree char *id = g_strdup_printf("%s-state", w->name);
    g_autofree char *what = g_strdup_printf("%s review state", w->name);
    g_autofree char *cwhat = g_strdup_printf("%s curve", w->name);
    double timeout;
    PlanStep *st;
    GuestCmd c = {
        .verb = "SH", .id = w->name, .label = w->name,
        .window = WIN_CMD, .n_windows = 1 + wl->n_curve,
        .write = write, .mixed = wl->mix != NULL,
    };
    double peak_s, point_s;

    if (erased) {
        state = g_strdup("\"secure-erase\": true, \"reset-stats\": true");
    } else {
        state = filled_state(r, wl_reads_only(wl));
    }
    run_plan_mark(p, id, what, state, true);

    /* nvmimic sim's seeds for this workload's phases (nvm_sim_curve) */
    g_string_append_printf(seeds, "%" G_GUINT64_FORMAT,
                           r->o.seed * 7919 + fc);
    for (unsigned i = 0; i < wl->n_curve; i++) {
        g_string_append_printf(pcts, "%s%d", i ? "," : "",
                               wl->curve[i].target_pct);
        g_string_append_printf(seeds, ",%" G_GUINT64_FORMAT,
                               r->o.seed * 7919 + fc * 131 + i + 1);
    }
    if (wl->mix) {
        const NvmMix *m = wl->mix;

        g_string_append_printf(what_io, "--mix %.17g,%.17g,%.17g,%u,%u,"
                               "%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
                               " --bssplit ", m->read_pct,
                               m->random_pct[NVM_DIR_READ],
                               m->random_pct[NVM_DIR_WRITE], m->numjobs,
                               m->iodepth, m->think_ns, m->think_iotime_ns);
        for (int d = 0; d < NVM_DIRS; d++) {
            for (unsigned i = 0; i < m->bs[d].n; i++) {
                g_string_append_printf(what_io, "%s%u/%.17g",
                                       i ? ":" : d ? "," : "",
                                       m->bs[d].bytes[i], m->bs[d].pct[i]);
            }
        }
        if (m->write_sync) {
            /* sync=1: every write FUA, as mix.c issues the model's */
            g_string_append(what_io, " --sync");
        }
    } else {
        g_string_append_printf(what_io, "--rw %s --bs %u --threads %u",
                               write ? (w->sequential ? "write" : "randwrite")
                                     : (w->sequential ? "read" : "randread"),
                               w->block_bytes, w->threads);
    }
    args = g_strdup_printf(
        "nvmimic-load --dev /dev/nvme0n1 %s "
        "--span %" G_GUINT64_FORMAT " --seeds %s%s "
        "--peak-ramp-ms %.0f --ramp-ms %.0f --run-ms %.0f%s%s --marks "
        "--output \"$RESULTS/%s.json\"",
        what_io->str, r->span_bytes,
        seeds->str, erased ? " --precondition" : "",
        wl_peak_ramp_s(r, wl) * 1e3, r->o.ramp_s * 1e3, r->o.run_s * 1e3,
        wl->n_curve ? " --points " : "", pcts->str, w->name);
    c.args = args;
    /* a mix with bursts: ramps and runs of whole cycles, as mix.c's */
    peak_s = (mix_whole_ns(wl, wl_peak_ramp_s(r, wl), 0) +
              mix_whole_ns(wl, r->o.run_s, 1)) / 1e9;
    point_s = (mix_whole_ns(wl, r->o.ramp_s, 0) +
               mix_whole_ns(wl, r->o.run_s, 1)) / 1e9;
    c.total_s = peak_s + wl->n_curve * point_s;
    timeout = point_timeout(r, peak_s, 0);
    for (unsigned i = 0; i < wl->n_curve; i++) {
        timeout += point_timeout(r, point_s,
                                 wl->review_iops > 0 ? wl->review_iops : 0);
    }
    /* the span's writes: 128 KiB DMAs went at ~25 MB/s wall with the other
     * core busy (a 670p's 20 GB outlived 880 s); allow 10 MB/s */
    c.timeout_s = timeout + (erased ? 120 + r->span_bytes / 1e7 : 0);
    st = run_plan_cmd(p, &c, cwhat, curve_done, wl, NULL);
    st->progress = g_strdup_printf("%s %s: the peak and %u points, %.1f s of "
                                   "virtual time", r->p->name, w->name,
                                   wl->n_curve, c.total_s);
}

/*
 * The guest's block layer must not merge: the model sees the commands the
 * workload issues, as in nvmimic sim.  Merged, 8 outstanding 64 KiB
 * sequential writes reached a P2 500 GB as a quarter as many 256 KiB ones,
 * and its write buffer kept up at 110 % of the peak.
 */
static void plan_no_merges(Plan *p)
{
    GuestCmd c = {
        .verb = "SH", .id = "nomerges", .label = "set-up",
        .args = "echo 2 >/sys/block/nvme0n1/queue/nomerges && "
                "echo '{}' >\"$RESULTS/nomerges.json\"",
        .timeout_s = 60,
    };

    run_plan_cmd(p, &c, "set-up (nomerges)", NULL, NULL, NULL);
}

/* The plan of @suite's curves: per workload its whole curve in one run of
 * the guest's load generator; VDI with --fio-opts: the preconditioning,
 * the peak, then each point of the curve, through fio. */
void run_plan_curves(Run *r, int suite, Plan *p)
{
    if (suite == S_FC || !r->o.fio_opts) {
        plan_no_merges(p);
    }
    for (unsigned w = 0; w < r->n_wls; w++) {
        Wl *wl = &r->wls[w];

        if (wl->suite != suite) {
            continue;
        }
        if (!wl->fio) {
            plan_curve(r, wl, p);
            continue;
        }
        plan_precondition(r, wl, p);
        plan_point(r, wl, &wl->peak, w, 0, p);
        for (unsigned i = 0; i < wl->n_curve; i++) {
            plan_point(r, wl, &wl->curve[i], w, i + 1, p);
        }
    }
}
