/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rewrite IN_DIR OUT_DIR: read IN_DIR/results.json with the one reader and
 * write OUT_DIR/results.json, results.csv (and apps.csv) with the one
 * writer.  tests/results/check_results.py checks what comes out.
 */
#include <stdio.h>

#include "results.h"

int main(int argc, char **argv)
{
    g_autoptr(GError) err = NULL;
    g_autoptr(NvmResults) r = NULL;

    if (argc != 3) {
        fprintf(stderr, "usage: rewrite IN_DIR OUT_DIR\n");
        return 2;
    }
    r = nvm_results_load(argv[1], NULL, &err);
    if (!r || g_mkdir_with_parents(argv[2], 0755) < 0 ||
        !nvm_results_save(r, argv[2], &err)) {
        fprintf(stderr, "rewrite: %s\n", err ? err->message : argv[2]);
        return 1;
    }
    return 0;
}
