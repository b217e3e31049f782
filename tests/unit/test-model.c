/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Model mechanisms, one test per behaviour: SLC cliff and folding, GC,
 * HMB map misses, Little's law, seeds, power states, state injection.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "curve.h"
#include "rng.h"
#include "sim.h"
#include "test-profile.h"

/*
 * Load @name (composed with its parts) with "key=value" lines replaced in
 * every section that has the key (for isolating mechanisms); a key written
 * "[section]" adds its value as a line after that section's header.
 */
static NvmProfile *load_patched(const char *name, const char *const *kv)
{
    g_autoptr(GError) err = NULL;
    g_autofree char *text = nvm_profile_compose_text(name,
                                                     NVMIMIC_PROFILE_DIR,
                                                     &err);
    g_auto(GStrv) lines = NULL;
    GString *out = g_string_new(NULL);
    g_autofree char *path = NULL;
    NvmProfile *p;
    int fd;

    g_assert_no_error(err);
    lines = g_strsplit(text, "\n", -1);
    for (char **l = lines; *l; l++) {
        const char *line = *l;

        for (const char *const *k = kv; *k; k += 2) {
            size_t n = strlen(k[0]);

            if (k[0][0] == '[' && !strcmp(line, k[0])) {
                line = NULL;
                g_string_append_printf(out, "%s\n%s\n", k[0], k[1]);
                break;
            }
            if (!strncmp(line, k[0], n) && line[n] == '=') {
                line = NULL;
                g_string_append_printf(out, "%s = %s\n", k[0], k[1]);
                break;
            }
        }
        if (line) {
            g_string_append_printf(out, "%s\n", line);
        }
    }
    fd = g_file_open_tmp("nvmimic-XXXXXX.ini", &path, &err);
    g_assert_no_error(err);
    close(fd);
    g_assert_true(g_file_set_contents(path, out->str, out->len, NULL));
    g_string_free(out, TRUE);
    p = nvm_profile_load(path, NULL, &err);
    g_assert_no_error(err);
    g_unlink(path);
    return p;
}

/* Sequential 128 KiB writes at 8 outstanding; rate (MB/s) per GB. */
static GArray *write_seq_gb(NvmModel *m, const NvmProfile *p, uint64_t *now,
                            uint64_t start, double gbs)
{
    GArray *rates = g_array_new(FALSE, FALSE, sizeof(double));
    const uint32_t bs = 128 * 1024;
    uint64_t slots[8];
    uint64_t n = (uint64_t)(gbs * 1e9 / bs), per_gb = 1000000000ULL / bs;
    uint64_t mark = *now;
    NvmCmd cmd = { .op = NVM_OP_WRITE, .nlb = bs / p->lba_bytes };

    for (int i = 0; i < 8; i++) {
        slots[i] = *now;
    }
    for (uint64_t i = 0; i < n; i++) {
        uint64_t *s = &slots[i % 8];
        uint64_t t = *s > *now ? *s : *now;

        *now = t;
        cmd.slba = (start + i * bs) % p->capacity_bytes / p->lba_bytes;
        *s = nvm_model_submit(m, &cmd, t);
        if ((i + 1) % per_gb == 0) {
            double r = per_gb * bs / ((*s - mark) / 1e9) / 1e6;

            g_array_append_val(rates, r);
            mark = *s;
        }
    }
    for (int i = 0; i < 8; i++) {
        *now = slots[i] > *now ? slots[i] : *now;
    }
    return rates;
}

static void slc_cache_exhausted_drops_to_native_rate_at_cache_size(void)
{
    NvmProfile *p = load("intel-670p-2tb");
    NvmModel *m = nvm_model_new(p, 1);
    uint64_t now = 0;
    GArray *r;
    double expect_gb, x, first;
    int cliff = -1;

    /* Empty drive: SLC data x fills the cache when x = cap(valid = x). */
    x = p->slc_static_bytes + p->slc_dynamic_max_bytes;
    if ((p->capacity_bytes - x) / p->cell_mode < p->slc_dynamic_max_bytes) {
        x = (p->slc_static_bytes + (double)p->capacity_bytes / p->cell_mode) /
            (1.0 + 1.0 / p->cell_mode);
    }
    expect_gb = x / 1e9;
    r = write_seq_gb(m, p, &now, 0, expect_gb + 10);
    first = g_array_index(r, double, 0);
    for (unsigned i = 0; i < r->len; i++) {
        if (g_array_index(r, double, i) < first / 2) {
            cliff = i;
            break;
        }
    }
    g_test_message("SLC rate %.0f MB/s, cliff in GB %d, expected %.1f GB, "
                   "after %.0f MB/s", first, cliff, expect_gb,
                   g_array_index(r, double, r->len - 1));
    g_assert_cmpint(cliff, >=, 0);
    g_assert_cmpfloat(fabs(cliff + 0.5 - expect_gb), <=, 1.5);
    /* QLC writes after the cache: a fraction of the SLC rate */
    g_assert_cmpfloat(g_array_index(r, double, r->len - 1), <, first / 3);
    g_array_free(r, TRUE);
    nvm_model_free(m);
    nvm_profile_free(p);
}

/*
 * A span much smaller than the SLC cache, rewritten sequentially for more
 * than the cache holds (the QLC reviews' 1 % span): the oldest SLC
 * superblocks hold only overwritten data by then, so the drive takes them
 * back and keeps writing at the SLC rate, where a cache counted by bytes
 * written would fall to the QLC rate.
 */
static void rewritten_span_keeps_the_slc_rate_past_the_cache_size(void)
{
    NvmProfile *p = load("intel-670p-2tb");
    NvmModel *m = nvm_model_new(p, 1);
    const double span_gb = 20;
    double cache_gb = (p->slc_static_bytes + p->slc_dynamic_max_bytes) / 1e9;
    double first = 0, last = 0, slowest = 1e30;
    uint64_t now = 0;
    NvmStats st;
    int passes = (int)(cache_gb / span_gb) + 3;

    for (int k = 0; k < passes; k++) {
        GArray *r = write_seq_gb(m, p, &now, 0, span_gb);

        for (unsigned i = 0; i < r->len; i++) {
            double v = g_array_index(r, double, i);

            if (k == 0 && i == 0) {
                first = v;
            }
            slowest = MIN(slowest, v);
            last = v;
        }
        g_array_free(r, TRUE);
    }
    nvm_model_get_stats(m, now, &st);
    g_test_message("%d passes over %.0f GB (cache up to %.0f GB): first GB "
                   "%.0f MB/s, slowest %.0f, last %.0f; SLC used %.1f GB",
                   passes, span_gb, cache_gb, first, slowest, last,
                   st.slc_used_bytes / 1e9);
    g_assert_cmpfloat(passes * span_gb, >, cache_gb + 2 * span_gb);
    g_assert_cmpfloat(slowest, >, first * 0.8);
    g_assert_cmpfloat(st.slc_used_bytes / 1e9, <=, cache_gb);
    nvm_model_free(m);
    nvm_profile_free(p);
}

/* Filled P5 1 TB, 4 GB of sequential writes: MB/s, and bytes folded. */
static double full_drive_seq_rate(NvmProfile *p, uint64_t *folded)
{
    NvmModel *m = nvm_model_new(p, 1);
    uint64_t now = 0;
    GArray *r;
    NvmStats st;
    double rate = 0;

    g_assert_true(nvm_model_set_fill(m, 100.0, NULL));
    g_assert_true(nvm_model_set_slc_used(m, p->slc_static_bytes, NULL));
    r = write_seq_gb(m, p, &now, 0, 4);
    for (unsigned i = 1; i < r->len; i++) {
        rate += g_array_index(r, double, i) / (r->len - 1);
    }
    nvm_model_get_stats(m, now, &st);
    *folded = st.fold_bytes;
    g_array_free(r, TRUE);
    nvm_model_free(m);
    return rate;
}

/*
 * slc-first-when-full: a full drive (no dynamic SLC left) writes through
 * its static SLC cache and folds as it goes, which costs the SLC program
 * on top of the native one; without it, it programs natively.
 */
static void full_drive_writes_through_its_static_slc_only_when_told(void)
{
    static const char *const kv_off[] = {
        "slc-first-when-full", "false", NULL,
    };
    static const char *const kv_on[] = {
        "slc-first-when-full", "true", NULL,
    };
    NvmProfile *off = load_patched("crucial-p5-1tb", kv_off);
    NvmProfile *on = load_patched("crucial-p5-1tb", kv_on);
    uint64_t fold_off, fold_on;
    double r_off, r_on;

    g_assert_false(off->slc_first_when_full);
    g_assert_true(on->slc_first_when_full);
    r_off = full_drive_seq_rate(off, &fold_off);
    r_on = full_drive_seq_rate(on, &fold_on);
    g_test_message("filled P5 1 TB, 128 KiB sequential writes: native "
                   "%.0f MB/s (%" PRIu64 " B folded), through SLC %.0f MB/s "
                   "(%" PRIu64 " B folded)", r_off, fold_off, r_on, fold_on);
    g_assert_cmpuint(fold_off, ==, 0);
    g_assert_cmpuint(fold_on, >, 2000000000ULL);  /* half of what it wrote */
    g_assert_cmpfloat(r_on, <, r_off * 0.9);
    nvm_profile_free(off);
    nvm_profile_free(on);
}

static void idle_folding_restores_slc_write_rate(void)
{
    NvmProfile *p = load("intel-670p-2tb");
    NvmModel *m = nvm_model_new(p, 1);
    uint64_t now = 0;
    GArray *r;
    NvmStats st;
    double slow, before_gb, after_gb;

    r = write_seq_gb(m, p, &now, 0, 290);
    slow = g_array_index(r, double, r->len - 1);
    g_array_free(r, TRUE);
    nvm_model_get_stats(m, now, &st);
    before_gb = st.slc_used_bytes / 1e9;

    now += 120 * 1000000000ULL;                 /* two minutes idle */
    nvm_model_get_stats(m, now, &st);
    after_gb = st.slc_used_bytes / 1e9;
    g_test_message("SLC used %.1f GB -> %.1f GB after idle; slow rate %.0f",
                   before_gb, after_gb, slow);
    g_assert_cmpfloat(after_gb, <, before_gb - 5);

    /* The folded room takes writes at the SLC rate again, then the
     * cliff comes back (no idle time in between). */
    r = write_seq_gb(m, p, &now, 300e9, before_gb - after_gb + 10);
    g_test_message("after idle: first GB %.0f MB/s, last %.0f MB/s",
                   g_array_index(r, double, 0),
                   g_array_index(r, double, r->len - 1));
    g_assert_cmpfloat(g_array_index(r, double, 0), >, slow * 3);
    g_assert_cmpfloat(g_array_index(r, double, r->len - 1), <, slow * 1.5);
    g_array_free(r, TRUE);
    nvm_model_free(m);
    nvm_profile_free(p);
}

/*
 * Peak IOPS of @wl (seed 7) on a new model in the review's state, after
 * @before (if any) has worked on it from that state.
 */
typedef void (*BeforePeak)(NvmModel *m, const NvmProfile *p, uint64_t span,
                           uint64_t *now);

static double review_peak(const NvmProfile *p, const NvmWorkload *wl,
                          uint64_t warmup_ns, uint64_t duration_ns,
                          BeforePeak before)
{
    NvmModel *m = nvm_model_new(p, 1);
    uint64_t now = 0, span;
    NvmRunResult r;
    NvmRunSpec spec = {
        .wl = wl, .lba_bytes = p->lba_bytes,
        .warmup_ns = warmup_ns, .duration_ns = duration_ns,
    };

    nvm_sim_review_state(m, p, &span, &now);
    spec.span_bytes = span;
    if (before) {
        before(m, p, span, &now);
    }
    nvm_curve_run(m, &spec, 7, &now, &r);
    nvm_model_free(m);
    return r.fig.iops;
}

/* The review's state set again. */
static void state_again(NvmModel *m, const NvmProfile *p, uint64_t span,
                        uint64_t *now)
{
    nvm_sim_review_state(m, p, &span, now);
}

/* 64K sequential reads, 30 s of idle, then the review's state again. */
static void reads_idle_then_state(NvmModel *m, const NvmProfile *p,
                                  uint64_t span, uint64_t *now)
{
    NvmWorkload wl[NVM_FOUR_CORNERS];
    NvmRunResult r;
    NvmRunSpec spec = {
        .lba_bytes = p->lba_bytes, .span_bytes = span,
        .warmup_ns = 100000000, .duration_ns = 500000000,
    };

    nvm_four_corners(wl, false);
    spec.wl = &wl[2];
    nvm_curve_run(m, &spec, 3, now, &r);
    *now += 30 * 1000000000ULL;
    nvm_sim_review_state(m, p, &span, now);
}

/*
 * A drive filled by state injection after a long idle writes as one
 * filled at once: the idle before the injection is not folding time (a
 * guest run sets the review state minutes after its previous workload).
 */
static void state_injected_after_idle_is_not_folded_by_that_idle(void)
{
    NvmProfile *p = load("crucial-p2-500g");
    NvmWorkload wl[NVM_FOUR_CORNERS];
    double peak[2];

    nvm_four_corners(wl, false);
    peak[0] = review_peak(p, &wl[3], 100000000, 500000000,
                          state_again);
    peak[1] = review_peak(p, &wl[3], 100000000, 500000000,
                          reads_idle_then_state);
    g_test_message("64K write peak: fresh %.0f IOPS, after reads and 30 s "
                   "idle %.0f IOPS", peak[0], peak[1]);
    g_assert_cmpfloat(fabs(peak[1] - peak[0]), <, 0.02 * peak[0]);
    nvm_profile_free(p);
}

/* 300 reads 2 ms apart: spells of idle between light load. */
static void idle_spells(NvmModel *m, const NvmProfile *p, uint64_t span,
                        uint64_t *now)
{
    (void)p;
    (void)span;
    for (int i = 0; i < 300; i++) {
        NvmCmd cmd = {
            .op = NVM_OP_READ, .nlb = 8,
            .slba = (uint64_t)(i * 7919 % 100000) * 8,
        };

        nvm_model_submit(m, &cmd, *now);
        *now += 2000000;
    }
}

