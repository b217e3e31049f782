/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Mapping state: its counts, and a recount of everything against them.
 */
#include <inttypes.h>
#include <string.h>

#include "ftl-int.h"

void nvm_ftl_counts(const NvmFtl *f, NvmFtlCounts *c)
{
    memset(c, 0, sizeof(*c));
    c->valid = f->valid;
    c->free_sbs = f->nfree;
    c->lost = f->lost;
    c->detailed_chunks = f->pool_live;
    c->slc_sbs = f->slc_sbs;
    c->slc_written = f->slc_written;
    for (uint32_t i = 0; i < f->g.nsb; i++) {
        const Sb *s = &f->sb[i];

        if (s->mode == NVM_SB_SLC) {
            c->slc_valid += s->valid;
        }
    }
}

bool nvm_ftl_check(const NvmFtl *f, char **why)
{
    uint32_t n = f->g.nsb;
    uint64_t *home = g_new0(uint64_t, n);
    uint64_t *attr = g_new0(uint64_t, n);
    uint64_t valid = 0, sum = 0;
    bool ok = false;

    *why = NULL;
    for (uint64_t c = 0; c < f->nchunks; c++) {
        uint32_t d = f->dir[c];
        uint64_t c0 = c << CH_SHIFT;
        uint32_t cn = nvm_ftl_chunk_lpns(f, c);

        switch (DK_OF(d)) {
        case DK_UNMAPPED:
            break;
        case DK_HOME:
            for (uint32_t i = 0; i < cn; i++) {
                home[nvm_ftl_home_sb(f, c0 + i)]++;
            }
            valid += cn;
            break;
        case DK_UNIFORM:
            if (!(d & U_OTHER)) {
                uint32_t u = (d >> 13) & 0xffff;

                if (u < n && (f->sb[u].serial & U_SER_MASK) ==
                    (d & U_SER_MASK)) {
                    attr[u] += cn;
                }
            }
            valid += cn;
            break;
        default: {
            const Chunk *ch = nvm_ftl_chunk_at(f, d);
            uint32_t cnt[4] = { 0 };

            for (uint32_t i = 0; i < cn; i++) {
                unsigned s = st_get(ch, i);

                cnt[s]++;
                if (s == ST_HOME) {
                    home[nvm_ftl_home_sb(f, c0 + i)]++;
                }
            }
            if (cnt[ST_HOME] != ch->nhome || cnt[ST_NEW] != ch->n1 ||
                cnt[ST_OLD] != ch->n0 + ch->noth) {
                *why = g_strdup_printf("chunk %" G_GUINT64_FORMAT
                                       ": counts %u/%u/%u vs states "
                                       "%u/%u/%u", c, ch->nhome, ch->n1,
                                       ch->n0 + ch->noth, cnt[ST_HOME],
                                       cnt[ST_NEW], cnt[ST_OLD]);
                goto out;
            }
            if (ch->sb1 != SB16_NONE &&
                nvm_ftl_sb_current(f, ch->sb1, ch->ser1)) {
                attr[ch->sb1] += ch->n1;
            }
            if (ch->sb0 != SB16_NONE &&
                nvm_ftl_sb_current(f, ch->sb0, ch->ser0)) {
                attr[ch->sb0] += ch->n0;
            }
            valid += cnt[1] + cnt[2] + cnt[3];
            break;
        }
        }
    }
    if (valid != f->valid) {
        *why = g_strdup_printf("valid units %" G_GUINT64_FORMAT
                               " vs counter %" G_GUINT64_FORMAT, valid,
                               f->valid);
        goto out;
    }
    for (uint32_t i = 0; i < n; i++) {
        const Sb *s = &f->sb[i];

        sum += s->valid;
        if (s->home != home[i] || s->attr != attr[i] ||
            s->valid < s->home + s->attr) {
            *why = g_strdup_printf("superblock %u: valid %u home %u "
                                   "(recount %" G_GUINT64_FORMAT ") attr %u "
                                   "(recount %" G_GUINT64_FORMAT ")", i,
                                   s->valid, s->home, home[i], s->attr,
                                   attr[i]);
            goto out;
        }
        if (s->valid > nvm_ftl_sb_capacity(f, s) && s->mode != NVM_SB_FREE) {
            *why = g_strdup_printf("superblock %u holds %u > %u units", i,
                                   s->valid, nvm_ftl_sb_capacity(f, s));
            goto out;
        }
    }
    {
        uint64_t w = 0;
        uint32_t k = 0;

        for (uint32_t i = 0; i < n; i++) {
            if (f->sb[i].mode == NVM_SB_SLC) {
                w += f->sb[i].wp;
                k++;
            }
        }
        if (w != f->slc_written || k != f->slc_sbs) {
            *why = g_strdup_printf("SLC counters %" G_GUINT64_FORMAT
                                   "/%u vs %" G_GUINT64_FORMAT "/%u",
                                   f->slc_written, f->slc_sbs, w, k);
            goto out;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        int64_t lo = 0, hi = 0;

        for (uint32_t j = i; j > 0; j -= j & -j) {
            lo += f->fen[j];
        }
        for (uint32_t j = i + 1; j > 0; j -= j & -j) {
            hi += f->fen[j];
        }
        if (hi - lo != (int64_t)f->sb[i].valid - f->sb[i].home -
            f->sb[i].attr) {
            *why = g_strdup_printf("superblock %u: Fenwick weight %" PRId64
                                   " vs %u - %u - %u", i, hi - lo,
                                   f->sb[i].valid, f->sb[i].home,
                                   f->sb[i].attr);
            goto out;
        }
    }
    if (f->lost || sum != f->valid) {
        *why = g_strdup_printf("superblocks hold %" G_GUINT64_FORMAT
                               " units, the map %" G_GUINT64_FORMAT
                               " (lost %" G_GUINT64_FORMAT ")", sum,
                               f->valid, f->lost);
        goto out;
    }
    ok = true;
out:
    g_free(home);
    g_free(attr);
    return ok;
}
