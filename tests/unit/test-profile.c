/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Profile loading: the five drives load with the identity the real drives
 * report, and each class of malformed file is refused with one line naming
 * the file, the key and the problem.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "nvmimic-model.h"

/*
 * @name composed with its part files into one self-contained profile, one
 * "key = value" per line (what the strict loader checks).
 */
static char *composed(const char *name)
{
    g_autoptr(GError) err = NULL;
    g_autofree char *text = nvm_profile_compose_text(name,
                                                     NVMIMIC_PROFILE_DIR,
                                                     &err);
    g_auto(GStrv) lines = NULL;
    GString *out = g_string_new(NULL);

    g_assert_no_error(err);
    lines = g_strsplit(text, "\n", -1);
    for (char **l = lines; *l; l++) {
        char *eq = strchr(*l, '=');

        if (eq && **l != '#' && **l != '[') {
            g_string_append_printf(out, "%.*s = %s\n", (int)(eq - *l), *l,
                                   eq + 1);
        } else {
            g_string_append_printf(out, "%s\n", *l);
        }
    }
    return g_string_free(out, FALSE);
}

static char *base_text(void)
{
    return composed("crucial-p5-1tb");
}

/* Replace the line starting with "@key =" by @line (NULL: delete it). */
static char *edit(const char *text, const char *key, const char *line)
{
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    GString *out = g_string_new(NULL);
    g_autofree char *prefix = g_strdup_printf("%s = ", key);
    bool found = false;

    for (char **l = lines; *l; l++) {
        if (g_str_has_prefix(*l, prefix)) {
            found = true;
            if (line) {
                g_string_append_printf(out, "%s\n", line);
            }
            continue;
        }
        g_string_append_printf(out, "%s\n", *l);
    }
    g_assert_true(found);
    return g_string_free(out, FALSE);
}

/* Load @text from a temporary file, named in *@path. */
static NvmProfile *load_text(const char *text, char **path, GError **err)
{
    NvmProfile *p;
    int fd = g_file_open_tmp("bad-XXXXXX.ini", path, err);

    g_assert_no_error(*err);
    close(fd);
    g_assert_true(g_file_set_contents(*path, text, -1, NULL));
    p = nvm_profile_load(*path, NULL, err);
    g_unlink(*path);
    return p;
}

/* Load @text from a temporary file; expect failure mentioning @needles. */
static void expect_error(const char *text, const char *key, const char *why)
{
    g_autofree char *path = NULL;
    g_autoptr(GError) err = NULL;
    NvmProfile *p = load_text(text, &path, &err);

    g_assert_null(p);
    g_assert_nonnull(err);
    g_test_message("%s", err->message);
    g_assert_nonnull(strstr(err->message, path));
    g_assert_nonnull(strstr(err->message, key));
    g_assert_nonnull(strstr(err->message, why));
    g_assert_null(strchr(err->message, '\n'));
}

static void unknown_key_is_rejected(void)
{
    g_autofree char *t = base_text();
    g_autofree char *bad = edit(t, "channels", "channels = 8\nturbo-mode = 1");

    expect_error(bad, "turbo-mode", "unknown key");
}

static void unknown_section_is_rejected(void)
{
    g_autofree char *t = base_text();
    g_autofree char *bad = g_strconcat(t, "\n[warp-drive]\nfactor = 9\n",
                                       NULL);

    expect_error(bad, "warp-drive", "unknown section");
}

static void missing_required_key_is_rejected(void)
{
    g_autofree char *t = base_text();
    g_autofree char *bad = edit(t, "program-us-tlc", NULL);

    expect_error(bad, "program-us-tlc", "missing required key");
}

static void zero_time_is_rejected(void)
{
    g_autofree char *t = base_text();
    g_autofree char *bad = edit(t, "read-us-tlc", "read-us-tlc = 0");

    expect_error(bad, "read-us-tlc", "outside the allowed range 1 to 10000 us");
}

static void negative_time_is_rejected(void)
{
    g_autofree char *t = base_text();
    g_autofree char *bad = edit(t, "erase-us", "erase-us = -3500");

    expect_error(bad, "erase-us", "'-3500' is outside the allowed range");
}

static void impossible_geometry_is_rejected(void)
{
    g_autofree char *t = base_text();
    g_autofree char *dies = edit(t, "dies-per-channel",
                                 "dies-per-channel = 256");
    g_autofree char *raw = edit(t, "die-bytes", "die-bytes = 4294967296");
    g_autofree char *pages = edit(t, "page-bytes", "page-bytes = 12288");

    expect_error(dies, "dies-per-channel", "exceeds");
    expect_error(raw, "dies-per-channel", "no room");
    expect_error(pages, "page-bytes", "power of two");
}

static void capacity_not_multiple_of_lba_is_rejected(void)
{
    g_autofree char *t = base_text();
    g_autofree char *bad = edit(t, "capacity-bytes",
                                "capacity-bytes = 1000204886100");

    expect_error(bad, "capacity-bytes", "not a multiple of lba-bytes");
}

static void wrong_type_is_rejected(void)
{
    g_autofree char *t = base_text();
    g_autofree char *a = edit(t, "channels", "channels = eight");
    g_autofree char *b = edit(t, "program-suspend", "program-suspend = yes");
    g_autofree char *c = edit(t, "read-cmd-ns", "read-cmd-ns = 14us");
    g_autofree char *d = edit(t, "kind", "kind = sram");

    expect_error(a, "channels", "not an unsigned integer");
    expect_error(b, "program-suspend", "not true or false");
    expect_error(c, "read-cmd-ns", "not a number");
    expect_error(d, "kind", "not dram or hmb");
}

/*
 * Found by a CLI audit: strtoull skipped the space of "0x 8", sscanf's %u
 * took "+3", and GKeyFile took "vendor[fr]" for a translation it lists
 * under no key, so the unknown-key check never saw it.
 */
