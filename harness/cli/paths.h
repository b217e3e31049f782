/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where nvmimic finds its data and programs.  Installed, relative to its
 * own executable (PREFIX/bin/nvmimic: PREFIX/share/nvmimic,
 * PREFIX/libexec/nvmimic), so an installed tree can move; in a build tree,
 * from the nvmimic-uninstalled.ini meson writes beside the executable.  No
 * path is compiled in.  Each has an environment variable that wins.
 */
#ifndef NVMIMIC_PATHS_H
#define NVMIMIC_PATHS_H

/* $NVMIMIC_PROFILE_DIR, else the profiles nvmimic came with. */
const char *nvm_path_profiles(void);
/* $NVMIMIC_WORKLOAD_DIR, else the VDI job files nvmimic came with. */
const char *nvm_path_workloads(void);
/* The application workloads (seq/, render/, tpcc/). */
const char *nvm_path_apps(void);
/* The guest scripts (run-guest.sh, agent.sh, build-guest.sh, dbguest/). */
const char *nvm_path_vm_images(void);
/* $NVMIMIC_QEMU, else the QEMU with the nvmimic device nvmimic came with. */
const char *nvm_path_qemu(void);
/* $NVMIMIC_GUEST_DIR, else the initramfs guest (make guest). */
const char *nvm_path_guest(void);
/* $NVMIMIC_DBGUEST_DIR, else the database guest (make dbguest). */
const char *nvm_path_dbguest(void);
/* $NVMIMIC_SQLDB_DIR, else the loaded TPC-C databases (make sqldb). */
const char *nvm_path_sqldb(void);
/* $NVMIMIC_RENDER, else the static render program. */
const char *nvm_path_render(void);

/* Where nvmimic looked (for messages): "the build tree DIR" or "PREFIX". */
const char *nvm_path_origin(void);

/* The --profile-dir option of a command whose options struct @S has the
 * member @f (opts.h), with its default. */
#define NVM_OPT_PROFILE_DIR(S, f) \
    NVM_OPT("profile-dir", NVM_OPT_STR, NVM_OPT_AT(S, f), "DIR", \
            "where profile names are looked up", \
            .def_fn = nvm_path_profiles, \
            .def_doc = "$NVMIMIC_PROFILE_DIR, else nvmimic's own")

#endif