/*
 * A read line keeps a few idle gaps so that a read ready early is not
 * queued behind one reserved for later.  An idle spell leaves such a gap,
 * long and soon in the past; when the gaps kept were the longest ones,
 * spells of light load filled every slot with them, and under the next
 * burst each new gap was too short to be kept: the P2 2 TB's channels
 * (four QLC dies each, transfers reserved milliseconds ahead) then queued
 * new transfers behind the last reserved one, and 4K reads at 128
 * outstanding ran at 24 K instead of 55 K IOPS.
 */
static void reads_after_idle_spells_are_not_queued_behind_later_ones(void)
{
    NvmProfile *p = load("crucial-p2-2tb");
    NvmWorkload wl[NVM_FOUR_CORNERS];
    double iops[2];

    nvm_four_corners(wl, false);
    iops[0] = review_peak(p, &wl[0], 20000000, 200000000, NULL);
    iops[1] = review_peak(p, &wl[0], 20000000, 200000000, idle_spells);
    g_test_message("4K reads at 128 outstanding: %.0f IOPS, after 300 idle "
                   "spells %.0f IOPS", iops[0], iops[1]);
    g_assert_cmpfloat(fabs(iops[1] - iops[0]), <, 0.03 * iops[0]);
    nvm_profile_free(p);
}

static double closed_loop(NvmModel *m, const NvmProfile *p,
                          const NvmWorkload *wl, uint64_t span, double secs,
                          uint64_t seed, NvmRunResult *res)
{
    uint64_t now = 0;
    NvmRunSpec spec = {
        .wl = wl, .lba_bytes = p->lba_bytes, .span_bytes = span,
        .warmup_ns = (uint64_t)(secs * 2e8), .duration_ns = secs * 1e9,
    };

    nvm_curve_run(m, &spec, seed, &now, res);
    return res->fig.iops;
}

/*
 * A 2 GB drive with the P5's parts (2 dies of 1 GiB, 3 MiB blocks) and no
 * SLC cache: small enough that random writes reach GC's steady state in a
 * few simulated seconds.
 */
static const char *const mini_drive[] = {
    "channels", "2", "dies-per-channel", "1", "die-bytes", "1073741824",
    "pages-per-block", "48", "capacity-bytes", "2000000000",
    "reserved-bytes", "0", "slc-static-bytes", "0",
    "slc-dynamic-max-bytes", "0", "steady-state", "formula", NULL,
};

/* Random 4 KiB writes over the filled part of the mini drive. */
static void steady_random_writes(const NvmProfile *p, double fill,
                                 NvmRunResult *r, NvmStats *st)
{
    NvmWorkload wl = { "4k-random-write", NVM_OP_WRITE, 4096, false, 64 };
    NvmModel *m = nvm_model_new(p, 1);
    uint64_t span = (uint64_t)(p->capacity_bytes * fill / 100) & ~4095ULL;
    uint64_t now = 0;
    /* three drive writes to reach steady state, then five seconds */
    NvmRunSpec spec = {
        .wl = &wl, .lba_bytes = p->lba_bytes, .span_bytes = span,
        .warmup_ns = 30000000000ULL, .duration_ns = 5000000000ULL,
    };

    nvm_model_set_fill(m, fill, NULL);
    nvm_curve_run(m, &spec, 1, &now, r);
    nvm_model_get_stats(m, now, st);
    nvm_model_free(m);
}

static void fuller_drive_gives_lower_steady_random_write_rate(void)
{
    NvmProfile *p = load_patched("crucial-p5-1tb", mini_drive);
    NvmRunResult r40, r90;
    NvmStats *s40 = g_new(NvmStats, 1), *s90 = g_new(NvmStats, 1);

    steady_random_writes(p, 40, &r40, s40);
    steady_random_writes(p, 90, &r90, s90);
    g_test_message("fill 40 %%: %.0f IOPS WA %.2f; fill 90 %%: %.0f IOPS "
                   "WA %.2f (GC copied %.1f GB)", r40.fig.iops,
                   s40->write_amplification, r90.fig.iops,
                   s90->write_amplification, s90->gc_bytes / 1e9);
    /* greedy GC over 90 % valid data copies far more */
    g_assert_cmpfloat(s40->write_amplification, <, 1.3);
    g_assert_cmpfloat(s90->write_amplification, >,
                      s40->write_amplification * 1.5);
    g_assert_cmpfloat(r90.fig.iops, <, r40.fig.iops * 0.7);
    g_free(s40);
    g_free(s90);
    nvm_profile_free(p);
}

static void hmb_map_miss_costs_an_extra_nand_read(void)
{
    NvmProfile *p = load("crucial-p2-2tb");
    NvmWorkload wl = { "4k-random-read", NVM_OP_READ, 4096, false, 1 };
    uint64_t spans[2] = { 2000000000ULL, 1000000000000ULL };
    double lat[2], miss[2], nand_per_read[2];

    for (int i = 0; i < 2; i++) {
        NvmModel *m = nvm_model_new(p, 1);
        NvmRunResult r;
        NvmStats st;

        nvm_model_set_fill(m, 100, NULL);
        closed_loop(m, p, &wl, spans[i], 1, 3, &r);
        nvm_model_get_stats(m, 0, &st);
        lat[i] = r.fig.lat_us;
        miss[i] = (double)st.map_misses / st.cls[NVM_OP_READ].count;
        nand_per_read[i] = (double)st.nand_bytes_read /
                           st.cls[NVM_OP_READ].count;
        nvm_model_free(m);
    }
    g_test_message("2 GB span: %.1f us, miss %.3f; 1 TB span: %.1f us, "
                   "miss %.3f", lat[0], miss[0], lat[1], miss[1]);
    /* 64 MB of HMB maps 64 GB: a 2 GB span fits, a 1 TB one does not */
    g_assert_cmpfloat(miss[0], <, 0.05);     /* the first touches */
    g_assert_cmpfloat(miss[1], >, 0.8);
    /* each miss reads one map chunk from NAND ... */
    g_assert_cmpfloat(fabs(nand_per_read[1] - nand_per_read[0] -
                           miss[1] * p->map_chunk_bytes), <,
                      0.05 * p->map_chunk_bytes);
    /* ... and its SLC read time shows in the latency */
    g_assert_cmpfloat(lat[1] - lat[0], >, 0.8 * miss[1] * p->read_us_slc);
    nvm_profile_free(p);
}

static void littles_law_holds_at_saturation(void)
{
    NvmProfile *p = load("crucial-p5-2tb");
    NvmWorkload wl = { "4k-random-read", NVM_OP_READ, 4096, false, 32 };
    NvmModel *m = nvm_model_new(p, 1);
    NvmRunResult r;

    nvm_model_set_fill(m, 100, NULL);
    closed_loop(m, p, &wl, p->capacity_bytes / 20, 0.5, 1, &r);
    g_test_message("%.0f IOPS x %.1f us = %.2f outstanding", r.fig.iops,
                   r.fig.lat_us, r.fig.iops * r.fig.lat_us * 1e-6);
    g_assert_cmpfloat(fabs(r.fig.iops * r.fig.lat_us * 1e-6 - 32), <,
                      0.02 * 32);
    nvm_model_free(m);
    nvm_profile_free(p);
}

static void run_seed(const NvmProfile *p, uint64_t seed, NvmRunResult *r,
                     NvmStats *st)
{
    NvmWorkload wl = { "4k-random-read", NVM_OP_READ, 4096, false, 128 };
    NvmModel *m = nvm_model_new(p, seed);

    nvm_model_set_fill(m, 100, NULL);
    closed_loop(m, p, &wl, p->capacity_bytes / 20, 0.2, seed, r);
    nvm_model_get_stats(m, 0, st);
    nvm_model_free(m);
}

static void same_seed_repeats_exactly_other_seed_differs(void)
{
    NvmProfile *p = load("crucial-p5-1tb");
    NvmRunResult a, b, c;
    NvmStats *sa = g_new(NvmStats, 1), *sb = g_new(NvmStats, 1);
    NvmStats *sc = g_new(NvmStats, 1);

    run_seed(p, 7, &a, sa);
    run_seed(p, 7, &b, sb);
    run_seed(p, 8, &c, sc);
    g_assert_cmpuint(a.ios, ==, b.ios);
    g_assert_cmpfloat(a.fig.lat_us, ==, b.fig.lat_us);
    g_assert_cmpmem(sa->cls[NVM_OP_READ].hist, sizeof(sa->cls[0].hist),
                    sb->cls[NVM_OP_READ].hist, sizeof(sb->cls[0].hist));
    g_assert_true(a.fig.lat_us != c.fig.lat_us || a.ios != c.ios);
    /* the spread is real: p99 above the mean */
    g_assert_cmpfloat(a.fig.p99_us, >, a.fig.lat_us * 1.05);
    g_free(sa);
    g_free(sb);
    g_free(sc);
    nvm_profile_free(p);
}

static uint64_t read_at(NvmModel *m, uint64_t t)
{
    NvmCmd cmd = { .op = NVM_OP_READ, .slba = 123456, .nlb = 8 };

    return nvm_model_submit(m, &cmd, t) - t;
}

static void power_state_exit_latency_appears_after_idle(void)
{
    NvmProfile *p = load("crucial-p5-1tb");
    NvmModel *m = nvm_model_new(p, 1);
    const NvmPowerState *deep = &p->ps[p->n_power_states - 1];
    uint64_t t = 0, busy, idle, ms = 1000000;
    uint32_t off[NVM_MAX_POWER_STATES] = { 0 };
    NvmStats st;
    g_autoptr(GError) err = NULL;

    nvm_model_set_fill(m, 100, NULL);
    t += read_at(m, t) + 10 * ms;
    busy = read_at(m, t);                       /* 10 ms idle: L1 only */
    t += busy + (deep->idle_before_entry_ms + 1000) * ms;
    idle = read_at(m, t);                       /* deepest state reached */
    nvm_model_get_stats(m, t + idle, &st);
    g_test_message("after 10 ms idle %.1f us, after %u ms idle %.1f us",
                   busy / 1e3, deep->idle_before_entry_ms + 1000,
                   idle / 1e3);
    g_assert_cmpfloat(fabs((double)idle - busy - deep->exit_lat_us * 1e3),
                      <, 100e3);
    g_assert_cmpuint(st.ps_time_ns[p->n_power_states - 1], >, 900 * ms);
    g_assert_cmpuint(st.power_exits, ==, 1);

    /* The guest turns APST off: no exit latency any more. */
    g_assert_true(nvm_model_set_apst(m, false, off, p->n_power_states,
                                     &err));
    t += idle + (deep->idle_before_entry_ms + 1000) * ms;
    idle = read_at(m, t);
    g_assert_cmpfloat(fabs((double)idle - busy), <, 100e3);
    /* Wrong table size is refused. */
    g_assert_false(nvm_model_set_apst(m, true, off, 2, &err));
    g_assert_nonnull(err);
    nvm_model_free(m);
    nvm_profile_free(p);
}

static void lowest_load_latency_is_above_moderate_load(void)
{
    NvmProfile *p = load("crucial-p2-500g");
    NvmWorkload wl = { "64k-seq-write", NVM_OP_WRITE, 65536, true, 8 };
    double lat[2];
    int pct[2] = { 10, 40 };

    for (int i = 0; i < 2; i++) {
        NvmModel *m = nvm_model_new(p, 1);
        NvmRunResult r;
        uint64_t now = 0;
        NvmRunSpec spec = {
            .wl = &wl, .lba_bytes = p->lba_bytes,
            .span_bytes = p->capacity_bytes / 20,
            .warmup_ns = 500000000, .duration_ns = 5000000000ULL,
            .rate_iops = nvm_curve_rate(4745, pct[i]),
        };

        nvm_model_set_fill(m, 100, NULL);
        nvm_curve_run(m, &spec, 5, &now, &r);
        lat[i] = r.fig.lat_us;
        nvm_model_free(m);
    }
    /* Long gaps at 10 % let the link reach L1.2; its exit shows. */
    g_test_message("10 %%: %.1f us, 40 %%: %.1f us", lat[0], lat[1]);
    g_assert_cmpfloat(lat[0], >, lat[1] + 0.2 * p->link_l1_exit_us);
    nvm_profile_free(p);
}

static void state_injection_rejects_out_of_range(void)
{
    NvmProfile *p = load("crucial-p2-500g");
    NvmModel *m = nvm_model_new(p, 1);
    NvmStats st;
    GError *err = NULL;

    g_assert_false(nvm_model_set_fill(m, 101, &err));
    g_assert_nonnull(err);
    g_clear_error(&err);
    g_assert_false(nvm_model_set_fill(m, -1, &err));
    g_clear_error(&err);
    g_assert_false(nvm_model_set_wear(m, 300, &err));
    g_clear_error(&err);
    /* SLC occupancy cannot exceed the valid data or the cache */
    g_assert_false(nvm_model_set_slc_used(m, 1000000, &err));
    g_clear_error(&err);
    g_assert_true(nvm_model_set_fill(m, 50, &err));
    g_assert_true(nvm_model_set_slc_used(m, 1000000000, &err));
    g_assert_true(nvm_model_set_wear(m, 12.5, &err));
    nvm_model_get_stats(m, 0, &st);
    g_assert_cmpfloat(fabs(st.fill_pct - 50), <, 0.01);
    /* kept in whole 4 KiB map units */
    g_assert_cmpuint(st.slc_used_bytes, <=, 1000000000);
    g_assert_cmpuint(st.slc_used_bytes, >, 1000000000 - 4096);
    g_assert_cmpfloat(fabs(st.wear_pct - 12.5), <, 0.01);
    nvm_model_secure_erase(m);
    nvm_model_get_stats(m, 0, &st);
    g_assert_cmpuint(st.valid_bytes, ==, 0);
    g_assert_cmpuint(st.slc_used_bytes, ==, 0);
    nvm_model_free(m);
    nvm_profile_free(p);
}

