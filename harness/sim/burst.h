/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The arithmetic of a mixed workload's I/Os that the model's driver
 * (mix.c) and the guest's load generator (vm-images/nvmimic-load.c --mix)
 * share, so that both issue the same I/Os at the same times: a block size
 * drawn from a split, and the burst cycle of fio's thinktime_iotime (issue
 * for @iotime_ns, idle @think_ns) in the open loop.  No glib: the load
 * generator is a static program in the guest.
 */
#ifndef NVMIMIC_BURST_H
#define NVMIMIC_BURST_H

#include <stdint.h>

#include "rng.h"

/* A size from @n sizes with these percentages (summing to 100). */
static inline uint32_t nvm_pick_split(const uint32_t *bytes,
                                      const double *pct, unsigned n,
                                      uint64_t *rng)
{
    double x = nvm_rng_01(rng) * 100.0;

    for (unsigned i = 0; i + 1 < n; i++) {
        if (x < pct[i]) {
            return bytes[i];
        }
        x -= pct[i];
    }
    return bytes[n - 1];
}

/* Open loop: issuing time @on_ns since @t0 to real time, past idle parts. */
static inline uint64_t nvm_burst_on_to_real(uint64_t iotime_ns,
                                            uint64_t think_ns, uint64_t t0,
                                            double on_ns)
{
    uint64_t on = (uint64_t)on_ns;

    if (!think_ns) {
        return t0 + on;
    }
    return t0 + on / iotime_ns * (iotime_ns + think_ns) + on % iotime_ns;
}

/* Open loop: @t, or the start of the next burst when @t falls idle. */
static inline uint64_t nvm_burst_skip_idle(uint64_t iotime_ns,
                                           uint64_t think_ns, uint64_t t0,
                                           uint64_t t)
{
    uint64_t period, in;

    if (!think_ns || t < t0) {
        return t;
    }
    period = iotime_ns + think_ns;
    in = (t - t0) % period;
    return in < iotime_ns ? t : t + (period - in);
}

/* @ns rounded up to whole cycles (at least @min_cycles), or as it is. */
static inline uint64_t nvm_burst_whole(uint64_t iotime_ns, uint64_t think_ns,
                                       uint64_t ns, uint64_t min_cycles)
{
    uint64_t period = iotime_ns + think_ns, n;

    if (!think_ns) {
        return ns;
    }
    n = (ns + period - 1) / period;
    return (n < min_cycles ? min_cycles : n) * period;
}

#endif
