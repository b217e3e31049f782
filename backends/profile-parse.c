/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Drive profiles: strict parsing of a composed key set into an NvmProfile.
 * Unknown, missing, malformed or out-of-range keys are rejected with one
 * line naming the file, the [section] key and the problem (for a value
 * out of range: the allowed range and why); cross-key checks refuse
 * geometries and sizes that cannot exist.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "profile-int.h"

static const char *src_file(const Src *s, const char *group, const char *key)
{
    const char *f = NULL;

    if (s->by_key && key) {
        g_autofree char *k = g_strconcat(group, "\n", key, NULL);

        f = g_hash_table_lookup(s->by_key, k);
        if (!f) {
            /* a missing key: the file it belongs in */
            f = s->part_file[nvm_prof_key_part(group, key)];
        }
    }
    return f ? f : s->drive;
}

/*
 * @val (a value, a group or a key name from the file) for an error line:
 * at most 40 bytes of it, then "...", with every byte outside printable
 * ASCII, the double quote and the backslash escaped as C escapes them
 * (\t, \303): one short line of text however long or binary the file.
 */
char *nvm_prof_quote_value(const char *val)
{
    g_autofree char *cut = NULL;

    if (strlen(val) > 40) {
        cut = g_strndup(val, 37);
        cut = g_realloc(cut, 41);
        strcat(cut, "...");
    }
    return g_strescape(cut ? cut : val, NULL);
}

void nvm_prof_set_err(GError **errp, const char *file, const char *group,
                      const char *key, const char *fmt, ...)
{
    va_list ap;
    char *msg;
    /* the names come from the file: shown as values are */
    g_autofree char *g = nvm_prof_quote_value(group);
    g_autofree char *k = key ? nvm_prof_quote_value(key) : NULL;

    va_start(ap, fmt);
    msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    if (key) {
        g_set_error(errp, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                    "%s: [%s] %s: %s", file, g, k, msg);
    } else {
        g_set_error(errp, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                    "%s: [%s]: %s", file, g, msg);
    }
    g_free(msg);
}

static bool is_pow2(uint64_t v)
{
    return v && !(v & (v - 1));
}

static bool is_ascii_printable(const char *s)
{
    for (; *s; s++) {
        if (*s < 0x20 || *s > 0x7e) {
            return false;
        }
    }
    return true;
}

/* "512:1,4096:0": LBA data sizes (powers of two) with Relative Performance */
static bool parse_lba_formats(const char *val, NvmLbaFormats *f,
                              const char **why)
{
    g_auto(GStrv) items = g_strsplit(val, ",", -1);

    f->n = 0;
    for (char **it = items; *it; it++) {
        char *item = g_strstrip(*it), *end = NULL;
        guint64 bytes, rp = 0;

        errno = 0;
        bytes = g_ascii_strtoull(item, &end, 10);
        if (!g_ascii_isdigit(item[0]) || errno || bytes < 512 ||
            bytes > 65536 || (bytes & (bytes - 1))) {
            *why = "an LBA size must be a power of two from 512 to 65536";
            return false;
        }
        if (*end == ':') {
            char *rp_s = end + 1;

            rp = g_ascii_strtoull(rp_s, &end, 10);
            if (!g_ascii_isdigit(rp_s[0]) || rp > 3) {
                *why = "relative performance must be 0 to 3";
                return false;
            }
        }
        if (*end) {
            *why = "not a list like 512:1,4096:0";
            return false;
        }
        for (unsigned i = 0; i < f->n; i++) {
            if (f->bytes[i] == bytes) {
                *why = "an LBA size is listed twice";
                return false;
            }
        }
        f->bytes[f->n] = bytes;
        f->rp[f->n++] = rp;
    }
    return true;
}

/*
 * Parse @val for key @d into @dst.  On failure, false with the reason in
 * *why (static) or, for a value outside the key's bounds, in *range_err
 * (allocated): "'VAL' is outside the allowed range MIN to MAX UNIT (WHY)".
 */
