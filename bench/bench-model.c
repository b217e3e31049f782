/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Model benchmarks: host time per modelled command, simulated commands per
 * host CPU second through the curve driver, and model memory per profile.
 * Reported, not asserted.  For a stable figure run it under callgrind:
 *   valgrind --tool=callgrind build/bench/bench-model --submit-only N
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "curve.h"

/*
 * CPU time of this process, not wall time: on a shared host the figures
 * then do not depend on how many other processes compete for the cores.
 */
static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static NvmProfile *load(const char *name)
{
    g_autoptr(GError) err = NULL;
    NvmProfile *p = nvm_profile_load(name, NVMIMIC_PROFILE_DIR, &err);

    if (!p) {
        fprintf(stderr, "bench-model: %s\n", err->message);
        exit(1);
    }
    return p;
}

/* Direct submissions: @kind 0 = 4K random read, 1 = 4K random write,
 * 2 = 64K sequential read, 3 = mix of all five command types. */
static double submit_loop(const NvmProfile *p, int kind, uint64_t n)
{
    NvmModel *m = nvm_model_new(p, 1);
    uint64_t lbas = p->capacity_bytes / p->lba_bytes / 20, s = 42, t = 0;
    uint64_t sink = 0;
    double t0, t1;

    nvm_model_set_fill(m, 100, NULL);
    t0 = now_s();
    for (uint64_t i = 0; i < n; i++) {
        NvmCmd c;

        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        switch (kind) {
        case 0:
            c = (NvmCmd){ NVM_OP_READ, (s >> 20) % lbas & ~7ULL, 8, 0 };
            break;
        case 1:
            c = (NvmCmd){ NVM_OP_WRITE, (s >> 20) % lbas & ~7ULL, 8, 0 };
            break;
        case 2:
            c = (NvmCmd){ NVM_OP_READ, i * 128 % lbas, 128, 0 };
            break;
        default:
            c = (NvmCmd){ (NvmOp)((s >> 40) % 100 < 60 ? NVM_OP_READ
                                  : (s >> 40) % 100 < 95 ? NVM_OP_WRITE
                                  : (s >> 40) % 100 < 97 ? NVM_OP_DISCARD
                                  : (s >> 40) % 100 < 99 ? NVM_OP_FLUSH
                                  : NVM_OP_WRITE_ZEROES),
                          (s >> 20) % lbas & ~7ULL, 8, 0 };
            break;
        }
        t += 2000;                      /* 500 K commands per second */
        sink += nvm_model_submit(m, &c, t);
    }
    t1 = now_s();
    nvm_model_free(m);
    if (sink == 1) {
        printf("\n");
    }
    return (t1 - t0) * 1e9 / n;
}

int main(int argc, char **argv)
{
    static const char *kinds[] = { "4k-random-read", "4k-random-write",
                                   "64k-seq-read", "mixed" };
    const char *names[] = { "crucial-p2-500g", "crucial-p2-2tb",
                            "crucial-p5-1tb", "crucial-p5-2tb",
                            "intel-670p-2tb" };
    uint64_t n = 2000000;

    if (argc == 3 && !strcmp(argv[1], "--submit-only")) {
        NvmProfile *p = load("crucial-p5-2tb");

        submit_loop(p, 0, strtoull(argv[2], NULL, 0));
        nvm_profile_free(p);
        return 0;
    }

    printf("host CPU ns per modelled command (direct nvm_model_submit, %"
           G_GUINT64_FORMAT " commands each):\n", n);
    for (unsigned i = 0; i < G_N_ELEMENTS(names); i++) {
        NvmProfile *p = load(names[i]);

        printf("  %-16s", names[i]);
        for (unsigned k = 0; k < G_N_ELEMENTS(kinds); k++) {
            printf("  %s %.0f", kinds[k], submit_loop(p, k, n));
        }
        printf("\n");
        nvm_profile_free(p);
    }

    printf("simulated commands per host CPU second (curve driver, closed loop, "
           "heap of jobs, 4K random read):\n");
    for (unsigned i = 0; i < G_N_ELEMENTS(names); i++) {
        NvmProfile *p = load(names[i]);
        NvmModel *m = nvm_model_new(p, 1);
        NvmWorkload wl = { "4k-random-read", NVM_OP_READ, 4096, false, 128 };
        NvmRunSpec spec = { .wl = &wl, .lba_bytes = p->lba_bytes,
                            .span_bytes = p->capacity_bytes / 20,
                            .duration_ns = 10000000000ULL };
        NvmRunResult r;
        uint64_t t = 0;
        double t0;

        nvm_model_set_fill(m, 100, NULL);
        t0 = now_s();
        nvm_curve_run(m, &spec, 1, &t, &r);
        printf("  %-16s %.2f M commands/s (%" G_GUINT64_FORMAT
               " commands in %.2f s)\n", names[i],
               r.ios / (now_s() - t0) / 1e6, r.ios, now_s() - t0);
        nvm_model_free(m);
        nvm_profile_free(p);
    }

    printf("model memory (new; filled; filled, 5 %% span in random-write "
           "steady state, then 1 simulated s of 4K random writes over it; "
           "the most it can grow to, every map chunk detailed):\n");
    for (unsigned i = 0; i < G_N_ELEMENTS(names); i++) {
        NvmProfile *p = load(names[i]);
        NvmModel *m = nvm_model_new(p, 1);
        uint64_t span = p->capacity_bytes / 20 / 4096 * 4096, t = 0;
        NvmWorkload wl = { "4k-random-write", NVM_OP_WRITE, 4096, false, 64 };
        NvmRunSpec spec = { .wl = &wl, .lba_bytes = p->lba_bytes,
                            .span_bytes = span,
                            .duration_ns = 1000000000ULL };
        NvmRunResult r;
        size_t fresh = nvm_model_memory_bytes(m), filled;

        nvm_model_set_fill(m, 100, NULL);
        filled = nvm_model_memory_bytes(m);
        nvm_model_set_steady_random(m, 0, span, NULL);
        nvm_curve_run(m, &spec, 1, &t, &r);
        printf("  %-16s %5.0f GB: %zu / %zu / %zu / %zu bytes\n", names[i],
               p->capacity_bytes / 1e9, fresh, filled,
               nvm_model_memory_bytes(m), nvm_model_memory_bound(m));
        nvm_model_free(m);
        nvm_profile_free(p);
    }
    printf("most for any accepted profile: %zu bytes\n",
           nvm_model_max_memory_bytes());
    return 0;
}