static void stray_text_and_translation_keys_are_rejected(void)
{
    g_autofree char *t = base_text();
    g_autofree char *a = edit(t, "channels", "channels = 0x 8");
    g_autofree char *b = edit(t, "nvme-version", "nvme-version = 1.+3");
    g_autofree char *c = edit(t, "nvme-version", "nvme-version = 1. 3");
    g_autofree char *d = edit(t, "channels",
                              "channels = 8\nchannels[fr] = huit");

    expect_error(a, "channels", "not an unsigned integer");
    expect_error(b, "nvme-version", "not a version like 1.4");
    expect_error(c, "nvme-version", "not a version like 1.4");
    expect_error(d, "not a profile: line", "a key with [...]");
}

static void key_of_other_cell_mode_is_rejected(void)
{
    g_autofree char *t = base_text();
    g_autofree char *bad = edit(t, "read-us-tlc",
                                "read-us-tlc = 66\nread-us-qlc = 120");

    expect_error(bad, "read-us-qlc", "not used with cell-mode");
}

static void missing_power_state_section_is_rejected(void)
{
    g_autofree char *t = base_text();
    g_autofree char *bad = edit(t, "states", "states = 6");

    expect_error(bad, "power-state-5", "missing section");
}

/* ---- bounds: the values issue 11 found crashing or hanging QEMU ---- */

/* @text with each "key = value" of @kv (NULL-terminated pairs) replaced. */
static char *edit_kv(const char *text, const char *const *kv)
{
    char *cur = g_strdup(text);

    for (const char *const *k = kv; *k; k += 2) {
        g_autofree char *line = g_strdup_printf("%s = %s", k[0], k[1]);
        char *next = edit(cur, k[0], line);

        g_free(cur);
        cur = next;
    }
    return cur;
}

static void expect_kv_error(const char *const *kv, const char *key,
                            const char *why)
{
    g_autofree char *t = base_text();
    g_autofree char *bad = edit_kv(t, kv);

    expect_error(bad, key, why);
}

/* planes x page >> granule: the program ring wrapped to 0 entries (SIGFPE) */
static void write_buffer_that_wraps_the_ring_is_rejected(void)
{
    static const char *const kv[] = {
        "planes", "1", "page-bytes", "4096",
        "write-buffer-bytes", "17592186011648", NULL };

    expect_kv_error(kv, "[cache] write-buffer-bytes",
                    "outside the allowed range 65536 to 1073741824 bytes");
}

/* planes x page overflowed 32 bits to 0: the write loop never ended */
static void page_that_overflows_the_slc_unit_is_rejected(void)
{
    static const char *const kv[] = {
        "planes", "2", "page-bytes", "2147483648", NULL };

    expect_kv_error(kv, "[nand] page-bytes",
                    "outside the allowed range 4096 to 65536 bytes");
}

/* 1000 / rate overflowed, then double -> integer was undefined */
static void vanishing_data_path_rate_is_rejected(void)
{
    static const char *const r[] = { "read-path-mbps", "1e-300", NULL };
    static const char *const w[] = { "write-path-mbps", "0.001", NULL };
    static const char *const c[] = { "channel-mbps", "1e-300", NULL };
    /* the SLC pages' path: 0 (the default) or at least 10 MB/s */
    static const char *const s[] = {
        "read-path-mbps", "3400\nread-path-slc-mbps = 1e-300", NULL };
    static const char *const neg[] = {
        "read-path-mbps", "3400\nread-path-slc-mbps = -5", NULL };

    expect_kv_error(r, "[controller] read-path-mbps",
                    "'1e-300' is outside the allowed range 10 to 1e+06 MB/s");
    expect_kv_error(w, "write-path-mbps", "allowed range 10 to 1e+06 MB/s");
    expect_kv_error(c, "[nand] channel-mbps", "allowed range 10 to 10000");
    expect_kv_error(s, "[controller] read-path-slc-mbps",
                    "must be 0 (as read-path-mbps) or at least 10 MB/s");
    expect_kv_error(neg, "[controller] read-path-slc-mbps",
                    "outside the allowed range 0 to 1e+06 MB/s");
}

/* deadlines >= 2^63 ns were silently untimed */
static void astronomical_command_time_is_rejected(void)
{
    static const char *const kv[] = { "read-cmd-ns", "1e300", NULL };
    static const char *const inf[] = { "write-cmd-ns", "inf", NULL };
    static const char *const nan[] = { "flush-cmd-ns", "nan", NULL };

    expect_kv_error(kv, "[controller] read-cmd-ns",
                    "outside the allowed range 1 to 1e+07 ns");
    expect_kv_error(inf, "write-cmd-ns", "outside the allowed range");
    expect_kv_error(nan, "flush-cmd-ns", "not a number");
}

/* ~1e15 ns per operation held guest I/O for days */
static void day_long_times_are_rejected(void)
{
    static const struct {
        const char *key, *val, *range;
    } cases[] = {
        { "read-cmd-ns", "1e15", "1 to 1e+07 ns" },
        { "trim-cmd-ns", "1e15", "1 to 1e+07 ns" },
        { "read-us-tlc", "1e12", "1 to 10000 us" },
        { "program-us-tlc", "1e12", "10 to 100000 us" },
        { "erase-us", "1e12", "100 to 100000 us" },
        { "suspend-us", "1e12", "0.1 to 1000 us" },
        { "read-retry-us", "1e12", "1 to 100000 us" },
        { "link-l1-exit-us", "1e12", "0.1 to 10000 us" },
        { "core-wake-us", "1e12", "0.01 to 10000 us" },
        { "exit-latency-us", "4294967295", "0 to 1000000 us" },
        { "entry-latency-us", "4000000000", "0 to 1000000 us" },
        { "fold-idle-ms", "4294967295", "1 to 3600000 ms" },
    };

    for (unsigned i = 0; i < G_N_ELEMENTS(cases); i++) {
        const char *kv[] = { cases[i].key, cases[i].val, NULL };

        expect_kv_error(kv, cases[i].key, cases[i].range);
    }
}

