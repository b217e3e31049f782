/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The option parser's defaults and presets (harness/cli/opts.c): a
 * default from the table is read like a given value, one worked out at run
 * time too, a preset applies only to options not given and the first one
 * wins, and the help prints them all from the table.
 */
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "opts.h"

typedef struct T {
    bool quick;
    double run_s;
    unsigned users;
    const char *mode;
    const char *preset;
    const char *dir;
    uint64_t seed;
} T;

static const char *dir_now = "/from/the/environment";

static const char *dir_default(void)
{
    return dir_now;
}

#define O(f) NVM_OPT_AT(T, f)
static const NvmOpt t_opts[] = {
    NVM_OPT("quick", NVM_OPT_FLAG, O(quick), NULL, "short"),
    NVM_OPT("run-s", NVM_OPT_DOUBLE, O(run_s), "S", "seconds", .min = 0,
            .max = 3600, .min_open = true, .def = "30"),
    NVM_OPT("users", NVM_OPT_UINT, O(users), "N", "users", .min = 1,
            .max = 100, .def = "20"),
    NVM_OPT("mode", NVM_OPT_CHOICE, O(mode), NULL, "how",
            .choices = "sim|real", .def = "sim"),
    NVM_OPT("preset", NVM_OPT_CHOICE, O(preset), NULL, "sizes",
            .choices = "small|big"),
    NVM_OPT("dir", NVM_OPT_STR, O(dir), "DIR", "where",
            .def_fn = dir_default, .def_doc = "$T_DIR, else ours"),
    NVM_OPT("seed", NVM_OPT_U64, O(seed), "N", "seed",
            .def_doc = "the time of day"),
    NVM_OPT_END,
};

static const NvmOptPreset t_presets[] = {
    { "quick", "preset", "small" },
    { "quick", "run-s", "0.5" },
    { "preset=big", "users", "90" },
    { "preset=small", "users", "2" },
    { NULL },
};

static int t_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

static const NvmCommand t_cmd = {
    .name = "t", .synopsis = "[options]", .summary = "a test command",
    .opts = t_opts, .presets = t_presets, .main = t_main,
};

/* Parse the NULL-terminated words into *t; the parser's status. */
static int parse(T *t, GPtrArray *given, ...)
{
    g_autoptr(GPtrArray) argv = g_ptr_array_new();
    va_list ap;
    const char *a;

    memset(t, 0, sizeof(*t));
    g_ptr_array_add(argv, (gpointer)"t");
    va_start(ap, given);
    while ((a = va_arg(ap, const char *))) {
        g_ptr_array_add(argv, (gpointer)a);
    }
    va_end(ap);
    g_ptr_array_add(argv, NULL);
    return nvm_opts_parse_given(&t_cmd, (int)argv->len - 1,
                                (char **)argv->pdata, t, NULL, given);
}

static void test_defaults_come_from_the_table(void)
{
    T t;

    g_assert_cmpint(parse(&t, NULL, NULL), ==, NVM_OPTS_OK);
    g_assert_cmpfloat(t.run_s, ==, 30);
    g_assert_cmpuint(t.users, ==, 20);
    g_assert_cmpstr(t.mode, ==, "sim");
    g_assert_null(t.preset);
    g_assert_false(t.quick);
    g_assert_cmpuint(t.seed, ==, 0);        /* a rule: the command's */
    g_assert_cmpstr(t.dir, ==, "/from/the/environment");
    dir_now = "/elsewhere";                 /* worked out at each parse */
    g_assert_cmpint(parse(&t, NULL, NULL), ==, NVM_OPTS_OK);
    g_assert_cmpstr(t.dir, ==, "/elsewhere");
    dir_now = "/from/the/environment";
}

