/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic run: a suite's plan.  Every command its guest runs, and the
 * in-band marks where the drive takes the states the host queued, are known
 * before the guest boots: the plan goes into the job (/job/plan), the
 * states are queued with nvmimic-set-state at-mark while QEMU is still
 * paused, and the guest agent runs the plan without waiting for the host.
 * No host input reaches the guest while it measures, and no idle gap of
 * host-dependent length lies between two points, so in simulated time the
 * figures are a pure function of the run's inputs.  The host follows the
 * results as they come back, step by step, in the plan's order.
 */
#include <stdio.h>
#include <string.h>

#include "run-int.h"

Plan *run_plan_new(App *app)
{
    Plan *p = g_new0(Plan, 1);

    p->steps = g_ptr_array_new();
    p->next_mark = 1;
    p->app = app;
    return p;
}

static void step_free(PlanStep *st)
{
    g_free(st->what);
    g_free(st->progress);
    g_free(st->state);
    for (unsigned i = 0; i < G_N_ELEMENTS(st->strs); i++) {
        g_free(st->strs[i]);
    }
    g_free(st);
}

void run_plan_free(Plan *p)
{
    if (!p) {
        return;
    }
    for (guint i = 0; i < p->steps->len; i++) {
        step_free(g_ptr_array_index(p->steps, i));
    }
    g_ptr_array_free(p->steps, TRUE);
    g_free(p);
}

PlanStep *run_plan_cmd(Plan *p, const GuestCmd *c, const char *what,
                       PlanDoneFn done, void *opaque, void *opaque2)
{
    PlanStep *st = g_new0(PlanStep, 1);

    st->c = *c;
    st->c.verb = st->strs[0] = g_strdup(c->verb);
    st->c.id = st->strs[1] = g_strdup(c->id);
    st->c.label = st->strs[2] = g_strdup(c->label);
    st->c.args = st->strs[3] = g_strdup(c->args);
    if (c->window != WIN_NONE) {
        /* mark N opens the (first) window, N + 1 closes it */
        st->c.mark = p->next_mark;
        p->next_mark += 2 * MAX(1, c->window == WIN_CMD ? c->n_windows : 1);
    }
    st->what = g_strdup(what);
    st->done = done;
    st->opaque = opaque;
    st->opaque2 = opaque2;
    g_ptr_array_add(p->steps, st);
    return st;
}

PlanStep *run_plan_mark(Plan *p, const char *id, const char *what,
                        const char *state, bool reset)
{
    PlanStep *st = g_new0(PlanStep, 1);

    st->is_mark = true;
    st->c.id = st->strs[1] = g_strdup(id);
    st->c.mark = p->next_mark++;
    st->c.marks_us[0] = reset;
    st->state = g_strdup(state);
    st->what = g_strdup(what);
    g_ptr_array_add(p->steps, st);
    return st;
}

/* The plan as the agent reads it (vm-images/agent.sh).  @quit: end with
 * QUIT (the guest powers off by itself), else the agent goes on with the
 * control port. */
char *run_plan_text(const Plan *p, bool quit)
{
    GString *s = g_string_new("");

    for (guint i = 0; i < p->steps->len; i++) {
        const PlanStep *st = g_ptr_array_index(p->steps, i);
        const GuestCmd *c = &st->c;

        if (st->is_mark) {
            g_string_append_printf(s, "MARK %s %u %u\n", c->id, c->mark,
                                   (unsigned)c->marks_us[0]);
            continue;
        }
        g_string_append_printf(s, "%s %s %u ", c->verb, c->id, c->mark);
        switch (c->window) {
        case WIN_TIMED:
            g_string_append_printf(s, "%" G_GUINT64_FORMAT ":%"
                                   G_GUINT64_FORMAT, c->marks_us[0],
                                   c->marks_us[1]);
            break;
        case WIN_WHOLE:
            g_string_append(s, "whole");
            break;
        case WIN_CMD:
            g_string_append(s, "cmd");
            break;
        default:
            g_string_append(s, "-");
        }
        g_string_append_printf(s, " %s\n", c->args);
    }
    if (quit) {
        g_string_append(s, "QUIT\n");
    }
    return g_string_free(s, FALSE);
}

/* Queue the marks' states; the guest must not have started yet (QEMU is
 * paused), so no mark can pass before its state is there. */
bool run_plan_queue_states(Run *r, const Plan *p, GError **errp)
{
    for (guint i = 0; i < p->steps->len; i++) {
        const PlanStep *st = g_ptr_array_index(p->steps, i);

        if (st->is_mark && st->state &&
            !run_qmp_state(r, "%s, \"at-mark\": %u", errp, st->state,
                           st->c.mark)) {
            g_prefix_error(errp, "queueing the state of %s: ", st->what);
            return false;
        }
    }
    return true;
}

/*
 * Follow the plan: each command's result in turn, handed to its step's
 * @done.  *cur names the step under way (the failed point on an error).
 */
bool run_plan_exec(Run *r, Plan *p, char **cur, GError **errp)
{
    GPtrArray *marks = g_ptr_array_new();    /* not checked yet */
    bool ok = true;

    for (guint i = 0; ok && i < p->steps->len; i++) {
        PlanStep *st = g_ptr_array_index(p->steps, i);
        g_autoptr(JsonNode) stats = NULL;
        g_autofree char *json = NULL;
        g_autofree char *tail = NULL;

        g_free(*cur);
        *cur = g_strdup(st->what);
        if (st->is_mark) {
            if (st->state) {
                g_ptr_array_add(marks, st);
            }
            continue;
        }
        if (st->progress && r->tty) {
            printf("\r\033[K%s", st->progress);
            fflush(stdout);
        }
        ok = run_guest_cmd(r, &st->c,
                           st->c.window != WIN_NONE || st->c.qmp_window ?
                           &stats : NULL, &json, &tail, errp);
        if (st->progress && r->tty) {
            printf("\r\033[K");
        }
        if (!ok && tail && p->app && !p->app->log_tail) {
            p->app->log_tail = g_steal_pointer(&tail);
        }
        /* the states of the marks before it are in place by now */
        for (guint k = 0; ok && k < marks->len; k++) {
            const PlanStep *mk = g_ptr_array_index(marks, k);

            ok = run_mark_applied(r, mk->what, mk->c.mark, errp);
        }
        g_ptr_array_set_size(marks, 0);
        if (ok && st->done) {
            ok = st->done(r, st, stats, json, errp);
        }
    }
    g_ptr_array_free(marks, TRUE);
    return ok;
}
