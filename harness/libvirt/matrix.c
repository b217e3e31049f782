/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic matrix: every profile x suite cell is one `nvmimic run --connect
 * URI` child process, at most --per-host at a time per libvirt host.  A
 * child that exits 3 (host unreachable, no QEMU there, or the host dropped
 * the domain) takes its host out of the rotation and, within --retries, the
 * cell runs again on a host it has not tried.  Any other failure is the
 * cell's own.  At the end the cells that finished go side by side into one
 * compare report (nvm_report_compare), and matrix.json says per cell where
 * it ran, how often, and how it ended.  libvirt does the distribution;
 * nvmimic runs no agents of its own on the hosts.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-glib/json-glib.h>

#include "lv.h"
#include "matrix.h"
#include "nvmimic-model.h"
#include "report.h"
#include "paths.h"
#include "run.h"

#define MAX_HOSTS 64


typedef enum { CELL_PENDING, CELL_RUNNING, CELL_OK, CELL_FAILED } CellState;
static const char *const state_names[] = { "pending", "running", "ok",
                                           "failed" };

typedef struct Host {
    const char *uri;
    unsigned running;
    char *down;                 /* why it left the rotation, or NULL */
} Host;

typedef struct Cell {
    const char *profile, *suite;
    char *dir;
    char *log;                  /* the last attempt's output */
    CellState st;
    int host;                   /* last host, -1: none yet */
    unsigned attempts;
    guint64 tried;              /* bit per host index */
    char *error;
    pid_t pid;
    gint64 t0;
} Cell;

typedef struct Matrix {
    char **profiles, **suites, **uris;
    Host hosts[MAX_HOSTS];
    unsigned n_hosts;
    GPtrArray *cells;           /* Cell * */
    unsigned per_host, retries;
    char *out;
    char *compare;              /* compare.html, when made */
    bool complete;
    gint64 t0;
    /* passed on to every run */
    GPtrArray *run_args;
} Matrix;

static volatile sig_atomic_t interrupted;

static void on_sig(int sig)
{
    (void)sig;
    interrupted = 1;
}

#define usage(...) nvm_opts_error(&nvm_cmd_matrix, __VA_ARGS__)

/* "a,b,c" into a list; one line on an empty list or element. */
static char **split_list(const char *opt, const char *v, char **why)
{
    g_auto(GStrv) parts = NULL;

    if (!v || !*v) {
        *why = g_strdup_printf("%s: empty list", opt);
        return NULL;
    }
    parts = g_strsplit(v, ",", -1);
    for (char **p = parts; *p; p++) {
        if (!**p) {
            *why = g_strdup_printf("%s '%s': empty element", opt, v);
            return NULL;
        }
    }
    return g_steal_pointer(&parts);
}