/* cache / chunk was truncated to 32 bits: a multi-GiB tag array */
static void partial_map_tag_count_is_bounded(void)
{
    static const char *const huge[] = {
        "cache-bytes", "17592186040320", NULL };
    /* within every key's range, but 2^21 chunks of a partial map */
    static const char *const many[] = {
        "entry-bytes", "16", "chunk-bytes", "512", NULL };

    expect_kv_error(huge, "[map] cache-bytes",
                    "outside the allowed range 4096 to 68719476736 bytes");
    expect_kv_error(many, "[map] cache-bytes",
                    "2097152 chunks of chunk-bytes; at most 1048576");
}

/* a checkpoint keeps a bit per chunk of the whole map: bounded too */
static void map_checkpoint_chunk_count_is_bounded(void)
{
    /* 2 TB in 16 KiB of coverage per chunk: 122 M chunks */
    static const char *const fine[] = {
        "entry-bytes", "16", "chunk-bytes", "512", "unit-bytes", "512",
        "cache-bytes", "268435456",
        "update-blocks-core", "false\ncheckpoint-bytes = 8388608", NULL };
    static const char *const far[] = {
        "update-blocks-core", "false\ncheckpoint-bytes = 2000000000000",
        NULL };
    g_autofree char *t = composed("crucial-p5-2tb");
    g_autofree char *bad = edit_kv(t, fine);
    g_autofree char *ok = edit_kv(t, fine + 8);
    g_autofree char *path = NULL;
    g_autoptr(GError) err = NULL;
    NvmProfile *p;

    expect_error(bad, "[map] checkpoint-bytes",
                 "the map has 122094661 chunks of chunk-bytes; checkpoints "
                 "track at most 16777216");

    expect_kv_error(far, "[map] checkpoint-bytes",
                    "outside the allowed range 0 to 1099511627776 bytes");
    /* the shipped map (4 KiB chunks of 4 MiB) with checkpoints loads */
    p = load_text(ok, &path, &err);
    g_assert_no_error(err);
    g_assert_cmpuint(p->map_checkpoint_bytes, ==, 8388608);
    nvm_profile_free(p);
}

/* temp + 273 overflowed int32 (and Kelvin is 16 bits) */
static void temperature_beyond_kelvin_field_is_rejected(void)
{
    static const char *const hi[] = { "temp-crit-c", "2147483647", NULL };
    static const char *const lo[] = { "temp-idle-c", "-2147483648", NULL };
    static const char *const big[] = { "temp-warn-c", "9999999999", NULL };

    expect_kv_error(hi, "[identity] temp-crit-c",
                    "outside the allowed range 1 to 125 C");
    expect_kv_error(lo, "temp-idle-c", "allowed range 1 to 125 C");
    expect_kv_error(big, "temp-warn-c", "allowed range 1 to 125 C");
}

/* IDs above 0xffff were silently truncated into config space */
static void pci_id_above_16_bits_is_rejected(void)
{
    static const char *const v[] = { "pci-vendor-id", "0x1c0a9", NULL };
    static const char *const d[] = { "pci-device-id", "65536", NULL };
    static const char *const s[] = { "pci-subsystem-id", "0xffff", NULL };

    expect_kv_error(v, "[identity] pci-vendor-id",
                    "'0x1c0a9' is outside the allowed range 0x1 to 0xfffe");
    expect_kv_error(d, "pci-device-id", "allowed range 0x1 to 0xfffe");
    expect_kv_error(s, "pci-subsystem-id", "allowed range 0x1 to 0xfffe");
}

static void integer_beyond_64_bits_is_rejected(void)
{
    static const char *const kv[] = {
        "capacity-bytes", "18446744073709551616", NULL };
    static const char *const neg[] = { "die-bytes", "-1", NULL };

    expect_kv_error(kv, "capacity-bytes", "outside the allowed range");
    expect_kv_error(neg, "die-bytes", "'-1' is outside the allowed range");
}

static void identity_strings_fit_identify_fields(void)
{
    static const char *const fw[] = { "firmware", "P4CR3240X", NULL };
    static const char *const sn[] = { "serial", "s\tn", NULL };

    expect_kv_error(fw, "[identity] firmware",
                    "outside the allowed range 1 to 8 characters");
    expect_kv_error(sn, "serial", "printable ASCII");
}

static void leading_zero_is_decimal_not_octal(void)
{
    g_autofree char *t = base_text();
    g_autofree char *text = edit(t, "fold-idle-ms", "fold-idle-ms = 0100");
    g_autoptr(GError) err = NULL;
    NvmProfile *p = nvm_profile_load_data("octal.ini", text, strlen(text),
                                          &err);

    g_assert_no_error(err);
    g_assert_cmpuint(p->fold_idle_ms, ==, 100);
    nvm_profile_free(p);
}

/* @len bytes of @text loaded as a file: the error, which must be one line */
static char *error_of(const char *text, size_t len, char **path_out)
{
    g_autofree char *path = NULL;
    g_autoptr(GError) err = NULL;
    NvmProfile *p;
    int fd = g_file_open_tmp("bad-XXXXXX.ini", &path, &err);

    g_assert_no_error(err);
    close(fd);
    g_assert_true(g_file_set_contents(path, text, len, NULL));
    p = nvm_profile_load(path, NULL, &err);
    g_unlink(path);
    g_assert_null(p);
    g_assert_nonnull(err);
    g_assert_nonnull(strstr(err->message, path));
    g_assert_null(strchr(err->message, '\n'));
    *path_out = g_steal_pointer(&path);
    return g_strdup(err->message);
}

/* printable ASCII only: what a terminal or a log shows as it is */
static void assert_printable(const char *msg)
{
    for (const char *c = msg; *c; c++) {
        g_assert_cmpint((unsigned char)*c, >=, 0x20);
        g_assert_cmpint((unsigned char)*c, <=, 0x7e);
    }
}

/*
 * Group and key names come from the file as values do: an error shows at
 * most 40 bytes of one, escaped.  A 500 KB group name gave a 500 KB line,
 * and bytes 0x80-0xff went to the terminal as they were.
 */
