/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the profile loader, then the model on what it accepts.
 *
 * Inputs are profile texts; the seeds are the shipped profiles.  The
 * custom mutator is structure-aware: it mostly rewrites the value of one
 * to three "key = value" lines with edge values (0, negative, huge,
 * NaN/inf, 2^32 +- 1, 2^63, ...), values just outside the key's own
 * bounds (from the loader's key table), scaled or spliced values, and
 * only sometimes falls back to libFuzzer's byte-level mutations.
 *
 * Accepted profiles must satisfy what the device assumes (16-bit IDs,
 * Kelvin fields, Identify string sizes) and then drive a model through a
 * fixed mix of commands, idle periods and state changes with every
 * invariant of fuzz-common.c checked.  Rejected ones must get one line
 * naming the file.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-common.h"
#include "rng.h"

/* beside the shipped drives, so that the seeds find their part files */
#define PATH NVMIMIC_PROFILE_DIR "/fuzz.ini"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
                               unsigned int seed);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- the model on an accepted profile ---- */

static void exercise(const NvmProfile *p)
{
    NvmModel *m = nvm_model_new(p, 1);
    FuzzDriver d;
    uint64_t lbas = p->capacity_bytes / p->lba_bytes;
    uint32_t mdts_lbas = p->mdts_pages * 4096 / p->lba_bytes;
    uint64_t wrote = 0, x = 12345;
    uint32_t idle[NVM_MAX_POWER_STATES] = { 0 };

    fuzz_check_profile(p);
    fuzz_driver_init(&d, m, p, 1000);

    /* Sequential writes through the write buffer (capped at 64 MiB). */
    while (wrote < 2 * p->write_buffer_bytes && wrote < (64 << 20)) {
        fuzz_submit(&d, NVM_OP_WRITE, wrote / p->lba_bytes, mdts_lbas);
        wrote += (uint64_t)mdts_lbas * p->lba_bytes;
        fuzz_advance(&d, 1000);
    }
    fuzz_submit(&d, NVM_OP_FLUSH, 0, 0);
    fuzz_check_stats(&d);

    /* A full drive: random mixed I/O, some of it at queue depth. */
    fuzz_set_fill(&d, 100);
    fuzz_set_slc_used(&d, p->slc_static_bytes / 2);
    for (int i = 0; i < 64; i++) {
        NvmOp op;

        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        op = (NvmOp)((x >> 33) % NVM_CLASS_COUNT);
        fuzz_submit(&d, op, (x >> 8) % lbas, 1 + (x >> 45) % mdts_lbas);
        fuzz_advance(&d, i % 8 ? 0 : (x >> 52));
    }
    fuzz_check_stats(&d);

    /* Idle into the deepest power state, then wake; the guest's APST. */
    fuzz_advance(&d, 3600 * 1000000000ULL);
    fuzz_submit(&d, NVM_OP_READ, 0, 8);
    for (unsigned i = 0; i < p->n_power_states; i++) {
        idle[i] = p->ps[i].non_operational ? 10 * (i + 1) : 0;
    }
    fuzz_set_apst(&d, true, idle, p->n_power_states);
    fuzz_advance(&d, 1000000000ULL);
    fuzz_submit(&d, NVM_OP_WRITE, lbas - 1, mdts_lbas);
    fuzz_set_wear(&d, 255);
    fuzz_secure_erase(&d);
    fuzz_submit(&d, NVM_OP_DISCARD, 0, UINT32_MAX);
    fuzz_check_stats(&d);
    nvm_model_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    g_autoptr(GError) err = NULL;
    NvmProfile *p = nvm_profile_load_data(PATH, (const char *)data, size,
                                          &err);

    if (!p) {
        fuzz_check_error(PATH, err);
        return 0;
    }
    FUZZ_CHECK(!err, "accepted with an error set");
    exercise(p);
    nvm_profile_free(p);
    return 0;
}

/* ---- structure-aware mutation ---- */

static const char *const edge_values[] = {
    "0", "1", "-1", "2", "-0", "0.5", "1e-300", "-1e-300", "1e300",
    "4.9e-324", "1.7976931348623157e308", "nan", "-nan", "inf", "-inf",
    "2147483647", "2147483648", "-2147483648", "-2147483649",
    "4294967295", "4294967296", "4294967297",
    "9223372036854775807", "9223372036854775808", "-9223372036854775808",
    "18446744073709551615", "18446744073709551616",
    "0x7fffffffffffffff", "0xffffffffffffffff", "0x", "0xffff", "0x10000",
    "65535", "65536", "1e15", "1e9", "17592186011648", "2147483648",
    "08", "010", "1.5e3", "1e", "", " ", "+1", "1 ", "1.0", "2.2",
    "255.255", "0.0", "true", "false", "tlc", "qlc", "dram", "hmb",
    "filled", "erased", "\\x00", "\xc3\xa9",
};

/* The loader's key named @key, if any. */
static bool key_info(const char *key, NvmProfileKeyInfo *ki)
{
    for (unsigned i = 0; i < nvm_profile_key_count(); i++) {
        if (nvm_profile_key_info(i, ki) && !strcmp(ki->key, key)) {
            return true;
        }
    }
    return false;
}

