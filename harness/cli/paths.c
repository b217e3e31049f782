/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where nvmimic finds its data (paths.h).
 */
#include <glib.h>

#include "paths.h"

#ifndef NVMIMIC_PROFILE_DIR
#define NVMIMIC_PROFILE_DIR "profiles"
#endif
#ifndef NVMIMIC_WORKLOAD_DIR
#define NVMIMIC_WORKLOAD_DIR "harness/workloads"
#endif

static const char *env_or(const char *var, const char *dflt)
{
    const char *v = g_getenv(var);

    return v && *v ? v : dflt;
}

const char *nvm_path_profiles(void)
{
    return env_or("NVMIMIC_PROFILE_DIR", NVMIMIC_PROFILE_DIR);
}

const char *nvm_path_workloads(void)
{
    return env_or("NVMIMIC_WORKLOAD_DIR", NVMIMIC_WORKLOAD_DIR);
}
