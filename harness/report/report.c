/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic report / compare: the command line.  The run comes from
 * results/ (the one reader); the parts: charts.c (gnuplot), page.c and
 * page-apps.c (report.html), compare.c (compare.html).
 */
#include <stdio.h>
#include <string.h>

#include "report-int.h"

static int report_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "nvmimic %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(" (see nvmimic --help)\n", stderr);
    return 2;
}

int nvm_report_main(int argc, char **argv, const char *profile_dir)
{
    const char *cmd = argv[0];
    bool compare = !strcmp(cmd, "compare");
    g_autoptr(GPtrArray) dirs = g_ptr_array_new();
    g_autoptr(GError) err = NULL;
    g_autofree char *tsv = NULL;
    const char *out = NULL;
    const char *reviews = NULL;
    bool ok;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];

        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf(compare ? "usage: nvmimic compare DIR... [--out DIR] "
                             "[--reviews four-corners.tsv]\n"
                           : "usage: nvmimic report DIR "
                             "[--reviews four-corners.tsv]\n");
            return 0;
        }
        if (!strcmp(a, "--out") || !strcmp(a, "--reviews")) {
            if (i + 1 >= argc) {
                return report_usage(cmd, "option %s needs a value", a);
            }
            if (!strcmp(a, "--out") && !compare) {
                return report_usage(cmd, "--out is for compare; report "
                                    "writes into DIR itself");
            }
            *(!strcmp(a, "--out") ? &out : &reviews) = argv[++i];
            continue;
        }
        if (!strncmp(a, "--", 2)) {
            return report_usage(cmd, "unknown option '%s'", a);
        }
        g_ptr_array_add(dirs, (gpointer)a);
    }
    if (!dirs->len) {
        return report_usage(cmd, "needs %s", compare ? "one or more run "
                            "directories" : "a run directory");
    }
    if (!compare && dirs->len > 1) {
        return report_usage(cmd, "takes one directory, not %u (nvmimic "
                            "compare puts several side by side)", dirs->len);
    }
    tsv = reviews ? g_strdup(reviews)
                  : g_build_filename(profile_dir, "reviews",
                                     "four-corners.tsv", NULL);
    if (compare) {
        const char *o = out ? out : "compare";

        ok = nvm_report_compare((char **)dirs->pdata, dirs->len, o, tsv,
                                &err);
        if (ok) {
            g_autofree char *p = g_build_filename(o, "compare.html", NULL);

            printf("%s\n", p);
        }
    } else {
        ok = nvm_report_render(dirs->pdata[0], tsv, &err);
        if (ok) {
            g_autofree char *p = g_build_filename(dirs->pdata[0],
                                                  "report.html", NULL);

            printf("%s\n", p);
        }
    }
    if (!ok) {
        fprintf(stderr, "nvmimic %s: %s\n", cmd, err->message);
        return 1;
    }
    return 0;
}