static void write_json(Matrix *m)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    g_autoptr(JsonGenerator) g = json_generator_new();
    g_autoptr(JsonNode) root = NULL;
    g_autofree char *text = NULL;
    g_autofree char *path = g_build_filename(m->out, "matrix.json", NULL);

    json_builder_begin_object(b);
    json_builder_set_member_name(b, "profiles");
    json_builder_begin_array(b);
    for (char **p = m->profiles; *p; p++) {
        json_builder_add_string_value(b, *p);
    }
    json_builder_end_array(b);
    json_builder_set_member_name(b, "suites");
    json_builder_begin_array(b);
    for (char **p = m->suites; *p; p++) {
        json_builder_add_string_value(b, *p);
    }
    json_builder_end_array(b);
    json_builder_set_member_name(b, "per_host");
    json_builder_add_int_value(b, m->per_host);
    json_builder_set_member_name(b, "retries");
    json_builder_add_int_value(b, m->retries);
    json_builder_set_member_name(b, "hosts");
    json_builder_begin_array(b);
    for (unsigned i = 0; i < m->n_hosts; i++) {
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "uri");
        json_builder_add_string_value(b, m->hosts[i].uri);
        json_builder_set_member_name(b, "error");
        if (m->hosts[i].down) {
            json_builder_add_string_value(b, m->hosts[i].down);
        } else {
            json_builder_add_null_value(b);
        }
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_set_member_name(b, "cells");
    json_builder_begin_array(b);
    for (unsigned i = 0; i < m->cells->len; i++) {
        Cell *c = g_ptr_array_index(m->cells, i);

        json_builder_begin_object(b);
        json_builder_set_member_name(b, "profile");
        json_builder_add_string_value(b, c->profile);
        json_builder_set_member_name(b, "suite");
        json_builder_add_string_value(b, c->suite);
        json_builder_set_member_name(b, "host");
        if (c->host >= 0) {
            json_builder_add_string_value(b, m->hosts[c->host].uri);
        } else {
            json_builder_add_null_value(b);
        }
        json_builder_set_member_name(b, "hosts_tried");
        json_builder_begin_array(b);
        for (unsigned h = 0; h < m->n_hosts; h++) {
            if (c->tried & (1ull << h)) {
                json_builder_add_string_value(b, m->hosts[h].uri);
            }
        }
        json_builder_end_array(b);
        json_builder_set_member_name(b, "attempts");
        json_builder_add_int_value(b, c->attempts);
        json_builder_set_member_name(b, "status");
        json_builder_add_string_value(b, state_names[c->st]);
        json_builder_set_member_name(b, "out");
        json_builder_add_string_value(b, c->dir);
        json_builder_set_member_name(b, "log");
        if (c->log) {
            json_builder_add_string_value(b, c->log);
        } else {
            json_builder_add_null_value(b);
        }
        json_builder_set_member_name(b, "error");
        if (c->error) {
            json_builder_add_string_value(b, c->error);
        } else {
            json_builder_add_null_value(b);
        }
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_set_member_name(b, "compare");
    if (m->compare) {
        json_builder_add_string_value(b, m->compare);
    } else {
        json_builder_add_null_value(b);
    }
    json_builder_set_member_name(b, "complete");
    json_builder_add_boolean_value(b, m->complete);
    json_builder_set_member_name(b, "wall_s");
    json_builder_add_double_value(b, (g_get_monotonic_time() - m->t0) / 1e6);
    json_builder_end_object(b);
    root = json_builder_get_root(b);
    json_generator_set_root(g, root);
    json_generator_set_pretty(g, TRUE);
    text = json_generator_to_data(g, NULL);
    g_file_set_contents(path, text, -1, NULL);   /* aside, then rename */
}

/* The last "nvmimic run: ..." line of a child's output. */
static char *run_error(const char *log, int status)
{
    g_autofree char *text = NULL;
    g_auto(GStrv) lines = NULL;
    const char *last = NULL;

    if (g_file_get_contents(log, &text, NULL, NULL)) {
        lines = g_strsplit(text, "\n", -1);
        for (char **l = lines; *l; l++) {
            if (g_str_has_prefix(*l, "nvmimic run: ") &&
                !strstr(*l, "workload(s) x")) {
                last = *l + strlen("nvmimic run: ");
            }
        }
    }
    if (last) {
        return g_strdup(last);
    }
    return g_strdup_printf("nvmimic run exited with status %d (see %s)",
                           status, log);
}