static void names_in_errors_are_cut_and_escaped(void)
{
    g_autofree char *t = base_text();
    g_autofree char *huge = g_strnfill(500000, 'g');
    g_autofree char *long_group = g_strconcat(t, "\n[", huge, "]\nk = 1\n",
                                              NULL);
    /* GKeyFile takes UTF-8 names; a group name no control character */
    g_autofree char *odd_group = g_strconcat(t, "\n[w\xc3\xa9\xe2\x80\xae"
                                             "]\nk = 1\n", NULL);
    g_autofree char *odd_key = edit(t, "channels",
                                    "channels = 8\ntur\xc3\xa9\x7f\x1b"
                                    "bo = 1");
    g_autofree char *path = NULL;
    g_autofree char *msg = NULL;

    msg = error_of(long_group, strlen(long_group), &path);
    g_test_message("%.300s", msg);
    g_assert_cmpuint(strlen(msg), <, strlen(path) + 120);
    g_assert_nonnull(strstr(msg, "[ggggggggggggggggggggggggggggggggggggg...]"));
    g_assert_nonnull(strstr(msg, "unknown section"));
    g_clear_pointer(&msg, g_free);
    g_clear_pointer(&path, g_free);

    msg = error_of(odd_group, strlen(odd_group), &path);
    g_test_message("%s", msg);
    assert_printable(msg);
    g_assert_nonnull(strstr(msg, "[w\\303\\251\\342\\200\\256]"));
    g_clear_pointer(&msg, g_free);
    g_clear_pointer(&path, g_free);

    msg = error_of(odd_key, strlen(odd_key), &path);
    g_test_message("%s", msg);
    assert_printable(msg);
    g_assert_nonnull(strstr(msg, "tur\\303\\251\\177\\033" "bo: unknown key"));
}

/* A value with bytes outside printable ASCII is shown escaped. */
static void values_in_errors_are_escaped(void)
{
    g_autofree char *t = base_text();
    g_autofree char *bad = edit(t, "serial", "serial = s\xc3\xa9rie");
    g_autofree char *path = NULL;
    g_autofree char *msg = error_of(bad, strlen(bad), &path);

    g_test_message("%s", msg);
    assert_printable(msg);
    g_assert_nonnull(strstr(msg, "'s\\303\\251rie'"));
}

/*
 * A NUL inside a value: GKeyFile ends the line there, so "Cru\0cial"
 * loaded as "Cru".  Refused, naming its line.
 */
static void nul_in_a_value_is_refused_with_its_line(void)
{
    g_autofree char *t = base_text();
    g_autofree char *bad = edit(t, "vendor", "vendor = Cru@cial");
    char *at = strchr(bad, '@');
    unsigned line = 1;
    g_autofree char *path = NULL;
    g_autofree char *msg = NULL;
    g_autofree char *want = NULL;

    for (const char *c = bad; c < at; c++) {
        line += *c == '\n';
    }
    *at = 0;
    msg = error_of(bad, strlen(bad) + 1 + strlen(at + 1), &path);
    g_test_message("%s", msg);
    want = g_strdup_printf("%s: not a profile: line %u holds a NUL byte",
                           path, line);
    g_assert_cmpstr(msg, ==, want);
}

/*
 * Found by fuzz-profile: a malformed buffer's error path split it as a
 * NUL-terminated string, reading past its end.  The buffer here ends at
 * an inaccessible page, so a read past it faults.
 */
static void malformed_buffer_is_read_within_its_length(void)
{
    static const char text[] = "[identity]\nthis line has no equals sign";
    long page = sysconf(_SC_PAGESIZE);
    char *map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *buf;
    g_autoptr(GError) err = NULL;

    g_assert_true(map != MAP_FAILED);
    g_assert_cmpint(mprotect(map + page, page, PROT_NONE), ==, 0);
    buf = map + page - (sizeof(text) - 1);
    memcpy(buf, text, sizeof(text) - 1);        /* no NUL */
    g_assert_null(nvm_profile_load_data("cut.ini", buf, sizeof(text) - 1,
                                        &err));
    g_assert_nonnull(err);
    g_assert_nonnull(strstr(err->message, "line 2"));
    munmap(map, 2 * page);
}

/* A base profile holding @ki's key (QLC keys need a QLC drive). */
static char *base_for(const NvmProfileKeyInfo *ki)
{
    return composed(ki->cell_mode == NVM_CELL_QLC ? "intel-670p-2tb"
                                                  : "crucial-p5-1tb");
}

/*
 * @t with @line in place of @ki's key, or, for an optional key the file
 * leaves out, @line at the head of the key's section.
 */
static char *edit_or_add(const char *t, const NvmProfileKeyInfo *ki,
                         const char *line)
{
    g_autofree char *prefix = g_strdup_printf("\n%s = ", ki->key);
    g_autofree char *head = g_strdup_printf("\n[%s]\n", ki->group);
    const char *at;

    if (strstr(t, prefix) || ki->required) {
        return edit(t, ki->key, line);
    }
    at = strstr(t, head);
    g_assert_nonnull(at);
    at += strlen(head);
    return g_strdup_printf("%.*s%s\n%s", (int)(at - t), t, line, at);
}

/* Values just outside [min, max] in the key's own syntax. */
static void outside_values(const NvmProfileKeyInfo *ki, char **below,
                           char **above)
{
    if (ki->length) {
        *below = ki->min >= 1 ? g_strnfill((gsize)ki->min - 1, 'x') : NULL;
        *above = g_strnfill((gsize)ki->max + 1, 'x');
    } else if (!strcmp(ki->type, "major.minor")) {
        uint32_t lo = ki->min, hi = ki->max;

        *below = lo > 0x10000 ? g_strdup_printf("%u.%u", lo >> 16,
                                                (lo >> 8 & 0xff) - 1)
                              : g_strdup("0.9");
        *above = g_strdup_printf("%u.%u", hi >> 16, (hi >> 8 & 0xff) + 1);
    } else if (g_str_has_prefix(ki->type, "bytes[:rp]")) {
        /* a list: its bound is on the number of entries */
        GString *list = g_string_new("512");

        for (unsigned n = 1; n <= ki->max; n++) {
            g_string_append(list, ",512");
        }
        *below = NULL;
        *above = g_string_free(list, FALSE);
    } else if (ki->integer) {
        *below = g_strdup_printf("%.0f", ki->min - 1);
        *above = g_strdup_printf("%.0f", ki->max + 1);
    } else {
        *below = g_strdup_printf("%.17g", ki->min > 0 ? ki->min * 0.999
                                                      : ki->min - 1);
        *above = g_strdup_printf("%.17g", ki->max * 1.001 + 1e-9);
    }
}

