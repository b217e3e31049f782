/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reports from results.json (nvmimic run / nvmimic sim --out): results.csv,
 * latency-vs-IOPS charts drawn by gnuplot (PNG and SVG), report.html; and
 * several runs side by side (compare.html).
 */
#ifndef NVMIMIC_REPORT_H
#define NVMIMIC_REPORT_H

#include <stdbool.h>

#include <glib.h>

#include "opts.h"

/*
 * Re-render everything in @dir from @dir/results.json.  @reviews_tsv (may be
 * NULL or missing) supplies the review's peak where results.json has none.
 * @baseline (or NULL): a run whose curves are drawn beside this run's, with
 * the figures that moved since it (nvm_diff_runs()) in the page.
 */
bool nvm_report_render(const char *dir, const char *reviews_tsv,
                       const char *baseline, GError **errp);

/* Runs in @dirs side by side: @out_dir/compare.html and compare-*.png/svg. */
bool nvm_report_compare(char **dirs, unsigned n_dirs, const char *out_dir,
                        const char *reviews_tsv, GError **errp);

/*
 * A line chart in @svg_path (SVG only: text, the same bytes for the same
 * figures, for a generated README): @n_series series over the @n_x values
 * @x, series k's values at y[k * n_x ..], named @names[k]; the charts' usual
 * frame, a logarithmic y axis if @log_y.
 */
bool nvm_report_lines_svg(const char *svg_path, const char *title,
                          const char *xlabel, const char *ylabel, bool log_y,
                          const double *x, unsigned n_x,
                          const char *const *names, const double *y,
                          unsigned n_series, GError **errp);

/* The commands (cli/opts.h). */
extern const NvmCommand nvm_cmd_report, nvm_cmd_compare, nvm_cmd_diff;

/*
 * The regression gate: compare the figures of run @base with run @new (each
 * a run directory or its results.json) and append a table of those that
 * changed (@all: of every figure) to @out.  Returns how many moved beyond
 * @tolerance_pct (0: any change counts), or -1 when a run cannot be read.
 */
int nvm_diff_runs(const char *base, const char *new, double tolerance_pct,
                  bool all, GString *out, GError **errp);

#endif
