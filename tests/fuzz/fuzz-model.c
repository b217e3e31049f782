/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the drive model driven by command sequences.
 *
 * The input picks one of the shipped profiles, a seed and a start time,
 * then is read as a program: commands (operation, LBA, size, time step),
 * bursts of commands at one instant, state injection (fill, SLC, wear,
 * secure erase), APST tables, statistics resets and reads.  After every
 * step fuzz-common.c checks the model's invariants.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-common.h"

#ifndef NVMIMIC_PROFILE_DIR
#define NVMIMIC_PROFILE_DIR "profiles"
#endif

static NvmProfile **profiles;
static unsigned n_profiles;

typedef struct Reader {
    const uint8_t *p;
    size_t left;
} Reader;

static uint8_t rd8(Reader *r)
{
    if (!r->left) {
        return 0;
    }
    r->left--;
    return *r->p++;
}

static uint64_t rdn(Reader *r, unsigned n)
{
    uint64_t v = 0;

    for (unsigned i = 0; i < n; i++) {
        v = v << 8 | rd8(r);
    }
    return v;
}

/* Time steps from 0 ns to over an hour, most of them short. */
static uint64_t rd_step(Reader *r)
{
    uint8_t b = rd8(r);
    uint64_t v = b & 63;

    switch (b >> 6) {
    case 0:
        return v * 100;                         /* ns */
    case 1:
        return v * 10000;                       /* up to 0.6 ms */
    case 2:
        return v * 5000000;                     /* up to 0.3 s */
    default:
        return v * v * 1000000000ULL;           /* up to 66 min */
    }
}

/* An LBA: anywhere, near the start or end, or beyond the namespace. */
static uint64_t rd_lba(Reader *r, const NvmProfile *p)
{
    uint64_t n = p->capacity_bytes / p->lba_bytes;
    uint8_t mode = rd8(r);

    switch (mode & 3) {
    case 0:
        return rdn(r, 2);
    case 1:
        return n - 1 - rdn(r, 2) % n;
    case 2:
        return rdn(r, 5) % n;
    default:
        return rdn(r, 8);                       /* raw, often out of range */
    }
}

/* A block count: NVMe's 16-bit NLB for I/O, 32 bits for deallocate. */
static uint32_t rd_nlb(Reader *r, NvmOp op)
{
    uint8_t mode = rd8(r);

    if (op == NVM_OP_DISCARD && mode >= 240) {
        return (uint32_t)rdn(r, 4);
    }
    switch (mode & 3) {
    case 0:
        return 1 + (mode >> 2);
    case 1:
        return 8 << (mode >> 2 & 7);
    default:
        return 1 + rdn(r, 2);                  /* up to 65536 */
    }
}

static double rd_pct(Reader *r, double top)
{
    static const double edge[] = { -1, -1e-300, 0, 100, 101, 255, 256,
                                   1e300, INFINITY, -INFINITY, NAN };
    uint8_t b = rd8(r);

    if (b >= 256 - G_N_ELEMENTS(edge)) {
        return edge[b - (256 - G_N_ELEMENTS(edge))];
    }
    return b * top / (255 - G_N_ELEMENTS(edge));
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *dir = getenv("NVMIMIC_PROFILE_DIR");
    g_autoptr(GError) err = NULL;
    g_auto(GStrv) names = NULL;

    (void)argc;
    (void)argv;
    dir = dir ? dir : NVMIMIC_PROFILE_DIR;
    names = nvm_profile_list(dir, &err);
    if (!names || !names[0]) {
        fuzz_fail("no profiles in %s", dir);
    }
    n_profiles = g_strv_length(names);
    profiles = g_new0(NvmProfile *, n_profiles);
    for (unsigned i = 0; i < n_profiles; i++) {
        profiles[i] = nvm_profile_load(names[i], dir, &err);
        if (!profiles[i]) {
            fuzz_fail("%s", err->message);
        }
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint64_t starts[] = { 0, 1000000000ULL, 1ULL << 40,
                                       1ULL << 61 };
    Reader r = { data, size };
    const NvmProfile *p = profiles[rd8(&r) % n_profiles];
    uint64_t seed = rdn(&r, 2);
    NvmModel *m = nvm_model_new(p, seed);
    FuzzDriver d;

    fuzz_driver_init(&d, m, p, starts[rd8(&r) & 3]);
    while (r.left) {
        uint8_t op = rd8(&r);

        switch (op % 16) {
        case 0 ... 4: {             /* one command, then a time step */
            NvmOp o = (NvmOp)(op % 16);
            uint64_t slba = rd_lba(&r, p);

            fuzz_submit(&d, o, slba, rd_nlb(&r, o));
            fuzz_advance(&d, rd_step(&r));
            break;
        }
        case 5: {                   /* a burst at one instant (queue depth) */
            NvmOp o = (NvmOp)(rd8(&r) % NVM_CLASS_COUNT);
            unsigned n = 1 + (op >> 4) * 8;
            uint64_t slba = rd_lba(&r, p);
            uint32_t nlb = rd_nlb(&r, o);
            bool seq = rd8(&r) & 1;

            for (unsigned i = 0; i < n; i++) {
                fuzz_submit(&d, o, seq ? slba + (uint64_t)i * nlb
                                       : slba * (i + 1) + i, nlb);
            }
            fuzz_advance(&d, rd_step(&r));
            break;
        }
        case 6:
            fuzz_set_fill(&d, rd_pct(&r, 100));
            break;
        case 7: {
            uint8_t b = rd8(&r);

            fuzz_set_slc_used(&d, b == 255 ? rdn(&r, 8)
                              : (uint64_t)(b / 254.0 *
                                           (p->slc_static_bytes +
                                            p->slc_dynamic_max_bytes)));
            break;
        }
        case 8:
            fuzz_set_wear(&d, rd_pct(&r, 255));
            break;
        case 9:
            fuzz_secure_erase(&d);
            break;
        case 10:
            fuzz_reset_stats(&d);
            break;
        case 11: {                  /* the guest's APST table */
            uint32_t idle[NVM_MAX_POWER_STATES];
            uint8_t b = rd8(&r);
            unsigned n = b & 0x80 ? (b & 7) + 1 : p->n_power_states;

            for (unsigned i = 0; i < NVM_MAX_POWER_STATES; i++) {
                uint8_t v = rd8(&r);

                idle[i] = v == 255 ? UINT32_MAX
                        : v == 254 ? 0xffffff
                        : v & 1 ? 0 : (uint32_t)v * v;
                if (!(b & 0x40) && !p->ps[i].non_operational) {
                    idle[i] = 0;    /* mostly valid tables */
                }
            }
            fuzz_set_apst(&d, b & 1, b & 0x20 ? NULL : idle, n);
            break;
        }
        case 12:
            fuzz_reset_apst(&d);
            break;
        case 13:
            fuzz_check_stats(&d);
            break;
        case 14:                    /* idle */
            fuzz_advance(&d, rd_step(&r) * 16);
            break;
        case 15:
            fuzz_submit(&d, NVM_OP_FLUSH, 0, 0);
            break;
        }
    }
    fuzz_check_stats(&d);
    nvm_model_free(m);
    return 0;
}