static void trim_empties_and_flush_waits_for_nand(void)
{
    NvmProfile *p = load("crucial-p5-1tb");
    NvmModel *m = nvm_model_new(p, 1);
    NvmCmd w = { .op = NVM_OP_WRITE, .slba = 0, .nlb = 8 };
    NvmCmd f = { .op = NVM_OP_FLUSH };
    NvmCmd t = { .op = NVM_OP_DISCARD, .slba = 0,
                 .nlb = (uint32_t)(p->capacity_bytes / 2 / p->lba_bytes) };
    uint64_t wdone, fdone;
    NvmStats st;

    nvm_model_set_fill(m, 100, NULL);
    wdone = nvm_model_submit(m, &w, 0);
    fdone = nvm_model_submit(m, &f, wdone);
    g_test_message("write %.1f us, flush %.1f us", wdone / 1e3,
                   (fdone - wdone) / 1e3);
    /* the write returns from the buffer; the flush waits for a program */
    g_assert_cmpfloat(fdone - wdone, >, p->program_us_slc * 1e3 * 0.5);
    g_assert_cmpfloat(wdone, <, p->program_us_slc * 1e3 * 0.5);
    nvm_model_submit(m, &t, fdone);
    nvm_model_get_stats(m, fdone, &st);
    g_assert_cmpfloat(fabs(st.fill_pct - 50), <, 1);
    g_assert_cmpuint(st.cls[NVM_OP_DISCARD].count, ==, 1);
    g_assert_cmpuint(st.cls[NVM_OP_FLUSH].count, ==, 1);
    nvm_model_free(m);
    nvm_profile_free(p);
}

/*
 * A 2 TB drive's model: a few MiB filled (the map state is 4 B per 4 MiB
 * chunk plus detail where state is mixed), ~10 MiB after random writes over
 * the reviews' 5 % span.
 */
static void model_state_is_small_for_2tb_profiles(void)
{
    const char *names[] = { "crucial-p2-2tb", "crucial-p5-2tb",
                            "intel-670p-2tb" };

    for (unsigned i = 0; i < G_N_ELEMENTS(names); i++) {
        NvmProfile *p = load(names[i]);
        NvmModel *m = nvm_model_new(p, 1);
        NvmCmd w = { .op = NVM_OP_WRITE, .nlb = 4096 / p->lba_bytes };
        uint64_t span = p->capacity_bytes / 20 / 4096, s = 3, t = 0;
        size_t filled;

        nvm_model_set_fill(m, 100, NULL);
        filled = nvm_model_memory_bytes(m);
        for (int k = 0; k < 300000; k++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            w.slba = (s >> 20) % span * (4096 / p->lba_bytes);
            t = nvm_model_submit(m, &w, t);
        }
        g_test_message("%s: %zu bytes filled, %zu after 300 K random "
                       "writes over 5 %%", names[i], filled,
                       nvm_model_memory_bytes(m));
        g_assert_cmpuint(filled, <, 4 << 20);
        g_assert_cmpuint(nvm_model_memory_bytes(m), <, 16 << 20);
        nvm_model_free(m);
        nvm_profile_free(p);
    }
}

/* Submit a mix of every command type; completions never precede it. */
static void run_mix(NvmModel *m, const NvmProfile *p, uint64_t *t, int n,
                    uint32_t max_nlb)
{
    uint64_t s = 7;

    for (int i = 0; i < n; i++) {
        NvmCmd c;
        uint64_t done;

        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        c.op = (NvmOp)((s >> 33) % NVM_CLASS_COUNT);
        c.slba = (s >> 11) % (p->capacity_bytes / p->lba_bytes);
        c.nlb = 1 + (s >> 40) % max_nlb;
        *t += (s >> 50) % 20000;
        done = nvm_model_submit(m, &c, *t);
        g_assert_cmpuint(done, >=, *t);
        g_assert_cmpuint(done, <, 1ULL << 62);
    }
}

/*
 * Issue 11: planes = 1, page-bytes = 4096 and a huge write buffer wrapped
 * the program ring to 0 entries (SIGFPE on the first write).  At the
 * largest buffer the loader accepts, writes that wrap the ring many times
 * complete.
 */
static void smallest_program_unit_with_largest_buffer_writes(void)
{
    static const char *const kv[] = {
        "planes", "1", "page-bytes", "4096",
        "write-buffer-bytes", "1073741824", NULL };
    NvmProfile *p = load_patched("crucial-p5-1tb", kv);
    NvmModel *m = nvm_model_new(p, 1);
    NvmCmd w = { .op = NVM_OP_WRITE, .nlb = 256 * 1024 / p->lba_bytes };
    uint64_t t = 0, done = 0;

    /* 3 GiB of sequential writes: the 1 GiB ring wraps three times */
    for (uint64_t i = 0; i < 3 * 4096; i++) {
        w.slba = i * w.nlb;
        done = nvm_model_submit(m, &w, t);
        g_assert_cmpuint(done, >=, t);
        t = done;
    }
    run_mix(m, p, &t, 20000, 256);
    nvm_model_free(m);
    nvm_profile_free(p);
}

/*
 * The largest state any accepted profile can ask for: 512 dies x 8 planes,
 * the largest write buffer, a partial map with the most tags.  It stays
 * within nvm_model_max_memory_bytes (stated in profiles/README.md).
 */
static void largest_accepted_geometry_stays_within_stated_memory(void)
{
    static const char *const big[] = {
        "channels", "32", "dies-per-channel", "16", "planes", "8",
        "page-bytes", "65536", "write-buffer-bytes", "1073741824",
        "entry-bytes", "16", "chunk-bytes", "4096", "unit-bytes", "512",
        "cache-bytes", "4294967296", "max-channels", "32",
        "max-dies-per-channel", "16", NULL };
    static const char *const ring[] = {
        "planes", "1", "page-bytes", "4096", "channels", "32",
        "dies-per-channel", "16", "write-buffer-bytes", "1073741824",
        "max-channels", "32", "max-dies-per-channel", "16", NULL };
    const char *const *kvs[] = { big, ring };

    /* the mapping state dominates: 2 bits per 4 KiB at most, 2^29 regions */
    g_test_message("bound: %zu bytes", nvm_model_max_memory_bytes());
    g_assert_cmpuint(nvm_model_max_memory_bytes(), <, 192 << 20);
    for (unsigned i = 0; i < G_N_ELEMENTS(kvs); i++) {
        NvmProfile *p = load_patched("crucial-p5-1tb", kvs[i]);
        NvmModel *m = nvm_model_new(p, 1);
        uint64_t t = 0;

        g_test_message("case %u: %zu bytes", i, nvm_model_memory_bytes(m));
        g_assert_cmpuint(nvm_model_memory_bytes(m), <=,
                         nvm_model_max_memory_bytes());
        nvm_model_set_fill(m, 100, NULL);
        run_mix(m, p, &t, 20000, 512);
        nvm_model_free(m);
        nvm_profile_free(p);
    }
}

/*
 * Issue 11: times of ~1e15 ns held guest I/O for days.  With every time
 * at the top of its range, a read after a long idle (deepest power state,
 * link asleep, gated cores, a map miss, a retry) still answers within 5 s.
 */
static void slowest_accepted_profile_answers_within_seconds(void)
{
    static const char *const kv[] = {
        "read-cmd-ns", "1e7", "write-cmd-ns", "1e7", "flush-cmd-ns", "1e7",
        "trim-cmd-ns", "1e7", "read-path-mbps", "10",
        "write-path-mbps", "10", "channel-mbps", "10",
        "read-us-slc", "10000", "read-us-tlc", "10000",
        "program-us-slc", "100000", "program-us-tlc", "100000",
        "erase-us", "100000", "suspend-us", "1000",
        "link-l1-exit-us", "10000", "core-wake-us", "10000",
        "read-retry-us", "100000", "read-retry-ppm", "1000000",
        "read-retry-ppm-eol", "1000000", "nand-jitter-pct", "100",
        "entry-latency-us", "1000000", "exit-latency-us", "1000000",
        "cores", "1", NULL };
    NvmProfile *p = load_patched("crucial-p2-500g", kv);
    NvmModel *m = nvm_model_new(p, 1);
    NvmCmd r = { .op = NVM_OP_READ, .slba = 12345,
                 .nlb = p->mdts_pages * 4096 / p->lba_bytes };
    uint64_t t = 3600 * 1000000000ULL, done;

    nvm_model_set_fill(m, 100, NULL);
    done = nvm_model_submit(m, &r, t);
    g_test_message("MDTS read after an hour idle: %.3f s",
                   (done - t) / 1e9);
    g_assert_cmpuint(done - t, <, 5000000000ULL);
    nvm_model_free(m);
    nvm_profile_free(p);
}

/*
 * Found by fuzz-model: statistics estimated idle folding with the full GC
 * write amplification while folding accounts only the randomly written
 * share, so NAND bytes written went down between two reads of the
 * statistics with one command in between.
 */
static void nand_bytes_written_never_decrease_across_folding(void)
{
    /* the whole drive at steady state: by the formula (simulating it would
     * rewrite 1 TB a few times over) */
    NvmProfile *p = load_with("crucial-p5-1tb", "review", "steady-state",
                              "formula");
    NvmModel *m = nvm_model_new(p, 1);
    NvmCmd w = { .op = NVM_OP_WRITE, .nlb = 8 };
    NvmStats a, b;
    uint64_t t = 0, s = 1;

    nvm_model_set_fill(m, 100, NULL);
    /* the whole drive in random-write steady state: GC from the start */
    g_assert_true(nvm_model_set_steady_random(m, 0, p->capacity_bytes,
                                              NULL));
    /* random and sequential writes: 0 < random share < 1, GC WA > 1 */
    for (int i = 0; i < 20000; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        w.slba = i % 2 ? (s >> 20) % (p->capacity_bytes / 512 / 8) * 8
                       : 8ULL * (i / 2);
        t = nvm_model_submit(m, &w, t);
    }
    t += 1000000000ULL;                     /* idle: folding under way */
    nvm_model_get_stats(m, t, &a);
    w.op = NVM_OP_READ;
    t = nvm_model_submit(m, &w, t);
    nvm_model_get_stats(m, t, &b);
    g_test_message("folded %" PRIu64 ", GC %" PRIu64 " bytes; NAND written "
                   "%" PRIu64 " then %" PRIu64, a.fold_bytes, a.gc_bytes,
                   a.nand_bytes_written, b.nand_bytes_written);
    /* background work ran between the two reads of the statistics */
    g_assert_cmpuint(a.fold_bytes + a.gc_bytes, >, 0);
    g_assert_cmpuint(b.nand_bytes_written, >=, a.nand_bytes_written);
    g_assert_cmpuint(b.total_nand_bytes_written, >=,
                     a.total_nand_bytes_written);
    nvm_model_free(m);
    nvm_profile_free(p);
}

static void completions_never_precede_submission(void)
{
    NvmProfile *p = load("crucial-p2-500g");
    NvmModel *m = nvm_model_new(p, 3);
    uint64_t t = 0, s = 1;

    nvm_model_set_fill(m, 80, NULL);
    for (int i = 0; i < 200000; i++) {
        NvmCmd c;

        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        c.op = (NvmOp)((s >> 33) % NVM_CLASS_COUNT);
        c.slba = (s >> 11) % (p->capacity_bytes / p->lba_bytes);
        c.nlb = 1 + (s >> 40) % 256;
        t += (s >> 50) % 20000;
        g_assert_cmpuint(nvm_model_submit(m, &c, t), >=, t);
    }
    nvm_model_free(m);
    nvm_profile_free(p);
}

/*
 * An image loaded onto the drive: reads of its blocks go to NAND, reads
 * elsewhere find nothing mapped; the valid data is the image's.
 */
static void mapped_ranges_are_read_from_nand_the_rest_is_not(void)
{
    NvmProfile *p = load("crucial-p5-2tb");
    NvmModel *m = nvm_model_new(p, 1);
    uint64_t gib_lbas = (1ULL << 30) / p->lba_bytes;
    uint64_t cap_lbas = p->capacity_bytes / p->lba_bytes;
    NvmLbaRange img[] = { { 0, gib_lbas }, { gib_lbas, gib_lbas } };
    NvmLbaRange bad[][2] = {
        { { 0, 0 }, { 8, 8 } },                 /* empty */
        { { 0, 16 }, { 8, 8 } },                /* overlapping */
        { { 16, 8 }, { 0, 8 } },                /* unsorted */
        { { cap_lbas - 8, 16 }, { 0, 0 } },     /* beyond the capacity */
    };
    uint64_t t = 0, in_ns = 0, out_ns = 0;
    GError *err = NULL;
    NvmStats st;
    int i;

    g_assert_true(nvm_model_set_wear(m, 3, NULL));
    g_assert_true(nvm_model_set_mapped(m, img, G_N_ELEMENTS(img), &err));
    g_assert_no_error(err);
    nvm_model_get_stats(m, 0, &st);
    g_assert_cmpuint(st.valid_bytes, ==, 2ULL << 30);
    g_assert_cmpuint(st.slc_used_bytes, ==, 0);
    g_assert_cmpfloat(fabs(st.wear_pct - 3), <, 0.01);
    for (i = 0; i < 64; i++) {
        NvmCmd in = { .op = NVM_OP_READ, .nlb = 8,
                      .slba = (uint64_t)i * (2 * gib_lbas / 64) };
        NvmCmd out = { .op = NVM_OP_READ, .nlb = 8,
                       .slba = 4 * gib_lbas + (uint64_t)i * 4096 };
        uint64_t d;

        t += 1000000;
        d = nvm_model_submit(m, &in, t);
        in_ns += d - t;
        t = d + 1000000;
        d = nvm_model_submit(m, &out, t);
        out_ns += d - t;
        t = d;
    }
    g_test_message("image read %.1f us, elsewhere %.1f us", in_ns / 64e3,
                   out_ns / 64e3);
    /* every read of the image pays tR; none elsewhere does (both pay the
     * same wake-up after their idle gap) */
    g_assert_cmpfloat((in_ns - out_ns) / 64.0, >,
                      0.9 * p->read_us_native * 1e3);
    for (i = 0; i < (int)G_N_ELEMENTS(bad); i++) {
        g_assert_false(nvm_model_set_mapped(m, bad[i], 2, &err));
        g_assert_nonnull(err);
        g_test_message("refused: %s", err->message);
        g_clear_error(&err);
    }
    /* a refused call changes nothing */
    nvm_model_get_stats(m, t, &st);
    g_assert_cmpuint(st.valid_bytes, ==, 2ULL << 30);
    g_assert_true(nvm_model_set_mapped(m, NULL, 0, &err));
    nvm_model_get_stats(m, t, &st);
    g_assert_cmpuint(st.valid_bytes, ==, 0);
    nvm_model_free(m);
    nvm_profile_free(p);
}

