/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The model's mapping state (backends/ftl.c): validity per 4 KiB region,
 * superblock valid counts that match a recount after any mix of writes,
 * trims, reads and reclaims, greedy victims, exact sequential overwrites
 * (folded ones too), where a read finds each unit (nvm_ftl_place), and
 * bounded memory.
 */
#include <string.h>

#include <glib.h>

#include "ftl.h"

/*
 * A small drive: 256 MiB of 4 KiB units in 48 MiB superblocks (TLC), each
 * larger than a 4 MiB chunk of the map as on real drives (0.8-3 GiB).
 */
#define NLPN 65536
#define SB_LPNS (4096 * 3)

static NvmFtl *small_ftl(uint64_t seed)
{
    NvmFtlGeom g = {
        .nlpn = NLPN, .sb_lpns = SB_LPNS, .bits = 3, .nsb = 12,
        .seed = seed,
    };

    return nvm_ftl_new(&g);
}

static void assert_consistent(NvmFtl *f)
{
    char *why = NULL;
    bool ok = nvm_ftl_check(f, &why);

    if (!ok) {
        g_test_message("inconsistent: %s", why);
    }
    g_assert_true(ok);
    g_free(why);
}

/* Keep a free superblock for the next writes, as the model does. */
static void keep_free(NvmFtl *f)
{
    while (nvm_ftl_free_sbs(f) < 3) {
        if (nvm_ftl_reclaim(f, true) < 0 && nvm_ftl_reclaim(f, false) < 0) {
            break;
        }
    }
}

static void counts_match_a_recount_after_random_writes_trims_reclaims(void)
{
    for (uint64_t seed = 1; seed <= 4; seed++) {
        NvmFtl *f = small_ftl(seed);
        uint64_t s = seed * 7919;

        nvm_ftl_reset(f, seed & 1 ? NLPN : 32000, seed == 3 ? 8000 : 0);
        assert_consistent(f);
        for (int i = 0; i < 60000; i++) {
            uint64_t r;

            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            r = s >> 20;
            keep_free(f);
            switch (r % 10) {
            case 0:
                nvm_ftl_trim(f, (r >> 8) % NLPN, 1 + (r >> 30) % 3000);
                break;
            case 1:
                nvm_ftl_write(f, (r >> 8) % (NLPN - 300), 1 + (r >> 40) % 300,
                              NVM_SB_SLC);
                break;
            default:
                g_assert_true(nvm_ftl_write(f, (r >> 8) % NLPN, 1,
                                            (r >> 4) & 1 ? NVM_SB_SLC
                                                         : NVM_SB_NATIVE));
                break;
            }
            if (i % 7 == 0) {
                /* a read follows stale records too */
                nvm_ftl_place(f, (r >> 12) % NLPN, NULL);
            }
            if (i % 5000 == 0) {
                assert_consistent(f);
            }
        }
        assert_consistent(f);
        nvm_ftl_free(f);
    }
}

static void trimmed_and_never_written_units_are_unmapped(void)
{
    NvmFtl *f = small_ftl(1);

    nvm_ftl_reset(f, 0, 0);
    g_assert_cmpint(nvm_ftl_locate(f, 100), ==, NVM_LOC_UNMAPPED);
    g_assert_true(nvm_ftl_write(f, 100, 1, NVM_SB_SLC));
    g_assert_cmpint(nvm_ftl_locate(f, 100), ==, NVM_LOC_SLC);
    g_assert_cmpint(nvm_ftl_locate(f, 101), ==, NVM_LOC_UNMAPPED);
    g_assert_true(nvm_ftl_write(f, 101, 1, NVM_SB_NATIVE));
    g_assert_cmpint(nvm_ftl_locate(f, 101), ==, NVM_LOC_NATIVE);
    nvm_ftl_trim(f, 100, 1);
    g_assert_cmpint(nvm_ftl_locate(f, 100), ==, NVM_LOC_UNMAPPED);
    g_assert_cmpint(nvm_ftl_locate(f, 101), ==, NVM_LOC_NATIVE);
    g_assert_cmpuint(nvm_ftl_valid(f), ==, 1);
    /* a fill maps exactly the units it wrote */
    nvm_ftl_reset(f, 5000, 1000);
    g_assert_cmpint(nvm_ftl_locate(f, 3999), ==, NVM_LOC_NATIVE);
    g_assert_cmpint(nvm_ftl_locate(f, 4999), ==, NVM_LOC_SLC);
    g_assert_cmpint(nvm_ftl_locate(f, 5000), ==, NVM_LOC_UNMAPPED);
    assert_consistent(f);
    nvm_ftl_free(f);
}