static bool parse_value(const char *val, const KeyDesc *d, void *dst,
                        const char **why, char **range_err)
{
    char *end = NULL;
    bool hex = g_str_has_prefix(val, "0x") || g_str_has_prefix(val, "0X");
    bool out = false;
    char range[96];
    g_autofree char *q = NULL;

    errno = 0;
    switch (d->type) {
    case KT_STR: {
        long len;

        if (!g_utf8_validate(val, -1, NULL)) {
            *why = "not valid UTF-8";
            return false;
        }
        if ((d->flags & KF_ASCII) && !is_ascii_printable(val)) {
            *why = "must be printable ASCII";
            return false;
        }
        len = g_utf8_strlen(val, -1);
        if (len < d->b.min || len > d->b.max) {
            out = true;
            break;
        }
        *(char **)dst = g_strdup(val);
        return true;
    }
    case KT_U32:
    case KT_U64: {
        guint64 v;

        /* Decimal, or hex with 0x; never octal (a leading 0 is decimal). */
        if (val[0] == '-' && g_ascii_isdigit(val[1])) {
            out = true;
            break;
        }
        if (!g_ascii_isdigit(val[0]) ||
            (hex && !g_ascii_isxdigit(val[2]))) {
            /* strtoull would skip the spaces of "0x 8" */
            *why = "not an unsigned integer";
            return false;
        }
        v = g_ascii_strtoull(hex ? val + 2 : val, &end, hex ? 16 : 10);
        if (*end || end == val + (hex ? 2 : 0)) {
            *why = "not an unsigned integer";
            return false;
        }
        if (errno == ERANGE || v < (guint64)d->b.min ||
            v > (guint64)d->b.max) {
            out = true;
            break;
        }
        if (d->type == KT_U32) {
            *(uint32_t *)dst = v;
        } else {
            *(uint64_t *)dst = v;
        }
        if ((d->flags & KF_POW2) && !is_pow2(v)) {
            *why = "must be a power of two";
            return false;
        }
        return true;
    }
    case KT_I32: {
        gint64 v = g_ascii_strtoll(val, &end, 10);

        if (*end || end == val) {
            *why = "not an integer";
            return false;
        }
        if (errno == ERANGE || v < (gint64)d->b.min ||
            v > (gint64)d->b.max) {
            out = true;
            break;
        }
        *(int32_t *)dst = v;
        return true;
    }
    case KT_DBL: {
        double v = g_ascii_strtod(val, &end);

        if (*end || end == val || isnan(v)) {
            *why = "not a number";
            return false;
        }
        if (!(v >= d->b.min && v <= d->b.max)) {
            out = true;
            break;
        }
        *(double *)dst = v;
        return true;
    }
    case KT_BOOL:
        if (!strcmp(val, "true")) {
            *(bool *)dst = true;
        } else if (!strcmp(val, "false")) {
            *(bool *)dst = false;
        } else {
            *why = "not true or false";
            return false;
        }
        return true;
    case KT_CELL:
    case KT_MAP:
    case KT_REVIEW:
    case KT_PLACEMENT:
    case KT_STEADY: {
        /* each of these enums is stored as an int (its values fit one) */
        const KeyChoice *c = nvm_prof_key_choice(d->type);

        for (unsigned k = 0; k < 2; k++) {
            if (!strcmp(val, c->name[k])) {
                *(int *)dst = c->value[k];
                return true;
            }
        }
        *why = c->refused;
        return false;
    }
    case KT_VERSION: {
        unsigned maj, min;
        char extra;
        uint32_t vs;

        /* digits, one dot, digits: sscanf alone took "1.+3" and "1. 3" */
        if (strspn(val, "0123456789.") != strlen(val) ||
            sscanf(val, "%3u.%3u%c", &maj, &min, &extra) != 2 ||
            !g_ascii_isdigit(val[0]) || maj > 255 || min > 255) {
            *why = "not a version like 1.4";
            return false;
        }
        vs = maj << 16 | min << 8;
        if (vs < d->b.min || vs > d->b.max) {
            out = true;
            break;
        }
        *(uint32_t *)dst = vs;
        return true;
    }
    case KT_LBAF: {
        g_auto(GStrv) items = g_strsplit(val, ",", -1);
        guint n = g_strv_length(items);

        if (n < d->b.min || n > d->b.max) {
            out = true;
            break;
        }
        return parse_lba_formats(val, dst, why);
    }
    }
    if (!out) {
        *why = "unknown type";
        return false;
    }
    nvm_prof_format_range(d, hex || (d->flags & KF_HEX), range, sizeof(range));
    q = nvm_prof_quote_value(val);
    *range_err = g_strdup_printf("'%s' is outside the allowed range %s (%s)",
                                 q, range, d->b.why);
    return false;
}