/* A new value for @key, whose current value is @old. */
static char *new_value(uint64_t *s, const char *key, const char *old,
                       GPtrArray *values)
{
    NvmProfileKeyInfo ki;
    char *end;
    double v = g_ascii_strtod(old, &end);
    bool num = end != old && !*end;
    uint64_t r = nvm_rng_u64(s);

    switch (r % 8) {
    case 0:
    case 1:
        return g_strdup(edge_values[(r >> 8) % G_N_ELEMENTS(edge_values)]);
    case 2:                         /* at and just beyond the key's bounds */
        if (key_info(key, &ki) && ki.bounded) {
            double b = (r >> 8) & 1 ? ki.max : ki.min;
            static const double f[] = { 1, 0.999999, 1.000001, 0.5, 2 };
            double nb = b * f[(r >> 9) % G_N_ELEMENTS(f)];

            if ((r >> 12) & 1) {
                nb += (r >> 13) & 1 ? 1 : -1;
            }
            return ki.integer || ki.length ? g_strdup_printf("%.0f", nb)
                                           : g_strdup_printf("%.17g", nb);
        }
        return g_strdup_printf("%" PRIu64, nvm_rng_u64(s) >> (r >> 8) % 64);
    case 3:                         /* scaled */
        if (num) {
            static const double f[] = { 2, 0.5, 10, 0.1, 1000, 0.001,
                                        1024, -1, 1e6, 1e-6 };

            v *= f[(r >> 8) % G_N_ELEMENTS(f)];
            return v == floor(v) && fabs(v) < 1e19
                   ? g_strdup_printf("%.0f", v) : g_strdup_printf("%g", v);
        }
        /* fall through */
    case 4:                         /* powers of two, +- 1 */
        return g_strdup_printf("%" PRIu64, (1ULL << ((r >> 8) % 64)) +
                               ((r >> 14) % 3) - 1);
    case 5:                         /* another line's value */
        return g_strdup(values->len ?
                        g_ptr_array_index(values, (r >> 8) % values->len) :
                        "0");
    case 6:                         /* small integers */
        return g_strdup_printf("%" PRIu64, (r >> 8) % 1025);
    default:                        /* any finite double */
        for (;;) {
            uint64_t bits = nvm_rng_u64(s);
            double d;

            memcpy(&d, &bits, sizeof(d));
            if (isfinite(d)) {
                return g_strdup_printf("%.17g", d);
            }
        }
    }
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
                               unsigned int seed)
{
    uint64_t s = seed;
    g_autofree char *text = g_strndup((const char *)data, size);
    g_auto(GStrv) lines = NULL;
    g_autoptr(GPtrArray) kv = g_ptr_array_new();     /* indices of lines */
    g_autoptr(GPtrArray) values = g_ptr_array_new_with_free_func(g_free);
    GString *out;
    unsigned n, edits;

    if (nvm_rng_u64(&s) % 8 == 0) {
        return LLVMFuzzerMutate(data, size, max_size);
    }
    lines = g_strsplit(text, "\n", -1);
    n = g_strv_length(lines);
    for (unsigned i = 0; i < n; i++) {
        char *eq = strchr(lines[i], '=');

        if (lines[i][0] != '#' && lines[i][0] != '[' && eq) {
            g_ptr_array_add(kv, GUINT_TO_POINTER(i));
            g_ptr_array_add(values, g_strstrip(g_strdup(eq + 1)));
        }
    }
    if (!kv->len) {
        return LLVMFuzzerMutate(data, size, max_size);
    }
    edits = 1 + nvm_rng_u64(&s) % 3;
    for (unsigned e = 0; e < edits; e++) {
        unsigned pick = (unsigned)(nvm_rng_u64(&s) % kv->len);
        unsigned li = GPOINTER_TO_UINT(g_ptr_array_index(kv, pick));
        char *line = lines[li];
        char *eq = strchr(line, '=');
        g_autofree char *key = NULL, *val = NULL, *nv = NULL;

        if (!eq) {
            continue;               /* dropped by an earlier edit */
        }
        key = g_strstrip(g_strndup(line, eq - line));
        val = g_strdup(g_strstrip(eq + 1));

        if (nvm_rng_u64(&s) % 16 == 0) {    /* drop the line */
            lines[li] = g_strdup("");
        } else {
            nv = new_value(&s, key, val, values);
            lines[li] = g_strdup_printf("%s = %s", key, nv);
        }
        g_free(line);
    }
    out = g_string_new(NULL);
    for (unsigned i = 0; i < n; i++) {
        g_string_append(out, lines[i]);
        if (i + 1 < n) {
            g_string_append_c(out, '\n');
        }
    }
    if (out->len > max_size) {
        g_string_free(out, TRUE);
        return LLVMFuzzerMutate(data, size, max_size);
    }
    memcpy(data, out->str, out->len);
    size = out->len;
    g_string_free(out, TRUE);
    return size;
}