/*
 * Data written in order and overwritten in the same order empties whole
 * superblocks: the greedy victim then has nothing to copy.
 */
static void sequential_overwrite_leaves_empty_victims(void)
{
    NvmFtl *f = small_ftl(2);

    nvm_ftl_reset(f, 0, 0);
    for (int pass = 0; pass < 3; pass++) {
        for (uint64_t l = 0; l < NLPN / 2; l += 64) {
            keep_free(f);
            g_assert_true(nvm_ftl_write(f, l, 64, NVM_SB_NATIVE));
        }
    }
    g_assert_cmpint(nvm_ftl_gc_candidate(f), ==, 0);
    assert_consistent(f);
    nvm_ftl_free(f);
}

/*
 * Data written in order through the SLC cache and folded keeps its place
 * on record: two ranges of one native superblock each are written to SLC
 * and folded, each into a superblock of its own; rewriting (or trimming)
 * the second empties its superblock and leaves the first's whole, as when
 * written native.  (Records used to be dropped at the fold, and each
 * overwrite was charged to a superblock drawn in proportion to the
 * unrecorded units, half to each: GC then copied as if the data had been
 * written at random.)
 */
static void folded_data_overwritten_in_order_empties_its_superblock(void)
{
    for (int trim = 0; trim < 2; trim++) {
        NvmFtl *f = small_ftl(5);
        NvmPlace pl, first;
        int folds = 0;

        nvm_ftl_reset(f, 0, 0);
        for (uint64_t l = 0; l < SB_LPNS; l += 64) {
            g_assert_true(nvm_ftl_write(f, NLPN / 2 + l, 64, NVM_SB_SLC));
        }
        for (uint64_t l = 0; l < SB_LPNS; l += 64) {
            g_assert_true(nvm_ftl_write(f, l, 64, NVM_SB_SLC));
        }
        /* closes the last full SLC superblock */
        g_assert_true(nvm_ftl_write(f, NLPN - 64, 64, NVM_SB_SLC));
        while (nvm_ftl_reclaim(f, true) >= 0) {
            folds++;
        }
        g_assert_cmpint(folds, ==, 6);
        /* read where the fold put it: one run in one native superblock */
        g_assert_cmpint(nvm_ftl_place(f, 0, &first), ==, NVM_LOC_NATIVE);
        for (uint64_t l = 0; l < SB_LPNS; l += 1000) {
            g_assert_cmpint(nvm_ftl_place(f, l, &pl), ==, NVM_LOC_NATIVE);
            g_assert_cmpint(pl.kind, ==, NVM_PLACE_RUN);
            g_assert_cmpuint(pl.sb, ==, first.sb);
        }
        if (trim) {
            nvm_ftl_trim(f, 0, SB_LPNS);
        } else {
            for (uint64_t l = 0; l < SB_LPNS; l += 64) {
                g_assert_true(nvm_ftl_write(f, l, 64, NVM_SB_NATIVE));
            }
        }
        /* the folds' two superblocks: one empty, the other whole */
        g_assert_cmpint(nvm_ftl_gc_candidate(f), ==, 0);
        g_assert_cmpint(nvm_ftl_reclaim(f, false), ==, 0);
        g_assert_cmpint(nvm_ftl_gc_candidate(f), ==, -1);
        assert_consistent(f);
        nvm_ftl_free(f);
    }
}

/* Random single-unit writes over the first @n units, reclaiming as needed. */
static void random_writes(NvmFtl *f, uint64_t *s, uint64_t n, int count)
{
    for (int i = 0; i < count; i++) {
        *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
        if (nvm_ftl_free_sbs(f) < 3) {
            g_assert_cmpint(nvm_ftl_reclaim(f, false), >=, 0);
        }
        g_assert_true(nvm_ftl_write(f, (*s >> 20) % n, 1, NVM_SB_NATIVE));
    }
}

/*
 * Random overwrites of a span leave partly valid superblocks; the greedy
 * victim has the fewest valid units of all.
 */