/* Parse key @d of [@group] in @kf into @base; false with the error set. */
static bool load_key(GKeyFile *kf, const Src *src, const char *group,
                     const KeyDesc *d, void *base, GError **errp)
{
    const char *f = src_file(src, group, d->key);

    g_autofree char *val = g_key_file_get_value(kf, group, d->key, NULL);
    g_autofree char *range_err = NULL;
    const char *why = NULL;

    if (!val) {
        if (d->flags & (KF_REQ | KF_TLC | KF_QLC)) {
            nvm_prof_set_err(errp, f, group, d->key, "missing required key");
            return false;
        }
        return true;
    }
    g_strstrip(val);
    if (!parse_value(val, d, (char *)base + d->off, &why, &range_err)) {
        if (range_err) {
            nvm_prof_set_err(errp, f, group, d->key, "%s", range_err);
        } else {
            g_autofree char *q = nvm_prof_quote_value(val);

            nvm_prof_set_err(errp, f, group, d->key, "'%s': %s", q, why);
        }
        return false;
    }
    return true;
}

#define F(g, k) src_file(src, (g), (k))

/* Identify Controller fields: agreement with each other and the rest. */
static bool check_identify(const NvmProfile *p, const Src *src,
                           GError **errp)
{
    bool found = false;

    if (!(p->frmw & 0xe)) {
        nvm_prof_set_err(errp, F("identity", "frmw"), "identity", "frmw",
                         "bits 3:1 give the number of firmware slots, 1 to 7");
        return false;
    }
    if (p->unvmcap_bytes > p->tnvmcap_bytes) {
        nvm_prof_set_err(errp, F("identity", "unvmcap-bytes"), "identity",
                         "unvmcap-bytes",
                         "more than tnvmcap-bytes");
        return false;
    }
    for (unsigned i = 0; i < p->lba_formats.n; i++) {
        found |= p->lba_formats.bytes[i] == p->lba_bytes;
    }
    if (!found) {
        nvm_prof_set_err(errp, F("identity", "lba-formats"), "identity",
                         "lba-formats",
                         "does not list lba-bytes %u, the format the drive "
                         "ships in",
                         p->lba_bytes);
        return false;
    }
    return true;
}

/*
 * Cross-key checks: geometry and sizes that cannot exist.  The per-key
 * bounds keep every product here far below 2^64.
 */