static void test_given_values_win_over_defaults_and_presets(void)
{
    g_autoptr(GPtrArray) given = g_ptr_array_new();
    T t;

    g_assert_cmpint(parse(&t, given, "--quick", "--run-s", "7", "--users=5",
                          NULL), ==, NVM_OPTS_OK);
    g_assert_cmpfloat(t.run_s, ==, 7);
    g_assert_cmpuint(t.users, ==, 5);
    g_assert_cmpstr(t.preset, ==, "small");     /* --quick's preset */
    /* what was given, as typed: --quick, --run-s 7, --users 5 */
    g_assert_cmpuint(given->len, ==, 6);
    g_assert_cmpstr(((const NvmOpt *)given->pdata[0])->name, ==, "quick");
    g_assert_null(given->pdata[1]);
    g_assert_cmpstr(((const NvmOpt *)given->pdata[2])->name, ==, "run-s");
    g_assert_cmpstr(given->pdata[3], ==, "7");
    g_assert_cmpstr(given->pdata[5], ==, "5");
}

static void test_presets_apply_in_order_first_wins(void)
{
    T t;

    /* --quick: run-s 0.5, preset small, so users 2 */
    g_assert_cmpint(parse(&t, NULL, "--quick", NULL), ==, NVM_OPTS_OK);
    g_assert_cmpfloat(t.run_s, ==, 0.5);
    g_assert_cmpstr(t.preset, ==, "small");
    g_assert_cmpuint(t.users, ==, 2);
    /* a preset given beats --quick's */
    g_assert_cmpint(parse(&t, NULL, "--quick", "--preset", "big", NULL), ==,
                    NVM_OPTS_OK);
    g_assert_cmpstr(t.preset, ==, "big");
    g_assert_cmpuint(t.users, ==, 90);
    g_assert_cmpfloat(t.run_s, ==, 0.5);
    /* no condition, no preset */
    g_assert_cmpint(parse(&t, NULL, "--preset", "small", "--run-s", "3",
                          NULL), ==, NVM_OPTS_OK);
    g_assert_cmpuint(t.users, ==, 2);
    g_assert_cmpfloat(t.run_s, ==, 3);
}

static void test_help_prints_defaults_and_presets_from_the_table(void)
{
    g_autofree char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    g_autofree char *flat = NULL;

    nvm_opts_help(&t_cmd, f);
    fclose(f);
    /* the help wraps lines: compare with single spaces */
    flat = g_strjoinv(" ", g_strsplit_set(text, " \n", -1));
    while (strstr(flat, "  ")) {
        char *d = strstr(flat, "  ");

        memmove(d, d + 1, strlen(d));
    }
    g_assert_nonnull(strstr(flat, "seconds (default 30; --quick: 0.5)"));
    g_assert_nonnull(strstr(flat, "users (default 20; --preset big: 90; "
                                  "--preset small: 2)"));
    g_assert_nonnull(strstr(flat, "how (default sim)"));
    g_assert_nonnull(strstr(flat, "where (default $T_DIR, else ours)"));
    g_assert_nonnull(strstr(flat, "seed (default the time of day)"));
    g_assert_nonnull(strstr(flat, "sizes (--quick: small)"));
    g_assert_nonnull(strstr(flat, "--quick short -"));    /* none for a flag */
}

static void test_a_default_its_option_refuses_is_an_error(void)
{
    static const NvmOpt bad_opts[] = {
        NVM_OPT("n", NVM_OPT_UINT, 0, "N", "n", .min = 1, .max = 9,
                .def = "10"),
        NVM_OPT_END,
    };
    static const NvmCommand bad = {
        .name = "bad", .synopsis = "", .summary = "", .opts = bad_opts,
        .main = t_main,
    };
    unsigned n = 0;
    char *argv[] = { (char *)"bad", NULL };

    g_assert_cmpint(nvm_opts_parse(&bad, 1, argv, &n, NULL), ==, 2);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/opts/defaults-come-from-the-table",
                    test_defaults_come_from_the_table);
    g_test_add_func("/opts/given-values-win",
                    test_given_values_win_over_defaults_and_presets);
    g_test_add_func("/opts/presets-in-order-first-wins",
                    test_presets_apply_in_order_first_wins);
    g_test_add_func("/opts/help-prints-defaults-and-presets",
                    test_help_prints_defaults_and_presets_from_the_table);
    g_test_add_func("/opts/refused-default-is-an-error",
                    test_a_default_its_option_refuses_is_an_error);
    return g_test_run();
}