static void random_overwrite_leaves_partial_victims_greedy_picks_least(void)
{
    NvmFtl *f = small_ftl(3);
    uint64_t s = 99;
    int64_t cand;

    nvm_ftl_reset(f, NLPN / 2, 0);
    random_writes(f, &s, NLPN / 2, 100000);
    cand = nvm_ftl_gc_candidate(f);
    g_test_message("greedy victim holds %" G_GINT64_FORMAT " of %u", cand,
                   SB_LPNS);
    g_assert_cmpint(cand, >, 0);
    g_assert_cmpint(cand, <, SB_LPNS);
    g_assert_cmpint(nvm_ftl_reclaim(f, false), ==, cand);
    assert_consistent(f);
    nvm_ftl_free(f);
}

/* A 2 TB drive's state: a few MiB after a fill, bounded in the worst case. */
static void state_of_a_2tb_drive_is_bounded(void)
{
    NvmFtlGeom g = {
        .nlpn = 2000398934016ULL / 4096, .sb_lpns = 786432, .bits = 3,
        .nsb = 660, .seed = 1,
    };
    NvmFtl *f = nvm_ftl_new(&g);
    uint64_t s = 5;

    nvm_ftl_reset(f, g.nlpn, 0);
    g_test_message("2 TB filled: %zu bytes, at most %zu",
                   nvm_ftl_memory_bytes(f), nvm_ftl_memory_max_bytes(f));
    g_assert_cmpuint(nvm_ftl_memory_bytes(f), <, 4 << 20);
    g_assert_cmpuint(nvm_ftl_memory_max_bytes(f), <, 160 << 20);
    /* random 4 KiB writes over a 5 % span: the span's chunks get detail */
    for (int i = 0; i < 200000; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        if (nvm_ftl_free_sbs(f) < 3) {
            nvm_ftl_reclaim(f, false);
        }
        nvm_ftl_write(f, (s >> 20) % (g.nlpn / 20), 1, NVM_SB_NATIVE);
    }
    g_test_message("after 200 K random writes over 5 %%: %zu bytes",
                   nvm_ftl_memory_bytes(f));
    g_assert_cmpuint(nvm_ftl_memory_bytes(f), <, 12 << 20);
    g_assert_cmpuint(nvm_ftl_memory_bytes(f), <=, nvm_ftl_memory_max_bytes(f));
    nvm_ftl_free(f);
}

/*
 * nvm_ftl_place: the fill's units at home, a run written in order at its
 * place in the superblock, units written out of order scattered; and the
 * same answers and draws as nvm_ftl_locate through any history.
 */
static void place_follows_runs_and_answers_as_locate(void)
{
    NvmFtl *f = small_ftl(5), *g = small_ftl(5);
    NvmPlace pl;
    uint64_t s = 17;

    nvm_ftl_reset(f, 20000, 0);
    g_assert_cmpint(nvm_ftl_place(f, 100, &pl), ==, NVM_LOC_NATIVE);
    g_assert_cmpint(pl.kind, ==, NVM_PLACE_HOME);
    g_assert_cmpuint(pl.pos, ==, 100);
    /* 7 units elsewhere, then a run of 100 from the middle of a chunk */
    g_assert_true(nvm_ftl_write(f, 25000, 7, NVM_SB_NATIVE));
    g_assert_true(nvm_ftl_write(f, 30100, 100, NVM_SB_NATIVE));
    for (uint64_t i = 0; i < 100; i++) {
        g_assert_cmpint(nvm_ftl_place(f, 30100 + i, &pl), ==,
                        NVM_LOC_NATIVE);
        g_assert_cmpint(pl.kind, ==, NVM_PLACE_RUN);
        g_assert_cmpuint(pl.pos, ==, 7 + i);
    }
    /* a whole chunk in one superblock: assumed in LBA order */
    g_assert_true(nvm_ftl_write(f, 32768, 1024, NVM_SB_NATIVE));
    nvm_ftl_place(f, 33000, &pl);
    g_assert_cmpint(pl.kind, ==, NVM_PLACE_RUN);
    g_assert_cmpuint(pl.pos, ==, 33000);
    /* out of order: the record's run is broken, its units scattered */
    g_assert_true(nvm_ftl_write(f, 40010, 1, NVM_SB_NATIVE));
    g_assert_true(nvm_ftl_write(f, 40005, 1, NVM_SB_NATIVE));
    nvm_ftl_place(f, 40010, &pl);
    g_assert_cmpint(pl.kind, ==, NVM_PLACE_SCATTERED);
    nvm_ftl_free(f);

    /* the same history twice: place and locate answer alike */
    nvm_ftl_reset(g, NLPN, 0);
    f = small_ftl(5);
    nvm_ftl_reset(f, NLPN, 0);
    for (int i = 0; i < 20000; i++) {
        uint64_t l, n;

        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        l = (s >> 33) % NLPN;
        n = 1 + (s >> 20) % 64;
        n = l + n > NLPN ? NLPN - l : n;
        if (i % 7 == 0) {
            nvm_ftl_trim(f, l, n);
            nvm_ftl_trim(g, l, n);
        } else {
            keep_free(f);
            keep_free(g);
            g_assert_true(nvm_ftl_write(f, l, n, NVM_SB_NATIVE));
            g_assert_true(nvm_ftl_write(g, l, n, NVM_SB_NATIVE));
        }
        for (int k = 0; k < 8; k++) {
            uint64_t x = (s >> (k * 4)) % NLPN;

            g_assert_cmpint(nvm_ftl_locate(f, x), ==,
                            nvm_ftl_place(g, x, &pl));
        }
    }
    assert_consistent(f);
    assert_consistent(g);
    nvm_ftl_free(f);
    nvm_ftl_free(g);
}

