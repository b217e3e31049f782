/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic's pseudo-random numbers: splitmix64 (Steele, Lea and Flood), so a
 * fixed seed gives the same numbers on every host.  One header for every
 * user: the model (it seeds its xoshiro256** with it), the load generators
 * of harness/sim and the guest's nvmimic-load (addresses, arrival times),
 * the fuzz targets' mutator and the render workload.  Here in backends/,
 * the bottom of nvmimic (plain C, no QEMU, no glib), so each of them can
 * include it.
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

/* A uniform 64-bit @r scaled to [0, @n) by multiply and shift. */
static inline uint64_t nvm_rng_scale(uint64_t r, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)r * n) >> 64);
}

/* Uniform in (0, 1): never 0, so -log() of it is finite. */
static inline double nvm_rng_01(uint64_t *s)
{
    return ((nvm_rng_u64(s) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

#endif
