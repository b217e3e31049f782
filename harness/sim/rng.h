/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The harness's pseudo-random numbers: splitmix64, so a fixed seed gives the
 * same addresses and arrival times on every host.
 */
#ifndef NVMIMIC_RNG_H
#define NVMIMIC_RNG_H

#include <stdint.h>

static inline uint64_t nvm_rng_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The starting state of stream @i of @seed (one per job or thread). */
static inline uint64_t nvm_rng_stream(uint64_t seed, unsigned i)
{
    uint64_t s = seed ^ (0xd1b54a32d192ed03ULL * ((uint64_t)i + 1));

    return nvm_rng_u64(&s);
}

/* Uniform in (0, 1): never 0, so -log() of it is finite. */
static inline double nvm_rng_01(uint64_t *s)
{
    return ((nvm_rng_u64(s) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

#endif