/*
 * Every bounded key, the ones added later included: a value just below
 * and just above its stated range is refused with one line naming the
 * file, the [section] key and the range.
 */
static void every_key_rejects_values_outside_its_range(void)
{
    unsigned tested = 0;

    for (unsigned i = 0; i < nvm_profile_key_count(); i++) {
        NvmProfileKeyInfo ki;
        g_autofree char *t = NULL, *below = NULL, *above = NULL;
        g_autofree char *want = NULL;

        g_assert_true(nvm_profile_key_info(i, &ki));
        if (!ki.bounded) {
            continue;
        }
        t = base_for(&ki);
        outside_values(&ki, &below, &above);
        want = g_strdup_printf("outside the allowed range %s", ki.range);
        for (int side = 0; side < 2; side++) {
            const char *v = side ? above : below;
            g_autofree char *line = NULL, *bad = NULL;

            if (!v) {
                continue;
            }
            line = g_strdup_printf("%s = %s", ki.key, v);
            bad = edit_or_add(t, &ki, line);
            expect_error(bad, ki.key, want);
            tested++;
        }
    }
    g_test_message("%u out-of-range values refused", tested);
    g_assert_cmpuint(tested, >, 2 * 60);
}

/* The table itself: exact integer bounds, min <= max, a reason each. */
static void every_numeric_key_states_its_bounds(void)
{
    for (unsigned i = 0; i < nvm_profile_key_count(); i++) {
        NvmProfileKeyInfo ki;

        g_assert_true(nvm_profile_key_info(i, &ki));
        if (strchr(ki.type, '|')) {
            g_assert_false(ki.bounded);     /* an enumerated type */
            continue;
        }
        g_test_message("[%s] %s: %s", ki.group, ki.key, ki.range);
        g_assert_true(ki.bounded);
        g_assert_nonnull(ki.why);
        g_assert_cmpfloat(ki.min, <=, ki.max);
        if (ki.integer || ki.length) {
            g_assert_cmpfloat(ki.min, ==, floor(ki.min));
            g_assert_cmpfloat(ki.max, ==, floor(ki.max));
            g_assert_cmpfloat(fabs(ki.min), <, 9007199254740992.0);
            g_assert_cmpfloat(fabs(ki.max), <, 9007199254740992.0);
        }
    }
}

static void every_required_key_is_required(void)
{
    for (unsigned i = 0; i < nvm_profile_key_count(); i++) {
        NvmProfileKeyInfo ki;
        g_autofree char *t = NULL, *bad = NULL;

        g_assert_true(nvm_profile_key_info(i, &ki));
        if (!ki.required || !strcmp(ki.key, "states")) {
            continue;       /* states: its absence removes the sections */
        }
        t = base_for(&ki);
        bad = edit(t, ki.key, NULL);
        expect_error(bad, ki.key, "missing required key");
    }
}

static void missing_profile_names_the_path(void)
{
    g_autoptr(GError) err = NULL;

    g_assert_null(nvm_profile_load("no-such-drive", NVMIMIC_PROFILE_DIR,
                                   &err));
    g_assert_nonnull(strstr(err->message, "no-such-drive.ini"));
}

static void bad_identify_capabilities_are_rejected(void)
{
    g_autofree char *t = base_text();
    g_autofree char *wide = edit(t, "oacs", "oacs = 0x10000");
    g_autofree char *oui = edit(t, "ieee-oui", "ieee-oui = 0x1000000");
    g_autofree char *slots = edit(t, "frmw", "frmw = 0x10");
    g_autofree char *unv = edit(t, "unvmcap-bytes", "unvmcap-bytes = 1");
    g_autofree char *pow2 = edit(t, "lba-formats", "lba-formats = 512,520");
    g_autofree char *rp = edit(t, "lba-formats", "lba-formats = 512:4");
    g_autofree char *twice = edit(t, "lba-formats",
                                  "lba-formats = 512,4096,512");
    g_autofree char *junk = edit(t, "lba-formats", "lba-formats = 512;4096");
    g_autofree char *cur = edit(t, "lba-formats", "lba-formats = 4096:0");

    expect_error(wide, "oacs", "outside the allowed range 0x0 to 0xffff");
    expect_error(oui, "ieee-oui", "outside the allowed range 0x0 to 0xffffff");
    expect_error(slots, "frmw", "firmware slots");
    expect_error(unv, "unvmcap-bytes", "more than tnvmcap-bytes");
    expect_error(pow2, "lba-formats", "power of two");
    expect_error(rp, "lba-formats", "relative performance");
    expect_error(twice, "lba-formats", "listed twice");
    expect_error(junk, "lba-formats", "not a list");
    expect_error(cur, "lba-formats", "does not list lba-bytes 512");
}