/*
 * A reset forgets the history: after random writes and reclaims (which
 * change the superblocks' serials), a reset, a reseed (nvm_model_reseed()
 * does it with every state), the span scattered and the
 * same writes place every unit where a new FTL given the same steps does,
 * so reads placed by a hash of the serials (nvm_ftl_place) fall on the
 * same dies: the device, which keeps its model across workloads, against
 * the model fed its trace (which was not so before: docs/vdi.md's guest
 * table read 0.50-0.97 % apart).
 */
static void a_reset_places_as_a_new_ftl(void)
{
    NvmFtl *used = small_ftl(5), *fresh = small_ftl(5);
    uint64_t s = 7, s1, s2;
    unsigned differ = 0, scattered = 0;

    nvm_ftl_reset(used, NLPN - SB_LPNS, 0);
    random_writes(used, &s, NLPN / 2, 60000);
    for (NvmFtl **fp = (NvmFtl *[]){ used, fresh, NULL }; *fp; fp++) {
        nvm_ftl_reset(*fp, NLPN - SB_LPNS, 0);
        nvm_ftl_reseed(*fp);    /* as a state set on the model does */
        g_assert_true(nvm_ftl_scatter(*fp, 0, NLPN / 4, 2));
    }
    s1 = s2 = 11;
    random_writes(used, &s1, NLPN / 4, 20000);
    random_writes(fresh, &s2, NLPN / 4, 20000);
    for (uint64_t l = 0; l < NLPN; l++) {
        NvmPlace a, b;
        NvmLoc la = nvm_ftl_place(used, l, &a), lb = nvm_ftl_place(fresh, l,
                                                                   &b);

        scattered += a.kind == NVM_PLACE_SCATTERED && a.sb != NVM_FTL_NONE;
        differ += la != lb || a.kind != b.kind || a.sb != b.sb ||
                  a.pos != b.pos;
    }
    g_test_message("%u units recorded scattered; %u placed apart",
                   scattered, differ);
    g_assert_cmpuint(scattered, >, 1000);
    g_assert_cmpuint(differ, ==, 0);
    assert_consistent(used);
    nvm_ftl_free(used);
    nvm_ftl_free(fresh);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/ftl/counts_match_a_recount_after_random_writes_trims_"
                    "reclaims",
                    counts_match_a_recount_after_random_writes_trims_reclaims);
    g_test_add_func("/ftl/trimmed_and_never_written_units_are_unmapped",
                    trimmed_and_never_written_units_are_unmapped);
    g_test_add_func("/ftl/sequential_overwrite_leaves_empty_victims",
                    sequential_overwrite_leaves_empty_victims);
    g_test_add_func("/ftl/folded_data_overwritten_in_order_empties_its_"
                    "superblock",
                    folded_data_overwritten_in_order_empties_its_superblock);
    g_test_add_func("/ftl/random_overwrite_leaves_partial_victims_greedy_"
                    "picks_least",
                    random_overwrite_leaves_partial_victims_greedy_picks_least);
    g_test_add_func("/ftl/a_reset_places_as_a_new_ftl",
                    a_reset_places_as_a_new_ftl);
    g_test_add_func("/ftl/place_follows_runs_and_answers_as_locate",
                    place_follows_runs_and_answers_as_locate);
    g_test_add_func("/ftl/state_of_a_2tb_drive_is_bounded",
                    state_of_a_2tb_drive_is_bounded);
    return g_test_run();
}