static bool spawn_cell(Matrix *m, Cell *c, int h, const char *exe)
{
    GPtrArray *argv = g_ptr_array_new();
    g_autofree char *logs = g_build_filename(m->out, "logs", NULL);
    pid_t pid;

    c->attempts++;
    c->host = h;
    c->tried |= 1ull << h;
    g_free(c->log);
    c->log = g_strdup_printf("%s/%s-%s-%u.log", logs, c->profile, c->suite,
                             c->attempts);
    g_mkdir_with_parents(logs, 0755);
    g_ptr_array_add(argv, (gpointer)exe);
    g_ptr_array_add(argv, "run");
    g_ptr_array_add(argv, "--profile");
    g_ptr_array_add(argv, (gpointer)c->profile);
    g_ptr_array_add(argv, "--suite");
    g_ptr_array_add(argv, (gpointer)c->suite);
    g_ptr_array_add(argv, "--connect");
    g_ptr_array_add(argv, (gpointer)m->hosts[h].uri);
    g_ptr_array_add(argv, "--out");
    g_ptr_array_add(argv, c->dir);
    /* the options of the cell's suite (and those every suite reads) */
    for (unsigned i = 0; i + 1 < m->run_args->len; i += 2) {
        const char *name = g_ptr_array_index(m->run_args, i);
        const char *v = g_ptr_array_index(m->run_args, i + 1);

        if (nvm_run_opt_suites(name + 2) & nvm_run_suite_mask(c->suite)) {
            g_ptr_array_add(argv, (gpointer)name);
            if (v) {
                g_ptr_array_add(argv, (gpointer)v);
            }
        }
    }
    g_ptr_array_add(argv, NULL);

    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0) {
        c->error = g_strdup_printf("fork: %s", g_strerror(errno));
        g_ptr_array_free(argv, TRUE);
        return false;
    }
    if (pid == 0) {
        int fd = open(c->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int nul = open("/dev/null", O_RDONLY);

        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        if (nul >= 0) {
            dup2(nul, 0);
        }
        execv(exe, (char **)argv->pdata);
        fprintf(stderr, "nvmimic run: exec %s: %s\n", exe, g_strerror(errno));
        _exit(127);
    }
    g_ptr_array_free(argv, TRUE);
    c->pid = pid;
    c->st = CELL_RUNNING;
    c->t0 = g_get_monotonic_time();
    m->hosts[h].running++;
    printf("matrix: %s x %s on %s (attempt %u)\n", c->profile, c->suite,
           m->hosts[h].uri, c->attempts);
    fflush(stdout);
    return true;
}

/* A host for @c: in the rotation, not tried by @c, least busy.  -1: none
 * free now; -2: none left at all. */
static int pick_host(Matrix *m, const Cell *c)
{
    int best = -2;

    for (unsigned h = 0; h < m->n_hosts; h++) {
        Host *x = &m->hosts[h];

        if (x->down || (c->tried & (1ull << h))) {
            continue;
        }
        if (x->running >= m->per_host) {
            if (best == -2) {
                best = -1;
            }
            continue;
        }
        if (best < 0 || x->running < m->hosts[best].running) {
            best = (int)h;
        }
    }
    return best;
}

static void finish_cell(Matrix *m, Cell *c, int status)
{
    Host *h = &m->hosts[c->host];
    int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    double wall = (g_get_monotonic_time() - c->t0) / 1e6;

    h->running--;
    c->pid = 0;
    g_clear_pointer(&c->error, g_free);
    if (rc == 0) {
        c->st = CELL_OK;
        printf("matrix: %s x %s ok on %s (%.0f s)\n", c->profile, c->suite,
               h->uri, wall);
        return;
    }
    c->error = run_error(c->log, rc);
    if (rc == 3 && !interrupted) {
        /* the host, not the run: out of the rotation, the cell elsewhere */
        if (!h->down) {
            h->down = g_strdup(c->error);
            printf("matrix: host %s out of the rotation: %s\n", h->uri,
                   c->error);
        }
        if (c->attempts <= m->retries) {
            c->st = CELL_PENDING;
            printf("matrix: %s x %s will be retried on another host\n",
                   c->profile, c->suite);
            return;
        }
    }
    c->st = CELL_FAILED;
    printf("matrix: %s x %s failed on %s: %s\n", c->profile, c->suite,
           h->uri, c->error);
}

typedef struct MatrixOpts {
    const char *profiles, *suites, *connect, *out, *profile_dir;
    unsigned per_host, retries;
    bool quick;
    bool profile_dir_given;
    GPtrArray *run_args;        /* run's own options: "--NAME", value */
} MatrixOpts;

