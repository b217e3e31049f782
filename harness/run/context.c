/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic run: what every part reads off the run's context (Run) and calls
 * no other part for: the suites chosen, where a suite's guest logs go, the
 * run's first failure, and whether Ctrl-C arrived.  The bottom of run/'s
 * calls (run-int.h lists the files top-down).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "run-int.h"

const char *const nvm_run_suites[] = { "four-corners", "vdi", "sql", "render",
                                       "seq", "all", NULL };

volatile sig_atomic_t run_interrupted;

static void on_signal(int sig)
{
    (void)sig;
    run_interrupted = 1;
}

void run_catch_signals(void)
{
    struct sigaction sa = { .sa_handler = on_signal };

    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

bool run_has_suite(const Run *r, int suite)
{
    for (unsigned i = 0; i < r->n_order; i++) {
        if (r->order[i] == suite) {
            return true;
        }
    }
    return false;
}

char *run_guest_dir_name(const Run *r, int suite)
{
    /* one suite: DIR/guest, as it always was; several: one per suite */
    if (r->n_order == 1) {
        return g_build_filename(r->dir, "guest", NULL);
    }
    return g_strdup_printf("%s/guest-%s", r->dir, nvm_run_suites[suite]);
}

void run_fail_point(Run *r, const char *what, const char *msg)
{
    r->error = g_strdup(msg);
    r->failed_point = g_strdup(what);
}
