/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic report / compare: the commands and their options.  The run comes from
 * results/ (the one reader); the parts: charts.c (gnuplot), page.c and
 * page-apps.c (report.html), compare.c (compare.html).
 */
#include <stdio.h>
#include <string.h>

#include "opts.h"
#include "paths.h"
#include "report-int.h"

typedef struct ReportOpts {
    const char *out;
    const char *baseline;
    const char *reviews;
    const char *profile_dir;
} ReportOpts;

static int report_main(const NvmCommand *cmd, int argc, char **argv)
{
    bool compare = cmd == &nvm_cmd_compare;
    g_autoptr(GPtrArray) dirs = g_ptr_array_new();
    g_autoptr(GError) err = NULL;
    g_autofree char *tsv = NULL;
    ReportOpts o = { 0 };
    bool ok;
    int rc = nvm_opts_parse(cmd, argc, argv, &o, dirs);

    if (rc) {
        return rc == NVM_OPTS_HELP ? 0 : rc;
    }
    if (o.reviews) {
        /* one the user names must be there and read (the default may not) */
        GArray *rows = nvm_reviews_load(o.reviews, &err);

        if (!rows) {
            fprintf(stderr, "nvmimic %s: --reviews %s\n", cmd->name,
                    err->message);
            return 2;
        }
        nvm_reviews_free(rows);
    }
    tsv = o.reviews ? g_strdup(o.reviews)
                    : g_build_filename(o.profile_dir, "reviews",
                                       "four-corners.tsv", NULL);
    if (compare) {
        ok = nvm_report_compare((char **)dirs->pdata, dirs->len, o.out, tsv,
                                &err);
        if (ok) {
            g_autofree char *p = g_build_filename(o.out, "compare.html",
                                                  NULL);

            printf("%s\n", p);
        }
    } else {
        ok = nvm_report_render(dirs->pdata[0], tsv, o.baseline, &err);
        if (ok) {
            g_autofree char *p = g_build_filename(dirs->pdata[0],
                                                  "report.html", NULL);

            printf("%s\n", p);
        }
    }
    if (!ok) {
        fprintf(stderr, "nvmimic %s: %s\n", cmd->name, err->message);
        return 1;
    }
    return 0;
}

static int report_cmd_main(int argc, char **argv)
{
    return report_main(&nvm_cmd_report, argc, argv);
}

static int compare_cmd_main(int argc, char **argv)
{
    return report_main(&nvm_cmd_compare, argc, argv);
}

#define O(f) NVM_OPT_AT(ReportOpts, f)
#define REVIEWS_OPT \
    NVM_OPT("reviews", NVM_OPT_STR, O(reviews), "FILE", \
            "the reviews' peaks where results.json has none", \
            .def_doc = "PROFILE_DIR/reviews/four-corners.tsv")
#define PROFILE_DIR_OPT NVM_OPT_PROFILE_DIR(ReportOpts, profile_dir)

static const NvmOpt report_opts[] = {
    NVM_OPT("baseline", NVM_OPT_STR, O(baseline), "BASE",
            "draw run BASE's curves beside DIR's, and list the figures\n"
            "that moved since BASE (as nvmimic diff BASE DIR)"),
    REVIEWS_OPT,
    PROFILE_DIR_OPT,
    NVM_OPT_END,
};

const NvmCommand nvm_cmd_report = {
    .name = "report",
    .synopsis = "DIR [--baseline BASE] [--reviews FILE]",
    .summary = "Re-render a run's directory from its results.json: "
               "results.csv, charts, report.html.",
    .description =
"The charts are the reviews' (average latency against IOPS): the guest's\n"
"curve, the device's, the model's and the review's peak, per workload, in\n"
"PNG and SVG (gnuplot); the application suites get a section each.\n"
"results.csv is rewritten with the columns nvmimic run writes.\n",
    .opts = report_opts,
    .args = "a run directory",
    .min_args = 1,
    .max_args = 1,
    .main = report_cmd_main,
};

static const NvmOpt compare_opts[] = {
    NVM_OPT("out", NVM_OPT_STR, O(out), "DIR",
            "where compare.html and its charts go", .def = "compare"),
    REVIEWS_OPT,
    PROFILE_DIR_OPT,
    NVM_OPT_END,
};

const NvmCommand nvm_cmd_compare = {
    .name = "compare",
    .synopsis = "DIR... [--out DIR] [--reviews FILE]",
    .summary = "Several runs side by side: one chart per workload, a curve "
               "per run (compare.html).",
    .opts = compare_opts,
    .args = "one or more run directories",
    .min_args = 1,
    .main = compare_cmd_main,
};