/*
 * The options run takes that matrix passes on to every cell whose suite
 * reads them (checked by each run: a bad value fails those cells alike),
 * as pairs: "--NAME" and its value, NULL for a flag.
 */
static bool pass_on(void *base, const char *name, const char *v)
{
    MatrixOpts *o = base;

    g_ptr_array_add(o->run_args, g_strdup_printf("--%s", name));
    g_ptr_array_add(o->run_args, g_strdup(v));
    return true;
}

#define PASS_ON(fn, opt) \
    static bool fn(void *base, const char *v, char **why) \
    { \
        (void)why; \
        return pass_on(base, opt, v); \
    }

PASS_ON(pass_workloads, "workloads")
PASS_ON(pass_points, "points")
PASS_ON(pass_mode, "mode")
PASS_ON(pass_seed, "seed")
PASS_ON(pass_threads, "threads")
PASS_ON(pass_run_s, "run-s")
PASS_ON(pass_ramp_s, "ramp-s")
PASS_ON(pass_point_timeout_s, "point-timeout-s")
PASS_ON(pass_qemu, "qemu")
PASS_ON(pass_guest_dir, "guest-dir")
PASS_ON(pass_dbguest_dir, "dbguest-dir")
PASS_ON(pass_pool, "pool")
PASS_ON(pass_sql_warehouses, "sql-warehouses")
PASS_ON(pass_sql_users, "sql-users")
PASS_ON(pass_sql_precondition_s, "sql-precondition-s")
PASS_ON(pass_sql_sample_s, "sql-sample-s")
PASS_ON(pass_sql_think_factor, "sql-think-factor")
PASS_ON(pass_sql_preset, "sql-preset")
PASS_ON(pass_seq_mib, "seq-mib")
PASS_ON(pass_render_mem_mib, "render-mem-mib")
PASS_ON(pass_render_ram_factor, "render-ram-factor")

/* What matrix_exec() left in @m (it may return at any point). */
static void matrix_clear(Matrix *m)
{
    for (unsigned i = 0; m->cells && i < m->cells->len; i++) {
        Cell *c = g_ptr_array_index(m->cells, i);

        g_free(c->dir);
        g_free(c->log);
        g_free(c->error);
        g_free(c);
    }
    if (m->cells) {
        g_ptr_array_free(m->cells, TRUE);
    }
    for (unsigned h = 0; h < m->n_hosts; h++) {
        g_free(m->hosts[h].down);
    }
    if (m->run_args) {
        g_ptr_array_free(m->run_args, TRUE);
    }
    g_strfreev(m->profiles);
    g_strfreev(m->suites);
    g_strfreev(m->uris);
    g_free(m->out);
    g_free(m->compare);
}