static bool check_geometry(NvmProfile *p, const Src *src, GError **errp)
{
    uint64_t dies = (uint64_t)p->channels * p->dies_per_channel;
    uint64_t block = (uint64_t)p->pages_per_block * p->planes *
                     p->page_bytes;
    uint64_t sb_bytes, nsb, need;
    uint64_t unit = (uint64_t)p->planes * p->page_bytes * p->cell_mode;
    uint64_t map_bytes = p->capacity_bytes / p->map_unit_bytes *
                         p->map_entry_bytes;

    if (p->lba_bytes != 512 && p->lba_bytes != 4096) {
        nvm_prof_set_err(errp, F("identity", "lba-bytes"), "identity",
                         "lba-bytes",
                         "must be 512 or 4096");
        return false;
    }
    if (!check_identify(p, src, errp)) {
        return false;
    }
    if (p->capacity_bytes % p->lba_bytes) {
        nvm_prof_set_err(errp, F("identity", "capacity-bytes"), "identity",
                         "capacity-bytes",
                         "%" G_GUINT64_FORMAT " is not a multiple of "
                         "lba-bytes %u",
                         p->capacity_bytes, p->lba_bytes);
        return false;
    }
    if (p->temp_crit_c <= p->temp_warn_c) {
        nvm_prof_set_err(errp, F("identity", "temp-crit-c"), "identity",
                         "temp-crit-c",
                         "must be above temp-warn-c");
        return false;
    }
    if (dies > NVM_MAX_DIES) {
        nvm_prof_set_err(errp, F("nand", "dies-per-channel"), "nand",
                         "dies-per-channel",
                         "channels x dies-per-channel exceeds %d",
                         NVM_MAX_DIES);
        return false;
    }
    if (p->channels > p->max_channels) {
        nvm_prof_set_err(errp, F("nand", "channels"), "nand", "channels",
                         "%u, but the controller%s%s drives at most %u",
                         p->channels,
                         p->controller_part ? " " : "",
                         p->controller_part ? p->controller_part : "",
                         p->max_channels);
        return false;
    }
    if (p->dies_per_channel > p->max_dies_per_channel) {
        nvm_prof_set_err(errp, F("nand", "dies-per-channel"), "nand",
                         "dies-per-channel",
                         "%u, but the controller%s%s addresses at most %u per "
                         "channel", p->dies_per_channel,
                         p->controller_part ? " " : "",
                         p->controller_part ? p->controller_part : "",
                         p->max_dies_per_channel);
        return false;
    }
    if (p->die_bytes < 4 * block) {
        nvm_prof_set_err(errp, F("nand", "die-bytes"), "nand", "die-bytes",
                         "holds fewer than 4 blocks (pages-per-block x planes "
                         "x "
                         "page-bytes = %" G_GUINT64_FORMAT ")", block);
        return false;
    }
    if (p->pages_per_block % p->cell_mode) {
        nvm_prof_set_err(errp, F("nand", "pages-per-block"), "nand",
                         "pages-per-block",
                         "not a multiple of the %u bits per cell",
                         (unsigned)p->cell_mode);
        return false;
    }
    p->raw_bytes = dies * p->die_bytes;
    if (p->raw_bytes < p->capacity_bytes + p->gc_reserved_bytes +
        p->slc_static_bytes * p->cell_mode) {
        nvm_prof_set_err(errp, F("nand", "dies-per-channel"), "nand",
                         "dies-per-channel",
                         "%" G_GUINT64_FORMAT " dies of die-bytes hold "
                         "less than "
                         "capacity + reserved + static SLC: no room for the "
                         "data",
                         dies);
        return false;
    }
    /* Superblocks: one block per die; the FTL records them in 16 bits. */
    sb_bytes = dies * block;
    nsb = p->die_bytes / block - (p->gc_reserved_bytes + sb_bytes - 1) /
          sb_bytes;
    need = (p->capacity_bytes + sb_bytes - 1) / sb_bytes +
           (p->slc_static_bytes * p->cell_mode + sb_bytes - 1) / sb_bytes +
           p->gc_urgent_free + 3;
    if (nsb > NVM_MAX_SUPERBLOCKS) {
        nvm_prof_set_err(errp, F("nand", "pages-per-block"), "nand",
                         "pages-per-block",
                         "%" G_GUINT64_FORMAT " blocks per die; "
                         "at most %u are modelled", nsb, NVM_MAX_SUPERBLOCKS);
        return false;
    }
    if (nsb < need) {
        nvm_prof_set_err(errp, F("gc", "reserved-bytes"), "gc",
                         "reserved-bytes",
                         "leaves %" G_GUINT64_FORMAT " superblocks of %"
                         G_GUINT64_FORMAT " bytes; the data, static SLC and "
                         "urgent-free-blocks + 3 open ones need "
                         "%" G_GUINT64_FORMAT,
                         nsb, sb_bytes, need);
        return false;
    }
    if (p->gc_urgent_free >= p->gc_start_free) {
        nvm_prof_set_err(errp, F("gc", "urgent-free-blocks"), "gc",
                         "urgent-free-blocks",
                         "must be below start-free-blocks");
        return false;
    }
    if (p->active_w < p->idle_w) {
        nvm_prof_set_err(errp, F("controller", "active-w"), "controller",
                         "active-w",
                         "below idle-w");
        return false;
    }
    if (p->map_unit_bytes > p->page_bytes) {
        nvm_prof_set_err(errp, F("map", "unit-bytes"), "map", "unit-bytes",
                         "larger than page-bytes");
        return false;
    }
    if (p->write_buffer_bytes < 2 * unit) {
        nvm_prof_set_err(errp, F("cache", "write-buffer-bytes"), "cache",
                         "write-buffer-bytes",
                         "must hold two native program units "
                         "(%" G_GUINT64_FORMAT
                         " bytes)", 2 * unit);
        return false;
    }
    if (p->read_path_slc_mbps != 0 && p->read_path_slc_mbps < 10) {
        nvm_prof_set_err(errp, F("controller", "read-path-slc-mbps"),
                         "controller", "read-path-slc-mbps",
                         "%g: must be 0 (as read-path-mbps) or at least 10 "
                         "MB/s", p->read_path_slc_mbps);
        return false;
    }
    if (p->map_unit_bytes % p->lba_bytes) {
        nvm_prof_set_err(errp, F("map", "unit-bytes"), "map", "unit-bytes",
                         "must be a multiple of lba-bytes");
        return false;
    }
    if (p->map_entry_bytes > p->map_chunk_bytes) {
        nvm_prof_set_err(errp, F("map", "entry-bytes"), "map", "entry-bytes",
                         "larger than chunk-bytes");
        return false;
    }
    if (p->map_chunk_bytes > p->page_bytes) {
        nvm_prof_set_err(errp, F("map", "chunk-bytes"), "map", "chunk-bytes",
                         "larger than page-bytes");
        return false;
    }
    if (p->map_kind == NVM_MAP_DRAM ? p->map_hmb_min_bytes != 0 :
        p->map_hmb_min_bytes > p->map_cache_bytes ||
        p->map_cache_bytes % 4096 || p->map_hmb_min_bytes % 4096 ||
        p->map_cache_bytes / 4096 > UINT32_MAX) {
        nvm_prof_set_err(errp, F("map", "hmb-min-bytes"), "map",
                         "hmb-min-bytes",
                         "must be 0 for kind = dram; for kind = hmb at most "
                         "cache-bytes, both whole 4 KiB units (Identify "
                         "HMPRE/HMMIN)");
        return false;
    }
    /* A partial map keeps one tag per chunk the cache holds. */
    if (p->map_cache_bytes < map_bytes &&
        p->map_cache_bytes / p->map_chunk_bytes > NVM_MAX_MAP_TAGS) {
        nvm_prof_set_err(errp, F("map", "cache-bytes"), "map", "cache-bytes",
                         "a partial map of %" G_GUINT64_FORMAT " chunks of "
                         "chunk-bytes; at most %u are modelled",
                         p->map_cache_bytes / p->map_chunk_bytes,
                         NVM_MAX_MAP_TAGS);
        return false;
    }
    /* Checkpoints keep a bit per chunk of the whole map. */
    if (p->map_checkpoint_bytes &&
        map_bytes / p->map_chunk_bytes > NVM_MAX_CKPT_CHUNKS) {
        nvm_prof_set_err(errp, F("map", "checkpoint-bytes"), "map",
                         "checkpoint-bytes",
                         "the map has %" G_GUINT64_FORMAT " chunks of "
                         "chunk-bytes; checkpoints track at most %u (larger "
                         "chunk-bytes, or 0)",
                         map_bytes / p->map_chunk_bytes, NVM_MAX_CKPT_CHUNKS);
        return false;
    }
    return true;
}