/* ---- the die timeline, the buffer, flush and FUA ---- */

/*
 * One die of the P5's NAND behind its controller, no SLC cache, no jitter
 * or retries: every operation's time is known.
 */
static const char *const one_die[] = {
    "channels", "1", "dies-per-channel", "1", "die-bytes", "1073741824",
    "pages-per-block", "48", "capacity-bytes", "800000000",
    "reserved-bytes", "0", "slc-static-bytes", "0",
    "slc-dynamic-max-bytes", "0", "nand-jitter-pct", "0",
    "read-retry-ppm", "0", "read-retry-ppm-eol", "0",
    "nand-power-budget-mw", "5000", NULL,
};

static uint64_t submit(NvmModel *m, NvmOp op, uint64_t byte_off,
                       uint32_t bytes, uint32_t flags, uint64_t t)
{
    NvmCmd c = { op, byte_off / 512, bytes / 512, flags };

    return nvm_model_submit(m, &c, t);
}

static void read_suspends_a_program_up_to_the_parts_limit(void)
{
    NvmProfile *p = load_patched("crucial-p5-1tb", one_die);
    NvmModel *m = nvm_model_new(p, 1);
    double tr = p->read_us_native * 1e3, tprog = p->program_us_native * 1e3;
    uint64_t t0 = 500000, lat[8];

    nvm_model_set_fill(m, 50, NULL);
    /* one native program unit: its program runs from ~0.2 ms for tPROG */
    for (unsigned i = 0; i < 48; i++) {
        submit(m, NVM_OP_WRITE, 629145600 + i * 4096ULL, 4096, 0, 0);
    }
    for (unsigned i = 0; i < 7; i++) {
        uint64_t done = submit(m, NVM_OP_READ, i * 65536ULL, 4096, 0,
                               t0 + i);

        lat[i] = done - (t0 + i);
        g_test_message("read %u: %.1f us", i, lat[i] / 1e3);
    }
    /* the first read suspends the program: suspend + tR, not the rest of
     * the program */
    g_assert_cmpfloat(lat[0], <, p->suspend_us * 1e3 + tr + 40e3);
    g_assert_cmpfloat(lat[0], >, tr);
    /* the part allows max-suspends; the next read waits for the program,
     * which each suspend made suspend + tR + resume longer */
    g_assert_cmpuint(p->max_suspends, ==, 5);
    g_assert_cmpfloat(lat[5], >, tprog * 0.8);
    g_assert_cmpfloat(lat[4], <, tprog * 0.8);
    nvm_model_free(m);
    nvm_profile_free(p);
}

/*
 * A page read holds its die until its page is off the die: of two 16 KiB
 * reads issued together on one die, the second ends tR plus a page's
 * data-out after the first (not tR: its array read cannot start while
 * the first page waits in the page register).
 */
static void page_read_holds_its_die_through_the_data_out(void)
{
    NvmProfile *p = load_patched("crucial-p5-1tb", one_die);
    NvmModel *m = nvm_model_new(p, 1);
    double page_ns = p->read_us_native * 1e3 +
                     p->page_bytes * 1e3 / p->channel_mbps;
    uint64_t t = 1000000, a, b;

    nvm_model_set_fill(m, 50, NULL);
    nvm_model_warm_map(m, 0, p->capacity_bytes);
    a = submit(m, NVM_OP_READ, 0, 16384, 0, t);
    b = submit(m, NVM_OP_READ, 1 << 20, 16384, 0, t);
    g_test_message("two page reads on one die: %.1f and %.1f us, apart "
                   "%.1f us (tR + data-out %.1f us)", (a - t) / 1e3,
                   (b - t) / 1e3, (b - a) / 1e3, page_ns / 1e3);
    g_assert_cmpfloat(fabs((double)(b - a) - page_ns), <, 0.02 * page_ns);
    nvm_model_free(m);
    nvm_profile_free(p);
}

static void read_goes_ahead_of_queued_programs(void)
{
    NvmProfile *p = load_patched("crucial-p5-1tb", one_die);
    NvmModel *m = nvm_model_new(p, 1);
    double tprog = p->program_us_native * 1e3;
    uint64_t done, t = 1000000;

    nvm_model_set_fill(m, 50, NULL);
    /* four program units queue on the one die: ~4 tPROG of work */
    for (unsigned i = 0; i < 4 * 48; i++) {
        submit(m, NVM_OP_WRITE, 629145600 + i * 4096ULL, 4096, 0, 0);
    }
    /* at 1 ms the first program runs; the next three wait behind it */
    done = submit(m, NVM_OP_READ, 0, 4096, 0, t);
    g_test_message("read among queued programs: %.1f us", (done - t) / 1e3);
    g_assert_cmpfloat(done - t, <, tprog / 2);
    nvm_model_free(m);
    nvm_profile_free(p);
}

/*
 * [controller] die-queue-fifo: the same read waits for every program
 * queued on its die before it and suspends none of them.
 */
static void read_waits_for_queued_programs_with_a_fifo_die_queue(void)
{
    static const char *const kv[] = {
        "channels", "1", "dies-per-channel", "1", "die-bytes", "1073741824",
        "pages-per-block", "48", "capacity-bytes", "800000000",
        "reserved-bytes", "0", "slc-static-bytes", "0",
        "slc-dynamic-max-bytes", "0", "nand-jitter-pct", "0",
        "read-retry-ppm", "0", "read-retry-ppm-eol", "0",
        "nand-power-budget-mw", "5000",
        "[controller]", "die-queue-fifo = true", NULL,
    };
    NvmProfile *p = load_patched("crucial-p5-1tb", kv);
    NvmModel *m = nvm_model_new(p, 1);
    double tprog = p->program_us_native * 1e3;
    uint64_t done, t = 1000000;
    NvmStats st;

    g_assert_true(p->die_fifo);
    nvm_model_set_fill(m, 50, NULL);
    for (unsigned i = 0; i < 4 * 48; i++) {
        submit(m, NVM_OP_WRITE, 629145600 + i * 4096ULL, 4096, 0, 0);
    }
    done = submit(m, NVM_OP_READ, 0, 4096, 0, t);
    nvm_model_get_stats(m, done, &st);
    g_test_message("read behind queued programs, in order: %.1f us",
                   (done - t) / 1e3);
    g_assert_cmpfloat(done - t, >, 3 * tprog);
    g_assert_cmpuint(st.suspends, ==, 0);
    nvm_model_free(m);
    nvm_profile_free(p);
}

static void read_of_data_still_in_the_buffer_touches_no_nand(void)
{
    NvmProfile *p = load_patched("crucial-p5-1tb", one_die);
    NvmModel *m = nvm_model_new(p, 1);
    NvmStats st;
    uint64_t w, r;

    nvm_model_set_fill(m, 50, NULL);
    w = submit(m, NVM_OP_WRITE, 629145600, 4096, 0, 0);
    nvm_model_reset_stats(m, w);
    r = submit(m, NVM_OP_READ, 629145600, 4096, 0, w);
    nvm_model_get_stats(m, r, &st);
    g_test_message("buffered read %.1f us, %" G_GUINT64_FORMAT " NAND "
                   "bytes", (r - w) / 1e3, st.nand_bytes_read);
    g_assert_cmpuint(st.buffer_read_hits, ==, 1);
    g_assert_cmpuint(st.nand_bytes_read, ==, 0);
    g_assert_cmpfloat(r - w, <, p->read_us_native * 1e3);
    /* a neighbour that was never written is unmapped: no NAND either */
    r = submit(m, NVM_OP_READ, 734003200, 4096, 0, r);
    nvm_model_get_stats(m, r, &st);
    g_assert_cmpuint(st.nand_bytes_read, ==, 0);
    /* written data of the fill is read from NAND */
    r = submit(m, NVM_OP_READ, 4096, 4096, 0, r);
    nvm_model_get_stats(m, r, &st);
    g_assert_cmpuint(st.nand_bytes_read, >=, 4096);
    nvm_model_free(m);
    nvm_profile_free(p);
}

static void trimmed_data_reads_as_unmapped(void)
{
    NvmProfile *p = load_patched("crucial-p5-1tb", one_die);
    NvmModel *m = nvm_model_new(p, 1);
    NvmStats st;
    uint64_t t;

    nvm_model_set_fill(m, 100, NULL);
    t = submit(m, NVM_OP_DISCARD, 0, 1 << 20, 0, 0);
    nvm_model_reset_stats(m, t);
    for (unsigned i = 0; i < 256; i++) {
        t = submit(m, NVM_OP_READ, i * 4096ULL, 4096, 0, t);
    }
    nvm_model_get_stats(m, t, &st);
    g_assert_cmpuint(st.nand_bytes_read, ==, 0);
    for (unsigned i = 256; i < 512; i++) {
        t = submit(m, NVM_OP_READ, i * 4096ULL, 4096, 0, t);
    }
    nvm_model_get_stats(m, t, &st);
    g_assert_cmpuint(st.nand_bytes_read, >=, 256 * 4096);
    nvm_model_free(m);
    nvm_profile_free(p);
}

static void fua_write_waits_for_its_program_and_flush_for_the_journal(void)
{
    NvmProfile *p = load_patched("crucial-p5-1tb", one_die);
    NvmModel *m = nvm_model_new(p, 1);
    double tprog = p->program_us_native * 1e3;
    uint64_t w, f, fua, t = 0;

    nvm_model_set_fill(m, 50, NULL);
    w = submit(m, NVM_OP_WRITE, 629145600, 4096, 0, t);
    g_assert_cmpfloat(w - t, <, 100e3);
    /* the flush programs the open unit, then a map journal page (SLC) */
    f = submit(m, NVM_OP_FLUSH, 0, 0, 0, w);
    g_test_message("write %.1f us, flush %.1f us", (w - t) / 1e3,
                   (f - w) / 1e3);
    g_assert_cmpfloat(f - w, >, tprog + p->program_us_slc * 1e3 * 0.9);
    /* nothing written since: the next flush is cheap */
    t = submit(m, NVM_OP_FLUSH, 0, 0, 0, f);
    g_assert_cmpfloat(t - f, <, 100e3);
    /* a FUA write completes once its (padded) unit is programmed */
    fua = submit(m, NVM_OP_WRITE, 629149696, 4096, NVM_CMD_FUA, t);
    g_test_message("FUA write %.1f us", (fua - t) / 1e3);
    g_assert_cmpfloat(fua - t, >, tprog);
    nvm_model_free(m);
    nvm_profile_free(p);
}

/*
 * What a power cut keeps: the stream prefix whose program units finished.
 * A write that only filled the buffer is not in it, even once it has
 * completed; after a flush's completion, or a FUA write's, everything
 * written before is; and a state reset keeps the positions increasing.
 */
static void buffered_writes_are_volatile_until_programmed(void)
{
    NvmProfile *p = load_patched("crucial-p5-1tb", one_die);
    NvmModel *m = nvm_model_new(p, 1);
    uint64_t t = 0, w, f, s0, s1;

    g_assert_cmpuint(nvm_model_stream_bytes(m), ==, 0);
    g_assert_cmpuint(nvm_model_stream_programmed(m, 0), ==, 0);
    w = submit(m, NVM_OP_WRITE, 1 << 20, 4096, 0, t);
    s1 = nvm_model_stream_bytes(m);
    g_assert_cmpuint(s1, ==, 4096);
    /* acknowledged, but still in the buffer, a second or an hour later */
    g_assert_cmpuint(nvm_model_stream_programmed(m, w), ==, 0);
    g_assert_cmpuint(nvm_model_stream_programmed(m, w + 3600e9), ==, 0);
    f = submit(m, NVM_OP_FLUSH, 0, 0, 0, w);
    g_assert_cmpuint(nvm_model_stream_programmed(m, w), ==, 0);
    g_assert_cmpuint(nvm_model_stream_programmed(m, f), ==, s1);
    /* a FUA write: its (padded) unit is programmed when it completes */
    s0 = nvm_model_stream_bytes(m);
    w = submit(m, NVM_OP_WRITE, 2 << 20, 4096, NVM_CMD_FUA, f);
    s1 = nvm_model_stream_bytes(m);
    g_assert_cmpuint(nvm_model_stream_programmed(m, f), ==, s0);
    g_assert_cmpuint(nvm_model_stream_programmed(m, w), ==, s1);
    /* a state change empties the buffer; positions keep increasing */
    nvm_model_set_fill(m, 10, NULL);
    g_assert_cmpuint(nvm_model_stream_bytes(m), ==, s1);
    w = submit(m, NVM_OP_WRITE, 3 << 20, 8192, 0, w);
    g_assert_cmpuint(nvm_model_stream_bytes(m), ==, s1 + 8192);
    g_assert_cmpuint(nvm_model_stream_programmed(m, w), ==, s1);
    nvm_model_free(m);
    nvm_profile_free(p);
}

/*
 * Random writes on an empty mini drive: while free superblocks last,
 * writes only fill the buffer; once GC must run, latency spikes appear
 * and throughput dips.
 */
static void gc_brings_latency_spikes_as_the_drive_fills(void)
{
    NvmProfile *p = load_patched("crucial-p5-1tb", mini_drive);
    NvmModel *m = nvm_model_new(p, 1);
    NvmWorkload wl = { "4k-random-write", NVM_OP_WRITE, 4096, false, 32 };
    uint64_t now = 0;
    double first_p99 = 0, worst_p99 = 0, first_iops = 0, low_iops = 1e12;

    nvm_model_set_fill(m, 85, NULL);
    for (int sec = 0; sec < 16; sec++) {
        NvmRunSpec spec = {
            .wl = &wl, .lba_bytes = p->lba_bytes,
            .span_bytes = p->capacity_bytes * 85 / 100 & ~4095ULL,
            .duration_ns = 1000000000ULL,
        };
        NvmRunResult r;
        NvmStats st;

        nvm_curve_run(m, &spec, sec + 1, &now, &r);
        nvm_model_get_stats(m, now, &st);
        g_test_message("s %2d: %6.0f IOPS p99 %8.1f us, free %u, GC %.2f GB",
                       sec, r.fig.iops, r.fig.p99_us, st.free_superblocks,
                       st.gc_bytes / 1e9);
        if (sec == 0) {
            first_p99 = r.fig.p99_us;
            first_iops = r.fig.iops;
        }
        worst_p99 = MAX(worst_p99, r.fig.p99_us);
        low_iops = MIN(low_iops, r.fig.iops);
    }
    g_assert_cmpfloat(worst_p99, >, first_p99 * 5);
    g_assert_cmpfloat(low_iops, <, first_iops * 0.6);
    nvm_model_free(m);
    nvm_profile_free(p);
}

