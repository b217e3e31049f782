/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * write-windows: a four-corners write peak as calibrate times it (the
 * review's state, seed 1, the 30 s point after its 6 s warm-up), with its
 * IOPS in every window of WINDOW_S (default 0.5) from the state on, then
 * the mean over the 30 s point and how far its windows stray from it (what
 * nvm_sim_peak_settle() reports).  The filled drives' write rates swing
 * inside a point (docs/sim.md, "Point length").
 *   write-windows PROFILE WORKLOAD [WINDOW_S]
 * WORKLOAD is 4k-random-write or 64k-seq-write.  Environment:
 * NVMIMIC_PROFILE_DIR (default profiles).  A diagnostic of issue 28, not a
 * benchmark of meson's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

typedef struct Windows {
    uint64_t t0, step, n;
    uint64_t *done;
} Windows;

static void on_submitted(void *opaque, const NvmCmd *cmd, uint64_t t,
                         uint64_t done_ns)
{
    Windows *b = opaque;
    uint64_t i = (done_ns - b->t0) / b->step;

    (void)cmd;
    (void)t;
    if (done_ns >= b->t0 && i < b->n) {
        b->done[i]++;
    }
}

int main(int argc, char **argv)
{
    const char *dir = getenv("NVMIMIC_PROFILE_DIR");
    const double long_s = NVM_SIM_LONG_S, warm_s = NVM_SIM_LONG_S / 5;
    double win = argc > 3 ? atof(argv[3]) : 0.5;
    g_autoptr(GError) err = NULL;
    NvmWorkload wl[NVM_FOUR_CORNERS];
    NvmProfile *p;
    NvmModel *m;
    Windows b = { 0 };
    NvmRunHook hook = { .opaque = &b, .submitted = on_submitted };
    NvmRunSpec spec;
    NvmRunResult res;
    uint64_t now = 0, span, total = 0, from, per;
    double mean, swing = 0;
    int w = -1;

    if (argc < 3 || !(win >= 0.1 && win <= long_s)) {
        fprintf(stderr, "usage: write-windows PROFILE WORKLOAD [WINDOW_S "
                "0.1..%.0f]\n", long_s);
        return 2;
    }
    nvm_four_corners(wl, false);
    for (int i = 0; i < NVM_FOUR_CORNERS; i++) {
        if (!strcmp(wl[i].name, argv[2]) && wl[i].op == NVM_OP_WRITE) {
            w = i;
        }
    }
    if (w < 0) {
        fprintf(stderr, "write-windows: '%s' is not a four-corners write "
                "workload (4k-random-write, 64k-seq-write)\n", argv[2]);
        return 2;
    }
    p = nvm_profile_load(argv[1], dir ? dir : "profiles", &err);
    if (!p) {
        fprintf(stderr, "write-windows: %s\n", err->message);
        return 1;
    }
    m = nvm_model_new(p, 1);
    nvm_sim_review_state(m, p, &span, &now);
    b.t0 = now;
    b.step = (uint64_t)llround(win * 1e9);
    b.n = (uint64_t)((warm_s + long_s) * 1e9) / b.step;
    b.done = g_new0(uint64_t, b.n);
    spec = (NvmRunSpec){
        .wl = &wl[w], .lba_bytes = p->lba_bytes, .span_bytes = span,
        .duration_ns = (uint64_t)((warm_s + long_s) * 1e9), .hook = &hook,
    };
    nvm_curve_run(m, &spec, 7919 + w, &now, &res);
    printf("# %s %s from the review's state: IOPS per %.1f s window\n",
           p->name, wl[w].name, win);
    from = (uint64_t)ceil(warm_s / win - 1e-9);
    per = b.n - from;
    for (uint64_t i = 0; i < b.n; i++) {
        printf("%.1f\t%.0f\n", i * win, b.done[i] / win);
        total += i >= from ? b.done[i] : 0;
    }
    mean = (double)total / (per * win);
    for (uint64_t i = from; i < b.n; i++) {
        swing = fmax(swing, fabs(b.done[i] / win - mean) / mean);
    }
    printf("# after %.0f s: mean %.0f IOPS over %.0f s; windows stray up "
           "to %.1f %% from it\n", warm_s, mean, per * win, 100 * swing);
    g_free(b.done);
    nvm_model_free(m);
    nvm_profile_free(p);
    return 0;
}