static bool load_power_states(GKeyFile *kf, NvmProfile *p, const Src *src,
                              GError **errp)
{
    for (unsigned s = 0; s < p->n_power_states; s++) {
        char group[32];
        g_auto(GStrv) keys = NULL;

        snprintf(group, sizeof(group), "power-state-%u", s);
        keys = g_key_file_get_keys(kf, group, NULL, NULL);
        if (!keys) {
            nvm_prof_set_err(errp, F("power", "states"), group, NULL,
                             "missing section ([power] states = %u)",
                             p->n_power_states);
            return false;
        }
        for (char **k = keys; *k; k++) {
            bool found = false;

            for (size_t i = 0; i < N_PS_KEYS; i++) {
                found |= !strcmp(*k, nvm_prof_ps_table[i].key);
            }
            if (!found) {
                nvm_prof_set_err(errp, F(group, *k), group, *k, "unknown key");
                return false;
            }
        }
        for (size_t i = 0; i < N_PS_KEYS; i++) {
            if (!load_key(kf, src, group, &nvm_prof_ps_table[i], &p->ps[s],
                          errp)) {
                return false;
            }
        }
        if (s == 0 && p->ps[s].non_operational) {
            nvm_prof_set_err(errp, F(group, "non-operational"), group,
                             "non-operational",
                             "power state 0 must be operational");
            return false;
        }
        if (p->ps[s].idle_before_entry_ms && !p->ps[s].non_operational) {
            nvm_prof_set_err(errp, F(group, "idle-before-entry-ms"), group,
                             "idle-before-entry-ms",
                             "APST only enters non-operational states");
            return false;
        }
    }
    return true;
}