/* A steady random state injected at once writes with the steady WA. */
static void injected_steady_state_has_steady_write_amplification(void)
{
    NvmProfile *p = load_patched("crucial-p5-1tb", mini_drive);
    NvmModel *m = nvm_model_new(p, 1);
    NvmWorkload wl = { "4k-random-write", NVM_OP_WRITE, 4096, false, 32 };
    uint64_t span = p->capacity_bytes / 5 & ~4095ULL, now = 0;
    double wa[3];
    g_autoptr(GError) err = NULL;

    g_assert_false(nvm_model_set_steady_random(m, 0, span, &err));
    g_clear_error(&err);
    nvm_model_set_fill(m, 100, NULL);
    g_assert_true(nvm_model_set_steady_random(m, 0, span, &err));
    for (int i = 0; i < 3; i++) {
        NvmRunSpec spec = {
            .wl = &wl, .lba_bytes = p->lba_bytes, .span_bytes = span,
            .duration_ns = 2000000000ULL,
        };
        NvmRunResult r;
        NvmStats st;

        nvm_model_reset_stats(m, now);
        nvm_curve_run(m, &spec, i + 1, &now, &r);
        nvm_model_get_stats(m, now, &st);
        wa[i] = st.write_amplification;
        g_test_message("%d: WA %.2f", i, wa[i]);
    }
    g_assert_cmpfloat(wa[0], >, 1.05);
    g_assert_cmpfloat(fabs(wa[0] - wa[2]), <, 0.15 * wa[2]);
    nvm_model_free(m);
    nvm_profile_free(p);
}

/* ---- [ftl] read-placement: reads timed where the data lies ---- */

/*
 * @name with [ftl] read-placement = @placement and [controller]
 * dynamic-allocation = @dynamic
 */
static NvmProfile *load_allocation(const char *name, const char *placement,
                                   const char *dynamic)
{
    g_autoptr(GError) err = NULL;
    const char *const o[] = {
        "ftl", "read-placement", placement,
        "controller", "dynamic-allocation", dynamic, NULL,
    };
    NvmProfile *p = nvm_profile_load_with(name, NVMIMIC_PROFILE_DIR, o, &err);

    g_assert_no_error(err);
    g_assert_nonnull(p);
    return p;
}

/*
 * @name with [ftl] read-placement = @placement, a run's pages dealt to the
 * dies in turn (the layout the placement tests compare with lba's)
 */
static NvmProfile *load_placement(const char *name, const char *placement)
{
    return load_allocation(name, placement, "false");
}

/* The reviews' state: filled, the static SLC full, @span at steady state. */
static NvmModel *placement_model(const NvmProfile *p, uint64_t span)
{
    NvmModel *m = nvm_model_new(p, 1);

    g_assert_true(nvm_model_set_fill(m, 100, NULL));
    g_assert_true(nvm_model_set_slc_used(m, p->slc_static_bytes, NULL));
    if (span) {
        g_assert_true(nvm_model_set_steady_random(m, 0, span, NULL));
    }
    nvm_model_warm_map(m, 0, p->capacity_bytes);
    return m;
}

/*
 * @n 64 KiB reads one at a time from byte @off on, @stride bytes apart:
 * their total time (ns).
 */
static uint64_t read_64k_qd1(NvmModel *m, const NvmProfile *p, uint64_t off,
                             uint64_t stride, int n, uint64_t *t)
{
    uint64_t sum = 0;

    for (int i = 0; i < n; i++) {
        NvmCmd c = { .op = NVM_OP_READ,
                     .slba = (off + i * stride) / p->lba_bytes,
                     .nlb = 65536 / p->lba_bytes };
        uint64_t d = nvm_model_submit(m, &c, *t);

        sum += d - *t;
        *t = d;
    }
    return sum;
}

/* 64K reads of the steady-state span and of untouched fill data (us). */
static void scattered_and_fill_reads(const char *placement, double *span_us,
                                     double *fill_us)
{
    NvmProfile *p = load_placement("crucial-p5-1tb", placement);
    uint64_t span = 1ULL << 30, t = 1000000000ULL;
    NvmModel *m = placement_model(p, span);
    const int n = 2000;

    *span_us = read_64k_qd1(m, p, 0, span / n & ~65535ULL, n, &t) / 1e3 / n;
    *fill_us = read_64k_qd1(m, p, p->capacity_bytes / 2,
                            span / n & ~65535ULL, n, &t) / 1e3 / n;
    g_test_message("read-placement %s: 64K read %.1f us in the random-"
                   "written span, %.1f us in fill data", placement,
                   *span_us, *fill_us);
    nvm_model_free(m);
    nvm_profile_free(p);
}

static void randomly_rewritten_data_reads_slower_only_where_placed(void)
{
    double span_us, fill_us, lba_span_us, lba_fill_us;

    scattered_and_fill_reads("ftl", &span_us, &fill_us);
    scattered_and_fill_reads("lba", &lba_span_us, &lba_fill_us);
    /*
     * placed: 16 page reads on dies drawn per unit, against 4 striped
     * ones (the P5's dies read one page at a time): a tR or more longer
     */
    g_assert_cmpfloat(span_us, >, 1.3 * fill_us);
    /* LBA striping: the same pages either way (jitter apart) */
    g_assert_cmpfloat(fabs(lba_span_us - lba_fill_us), <, 0.02 * lba_fill_us);
    /* fill data is read where it was with lba */
    g_assert_cmpfloat(fabs(fill_us - lba_fill_us), <, 0.02 * lba_fill_us);
}

/*
 * @n 64 KiB writes one after another from byte @off on (one sequential
 * stream), then an idle second for their programs.
 */
static void write_64k_seq(NvmModel *m, const NvmProfile *p, uint64_t off,
                          int n, uint64_t *t)
{
    for (int i = 0; i < n; i++) {
        NvmCmd c = { .op = NVM_OP_WRITE,
                     .slba = (off + i * 65536ULL) / p->lba_bytes,
                     .nlb = 65536 / p->lba_bytes };

        *t = nvm_model_submit(m, &c, *t);
    }
    *t += 1000000000ULL;
}

/*
 * 64K reads of data written sequentially, of fill data, and of data
 * written in random 4K pieces (us each)
 */
static void written_reads(const char *placement, double us[3])
{
    NvmProfile *p = load_placement("crucial-p5-1tb", placement);
    NvmModel *m = placement_model(p, 0);
    /*
     * 12 MiB from 2 MiB + 64 KiB into a chunk: chunks written in part (a
     * run at its place in the superblock, 4 pages off the LBA's stripe)
     * and whole (a run assumed in LBA order)
     */
    uint64_t seq = (10ULL << 30) + (2 << 20) + 65536;
    uint64_t fill = 20ULL << 30, rnd = 30ULL << 30;
    uint64_t t = 1000000000ULL, st = 1;
    const int n = 192;

    write_64k_seq(m, p, seq, n, &t);
    /* the same amount in 4K pieces, in an order drawn at random */
    for (int i = 0; i < 16 * n; i++) {
        NvmCmd c = { .op = NVM_OP_WRITE, .nlb = 4096 / p->lba_bytes };

        st = st * 6364136223846793005ULL + 1442695040888963407ULL;
        c.slba = (rnd + (st >> 33) % (16 * n) * 4096) / p->lba_bytes;
        t = nvm_model_submit(m, &c, t);
    }
    t += 1000000000ULL;
    us[0] = read_64k_qd1(m, p, seq, 65536, n, &t) / 1e3 / n;
    us[1] = read_64k_qd1(m, p, fill, 65536, n, &t) / 1e3 / n;
    us[2] = read_64k_qd1(m, p, rnd, 65536, n, &t) / 1e3 / n;
    g_test_message("read-placement %s: 64K read %.1f us of a sequential "
                   "write, %.1f us of fill data, %.1f us of 4K random "
                   "writes", placement, us[0], us[1], us[2]);
    nvm_model_free(m);
    nvm_profile_free(p);
}

/*
 * [controller] read-path-slc-mbps: a read's data goes through the read
 * path at read-path-mbps where it came from native pages and at
 * read-path-slc-mbps where it came from SLC pages, the buffer or nowhere
 * (unmapped); without the key every byte takes read-path-mbps.  Paths of
 * 100 and 1000 MB/s take 10.5 and 1.05 ms for 1 MiB.
 */
static uint64_t slc_path_read_ns(NvmModel *m, uint64_t off, uint64_t *t)
{
    uint64_t done = submit(m, NVM_OP_READ, off, 1 << 20, 0, *t);
    uint64_t ns = done - *t;

    *t = done + 1000000;
    return ns;
}

static void read_path_takes_the_slc_rate_for_data_not_on_native_pages(void)
{
    static const char *const slow[] = {
        "read-path-mbps", "100", "nand-jitter-pct", "0",
        "read-retry-ppm", "0", "read-retry-ppm-eol", "0", NULL,
    };
    static const char *const split[] = {
        "read-path-mbps", "100", "nand-jitter-pct", "0",
        "read-retry-ppm", "0", "read-retry-ppm-eol", "0",
        "[controller]", "read-path-slc-mbps = 1000", NULL,
    };
    const double mib = 1 << 20;
    const double native_ns = mib * 1e3 / 100, slc_ns = mib * 1e3 / 1000;
    double ns[2][3];

    for (int i = 0; i < 2; i++) {
        NvmProfile *p = load_patched("crucial-p5-1tb", i ? split : slow);
        NvmModel *m = nvm_model_new(p, 1);
        uint64_t fresh = p->capacity_bytes * 3 / 4 & ~(uint64_t)0xfffff;
        uint64_t t = 0;
        NvmStats st;

        g_assert_cmpfloat(p->read_path_slc_mbps, ==, i ? 1000 : 0);
        nvm_model_set_fill(m, 50, NULL);
        nvm_model_warm_map(m, 0, p->capacity_bytes);
        /* 1 MiB written past the fill lands in the SLC cache */
        for (uint64_t o = 0; o < (1 << 20); o += 131072) {
            t = MAX(t, submit(m, NVM_OP_WRITE, fresh + o, 131072, 0, 0));
        }
        t += 1000000000ULL;         /* the buffer long drained */
        nvm_model_get_stats(m, t, &st);
        g_assert_cmpuint(st.slc_used_bytes, >=, 1 << 20);
        ns[i][0] = slc_path_read_ns(m, 0, &t);          /* fill: native */
        ns[i][1] = slc_path_read_ns(m, fresh, &t);      /* SLC */
        ns[i][2] = slc_path_read_ns(m, fresh + (64 << 20), &t);
        g_test_message("read-path-slc-mbps %s: a 1 MiB read of native data "
                       "%.2f ms, of SLC data %.2f ms, unmapped %.2f ms",
                       i ? "1000" : "absent", ns[i][0] / 1e6, ns[i][1] / 1e6,
                       ns[i][2] / 1e6);
        nvm_model_free(m);
        nvm_profile_free(p);
    }
    /*
     * The path takes the data after the NAND reads: without the key every
     * read takes at least 10.5 ms; with it native data takes as long as
     * before, and SLC and unmapped data save the difference of the two
     * path times, within 2 %.
     */
    for (int k = 0; k < 3; k++) {
        g_assert_cmpfloat(ns[0][k], >=, native_ns);
    }
    g_assert_cmpfloat(fabs(ns[1][0] - ns[0][0]), <, 0.01 * ns[0][0]);
    for (int k = 1; k < 3; k++) {
        double saved = ns[0][k] - ns[1][k];

        g_assert_cmpfloat(ns[1][k], >=, slc_ns);
        g_assert_cmpfloat(fabs(saved - (native_ns - slc_ns)), <,
                          0.02 * (native_ns - slc_ns));
    }
}

/*
 * [controller] data-path-streams: a command's data passes the link and the
 * controller's read or write path in 4 KiB units, so a 1 MiB command's two
 * stages overlap, where without the key each takes the whole command
 * before the next starts.  On the P5 (PCIe 3.0 x4: at most 3,940 MB/s;
 * paths of 3,400 MB/s read and 3,000 MB/s write) a 1 MiB write or read of
 * unmapped data (no NAND read) costs both stages' times without it and
 * the slower stage's and one unit of the faster with it; a 4 KiB command,
 * one unit, the same either way.
 */
static uint64_t one_command_ns(const NvmProfile *p, NvmOp op, uint32_t bytes)
{
    NvmModel *m = nvm_model_new(p, 1);
    uint64_t t = 1000000;
    uint64_t ns = submit(m, op, 0, bytes, 0, t) - t;

    nvm_model_free(m);
    return ns;
}

static void data_path_streams_overlaps_a_large_commands_stages(void)
{
    static const char *const off[] = { NULL };
    static const char *const on[] = {
        "[controller]", "data-path-streams = true", NULL,
    };
    NvmProfile *p[2] = {
        load_patched("crucial-p5-1tb", off),
        load_patched("crucial-p5-1tb", on),
    };
    const double mib = 1 << 20, link_min_ns = mib * 1e3 / 3940;
    double w[2], r[2], w4[2], r4[2];

    g_assert_false(p[0]->data_path_streams);
    g_assert_true(p[1]->data_path_streams);
    for (int i = 0; i < 2; i++) {
        w[i] = one_command_ns(p[i], NVM_OP_WRITE, 1 << 20);
        r[i] = one_command_ns(p[i], NVM_OP_READ, 1 << 20);
        w4[i] = one_command_ns(p[i], NVM_OP_WRITE, 4096);
        r4[i] = one_command_ns(p[i], NVM_OP_READ, 4096);
        g_test_message("data-path-streams %s: 1 MiB write %.1f us, read "
                       "%.1f us; 4 KiB %.2f / %.2f us", i ? "on" : "off",
                       w[i] / 1e3, r[i] / 1e3, w4[i] / 1e3, r4[i] / 1e3);
    }
    for (int i = 0; i < 2; i++) {
        double wpath = mib * 1e3 / p[i]->write_path_mbps;
        double rpath = mib * 1e3 / p[i]->read_path_mbps;

        if (!i) {
            /* store and forward: the path and the link one after the other */
            g_assert_cmpfloat(w[i], >=, wpath + link_min_ns);
            g_assert_cmpfloat(r[i], >=, rpath + link_min_ns);
        } else {
            /*
             * streamed: the slower stage (the path) and a unit of the
             * other; the link's time, at least 266 us, is saved but for
             * its last unit (the drive's wake-up from idle, in both)
             */
            g_assert_cmpfloat(w[i], >=, wpath);
            g_assert_cmpfloat(r[i], >=, rpath);
            g_assert_cmpfloat(w[0] - w[i], >=, 0.95 * link_min_ns);
            g_assert_cmpfloat(r[0] - r[i], >=, 0.95 * link_min_ns);
        }
    }
    g_assert_cmpfloat(w4[1], ==, w4[0]);
    g_assert_cmpfloat(r4[1], ==, r4[0]);
    nvm_profile_free(p[0]);
    nvm_profile_free(p[1]);
}

