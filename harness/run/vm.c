/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic run: the running guest's life, QEMU's process or the libvirt
 * domain that guest.c started: is it alive, has it powered off by itself
 * (its logs and results then in DIR/guest[-SUITE]), or kill it.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run-int.h"

/* After a clean power-off, unpack the guest's results disk into DIR/guest;
 * a libvirt guest's console log is copied there first (QEMU's own guest
 * writes it there). */
static void collect(Run *r, bool powered_off)
{
    g_autofree char *gdir = g_strdup(r->gdir);
    g_autofree char *con = g_build_filename(gdir, "console.log", NULL);
    g_autofree char *text = NULL;
    gsize len;

    g_mkdir_with_parents(gdir, 0755);
    if (r->lv_console &&
        g_file_get_contents(r->lv_console, &text, &len, NULL)) {
        g_file_set_contents(con, text, len, NULL);
    }
    if (powered_off && r->results_img) {
        const char *argv[] = { "tar", "-xf", r->results_img, "-C", gdir,
                               "--no-same-owner", "--no-same-permissions",
                               NULL };
        g_autoptr(GError) e = NULL;
        int st = 0;

        /* the results volume, back from the host */
        if (r->lv && !nvm_lv_guest_download(r->lv, r->results_img, &e)) {
            fprintf(stderr, "nvmimic run: warning: %s\n", e->message);
            return;
        }
        if (!g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH |
                          G_SPAWN_STDOUT_TO_DEV_NULL |
                          G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL,
                          &st, NULL) || st) {
            fprintf(stderr, "nvmimic run: warning: the guest's results disk "
                    "could not be unpacked into %s\n", gdir);
        }
    }
}

void run_kill_guest(Run *r)
{
    r->mon.exec = NULL;         /* its QMP goes with it */
    if (r->lv) {
        nvm_lv_guest_free(r->lv);       /* destroy, undefine */
        r->lv = NULL;
        collect(r, false);
    }
    if (r->qmp) {
        JsonNode *n = nvm_qmp_exec(r->qmp, "quit", NULL, 2000, NULL);

        if (n) {
            json_node_unref(n);
        }
        nvm_qmp_close(r->qmp);
        r->qmp = NULL;
    }
    if (r->child > 0) {
        int st;

        kill(r->child, SIGTERM);
        for (int i = 0; i < 50; i++) {
            if (waitpid(r->child, &st, WNOHANG) == r->child) {
                r->child = 0;
                return;
            }
            g_usleep(100 * 1000);
        }
        kill(-r->child, SIGKILL);
        waitpid(r->child, &st, 0);
        r->child = 0;
    }
}

bool run_guest_alive(Run *r, char **why)
{
    int st;

    if (r->lv) {
        g_autoptr(GError) e = NULL;

        if (nvm_lv_guest_running(r->lv, &e)) {
            return true;
        }
        r->host_lost |= e->code == NVM_LV_ERROR_HOST;
        *why = g_strdup(e->message);
        return false;
    }
    if (r->child > 0 && waitpid(r->child, &st, WNOHANG) == r->child) {
        r->child = 0;
        *why = g_strdup_printf("QEMU exited (status %d; see %s/qemu.log "
                               "and %s/console.log)",
                               WIFEXITED(st) ? WEXITSTATUS(st) : -1, r->gdir,
                               r->gdir);
        return false;
    }
    return true;
}

/* Has the guest powered off (QEMU, kept by -no-shutdown, says so)? */
static bool guest_shut_down(Run *r)
{
    g_autoptr(JsonNode) n = nvm_qmp_exec(r->qmp, "query-status", NULL, 2000,
                                         NULL);
    JsonObject *o = n && JSON_NODE_HOLDS_OBJECT(n) ?
                    json_node_get_object(n) : NULL;

    return o && json_object_has_member(o, "status") &&
           !g_strcmp0(json_object_get_string_member(o, "status"), "shutdown");
}

/*
 * The guest leaves: after its plan (which ends with QUIT) the agent exits
 * and the guest writes its results and powers off; a libvirt guest's agent
 * is told QUIT now.  True when it did within a minute (its logs are then in
 * r->gdir).
 */
bool run_stop_guest(Run *r)
{
    bool off = false;

    if (r->lv) {
        if (!r->ctl || !nvm_line_send(r->ctl, "QUIT", NULL)) {
            return false;
        }
        off = nvm_lv_guest_wait_off(r->lv, 60000);
        collect(r, off);
        return off;
    }
    for (int i = 0; i < 600 && r->child > 0 && r->qmp; i++) {
        if (guest_shut_down(r)) {
            /* QEMU quits; then the results disk is unpacked */
            JsonNode *n = nvm_qmp_exec(r->qmp, "quit", NULL, 2000, NULL);

            if (n) {
                json_node_unref(n);
            }
            nvm_qmp_close(r->qmp);
            r->qmp = NULL;
            break;
        }
        g_usleep(100 * 1000);
    }
    for (int i = 0; i < 600 && r->child > 0; i++) {
        int st;

        if (waitpid(r->child, &st, WNOHANG) == r->child) {
            r->child = 0;
            off = true;
            break;
        }
        g_usleep(100 * 1000);
    }
    collect(r, off);
    return off;
}