static void reviewed_drives_load_with_their_identity(void)
{
    static const struct {
        const char *name, *mn;
        uint32_t vid, did, ver;
        uint64_t cap;
    } want[] = {
        { "crucial-p2-500g", "CT500P2SSD8", 0xc0a9, 0x540a, 0x10300,
          500107862016ULL },
        { "crucial-p2-2tb", "CT2000P2SSD8", 0xc0a9, 0x540a, 0x10300,
          2000398934016ULL },
        { "crucial-p5-1tb", "CT1000P5SSD8", 0xc0a9, 0x5412, 0x10300,
          1000204886016ULL },
        { "crucial-p5-2tb", "CT2000P5SSD8", 0xc0a9, 0x5412, 0x10300,
          2000398934016ULL },
        { "intel-670p-2tb", "INTEL SSDPEKNU020TZ", 0x8086, 0xf1aa, 0x10400,
          2000398934016ULL },
    };
    g_autoptr(GError) err = NULL;
    g_auto(GStrv) names = nvm_profile_list(NVMIMIC_PROFILE_DIR, &err);

    g_assert_cmpuint(g_strv_length(names), ==, G_N_ELEMENTS(want));
    for (unsigned i = 0; i < G_N_ELEMENTS(want); i++) {
        NvmProfile *p = nvm_profile_load(want[i].name, NVMIMIC_PROFILE_DIR,
                                         &err);

        g_assert_no_error(err);
        g_assert_cmpstr(p->name, ==, want[i].name);
        g_assert_cmpstr(p->model_number, ==, want[i].mn);
        g_assert_cmpuint(p->pci_vendor_id, ==, want[i].vid);
        g_assert_cmpuint(p->pci_device_id, ==, want[i].did);
        g_assert_cmpuint(p->nvme_version, ==, want[i].ver);
        g_assert_cmpuint(p->capacity_bytes, ==, want[i].cap);
        g_assert_cmpuint(p->n_power_states, ==, 5);
        g_assert_true(p->ps[4].non_operational);
        g_assert_cmpuint(1u << p->mdts, ==, p->mdts_pages);
        /* Namespace Management is not among what these drives report */
        g_assert_cmpuint(p->oacs & (1u << 3), ==, 0);
        g_assert_cmpuint(p->namespaces, ==, 1);
        g_assert_cmpuint(p->lba_formats.bytes[0], ==, 512);
        nvm_profile_free(p);
    }
}

static void path_and_name_resolve_to_the_same_profile(void)
{
    g_autofree char *path = g_strdup_printf("%s/intel-670p-2tb.ini",
                                            NVMIMIC_PROFILE_DIR);
    g_autoptr(GError) err = NULL;
    NvmProfile *a = nvm_profile_load(path, "/nonexistent", &err);
    NvmProfile *b = nvm_profile_load("intel-670p-2tb", NVMIMIC_PROFILE_DIR,
                                     &err);

    g_assert_no_error(err);
    g_assert_cmpstr(a->name, ==, b->name);
    g_assert_cmpuint(a->raw_bytes, ==, b->raw_bytes);
    nvm_profile_free(a);
    nvm_profile_free(b);
}


/* ---- composition: parts, then the drive ---- */

/* A profile directory in a temporary folder: @drive's text as d.ini and
 * the shipped part files, with @nand_extra appended to the NAND part. */
static char *part_dir(const char *drive, const char *nand_extra)
{
    g_autoptr(GError) err = NULL;
    char *dir = g_dir_make_tmp("nvmimic-parts-XXXXXX", &err);
    static const char *const parts[] = {
        "nand/micron-b27a-96l-tlc", "controller/micron-dm01b2" };

    g_assert_no_error(err);
    for (unsigned i = 0; i < G_N_ELEMENTS(parts); i++) {
        g_autofree char *src = g_strdup_printf("%s/parts/%s.ini",
                                               NVMIMIC_PROFILE_DIR, parts[i]);
        g_autofree char *dst = g_strdup_printf("%s/parts/%s.ini", dir,
                                               parts[i]);
        g_autofree char *sub = g_path_get_dirname(dst);
        g_autofree char *text = NULL;
        g_autofree char *all = NULL;

        g_assert_true(g_file_get_contents(src, &text, NULL, NULL));
        all = g_strconcat(text, i == 0 && nand_extra ? nand_extra : "",
                          NULL);
        g_assert_cmpint(g_mkdir_with_parents(sub, 0700), ==, 0);
        g_assert_true(g_file_set_contents(dst, all, -1, NULL));
    }
    {
        g_autofree char *d = g_strdup_printf("%s/d.ini", dir);

        g_assert_true(g_file_set_contents(d, drive, -1, NULL));
    }
    return dir;
}

static void rm_part_dir(const char *dir)
{
    g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", dir);

    g_assert_cmpint(system(cmd), ==, 0);
}

static char *shipped_drive(const char *name)
{
    g_autofree char *path = g_strdup_printf("%s/%s.ini", NVMIMIC_PROFILE_DIR,
                                            name);
    char *text = NULL;

    g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
    return text;
}

/* Load d.ini of @dir; expect an error naming @file_part, @key and @why. */
static void expect_part_error(const char *dir, const char *file_part,
                              const char *key, const char *why)
{
    g_autofree char *d = g_strdup_printf("%s/d.ini", dir);
    g_autoptr(GError) err = NULL;
    NvmProfile *p = nvm_profile_load(d, NULL, &err);

    g_assert_null(p);
    g_test_message("%s", err->message);
    g_assert_nonnull(strstr(err->message, file_part));
    g_assert_nonnull(strstr(err->message, key));
    g_assert_nonnull(strstr(err->message, why));
    g_assert_null(strchr(err->message, '\n'));
}

static void drive_naming_a_missing_part_is_rejected(void)
{
    g_autofree char *t = shipped_drive("crucial-p5-1tb");
    g_autofree char *bad = edit(t, "nand", "nand = micron-b99z");
    g_autofree char *dir = part_dir(bad, NULL);

    expect_part_error(dir, "d.ini", "[parts] nand", "no nand part "
                      "'micron-b99z'");
    rm_part_dir(dir);
}

static void drive_overriding_a_part_key_is_rejected(void)
{
    g_autofree char *t = shipped_drive("crucial-p5-1tb");
    g_autofree char *bad = g_strconcat(t, "\n[controller]\ncores = 8\n",
                                       NULL);
    g_autofree char *dir = part_dir(bad, NULL);

    expect_part_error(dir, "d.ini", "[controller] cores", "also set in");
    rm_part_dir(dir);
}

static void part_setting_a_drive_key_is_rejected(void)
{
    g_autofree char *t = shipped_drive("crucial-p5-1tb");
    g_autofree char *dir = part_dir(t, "\n[cache]\nfold-idle-ms = 5\n");

    expect_part_error(dir, "micron-b27a-96l-tlc.ini", "[cache] fold-idle-ms",
                      "belongs in the drive file");
    rm_part_dir(dir);
}