static void sequentially_written_data_reads_as_striped(void)
{
    double on[3], off[3];

    written_reads("ftl", on);
    written_reads("lba", off);
    /*
     * a sequential write lies striped: read in the time the LBA's stripe
     * takes, within 3 % (in SLC: faster than the fill's native data)
     */
    g_assert_cmpfloat(fabs(on[0] - off[0]), <, 0.03 * off[0]);
    g_assert_cmpfloat(fabs(on[1] - off[1]), <, 0.03 * off[1]);
    /* 4K pieces written at random do not */
    g_assert_cmpfloat(on[2], >, 1.3 * off[2]);
}

/*
 * [controller] dynamic-allocation: a multi-plane page (a page on each of
 * the P5's 4 planes) lies on one die, so a 64K read of fill data reads
 * its four pages one after another there instead of on four dies at
 * once; each holds the die for its tR and its data-out.  Data rewritten
 * at random is read as before (one page read per unit on a die drawn per
 * unit), apart from the units the span's state left where the fill put
 * them.
 */
static void dynamic_allocation_reads_a_multiplane_page_on_one_die(void)
{
    NvmProfile *stripe = load_allocation("crucial-p5-1tb", "ftl", "false");
    NvmProfile *dyn = load_allocation("crucial-p5-1tb", "ftl", "true");
    uint64_t span = 1ULL << 30, stride = span / 500 & ~65535ULL;
    double fill[2], rnd[2];
    double page_us = dyn->read_us_native +
                     dyn->page_bytes / dyn->channel_mbps;
    const int n = 500;

    g_assert_false(stripe->dynamic_alloc);
    g_assert_true(dyn->dynamic_alloc);
    g_assert_cmpuint(dyn->planes, ==, 4);
    for (int i = 0; i < 2; i++) {
        NvmProfile *p = i ? dyn : stripe;
        NvmModel *m = placement_model(p, span);
        uint64_t t = 1000000000ULL;

        rnd[i] = read_64k_qd1(m, p, 0, stride, n, &t) / 1e3 / n;
        fill[i] = read_64k_qd1(m, p, p->capacity_bytes / 2 & ~65535ULL,
                               stride, n, &t) / 1e3 / n;
        g_test_message("dynamic-allocation %s: 64K read %.1f us of fill "
                       "data, %.1f us in the random-written span",
                       i ? "true" : "false", fill[i], rnd[i]);
        nvm_model_free(m);
    }
    /* three more page reads, each tR + 16 KiB on the channel (8 %) */
    g_assert_cmpfloat(fabs(fill[1] - fill[0] - 3 * page_us), <,
                      0.08 * 3 * page_us);
    g_assert_cmpfloat(fabs(rnd[1] - rnd[0]), <, 0.02 * rnd[0]);
    nvm_profile_free(stripe);
    nvm_profile_free(dyn);
}

static void placed_reads_repeat_exactly(void)
{
    double a[2], b[2], c[3], d[3];

    scattered_and_fill_reads("ftl", &a[0], &a[1]);
    scattered_and_fill_reads("ftl", &b[0], &b[1]);
    written_reads("ftl", c);
    written_reads("ftl", d);
    g_assert_cmpmem(a, sizeof(a), b, sizeof(b));
    g_assert_cmpmem(c, sizeof(c), d, sizeof(d));
}

/*
 * The reviews' span brought to steady state by simulation: random 4 KiB
 * writes through the FTL with the host write path's own policy (greedy
 * GC from start-free-blocks), in passes of one span's worth, until a
 * pass's WA is within 1 % of the one before.
 */
static const char *const mini_review[] = {
    "channels", "2", "dies-per-channel", "1", "die-bytes", "1073741824",
    "pages-per-block", "24", "capacity-bytes", "2000000000",
    "reserved-bytes", "0", "slc-static-bytes", "0",
    "slc-dynamic-max-bytes", "0", "steady-state", "formula", NULL,
};
#define MINI_SPAN (400ULL << 20)

static NvmModel *mini_preconditioned(const NvmProfile *p, uint64_t seed,
                                     NvmPrecondition *r)
{
    NvmModel *m = nvm_model_new(p, seed);
    g_autoptr(GError) err = NULL;

    g_assert_true(nvm_model_set_fill(m, 100, &err));
    g_assert_true(nvm_model_precondition_random(m, 0, MINI_SPAN, 0, r,
                                                &err));
    g_assert_no_error(err);
    g_test_message("seed %" PRIu64 ": %u passes, WA %.4f (before %.4f), "
                   "%" PRIu64 " victims %.4f valid", seed, r->passes, r->wa,
                   r->wa_prev, r->victims, r->victim_valid);
    return m;
}

static void simulated_steady_state_holds_its_write_amplification(void)
{
    NvmProfile *p = load_patched("crucial-p5-1tb", mini_review);
    NvmPrecondition r, more, f;
    NvmModel *m = mini_preconditioned(p, 1, &r);
    NvmModel *g = nvm_model_new(p, 1);
    g_autoptr(GError) err = NULL;

    /* one more pass of random writes: the same WA */
    g_assert_true(nvm_model_precondition_random(m, 0, MINI_SPAN, 1, &more,
                                                &err));
    g_test_message("one more pass: WA %.4f, victims %.4f valid", more.wa,
                   more.victim_valid);
    g_assert_cmpuint(more.passes, ==, 1);
    g_assert_cmpfloat(fabs(more.wa - r.wa), <=, 0.02 * r.wa);
    /* it stopped because the WA held, not at the pass limit */
    g_assert_cmpuint(r.passes, >=, 2);
    g_assert_cmpuint(r.passes, <, NVM_PRECONDITION_MAX_PASSES);
    g_assert_cmpfloat(fabs(r.wa - r.wa_prev), <=, 0.01 * r.wa_prev);
    g_assert_cmpfloat(r.wa, >, 1.2);
    /*
     * Greedy GC at steady state.  Mean field (a unit written t host
     * writes ago is still valid with probability e^(-t / span), blocks
     * so large that they all decay alike, greedy = oldest first): the
     * victims' valid share u solves u = e^(-a (1 - u)), a = the physical
     * space the span circulates in over its size; that is what
     * nvm_ftl_scatter's decay puts in place.  Finite superblocks let
     * greedy do a little better (lower u) than this limit.
     */
    {
        uint64_t sb = (uint64_t)p->dies_per_channel * p->channels *
                      p->pages_per_block * p->planes * p->page_bytes;
        uint64_t nsb = p->raw_bytes / sb;
        /* cold data in whole superblocks; free ones kept (GC runs below
         * start-free-blocks) and about one open superblock lost */
        double phys = (double)(nsb - p->gc_start_free) * sb -
                      (p->capacity_bytes - MINI_SPAN) - sb;
        double a = phys / MINI_SPAN, ustar = 0.5;

        for (int i = 0; i < 1000; i++) {
            ustar = exp(-a * (1 - ustar));
        }
        g_test_message("mean field: a %.3f, u* %.4f", a, ustar);
        g_assert_cmpfloat(more.victim_valid, <=, ustar + 0.01);
        g_assert_cmpfloat(more.victim_valid, >=, ustar - 0.05);
    }
    /* and as in the formula's state: one pass of writes from it */
    g_assert_true(nvm_model_set_fill(g, 100, &err));
    g_assert_true(nvm_model_set_steady_random(g, 0, MINI_SPAN, &err));
    g_assert_true(nvm_model_precondition_random(g, 0, MINI_SPAN, 1, &f,
                                                &err));
    g_test_message("formula, one pass: WA %.4f, victims %.4f valid", f.wa,
                   f.victim_valid);
    g_assert_cmpfloat(fabs(more.victim_valid - f.victim_valid), <, 0.02);
    g_assert_cmpfloat(fabs(more.wa - f.wa), <, 0.03 * f.wa);
    nvm_model_free(g);
    nvm_model_free(m);
    nvm_profile_free(p);
}

static void simulated_steady_state_keeps_every_unit_and_its_counts(void)
{
    NvmProfile *p = load_patched("crucial-p5-1tb", mini_review);
    NvmPrecondition r;
    NvmModel *m = mini_preconditioned(p, 3, &r);
    uint64_t x = 77, now = 0;
    g_autofree char *why = NULL;
    NvmStats st;

    /* every count recounts, nothing lost, every unit still holds data */
    g_assert_true(nvm_model_check_state(m, &why));
    g_assert_null(why);
    nvm_model_get_stats(m, 0, &st);
    g_assert_cmpuint(st.valid_bytes, ==,
                     p->capacity_bytes / 4096 * 4096);
    g_assert_cmpfloat(st.write_amplification, ==, 0);
    g_assert_cmpuint(st.host_bytes_written, ==, 0);
    g_assert_cmpuint(st.total_nand_bytes_written, ==, 0);
    g_assert_cmpuint(st.free_superblocks, >=, p->gc_urgent_free);
    /* reads of the span's units are mapped: each reads NAND */
    for (int i = 0; i < 200; i++) {
        uint64_t off = nvm_rng_u64(&x) % (MINI_SPAN / 4096) * 4096;
        NvmCmd c = { .op = NVM_OP_READ, .slba = off / p->lba_bytes,
                     .nlb = 4096 / p->lba_bytes };
        uint64_t before;

        nvm_model_get_stats(m, now, &st);
        before = st.nand_bytes_read;
        now = nvm_model_submit(m, &c, now);
        nvm_model_get_stats(m, now, &st);
        g_assert_cmpuint(st.nand_bytes_read, >, before);
    }
    nvm_model_free(m);
    nvm_profile_free(p);
}

/* The same seed gives the same state; the profile key selects it. */
static void simulated_steady_state_is_deterministic(void)
{
    static const char *const keyed[] = {
        "channels", "2", "dies-per-channel", "1", "die-bytes", "1073741824",
        "pages-per-block", "24", "capacity-bytes", "2000000000",
        "reserved-bytes", "0", "slc-static-bytes", "0",
        "slc-dynamic-max-bytes", "0", "steady-state", "simulated", NULL,
    };
    NvmProfile *p = load_patched("crucial-p5-1tb", mini_review);
    NvmProfile *q = load_patched("crucial-p5-1tb", keyed);
    NvmWorkload wl = { "4k-random-write", NVM_OP_WRITE, 4096, false, 32 };
    NvmRunSpec spec = {
        .wl = &wl, .lba_bytes = p->lba_bytes, .span_bytes = MINI_SPAN,
        .duration_ns = 500000000ULL,
    };
    NvmPrecondition r[2];
    NvmRunResult run[3];
    NvmModel *m;
    g_autoptr(GError) err = NULL;

    g_assert_cmpint(p->review_steady_state, ==, NVM_STEADY_FORMULA);
    g_assert_cmpint(q->review_steady_state, ==, NVM_STEADY_SIMULATED);
    /* each computed afresh (the checkpoints' own test is below) */
    nvm_model_precondition_checkpoints(false);
    for (int i = 0; i < 3; i++) {
        uint64_t now = 0;
        NvmStats st;

        if (i < 2) {
            m = mini_preconditioned(p, 5, &r[i]);
        } else {
            /* [review] steady-state = simulated: the same, by the key */
            m = nvm_model_new(q, 5);
            g_assert_true(nvm_model_set_fill(m, 100, &err));
            g_assert_true(nvm_model_set_steady_random(m, 0, MINI_SPAN,
                                                      &err));
        }
        nvm_curve_run(m, &spec, 9, &now, &run[i]);
        nvm_model_get_stats(m, now, &st);
        g_test_message("run %d: %.1f IOPS, WA %.4f", i, run[i].fig.iops,
                       st.write_amplification);
        nvm_model_free(m);
    }
    g_assert_cmpuint(r[0].passes, ==, r[1].passes);
    g_assert_cmpfloat(r[0].wa, ==, r[1].wa);
    g_assert_cmpfloat(r[0].victim_valid, ==, r[1].victim_valid);
    for (int i = 1; i < 3; i++) {
        g_assert_cmpuint(run[i].ios, ==, run[0].ios);
        g_assert_cmpfloat(run[i].fig.iops, ==, run[0].fig.iops);
        g_assert_cmpfloat(run[i].fig.p99_us, ==, run[0].fig.p99_us);
    }
    nvm_model_precondition_checkpoints(true);
    nvm_profile_free(q);
    nvm_profile_free(p);
}

/*
 * A preconditioning copied from its checkpoint is the one computed afresh,
 * bit for bit: the mapping state, what it reports, and every figure of a
 * run after it.  A drive that differs only in timing values (what nvmimic
 * fit moves but the B17A's program time: tR, firmware costs, read path,
 * power budget) gets the same state; one that differs in a write policy
 * value (GC's start mark, the program times that set when the SLC cache
 * refolds) or in the seed computes its own.
 */