static bool power_group_in_range(const char *group, unsigned n)
{
    unsigned s;
    char extra;

    if (sscanf(group, "power-state-%u%c", &s, &extra) != 1) {
        return false;
    }
    return s < n;
}

NvmProfile *nvm_prof_profile_parse(GKeyFile *kf, const Src *src,
                                   NvmProfile *p, GError **errp)
{
    g_auto(GStrv) groups = g_key_file_get_groups(kf, NULL);
    g_autofree char *cell = g_key_file_get_value(kf, "nand", "cell-mode",
                                                 NULL);
    unsigned mode_flag = 0;

    if (cell) {
        g_strstrip(cell);
        mode_flag = !strcmp(cell, "tlc") ? KF_TLC
                  : !strcmp(cell, "qlc") ? KF_QLC : 0;
    }

    /* Pass 1: the number of power states decides which groups exist. */
    if (g_key_file_has_key(kf, "power", "states", NULL) &&
        !load_key(kf, src, "power", nvm_prof_find_key("power", "states"), p,
                  errp)) {
        goto fail;
    }

    /* Unknown groups and keys. */
    for (char **g = groups; *g; g++) {
        g_auto(GStrv) keys = NULL;

        if (power_group_in_range(*g, p->n_power_states)) {
            continue;
        }
        keys = g_key_file_get_keys(kf, *g, NULL, NULL);
        if (!nvm_prof_group_known(*g)) {
            nvm_prof_set_err(errp, F(*g, keys && *keys ? *keys : NULL), *g,
                             NULL,
                             "unknown section");
            goto fail;
        }
        for (char **k = keys; k && *k; k++) {
            const KeyDesc *d = nvm_prof_find_key(*g, *k);

            if (!d) {
                nvm_prof_set_err(errp, F(*g, *k), *g, *k, "unknown key");
                goto fail;
            }
            if ((d->flags & (KF_TLC | KF_QLC)) && mode_flag &&
                !(d->flags & mode_flag)) {
                nvm_prof_set_err(errp, F(*g, *k), *g, *k,
                                 "not used with cell-mode = %s", cell);
                goto fail;
            }
        }
    }

    for (size_t i = 0; i < N_KEYS; i++) {
        const KeyDesc *d = &nvm_prof_key_table[i];

        if (d->flags & (KF_TLC | KF_QLC)) {
            if (!mode_flag || !(d->flags & mode_flag)) {
                continue;
            }
        }
        if (!load_key(kf, src, d->group, d, p, errp)) {
            goto fail;
        }
    }

    if (!load_power_states(kf, p, src, errp)) {
        goto fail;
    }
    if (!check_geometry(p, src, errp)) {
        goto fail;
    }
    p->mdts = g_bit_nth_msf(p->mdts_pages, -1);
    return p;

fail:
    nvm_profile_free(p);
    return NULL;
}