static int matrix_exec(Matrix *m, int argc, char **argv)
{
    MatrixOpts o = {
        .run_args = g_ptr_array_new_with_free_func(g_free),
    };
    const char *profiles, *suite_list, *connect, *out, *profile_dir;
    g_autofree char *why = NULL;
    g_autofree char *exe = g_file_read_link("/proc/self/exe", NULL);
    struct sigaction sa = { .sa_handler = on_sig };
    unsigned n_ok = 0, n_failed = 0;
    int rc = nvm_opts_parse(&nvm_cmd_matrix, argc, argv, &o, NULL);

    m->run_args = o.run_args;
    if (rc) {
        return rc == NVM_OPTS_HELP ? 0 : rc;
    }
    if (o.quick) {
        g_ptr_array_add(m->run_args, g_strdup("--quick"));
        g_ptr_array_add(m->run_args, NULL);
    }
    m->per_host = o.per_host;
    m->retries = o.retries;
    profiles = o.profiles;
    suite_list = o.suites;
    connect = o.connect;
    out = o.out;
    profile_dir = o.profile_dir;
    if (!profiles || !suite_list || !connect) {
        return usage("needs --profiles, --suites and --connect");
    }
    if (!(m->profiles = split_list("--profiles", profiles, &why)) ||
        !(m->suites = split_list("--suites", suite_list, &why)) ||
        !(m->uris = split_list("--connect", connect, &why))) {
        return usage("%s", why);
    }
    if (g_strv_length(m->uris) > MAX_HOSTS) {
        return usage("--connect: at most %d hosts", MAX_HOSTS);
    }
    for (char **u = m->uris; *u; u++) {
        g_autoptr(GError) e = NULL;

        if (!nvm_lv_uri_valid(*u, &e)) {
            return usage("--connect: %s", e->message);
        }
        m->hosts[m->n_hosts++].uri = *u;
    }
    for (char **s = m->suites; *s; s++) {
        if (!g_strv_contains(nvm_run_suites, *s)) {
            g_autofree char *l = g_strjoinv(", ", (char **)nvm_run_suites);

            return usage("unknown suite '%s' (valid: %s; a cell per "
                         "suite)", *s, l);
        }
    }
    /* an option for a suite no cell runs (run refuses it) */
    for (unsigned i = 0; i + 1 < m->run_args->len; i += 2) {
        const char *name = g_ptr_array_index(m->run_args, i);
        unsigned want = nvm_run_opt_suites(name + 2);

        if (!(want & nvm_run_suite_mask(suite_list))) {
            g_autofree char *names = nvm_run_suite_names(want);

            return usage("%s is for --suite %s, which --suites %s does not "
                         "include", name, names, suite_list);
        }
    }
    for (char **p = m->profiles; *p; p++) {
        g_autoptr(GError) e = NULL;
        NvmProfile *pr = nvm_profile_load(*p, profile_dir, &e);

        if (!pr) {
            return usage("profile %s: %s", *p, e->message);
        }
        nvm_profile_free(pr);
    }
    if (!exe) {
        fprintf(stderr, "nvmimic matrix: cannot find its own executable "
                "(/proc/self/exe)\n");
        return 1;
    }
    if (o.profile_dir_given) {
        g_ptr_array_add(m->run_args, g_strdup("--profile-dir"));
        g_ptr_array_add(m->run_args, g_strdup(profile_dir));
    }
    if (out) {
        m->out = g_strdup(out);
    } else {
        g_autoptr(GDateTime) now = g_date_time_new_now_local();
        g_autofree char *ts = g_date_time_format(now, "%Y%m%d-%H%M%S");

        m->out = g_strdup_printf("out/matrix-%s", ts);
    }
    if (g_mkdir_with_parents(m->out, 0755)) {
        fprintf(stderr, "nvmimic matrix: cannot create %s: %s\n", m->out,
                g_strerror(errno));
        return 1;
    }
    m->cells = g_ptr_array_new();
    for (char **p = m->profiles; *p; p++) {
        for (char **s = m->suites; *s; s++) {
            Cell *c = g_new0(Cell, 1);
            g_autofree char *base = g_strdup_printf("%s-%s", *p, *s);

            c->profile = *p;
            c->suite = *s;
            c->host = -1;
            /* a profile given as a path gets its file name */
            c->dir = g_build_filename(m->out, strrchr(base, '/') ?
                                      strrchr(base, '/') + 1 : base, NULL);
            g_ptr_array_add(m->cells, c);
        }
    }
    m->t0 = g_get_monotonic_time();
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    printf("matrix: %u cell(s) over %u host(s), %u at a time per host, "
           "results in %s\n", m->cells->len, m->n_hosts, m->per_host, m->out);
    write_json(m);

    for (;;) {
        unsigned running = 0;
        int st;
        pid_t pid;

        for (unsigned i = 0; i < m->cells->len && !interrupted; i++) {
            Cell *c = g_ptr_array_index(m->cells, i);
            int h;

            if (c->st != CELL_PENDING) {
                continue;
            }
            h = pick_host(m, c);
            if (h == -2) {
                c->st = CELL_FAILED;
                if (!c->error) {
                    c->error = g_strdup("no libvirt host left to run it "
                                        "(every host is out of the rotation)");
                }
                printf("matrix: %s x %s failed: %s\n", c->profile, c->suite,
                       c->error);
            } else if (h >= 0 && !spawn_cell(m, c, h, exe)) {
                c->st = CELL_FAILED;
            }
        }
        write_json(m);
        for (unsigned i = 0; i < m->cells->len; i++) {
            Cell *c = g_ptr_array_index(m->cells, i);

            running += c->st == CELL_RUNNING;
            if (interrupted && c->st == CELL_PENDING) {
                c->st = CELL_FAILED;
                c->error = g_strdup("interrupted before it ran");
            }
        }
        if (!running) {
            break;
        }
        pid = waitpid(-1, &st, 0);
        if (pid < 0) {
            if (errno == EINTR) {
                continue;       /* the children got the signal as well */
            }
            break;
        }
        for (unsigned i = 0; i < m->cells->len; i++) {
            Cell *c = g_ptr_array_index(m->cells, i);

            if (c->st == CELL_RUNNING && c->pid == pid) {
                finish_cell(m, c, st);
                fflush(stdout);
            }
        }
    }

    {
        g_autoptr(GPtrArray) dirs = g_ptr_array_new();
        g_autofree char *cmp = g_build_filename(m->out, "compare", NULL);
        g_autofree char *tsv = g_build_filename(profile_dir ? profile_dir
                                                            : "profiles",
                                                "reviews", "four-corners.tsv",
                                                NULL);

        for (unsigned i = 0; i < m->cells->len; i++) {
            Cell *c = g_ptr_array_index(m->cells, i);

            if (c->st == CELL_OK) {
                g_ptr_array_add(dirs, c->dir);
                n_ok++;
            } else {
                n_failed++;
            }
        }
        if (dirs->len) {
            g_autoptr(GError) e = NULL;

            if (nvm_report_compare((char **)dirs->pdata, dirs->len, cmp, tsv,
                                   &e)) {
                m->compare = g_build_filename(cmp, "compare.html", NULL);
            } else {
                fprintf(stderr, "nvmimic matrix: the compare report failed: "
                        "%s\n", e->message);
                n_failed++;
            }
        }
    }
    m->complete = !interrupted;
    write_json(m);
    printf("matrix: %u ok, %u failed; %s/matrix.json%s%s\n", n_ok,
           m->cells->len - n_ok, m->out, m->compare ? ", " : "",
           m->compare ? m->compare : "");
    for (unsigned i = 0; i < m->cells->len; i++) {
        Cell *c = g_ptr_array_index(m->cells, i);

        if (c->st != CELL_OK) {
            fprintf(stderr, "nvmimic matrix: %s x %s failed after %u "
                    "attempt(s): %s\n", c->profile, c->suite, c->attempts,
                    c->error ? c->error : "?");
        }
    }
    rc = interrupted ? 130 : n_failed ? 1 : 0;
    return rc;
}