static void precondition_checkpoint_equals_a_fresh_precondition(void)
{
    static const char *const timing[] = {
        "channels", "2", "dies-per-channel", "1", "die-bytes", "1073741824",
        "pages-per-block", "24", "capacity-bytes", "2000000000",
        "reserved-bytes", "0", "slc-static-bytes", "0",
        "slc-dynamic-max-bytes", "0", "read-us-tlc", "80",
        "read-us-slc", "40", "read-cmd-ns", "9000", "write-cmd-ns", "3000",
        "read-path-mbps", "3000", "nand-power-budget-mw", "500", NULL,
    };
    static const char *const policy[] = {
        "channels", "2", "dies-per-channel", "1", "die-bytes", "1073741824",
        "pages-per-block", "24", "capacity-bytes", "2000000000",
        "reserved-bytes", "0", "slc-static-bytes", "0",
        "slc-dynamic-max-bytes", "0", "start-free-blocks", "12", NULL,
    };
    /* the program times set when the SLC cache refolds (model.c) */
    static const char *const programs[] = {
        "channels", "2", "dies-per-channel", "1", "die-bytes", "1073741824",
        "pages-per-block", "24", "capacity-bytes", "2000000000",
        "reserved-bytes", "0", "slc-static-bytes", "0",
        "slc-dynamic-max-bytes", "0", "program-us-tlc", "2000", NULL,
    };
    NvmProfile *p = load_patched("crucial-p5-1tb", mini_review);
    NvmProfile *t = load_patched("crucial-p5-1tb", timing);
    NvmProfile *q = load_patched("crucial-p5-1tb", policy);
    NvmProfile *g = load_patched("crucial-p5-1tb", programs);
    NvmWorkload wl = { "4k-random-write", NVM_OP_WRITE, 4096, false, 32 };
    NvmRunSpec spec = {
        .wl = &wl, .lba_bytes = p->lba_bytes, .span_bytes = MINI_SPAN,
        .duration_ns = 500000000ULL,
    };
    NvmPrecondition r[7];
    NvmRunResult run[2];
    NvmStats st[2];
    NvmModel *m[7];
    char *why = NULL;

    g_assert_cmpfloat(t->nand_power_budget_mw, ==, 500);
    nvm_model_precondition_checkpoints(false);
    m[0] = mini_preconditioned(p, 7, &r[0]);            /* afresh */
    nvm_model_precondition_checkpoints(true);
    m[1] = mini_preconditioned(p, 7, &r[1]);            /* computed, kept */
    g_assert_cmpuint(nvm_model_precondition_checkpoint_hits(), ==, 0);
    m[2] = mini_preconditioned(p, 7, &r[2]);            /* copied */
    g_assert_cmpuint(nvm_model_precondition_checkpoint_hits(), ==, 1);
    m[3] = mini_preconditioned(t, 7, &r[3]);            /* copied */
    g_assert_cmpuint(nvm_model_precondition_checkpoint_hits(), ==, 2);
    m[4] = mini_preconditioned(q, 7, &r[4]);            /* its own */
    m[5] = mini_preconditioned(p, 8, &r[5]);            /* its own */
    m[6] = mini_preconditioned(g, 7, &r[6]);            /* its own */
    g_assert_cmpuint(nvm_model_precondition_checkpoint_hits(), ==, 2);
    for (int i = 1; i < 4; i++) {
        g_assert_cmpuint(nvm_model_state_digest(m[i]), ==,
                         nvm_model_state_digest(m[0]));
        g_assert_cmpuint(r[i].passes, ==, r[0].passes);
        g_assert_cmpfloat(r[i].wa, ==, r[0].wa);
        g_assert_cmpfloat(r[i].wa_prev, ==, r[0].wa_prev);
        g_assert_cmpuint(r[i].victims, ==, r[0].victims);
        g_assert_cmpfloat(r[i].victim_valid, ==, r[0].victim_valid);
        g_assert_cmpfloat(r[i].folded_share, ==, r[0].folded_share);
        g_assert_true(nvm_model_check_state(m[i], &why));
    }
    g_assert_cmpuint(nvm_model_state_digest(m[5]), !=,
                     nvm_model_state_digest(m[0]));
    /* what the model reports of it */
    nvm_model_get_stats(m[0], 0, &st[0]);
    nvm_model_get_stats(m[2], 0, &st[1]);
    g_assert_cmpfloat(st[0].gc_wa_now, >, 1);
    g_assert_cmpmem(&st[1], sizeof(st[1]), &st[0], sizeof(st[0]));
    /* the run after it: the fresh state's and the copy's, to the bit */
    for (int i = 0; i < 2; i++) {
        NvmModel *x = m[i ? 2 : 0];
        uint64_t now = 0;

        nvm_curve_run(x, &spec, 9, &now, &run[i]);
        nvm_model_get_stats(x, now, &st[i]);
        g_test_message("%s: %.1f IOPS, WA %.4f", i ? "copied" : "afresh",
                       run[i].fig.iops, st[i].write_amplification);
    }
    g_assert_cmpuint(run[1].ios, ==, run[0].ios);
    g_assert_cmpfloat(run[1].fig.iops, ==, run[0].fig.iops);
    g_assert_cmpfloat(run[1].fig.lat_us, ==, run[0].fig.lat_us);
    g_assert_cmpfloat(run[1].fig.p99_us, ==, run[0].fig.p99_us);
    g_assert_cmpfloat(st[1].write_amplification, ==,
                      st[0].write_amplification);
    g_assert_cmpuint(nvm_model_state_digest(m[2]), ==,
                     nvm_model_state_digest(m[0]));
    for (int i = 0; i < 7; i++) {
        nvm_model_free(m[i]);
    }
    nvm_profile_free(g);
    nvm_profile_free(q);
    nvm_profile_free(t);
    nvm_profile_free(p);
}

/* ---- host memory buffer, thermal model ---- */

static void host_memory_buffer_size_sets_map_misses(void)
{
    NvmProfile *p = load("crucial-p2-2tb");
    NvmProfile *q = load("crucial-p5-1tb");
    NvmWorkload wl = { "4k-random-read", NVM_OP_READ, 4096, false, 16 };
    uint64_t hmb[2] = { 0, 64ULL << 20 };
    double misses[2];
    g_autoptr(GError) err = NULL;
    NvmModel *m;

    for (int i = 0; i < 2; i++) {
        NvmRunResult r;
        NvmStats st;

        m = nvm_model_new(p, 1);
        nvm_model_set_fill(m, 100, NULL);
        g_assert_true(nvm_model_set_hmb(m, hmb[i], &err));
        closed_loop(m, p, &wl, 20000000000ULL, 0.5, 3, &r);
        nvm_model_get_stats(m, 0, &st);
        misses[i] = (double)st.map_misses / st.cls[NVM_OP_READ].count;
        g_test_message("HMB %" G_GUINT64_FORMAT " MiB: %.0f IOPS, %.2f "
                       "misses per read", hmb[i] >> 20, r.fig.iops, misses[i]);
        nvm_model_free(m);
    }
    /* 64 MiB maps 64 GiB: a 20 GB span stays cached; without it the
     * on-chip cache (1 GiB) misses most reads */
    g_assert_cmpfloat(misses[0], >, 0.5);
    g_assert_cmpfloat(misses[1], <, misses[0] / 2);
    m = nvm_model_new(q, 1);
    g_assert_false(nvm_model_set_hmb(m, 1 << 20, &err));
    g_assert_nonnull(strstr(err->message, "DRAM"));
    nvm_model_free(m);
    nvm_profile_free(p);
    nvm_profile_free(q);
}

/*
 * A write dirties its map chunk; a dirty chunk evicted from the HMB is
 * programmed back to NAND, a page of chunks at a time.  Random writes
 * over a span wider than the HMB's 64 GB of coverage pay it; over a span
 * it covers, or for reads, nothing is written back.
 */
static void dirty_map_chunks_evicted_are_written_back(void)
{
    NvmProfile *p = load("crucial-p2-2tb");
    const NvmWorkload wr = { "4k-random-write", NVM_OP_WRITE, 4096, false,
                             16 };
    const NvmWorkload rd = { "4k-random-read", NVM_OP_READ, 4096, false,
                             16 };
    struct {
        const NvmWorkload *wl;
        uint64_t span;
        uint64_t misses, wbs, nand_w, host_w;
    } c[3] = {
        { .wl = &wr, .span = 20000000000ULL },
        { .wl = &wr, .span = 1000000000000ULL },
        { .wl = &rd, .span = 1000000000000ULL },
    };

    for (int i = 0; i < 3; i++) {
        NvmModel *m = nvm_model_new(p, 1);
        NvmRunResult r;
        NvmStats st;

        nvm_model_set_fill(m, 100, NULL);
        closed_loop(m, p, c[i].wl, c[i].span, 2, 3, &r);
        nvm_model_get_stats(m, 0, &st);
        c[i].misses = st.map_misses;
        c[i].wbs = st.map_writebacks;
        c[i].nand_w = st.nand_bytes_written;
        c[i].host_w = st.host_bytes_written;
        g_test_message("%s over %" G_GUINT64_FORMAT " GB: %.0f IOPS, %"
                       G_GUINT64_FORMAT " misses, %" G_GUINT64_FORMAT
                       " write-backs", c[i].wl->name, c[i].span / 1000000000,
                       r.fig.iops, c[i].misses, c[i].wbs);
        nvm_model_free(m);
    }
    /* a covered span: chunks are loaded once and never evicted */
    g_assert_cmpuint(c[0].wbs, ==, 0);
    /* 1 TB of random writes: most miss, and once the HMB's 16 Ki chunks
     * have turned over (2 s: ~40 K misses) the chunk a miss evicts was
     * dirtied by an earlier write */
    g_assert_cmpuint(c[1].misses, >, c[1].host_w / 4096 / 2);
    g_assert_cmpuint(c[1].wbs, >, c[1].misses / 2);
    g_assert_cmpuint(c[1].wbs, <=, c[1].misses);
    /* reads dirty nothing */
    g_assert_cmpuint(c[2].misses, >, 0);
    g_assert_cmpuint(c[2].wbs, ==, 0);
    g_assert_cmpuint(c[2].nand_w, ==, 0);
    nvm_profile_free(p);
}

/*
 * [map] checkpoint-bytes: every so many host bytes the map chunks written
 * since the last checkpoint are programmed.  Random 4 KiB writes change a
 * chunk (4 MiB of coverage) nearly every write, a sequential 64 KiB stream
 * one per 64 writes, so the cost falls on random writes; with the key
 * absent nothing is checkpointed.
 */
static void map_checkpoints_cost_random_writes_not_sequential(void)
{
    static const char *const ck[] = { "[map]",
                                      "checkpoint-bytes = 8388608", NULL };
    NvmProfile *p[2] = { load("crucial-p5-1tb"),
                         load_patched("crucial-p5-1tb", ck) };
    const NvmWorkload wl[2] = {
        { "4k-random-write", NVM_OP_WRITE, 4096, false, 32 },
        { "64k-seq-write", NVM_OP_WRITE, 65536, true, 8 },
    };
    double iops[2][2], ckpt[2][2], wa[2][2];

    g_assert_cmpuint(p[1]->map_checkpoint_bytes, ==, 8388608);
    for (int k = 0; k < 2; k++) {
        for (int w = 0; w < 2; w++) {
            NvmModel *m = nvm_model_new(p[k], 1);
            NvmRunResult r;
            NvmStats st;

            nvm_model_set_fill(m, 100, NULL);
            iops[k][w] = closed_loop(m, p[k], &wl[w], 50000000000ULL, 1, 3,
                                     &r);
            nvm_model_get_stats(m, 0, &st);
            /* chunks checkpointed per host write */
            ckpt[k][w] = (double)st.map_checkpointed * wl[w].block_bytes /
                         st.host_bytes_written;
            wa[k][w] = (double)st.nand_bytes_written / st.host_bytes_written;
            g_test_message("%s, checkpoints %s: %.0f IOPS, %.3f chunks "
                           "checkpointed per write, WA %.2f", wl[w].name,
                           k ? "every 8 MiB" : "off", iops[k][w],
                           ckpt[k][w], wa[k][w]);
            nvm_model_free(m);
        }
    }
    g_assert_cmpfloat(ckpt[0][0], ==, 0);
    g_assert_cmpfloat(ckpt[0][1], ==, 0);
    /* 2048 random writes a checkpoint over 12,800 chunks: ~0.92 distinct */
    g_assert_cmpfloat(ckpt[1][0], >, 0.85);
    g_assert_cmpfloat(ckpt[1][0], <=, 1.0);
    /* a stream changes a chunk per 64 writes of 64 KiB */
    g_assert_cmpfloat(ckpt[1][1], <, 1.0 / 32);
    /* a 4 KiB chunk per 4 KiB write, in SLC: more NAND per host byte */
    g_assert_cmpfloat(wa[1][0], >, wa[0][0] + 0.5);
    g_assert_cmpfloat(wa[1][1], <, wa[0][1] + 0.05);
    nvm_profile_free(p[0]);
    nvm_profile_free(p[1]);
}

/*
 * A checkpoint every N host bytes, whatever the writes' size: the bytes
 * past a mark count towards the next (40 KiB writes against a 64 KiB mark
 * cross it 5 times in 8 writes, not every second write).
 */
static void map_checkpoints_come_every_n_bytes(void)
{
    static const char *const ck[] = { "[map]",
                                      "checkpoint-bytes = 65536", NULL };
    static const uint32_t size[] = { 40960, 4096, 65536, 200704 };
    NvmProfile *p = load_patched("crucial-p5-1tb", ck);

    for (unsigned k = 0; k < G_N_ELEMENTS(size); k++) {
        NvmModel *m = nvm_model_new(p, 1);
        const unsigned n = 400;
        uint64_t t = 0, host = 0;
        NvmStats st;

        nvm_model_set_fill(m, 50, NULL);
        nvm_model_reset_stats(m, 0);
        for (unsigned i = 0; i < n; i++) {
            /* 7 MiB apart: one map chunk each (4 MiB of coverage) */
            t = submit(m, NVM_OP_WRITE, 1048576ULL * 7 * i, size[k], 0, t);
            host += size[k];
        }
        nvm_model_get_stats(m, t, &st);
        g_test_message("%u writes of %u B: %" PRIu64 " checkpoints, %"
                       PRIu64 " chunks", n, size[k], st.map_checkpoints,
                       st.map_checkpointed);
        g_assert_cmpuint(st.host_bytes_written, ==, host);
        if (size[k] <= 65536) {
            g_assert_cmpuint(st.map_checkpoints, ==, host / 65536);
        } else {
            /* a write that passes several marks takes one checkpoint */
            g_assert_cmpuint(st.map_checkpoints, ==, n);
        }
        /* every chunk a write changed before the last mark is written once */
        g_assert_cmpuint(st.map_checkpointed, >=, st.map_checkpoints);
        g_assert_cmpuint(st.map_checkpointed, <=, n);
        nvm_model_free(m);
    }
    nvm_profile_free(p);
}

