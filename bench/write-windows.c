/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * write-windows: a four-corners write peak's long run as the quick peaks'
 * warm-up finds it (nvm_sim_peak_bins(): the review's state, seed 1, the
 * 30 s point after its 6 s warm-up), with its IOPS in every window of
 * WINDOW_S (default 0.5, a multiple of 0.1) from the state on, then the
 * mean over the 30 s point and how far windows that long stray from it
 * (nvm_sim_peak_swing(), as test-calibration reports it).  The filled
 * drives' write rates swing inside a point (docs/sim.md, "Point length").
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

int main(int argc, char **argv)
{
    const char *dir = getenv("NVMIMIC_PROFILE_DIR");
    const double step_s = NVM_SIM_STEP_NS / 1e9;
    const uint64_t warm = NVM_SIM_LONG_WARM_STEPS;
    double win = argc > 3 ? atof(argv[3]) : 0.5;
    uint64_t len = (uint64_t)llround(win / step_s), n, total = 0;
    g_autoptr(GError) err = NULL;
    NvmWorkload wl[NVM_FOUR_CORNERS];
    NvmProfile *p;
    uint64_t *bins;
    int w = -1;

    if (argc < 3 || len < 1 || len * step_s > NVM_SIM_LONG_S ||
        fabs(len * step_s - win) > 1e-9) {
        fprintf(stderr, "usage: write-windows PROFILE WORKLOAD [WINDOW_S: "
                "a multiple of %.1f up to %.0f]\n", step_s, NVM_SIM_LONG_S);
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
    bins = nvm_sim_peak_bins(p, &wl[w], 1, 0, 7919 + w, NVM_SIM_STEP_NS, &n);
    printf("# %s %s from the review's state: IOPS per %.1f s window\n",
           p->name, wl[w].name, win);
    for (uint64_t i = 0; i + len <= n; i += len) {
        uint64_t done = 0;

        for (uint64_t j = i; j < i + len; j++) {
            done += bins[j];
        }
        printf("%.1f\t%.0f\n", i * step_s, done / win);
    }
    for (uint64_t i = warm; i < n; i++) {
        total += bins[i];
    }
    printf("# after %.0f s: mean %.0f IOPS over %.0f s; windows of %.1f s "
           "stray up to %.1f %% from it\n", warm * step_s,
           total / ((n - warm) * step_s), (n - warm) * step_s, win,
           100 * nvm_sim_peak_swing(bins, n, warm, len));
    g_free(bins);
    nvm_profile_free(p);
    return 0;
}