#define O(f) NVM_OPT_AT(MatrixOpts, f)
#define RUN_OPT(name, fn, arg) \
    NVM_OPT(name, NVM_OPT_CALL, 0, arg, "passed on to each nvmimic run " \
            "whose suite reads it", \
            .parse = fn)

static const NvmOpt matrix_opts[] = {
    NVM_OPT("profiles", NVM_OPT_STR, O(profiles), "A,B,...",
            "the profiles (names or files)"),
    NVM_OPT("suites", NVM_OPT_STR, O(suites), "S,...",
            "the suites, a cell each: four-corners, vdi, sql, render,\n"
            "seq, all (as nvmimic run --suite)"),
    NVM_OPT("connect", NVM_OPT_STR, O(connect), "URI1,URI2,...",
            "the libvirt hosts (qemu:///system, qemu+ssh://HOST/system)"),
    NVM_OPT("per-host", NVM_OPT_UINT, O(per_host), "N",
            "cells at a time on each host", .min = 1, .max = 64,
            .def = "1"),
    NVM_OPT("retries", NVM_OPT_UINT, O(retries), "N",
            "how often a cell whose host failed runs again on another\n"
            "host", .min = 0, .max = 63, .def = "1"),
    NVM_OPT("out", NVM_OPT_STR, O(out), "DIR", "where the cells go",
            .def_doc = "out/matrix-YYYYmmdd-HHMMSS"),
    NVM_OPT("quick", NVM_OPT_FLAG, O(quick), NULL,
            "passed on to every nvmimic run"),
    NVM_OPT("profile-dir", NVM_OPT_STR, O(profile_dir), "DIR",
            "where profile names are looked up (passed on)",
            .given = NVM_OPT_GIVEN(MatrixOpts, profile_dir_given),
            .def_fn = nvm_path_profiles,
            .def_doc = "$NVMIMIC_PROFILE_DIR, else nvmimic's own"),
    RUN_OPT("workloads", pass_workloads, "A,B"),
    RUN_OPT("points", pass_points, "10,50,100"),
    RUN_OPT("mode", pass_mode, "simtime|realtime"),
    RUN_OPT("seed", pass_seed, "N"),
    RUN_OPT("threads", pass_threads, "stated|implied"),
    RUN_OPT("run-s", pass_run_s, "S"),
    RUN_OPT("ramp-s", pass_ramp_s, "S"),
    RUN_OPT("point-timeout-s", pass_point_timeout_s, "S"),
    RUN_OPT("sql-warehouses", pass_sql_warehouses, "W"),
    RUN_OPT("sql-users", pass_sql_users, "N"),
    RUN_OPT("sql-precondition-s", pass_sql_precondition_s, "S"),
    RUN_OPT("sql-sample-s", pass_sql_sample_s, "S"),
    RUN_OPT("sql-think-factor", pass_sql_think_factor, "F"),
    RUN_OPT("sql-preset", pass_sql_preset, "quick|review"),
    RUN_OPT("seq-mib", pass_seq_mib, "N"),
    RUN_OPT("render-mem-mib", pass_render_mem_mib, "N"),
    RUN_OPT("render-ram-factor", pass_render_ram_factor, "F"),
    RUN_OPT("qemu", pass_qemu, "PATH"),
    RUN_OPT("guest-dir", pass_guest_dir, "DIR"),
    RUN_OPT("dbguest-dir", pass_dbguest_dir, "DIR"),
    RUN_OPT("pool", pass_pool, "NAME"),
    NVM_OPT_END,
};