static void more_dies_than_the_controller_drives_are_rejected(void)
{
    g_autofree char *t = shipped_drive("crucial-p5-1tb");
    g_autofree char *bad = edit(t, "dies-per-channel",
                                "dies-per-channel = 16");
    g_autofree char *dir = part_dir(bad, NULL);

    expect_part_error(dir, "d.ini", "[nand] dies-per-channel",
                      "controller micron-dm01b2 addresses at most 8");
    rm_part_dir(dir);
}

static void geometry_too_small_for_the_capacity_is_rejected(void)
{
    g_autofree char *t = shipped_drive("crucial-p5-1tb");
    g_autofree char *bad = edit(t, "dies-per-channel",
                                "dies-per-channel = 1");
    g_autofree char *dir = part_dir(bad, NULL);

    expect_part_error(dir, "d.ini", "[nand] dies-per-channel", "no room");
    rm_part_dir(dir);
}

static void bad_fit_range_is_rejected_naming_the_part(void)
{
    g_autofree char *t = shipped_drive("crucial-p5-1tb");
    g_autofree char *dir = part_dir(t, "nand.erase-us = 5..1\n");

    expect_part_error(dir, "micron-b27a-96l-tlc.ini", "[fit] nand.erase-us",
                      "not a range");
    rm_part_dir(dir);
}

/* "LO..HI prior P": the prior is read, and one outside the range or not a
 * number is refused naming the part and the key. */
static void fit_prior_is_read_and_checked(void)
{
    g_autofree char *t = shipped_drive("crucial-p5-1tb");
    g_autofree char *ok = part_dir(t, "nand.erase-us = 1000..20000 prior "
                                      "4500\n");
    g_autofree char *out = part_dir(t, "nand.erase-us = 1000..20000 prior "
                                       "50000\n");
    g_autofree char *nan = part_dir(t, "nand.erase-us = 1000..20000 prior "
                                       "x\n");
    g_autofree char *d = g_strdup_printf("%s/d.ini", ok);
    g_autoptr(GError) err = NULL;
    NvmProfile *p = nvm_profile_load(d, NULL, &err);
    bool found = false;

    g_assert_no_error(err);
    for (unsigned i = 0; i < p->n_free_params; i++) {
        const NvmFreeParam *fp = &p->free_params[i];

        if (!strcmp(fp->key, "erase-us")) {
            found = true;
            g_assert_true(fp->has_prior);
            g_assert_cmpfloat(fp->prior, ==, 4500);
            g_assert_cmpfloat(fp->hi, ==, 20000);
        } else {
            /* the shipped P5 parts give each of theirs a prior */
            g_assert_true(fp->has_prior);
            if (!strcmp(fp->key, "read-us-tlc")) {
                g_assert_cmpfloat(fp->prior, ==, 56);
            }
        }
    }
    g_assert_true(found);
    nvm_profile_free(p);
    expect_part_error(out, "micron-b27a-96l-tlc.ini", "[fit] nand.erase-us",
                      "the prior is outside");
    expect_part_error(nan, "micron-b27a-96l-tlc.ini", "[fit] nand.erase-us",
                      "the prior is not a number");
    rm_part_dir(ok);
    rm_part_dir(out);
    rm_part_dir(nan);
}

/* The P5 1 TB and 2 TB share both parts and their firmware policy: the
 * composed profiles differ only in identity and geometry. */
static void p5_capacities_differ_only_in_geometry_and_identity(void)
{
    static const char *const may_differ[] = {
        "description", "model-number", "serial", "capacity-bytes",
        "endurance-tbw", "dies-per-channel", "slc-dynamic-max-bytes",
        "cache-bytes", "reserved-bytes", NULL };
    g_autoptr(GError) err = NULL;
    NvmProfile *a = nvm_profile_load("crucial-p5-1tb", NVMIMIC_PROFILE_DIR,
                                     &err);
    NvmProfile *b = nvm_profile_load("crucial-p5-2tb", NVMIMIC_PROFILE_DIR,
                                     &err);
    g_autofree char *ta = composed("crucial-p5-1tb");
    g_autofree char *tb = composed("crucial-p5-2tb");
    g_auto(GStrv) la = g_strsplit(ta, "\n", -1);
    g_auto(GStrv) lb = g_strsplit(tb, "\n", -1);
    unsigned differ = 0;

    g_assert_no_error(err);
    g_assert_cmpstr(a->nand_part, ==, b->nand_part);
    g_assert_cmpstr(a->controller_part, ==, b->controller_part);
    g_assert_cmpuint(g_strv_length(la), ==, g_strv_length(lb));
    for (unsigned i = 0; la[i]; i++) {
        bool ok = !strcmp(la[i], lb[i]);

        for (const char *const *k = may_differ; !ok && *k; k++) {
            ok = g_str_has_prefix(la[i], *k) && la[i][strlen(*k)] == ' ';
        }
        if (strcmp(la[i], lb[i])) {
            g_test_message("differ: %s | %s", la[i], lb[i]);
            differ++;
        }
        g_assert_true(ok);
    }
    g_assert_cmpuint(differ, >=, 3);
    /* the P2s share their controller */
    {
        NvmProfile *c = nvm_profile_load("crucial-p2-500g",
                                         NVMIMIC_PROFILE_DIR, &err);
        NvmProfile *d = nvm_profile_load("crucial-p2-2tb",
                                         NVMIMIC_PROFILE_DIR, &err);

        g_assert_no_error(err);
        g_assert_cmpstr(c->controller_part, ==, d->controller_part);
        g_assert_cmpfloat(c->read_cmd_ns, ==, d->read_cmd_ns);
        g_assert_cmpfloat(c->read_path_mbps, ==, d->read_path_mbps);
        nvm_profile_free(c);
        nvm_profile_free(d);
    }
    nvm_profile_free(a);
    nvm_profile_free(b);
}

