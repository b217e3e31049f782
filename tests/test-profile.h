/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The drive profiles of the model's C tests: one loader for every test
 * program, which the build points at the source tree's profiles/
 * (NVMIMIC_PROFILE_DIR, from the test's meson c_args).  A profile that does
 * not load fails the test at once.
 */
#ifndef NVMIMIC_TESTS_TEST_PROFILE_H
#define NVMIMIC_TESTS_TEST_PROFILE_H

#include <glib.h>

#include "nvmimic-model.h"

#ifndef NVMIMIC_PROFILE_DIR
#define NVMIMIC_PROFILE_DIR "profiles"
#endif

static inline NvmProfile *load(const char *name)
{
    g_autoptr(GError) err = NULL;
    NvmProfile *p = nvm_profile_load(name, NVMIMIC_PROFILE_DIR, &err);

    g_assert_no_error(err);
    g_assert_nonnull(p);
    return p;
}

/* @name with one value replaced (nvm_profile_load_with's overrides). */
static inline NvmProfile *load_with(const char *name, const char *section,
                                    const char *key, const char *value)
{
    g_autoptr(GError) err = NULL;
    const char *const o[] = { section, key, value, NULL };
    NvmProfile *p = nvm_profile_load_with(name, NVMIMIC_PROFILE_DIR, o, &err);

    g_assert_no_error(err);
    g_assert_nonnull(p);
    return p;
}

#endif