static int matrix_main(int argc, char **argv)
{
    Matrix m = { 0 };
    int rc = matrix_exec(&m, argc, argv);

    matrix_clear(&m);
    return rc;
}

const NvmCommand nvm_cmd_matrix = {
    .name = "matrix",
    .synopsis = "--profiles A,B,... --suites S,... --connect URI1,... "
                "[options]",
    .summary = "A profile x suite matrix of nvmimic run --connect, spread "
               "over libvirt hosts.",
    .description =
"Runs every profile x suite cell as `nvmimic run --connect URI` on the\n"
"libvirt hosts given, at most --per-host at a time on each.  A host that\n"
"cannot be reached, lacks the QEMU path, or drops a run leaves the\n"
"rotation, and its cell runs again on another host, up to --retries more\n"
"times.  Writes DIR/PROFILE-SUITE/ per cell (results.json, ...),\n"
"DIR/logs/, one comparison report DIR/compare/compare.html over the cells\n"
"that finished, and DIR/matrix.json.  Exit status 0 when every cell\n"
"finished, 1 otherwise.  The guest's files go to each host as storage\n"
"volumes: in --pool NAME (a pool every host has), else in a pool each run\n"
"makes and removes.  Each run checks the options passed on to it: a bad\n"
"value fails every cell alike.\n",
    .opts = matrix_opts,
    .main = matrix_main,
};