/* Overrides (the fit's trial values) pass the same checks. */
static void overrides_replace_values_and_are_checked(void)
{
    static const char *const good[] = { "nand", "read-us-tlc", "61", NULL };
    static const char *const bad[] = { "nand", "read-us-tlc", "0", NULL };
    g_autoptr(GError) err = NULL;
    NvmProfile *p = nvm_profile_load_with("crucial-p5-1tb",
                                          NVMIMIC_PROFILE_DIR, good, &err);

    g_assert_no_error(err);
    g_assert_cmpfloat(p->read_us_native, ==, 61);
    g_assert_cmpuint(p->n_free_params, >=, 1);
    nvm_profile_free(p);
    g_assert_null(nvm_profile_load_with("crucial-p5-1tb",
                                        NVMIMIC_PROFILE_DIR, bad, &err));
    g_assert_nonnull(strstr(err->message, "[nand] read-us-tlc"));
    g_assert_nonnull(strstr(err->message, "(override)"));
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/profile/unknown_key_is_rejected",
                    unknown_key_is_rejected);
    g_test_add_func("/profile/unknown_section_is_rejected",
                    unknown_section_is_rejected);
    g_test_add_func("/profile/missing_required_key_is_rejected",
                    missing_required_key_is_rejected);
    g_test_add_func("/profile/zero_time_is_rejected", zero_time_is_rejected);
    g_test_add_func("/profile/negative_time_is_rejected",
                    negative_time_is_rejected);
    g_test_add_func("/profile/impossible_geometry_is_rejected",
                    impossible_geometry_is_rejected);
    g_test_add_func("/profile/capacity_not_multiple_of_lba_is_rejected",
                    capacity_not_multiple_of_lba_is_rejected);
    g_test_add_func("/profile/stray_text_and_translation_keys_are_rejected",
                    stray_text_and_translation_keys_are_rejected);
    g_test_add_func("/profile/wrong_type_is_rejected",
                    wrong_type_is_rejected);
    g_test_add_func("/profile/key_of_other_cell_mode_is_rejected",
                    key_of_other_cell_mode_is_rejected);
    g_test_add_func("/profile/missing_power_state_section_is_rejected",
                    missing_power_state_section_is_rejected);
    g_test_add_func("/profile/write_buffer_that_wraps_the_ring_is_rejected",
                    write_buffer_that_wraps_the_ring_is_rejected);
    g_test_add_func("/profile/page_that_overflows_the_slc_unit_is_rejected",
                    page_that_overflows_the_slc_unit_is_rejected);
    g_test_add_func("/profile/vanishing_data_path_rate_is_rejected",
                    vanishing_data_path_rate_is_rejected);
    g_test_add_func("/profile/astronomical_command_time_is_rejected",
                    astronomical_command_time_is_rejected);
    g_test_add_func("/profile/day_long_times_are_rejected",
                    day_long_times_are_rejected);
    g_test_add_func("/profile/partial_map_tag_count_is_bounded",
                    partial_map_tag_count_is_bounded);
    g_test_add_func("/profile/map_checkpoint_chunk_count_is_bounded",
                    map_checkpoint_chunk_count_is_bounded);
    g_test_add_func("/profile/temperature_beyond_kelvin_field_is_rejected",
                    temperature_beyond_kelvin_field_is_rejected);
    g_test_add_func("/profile/pci_id_above_16_bits_is_rejected",
                    pci_id_above_16_bits_is_rejected);
    g_test_add_func("/profile/integer_beyond_64_bits_is_rejected",
                    integer_beyond_64_bits_is_rejected);
    g_test_add_func("/profile/identity_strings_fit_identify_fields",
                    identity_strings_fit_identify_fields);
    g_test_add_func("/profile/leading_zero_is_decimal_not_octal",
                    leading_zero_is_decimal_not_octal);
    g_test_add_func("/profile/every_key_rejects_values_outside_its_range",
                    every_key_rejects_values_outside_its_range);
    g_test_add_func("/profile/every_numeric_key_states_its_bounds",
                    every_numeric_key_states_its_bounds);
    g_test_add_func("/profile/every_required_key_is_required",
                    every_required_key_is_required);
    g_test_add_func("/profile/missing_profile_names_the_path",
                    missing_profile_names_the_path);
    g_test_add_func("/profile/names_in_errors_are_cut_and_escaped",
                    names_in_errors_are_cut_and_escaped);
    g_test_add_func("/profile/values_in_errors_are_escaped",
                    values_in_errors_are_escaped);
    g_test_add_func("/profile/nul_in_a_value_is_refused_with_its_line",
                    nul_in_a_value_is_refused_with_its_line);
    g_test_add_func("/profile/malformed_buffer_is_read_within_its_length",
                    malformed_buffer_is_read_within_its_length);
    g_test_add_func("/profile/bad_identify_capabilities_are_rejected",
                    bad_identify_capabilities_are_rejected);
    g_test_add_func("/profile/reviewed_drives_load_with_their_identity",
                    reviewed_drives_load_with_their_identity);
    g_test_add_func("/profile/path_and_name_resolve_to_the_same_profile",
                    path_and_name_resolve_to_the_same_profile);
    g_test_add_func("/profile/drive_naming_a_missing_part_is_rejected",
                    drive_naming_a_missing_part_is_rejected);
    g_test_add_func("/profile/drive_overriding_a_part_key_is_rejected",
                    drive_overriding_a_part_key_is_rejected);
    g_test_add_func("/profile/part_setting_a_drive_key_is_rejected",
                    part_setting_a_drive_key_is_rejected);
    g_test_add_func("/profile/more_dies_than_the_controller_drives_are_"
                    "rejected",
                    more_dies_than_the_controller_drives_are_rejected);
    g_test_add_func("/profile/geometry_too_small_for_the_capacity_is_"
                    "rejected",
                    geometry_too_small_for_the_capacity_is_rejected);
    g_test_add_func("/profile/bad_fit_range_is_rejected_naming_the_part",
                    bad_fit_range_is_rejected_naming_the_part);
    g_test_add_func("/profile/fit_prior_is_read_and_checked",
                    fit_prior_is_read_and_checked);
    g_test_add_func("/profile/p5_capacities_differ_only_in_geometry_and_"
                    "identity",
                    p5_capacities_differ_only_in_geometry_and_identity);
    g_test_add_func("/profile/overrides_replace_values_and_are_checked",
                    overrides_replace_values_and_are_checked);
    return g_test_run();
}
