/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where nvmimic finds its data and programs (paths.h).
 *
 * NVMIMIC_BIN_TO_DATA and NVMIMIC_BIN_TO_LIBEXEC are the install layout
 * relative to the executable's directory ("../share/nvmimic"), from
 * meson's bindir, datadir and libexecdir: not a path of the build.
 */
#include <stdbool.h>

#include <glib.h>

#include "paths.h"

#ifndef NVMIMIC_BIN_TO_DATA
#define NVMIMIC_BIN_TO_DATA "../share/nvmimic"
#endif
#ifndef NVMIMIC_BIN_TO_LIBEXEC
#define NVMIMIC_BIN_TO_LIBEXEC "../libexec/nvmimic"
#endif

#define UNINSTALLED "nvmimic-uninstalled.ini"

enum {
    P_PROFILES, P_VDI, P_APPS, P_VM_IMAGES, P_QEMU, P_GUEST, P_DBGUEST,
    P_SQLDB, P_RENDER, P_N
};

/* key in nvmimic-uninstalled.ini, environment variable, installed place
 * ("data/..." or "libexec/...") */
static const struct {
    const char *key, *env, *installed;
} where[P_N] = {
    [P_PROFILES] = { "profiles", "NVMIMIC_PROFILE_DIR", "data/profiles" },
    [P_VDI] = { "vdi", "NVMIMIC_WORKLOAD_DIR", "data/vdi" },
    [P_APPS] = { "workloads", NULL, "data/workloads" },
    [P_VM_IMAGES] = { "vm-images", NULL, "data/vm-images" },
    [P_QEMU] = { "qemu", "NVMIMIC_QEMU", "libexec/qemu-system-x86_64" },
    [P_GUEST] = { "guest", "NVMIMIC_GUEST_DIR", "data/guest" },
    [P_DBGUEST] = { "dbguest", "NVMIMIC_DBGUEST_DIR", "data/dbguest" },
    [P_SQLDB] = { "sqldb", "NVMIMIC_SQLDB_DIR", "data/sqldb" },
    [P_RENDER] = { "render", "NVMIMIC_RENDER", "libexec/nvmimic-render" },
};

static char *paths[P_N];
static char *origin;

/* The directory of the running executable, or NULL. */
static char *exe_dir(void)
{
    g_autofree char *exe = g_file_read_link("/proc/self/exe", NULL);

    return exe ? g_path_get_dirname(exe) : NULL;
}

static void resolve(void)
{
    g_autofree char *dir = exe_dir();
    g_autofree char *ini = dir ? g_build_filename(dir, UNINSTALLED, NULL)
                               : NULL;
    g_autoptr(GKeyFile) kf = g_key_file_new();
    bool uninstalled = ini && g_key_file_load_from_file(kf, ini, 0, NULL);
    g_autofree char *data = NULL;
    g_autofree char *libexec = NULL;

    if (!dir) {
        dir = g_strdup(".");
    }
    data = g_canonicalize_filename(NVMIMIC_BIN_TO_DATA, dir);
    libexec = g_canonicalize_filename(NVMIMIC_BIN_TO_LIBEXEC, dir);
    origin = uninstalled ? g_strdup_printf("the build tree (%s)", ini)
                         : g_canonicalize_filename("..", dir);
    for (unsigned i = 0; i < P_N; i++) {
        const char *in = where[i].installed;

        if (uninstalled) {
            paths[i] = g_key_file_get_string(kf, "paths", where[i].key, NULL);
        }
        if (!paths[i]) {
            paths[i] = g_str_has_prefix(in, "data/") ?
                       g_build_filename(data, in + 5, NULL) :
                       g_build_filename(libexec, in + 8, NULL);
        }
    }
}

static gpointer resolve_once(gpointer unused)
{
    (void)unused;
    resolve();
    return NULL;
}

static void resolved(void)
{
    static GOnce once = G_ONCE_INIT;

    g_once(&once, resolve_once, NULL);
}

static const char *path(unsigned i)
{
    const char *env = where[i].env ? g_getenv(where[i].env) : NULL;

    if (env && *env) {
        return env;
    }
    resolved();
    return paths[i];
}

const char *nvm_path_profiles(void)
{
    return path(P_PROFILES);
}

const char *nvm_path_workloads(void)
{
    return path(P_VDI);
}

const char *nvm_path_apps(void)
{
    return path(P_APPS);
}

const char *nvm_path_vm_images(void)
{
    return path(P_VM_IMAGES);
}

const char *nvm_path_qemu(void)
{
    return path(P_QEMU);
}

const char *nvm_path_guest(void)
{
    return path(P_GUEST);
}

const char *nvm_path_dbguest(void)
{
    return path(P_DBGUEST);
}

const char *nvm_path_sqldb(void)
{
    return path(P_SQLDB);
}

const char *nvm_path_render(void)
{
    return path(P_RENDER);
}

const char *nvm_path_origin(void)
{
    resolved();
    return origin;
}
