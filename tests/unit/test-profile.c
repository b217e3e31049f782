/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Profile loading: the five drives load with the identity the real drives
 * report, and each class of malformed file is refused with one line naming
 * the file, the key and the problem.
 */
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "nvmimic-model.h"

static char *base_text(void)
{
    g_autofree char *path = g_strdup_printf("%s/crucial-p5-1tb.ini",
                                            NVMIMIC_PROFILE_DIR);
    char *text = NULL;

    g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
    return text;
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

/* Load @text from a temporary file; expect failure mentioning @needles. */
static void expect_error(const char *text, const char *key, const char *why)
{
    g_autofree char *path = NULL;
    g_autoptr(GError) err = NULL;
    NvmProfile *p;
    int fd = g_file_open_tmp("bad-XXXXXX.ini", &path, &err);

    g_assert_no_error(err);
    close(fd);
    g_assert_true(g_file_set_contents(path, text, -1, NULL));
    p = nvm_profile_load(path, NULL, &err);
    g_unlink(path);
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

    expect_error(bad, "read-us-tlc", "greater than zero");
}

static void negative_time_is_rejected(void)
{
    g_autofree char *t = base_text();
    g_autofree char *bad = edit(t, "erase-us", "erase-us = -3500");

    expect_error(bad, "erase-us", "negative");
}

static void impossible_geometry_is_rejected(void)
{
    g_autofree char *t = base_text();
    g_autofree char *dies = edit(t, "dies-per-channel",
                                 "dies-per-channel = 4096");
    g_autofree char *raw = edit(t, "raw-bytes", "raw-bytes = 549755813888");
    g_autofree char *pages = edit(t, "page-bytes", "page-bytes = 12000");

    expect_error(dies, "dies-per-channel", "exceeds");
    expect_error(raw, "raw-bytes", "no room");
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

static void missing_profile_names_the_path(void)
{
    g_autoptr(GError) err = NULL;

    g_assert_null(nvm_profile_load("no-such-drive", NVMIMIC_PROFILE_DIR,
                                   &err));
    g_assert_nonnull(strstr(err->message, "no-such-drive.ini"));
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
    g_test_add_func("/profile/wrong_type_is_rejected",
                    wrong_type_is_rejected);
    g_test_add_func("/profile/key_of_other_cell_mode_is_rejected",
                    key_of_other_cell_mode_is_rejected);
    g_test_add_func("/profile/missing_power_state_section_is_rejected",
                    missing_power_state_section_is_rejected);
    g_test_add_func("/profile/missing_profile_names_the_path",
                    missing_profile_names_the_path);
    g_test_add_func("/profile/reviewed_drives_load_with_their_identity",
                    reviewed_drives_load_with_their_identity);
    g_test_add_func("/profile/path_and_name_resolve_to_the_same_profile",
                    path_and_name_resolve_to_the_same_profile);
    return g_test_run();
}