static void hot_drive_throttles_and_the_switch_turns_it_off(void)
{
    static const char *const hot[] = {
        "c-per-w", "60", "time-constant-s", "1", "throttle-c", "50",
        "throttle-slowdown", "4", NULL };
    NvmProfile *p = load_patched("crucial-p5-1tb", hot);
    double mbps[2][2], temp[2];
    uint64_t thr[2];

    for (int on = 0; on < 2; on++) {
        NvmModel *m = nvm_model_new(p, 1);
        uint64_t now = 0;
        NvmStats st;

        nvm_model_set_thermal(m, on);
        nvm_model_set_fill(m, 20, NULL);
        {
            /* the first GB from a cool drive, the last of twelve hot */
            GArray *r = write_seq_gb(m, p, &now, 0, 12);

            mbps[on][0] = g_array_index(r, double, 0);
            mbps[on][1] = g_array_index(r, double, r->len - 1);
            g_array_free(r, TRUE);
        }
        nvm_model_get_stats(m, now, &st);
        temp[on] = st.temp_c;
        thr[on] = st.throttled_ns;
        g_test_message("thermal %s: %.0f then %.0f MB/s, %.1f C, throttled "
                       "%.1f s", on ? "on" : "off", mbps[on][0],
                       mbps[on][1], st.temp_c, st.throttled_ns / 1e9);
        nvm_model_free(m);
    }
    g_assert_cmpfloat(temp[1], >=, 48);
    g_assert_cmpuint(thr[1], >, 0);
    g_assert_cmpfloat(mbps[1][1], <, mbps[1][0] * 0.8);
    /* off: the idle temperature, no throttling */
    g_assert_cmpuint(thr[0], ==, 0);
    g_assert_cmpfloat(temp[0], ==, p->temp_idle_c);
    g_assert_cmpfloat(mbps[0][1], >, mbps[0][0] * 0.8);
    nvm_profile_free(p);
}

/*
 * A closed loop on @m over the first @span bytes: @depth (at most 128)
 * commands outstanding, each a read of @read_nlb blocks with @read_pct %
 * chance, else a write of @write_nlb, at a random multiple of @unit_nlb
 * blocks (@unit_bytes each), until every slot passes @until_ns; GRand
 * seeded with @seed.  Returns the commands submitted.
 */
static uint64_t closed_loop_mix(NvmModel *m, uint64_t span, unsigned depth,
                                int read_pct, uint32_t read_nlb,
                                uint32_t write_nlb, uint32_t unit_nlb,
                                uint64_t unit_bytes, uint64_t until_ns,
                                guint32 seed)
{
    uint64_t slots[128] = { 0 };
    GRand *r = g_rand_new_with_seed(seed);
    uint64_t n = 0;

    g_assert_cmpuint(depth, <=, G_N_ELEMENTS(slots));
    for (;;) {
        unsigned k = 0;
        NvmCmd c = { 0 };

        for (unsigned i = 1; i < depth; i++) {
            if (slots[i] < slots[k]) {
                k = i;
            }
        }
        if (slots[k] >= until_ns) {
            break;
        }
        c.op = g_rand_int_range(r, 0, 100) < read_pct ? NVM_OP_READ
                                                        : NVM_OP_WRITE;
        c.slba = g_rand_int_range(r, 0, (gint32)(span / unit_bytes)) *
                 (uint64_t)unit_nlb;
        c.nlb = c.op == NVM_OP_READ ? read_nlb : write_nlb;
        slots[k] = nvm_model_submit(m, &c, slots[k]);
        n++;
    }
    g_rand_free(r);
    return n;
}

/*
 * A die does one thing at a time.  Reads go ahead of queued programs and
 * suspend running ones, which pushes the programs back; a program pushed
 * back must then also make room for the reads already reserved where it
 * lands.  Before it did, this load booked the P5 1 TB's dies for 1.32
 * times the time that passed (2026-12-04), and its mixed IOPS rose above
 * both its pure-read and pure-write runs.
 */
static void dies_are_never_booked_twice(void)
{
    NvmProfile *p = load("crucial-p5-1tb");
    NvmModel *m = nvm_model_new(p, 1);
    uint64_t span = (uint64_t)(p->capacity_bytes * 0.05) & ~4095ULL;
    unsigned ndies = p->channels * p->dies_per_channel;
    NvmDieTime dt;
    uint64_t n;
    double cap, booked;

    g_assert_false(p->independent_plane_reads);
    g_assert_true(nvm_model_set_fill(m, 100, NULL));
    g_assert_true(nvm_model_set_steady_random(m, 0, span, NULL));
    /* 4 KiB random, 60 % reads, 128 outstanding, for 0.4 s */
    n = closed_loop_mix(m, span, 128, 60, 8, 8, 8, 4096, 400000000ULL, 7);
    nvm_model_die_time(m, &dt);
    g_assert_cmpuint(dt.dies, ==, ndies);
    cap = (double)dt.dies * dt.until_ns;
    booked = (dt.op_ns + dt.read_ns) / cap;
    g_test_message("%" G_GUINT64_FORMAT " commands; dies booked %.3f of the "
                   "time (programs %.3f, reads %.3f)", n, booked,
                   dt.op_ns / cap, dt.read_ns / cap);
    /* the load keeps the dies busy, and never more than all the time */
    g_assert_cmpfloat(booked, >, 0.6);
    g_assert_cmpfloat(booked, <=, 1.0);
    nvm_model_free(m);
    nvm_profile_free(p);
}

/*
 * A die's queue keeps every operation that still runs.  On a full drive a
 * write-heavy mix queues relocation copies tens of ms ahead, more than 32
 * operations a die; the fixed ring of 32 forgot running ones (over 400,000
 * in the P5 1 TB's 30 s VDI initial-login peak, 2026-12-04), and a read
 * then neither waited for nor suspended them.  This load (the P5 1 TB
 * full, 5 % in steady state, 20 % reads of 4 KiB, writes of 16 KiB, 32
 * outstanding, 3 s) forgot 41,188 with a ring of 32.
 */
static void die_queues_forget_no_running_operation(void)
{
    NvmProfile *p = load("crucial-p5-1tb");
    NvmModel *m = nvm_model_new(p, 1);
    uint64_t span = (uint64_t)(p->capacity_bytes * 0.05) & ~16383ULL;
    NvmDieTime dt;
    uint64_t n;

    g_assert_true(nvm_model_set_fill(m, 100, NULL));
    g_assert_true(nvm_model_set_steady_random(m, 0, span, NULL));
    n = closed_loop_mix(m, span, 32, 20, 8, 32, 32, 16384, 3000000000ULL,
                        11);
    nvm_model_die_time(m, &dt);
    g_test_message("%" G_GUINT64_FORMAT " commands; %" G_GUINT64_FORMAT
                   " running operations forgotten", n, dt.forgotten);
    g_assert_cmpuint(n, >, 10000);
    g_assert_cmpuint(dt.forgotten, ==, 0);
    nvm_model_free(m);
    nvm_profile_free(p);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/model/dies_are_never_booked_twice",
                    dies_are_never_booked_twice);
    g_test_add_func("/model/die_queues_forget_no_running_operation",
                    die_queues_forget_no_running_operation);
    g_test_add_func("/model/slc_cache_exhausted_drops_to_native_rate_at_"
                    "cache_size",
                    slc_cache_exhausted_drops_to_native_rate_at_cache_size);
    g_test_add_func("/model/state_injected_after_idle_is_not_folded_by_"
                    "that_idle",
                    state_injected_after_idle_is_not_folded_by_that_idle);
    g_test_add_func("/model/rewritten_span_keeps_the_slc_rate_past_the_cache_"
                    "size",
                    rewritten_span_keeps_the_slc_rate_past_the_cache_size);
    g_test_add_func("/model/full_drive_writes_through_its_static_slc_only_"
                    "when_told",
                    full_drive_writes_through_its_static_slc_only_when_told);
    g_test_add_func("/model/idle_folding_restores_slc_write_rate",
                    idle_folding_restores_slc_write_rate);
    g_test_add_func("/model/fuller_drive_gives_lower_steady_random_write_"
                    "rate", fuller_drive_gives_lower_steady_random_write_rate);
    g_test_add_func("/model/hmb_map_miss_costs_an_extra_nand_read",
                    hmb_map_miss_costs_an_extra_nand_read);
    g_test_add_func("/model/littles_law_holds_at_saturation",
                    littles_law_holds_at_saturation);
    g_test_add_func("/model/same_seed_repeats_exactly_other_seed_differs",
                    same_seed_repeats_exactly_other_seed_differs);
    g_test_add_func("/model/power_state_exit_latency_appears_after_idle",
                    power_state_exit_latency_appears_after_idle);
    g_test_add_func("/model/lowest_load_latency_is_above_moderate_load",
                    lowest_load_latency_is_above_moderate_load);
    g_test_add_func("/model/state_injection_rejects_out_of_range",
                    state_injection_rejects_out_of_range);
    g_test_add_func("/model/trim_empties_and_flush_waits_for_nand",
                    trim_empties_and_flush_waits_for_nand);
    g_test_add_func("/model/model_state_is_small_for_2tb_profiles",
                    model_state_is_small_for_2tb_profiles);
    g_test_add_func("/model/smallest_program_unit_with_largest_buffer_"
                    "writes", smallest_program_unit_with_largest_buffer_writes);
    g_test_add_func("/model/largest_accepted_geometry_stays_within_stated_"
                    "memory",
                    largest_accepted_geometry_stays_within_stated_memory);
    g_test_add_func("/model/slowest_accepted_profile_answers_within_seconds",
                    slowest_accepted_profile_answers_within_seconds);
    g_test_add_func("/model/nand_bytes_written_never_decrease_across_"
                    "folding", nand_bytes_written_never_decrease_across_folding);
    g_test_add_func("/model/completions_never_precede_submission",
                    completions_never_precede_submission);
    g_test_add_func("/model/mapped_ranges_are_read_from_nand_the_rest_is_not",
                    mapped_ranges_are_read_from_nand_the_rest_is_not);
    g_test_add_func("/model/read_suspends_a_program_up_to_the_parts_limit",
                    read_suspends_a_program_up_to_the_parts_limit);
    g_test_add_func("/model/read_goes_ahead_of_queued_programs",
                    read_goes_ahead_of_queued_programs);
    g_test_add_func("/model/read_waits_for_queued_programs_with_a_fifo_"
                    "die_queue",
                    read_waits_for_queued_programs_with_a_fifo_die_queue);
    g_test_add_func("/model/read_of_data_still_in_the_buffer_touches_no_nand",
                    read_of_data_still_in_the_buffer_touches_no_nand);
    g_test_add_func("/model/trimmed_data_reads_as_unmapped",
                    trimmed_data_reads_as_unmapped);
    g_test_add_func("/model/fua_write_waits_for_its_program_and_flush_for_"
                    "the_journal",
                    fua_write_waits_for_its_program_and_flush_for_the_journal);
    g_test_add_func("/model/buffered_writes_are_volatile_until_programmed",
                    buffered_writes_are_volatile_until_programmed);
    g_test_add_func("/model/gc_brings_latency_spikes_as_the_drive_fills",
                    gc_brings_latency_spikes_as_the_drive_fills);
    g_test_add_func("/model/injected_steady_state_has_steady_write_"
                    "amplification",
                    injected_steady_state_has_steady_write_amplification);
    g_test_add_func("/model/simulated_steady_state_holds_its_write_"
                    "amplification",
                    simulated_steady_state_holds_its_write_amplification);
    g_test_add_func("/model/simulated_steady_state_keeps_every_unit_and_"
                    "its_counts",
                    simulated_steady_state_keeps_every_unit_and_its_counts);
    g_test_add_func("/model/simulated_steady_state_is_deterministic",
                    simulated_steady_state_is_deterministic);
    g_test_add_func("/model/precondition_checkpoint_equals_a_fresh_"
                    "precondition",
                    precondition_checkpoint_equals_a_fresh_precondition);
    g_test_add_func("/model/host_memory_buffer_size_sets_map_misses",
                    host_memory_buffer_size_sets_map_misses);
    g_test_add_func("/model/dirty_map_chunks_evicted_are_written_back",
                    dirty_map_chunks_evicted_are_written_back);
    g_test_add_func("/model/map_checkpoints_cost_random_writes_not_sequential",
                    map_checkpoints_cost_random_writes_not_sequential);
    g_test_add_func("/model/map_checkpoints_come_every_n_bytes",
                    map_checkpoints_come_every_n_bytes);
    g_test_add_func("/model/reads_after_idle_spells_are_not_queued_behind_"
                    "later_ones",
                    reads_after_idle_spells_are_not_queued_behind_later_ones);
    g_test_add_func("/model/hot_drive_throttles_and_the_switch_turns_it_off",
                    hot_drive_throttles_and_the_switch_turns_it_off);
    g_test_add_func("/model/randomly_rewritten_data_reads_slower_only_"
                    "where_placed",
                    randomly_rewritten_data_reads_slower_only_where_placed);
    g_test_add_func("/model/sequentially_written_data_reads_as_striped",
                    sequentially_written_data_reads_as_striped);
    g_test_add_func("/model/data_path_streams_overlaps_a_large_commands_"
                    "stages",
                    data_path_streams_overlaps_a_large_commands_stages);
    g_test_add_func("/model/read_path_takes_the_slc_rate_for_data_not_on_"
                    "native_pages",
                    read_path_takes_the_slc_rate_for_data_not_on_native_pages);
    g_test_add_func("/model/page_read_holds_its_die_through_the_data_out",
                    page_read_holds_its_die_through_the_data_out);
    g_test_add_func("/model/dynamic_allocation_reads_a_multiplane_page_"
                    "on_one_die",
                    dynamic_allocation_reads_a_multiplane_page_on_one_die);
    g_test_add_func("/model/placed_reads_repeat_exactly",
                    placed_reads_repeat_exactly);
    return g_test_run();
}
