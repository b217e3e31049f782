/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic: the command's entry point and its table of commands (a new
 * command is one line in commands[]).  harness/README.md maps the rest.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lv.h"
#include "matrix.h"
#include "report.h"
#include "qtestgen.h"
#include "run.h"

#ifndef NVMIMIC_PROFILE_DIR
#define NVMIMIC_PROFILE_DIR "profiles"
#endif

int cli_usage_error(const char *fmt, ...)
{
    va_list ap;

    fputs("nvmimic: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(" (see nvmimic --help)\n", stderr);
    return 2;
}

static void usage(FILE *f)
{
    fputs(
"usage: nvmimic COMMAND [options]\n"
"  profiles                      list the drive profiles, one per line\n"
"  sim --profile NAME|PATH --suite four-corners|slc-cliff|vdi\n"
"      [--format table|json] [--seed N] [--threads stated|implied]\n"
"      [--duration-s S] [--quick]   (four-corners; default 30 s per point)\n"
"      [--out DIR]               (four-corners) also write DIR/results.json\n"
"                                and render it as nvmimic report does\n"
"      [--step-gb G] [--idle-s S] [--after-gb G]   (slc-cliff)\n"
"      vdi: harness/workloads/vdi-*.fio ($NVMIMIC_WORKLOAD_DIR)\n"
"  sim --profile NAME|PATH --trace TRACE [--format table|json]\n"
"                                replay a device trace on the model\n"
"  trace2iolog TRACE [--device DEV] [--job FILE]   fio iolog v3 on stdout\n"
"  calibrate --reviews four-corners.tsv [--write profiles/README.md]\n"
"      [--duration-s S]          review-vs-model peak table\n"
"  profile-keys                  the profile key reference (Markdown)\n"
"  report DIR                    re-render DIR/results.json: results.csv,\n"
"                                charts (PNG, SVG), report.html\n"
"  compare DIR... [--out DIR]    runs side by side: compare.html + charts\n"
"  qtest --profile NAME|PATH [--suite four-corners|vdi] [--quick] ...\n"
"                                sim's suites through the emulated device,\n"
"                                no guest (qtest --help)\n"
"  run --profile NAME|PATH --suite four-corners|vdi|sql|render|seq|all\n"
"      [--mode simtime|realtime] [--quick] [--out DIR] [--seed N]\n"
"                                the suites in VMs (run --help)\n"
"  libvirt-xml --profile NAME|PATH --disk FILE [--os linux|windows] ...\n"
"                                a libvirt domain for the drive (--help)\n"
"  matrix --profiles A,B --suites S --connect URI1,URI2 [--per-host N] ...\n"
"                                runs spread over libvirt hosts (--help)\n"
"common: --profile-dir DIR (default $NVMIMIC_PROFILE_DIR or the built-in\n"
"        " NVMIMIC_PROFILE_DIR ")\n", f);
}

static bool parse_double(const char *s, double *out)
{
    char *end;

    errno = 0;
    *out = g_ascii_strtod(s, &end);
    return !errno && end != s && !*end && isfinite(*out);
}

static int parse_opts(int argc, char **argv, Opts *o)
{
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;

        if (!strcmp(a, "--quick")) {
            o->quick = true;
            continue;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        }
        if (strncmp(a, "--", 2)) {
            return cli_usage_error("unexpected argument '%s'", a);
        }
        if (!v) {
            return cli_usage_error("option %s needs a value", a);
        }
        i++;
        if (!strcmp(a, "--profile")) {
            o->profile = v;
        } else if (!strcmp(a, "--profile-dir")) {
            o->profile_dir = v;
        } else if (!strcmp(a, "--suite")) {
            o->suite = v;
        } else if (!strcmp(a, "--format")) {
            o->format = v;
        } else if (!strcmp(a, "--threads")) {
            o->threads = v;
        } else if (!strcmp(a, "--reviews")) {
            o->reviews = v;
        } else if (!strcmp(a, "--write")) {
            o->write = v;
        } else if (!strcmp(a, "--out")) {
            o->out = v;
        } else if (!strcmp(a, "--trace")) {
            o->trace = v;
        } else if (!strcmp(a, "--seed")) {
            char *end;

            errno = 0;
            o->seed = g_ascii_strtoull(v, &end, 0);
            if (errno || !*v || *end || *v == '-') {
                return cli_usage_error("--seed '%s' is not an unsigned integer",
                                 v);
            }
        } else if (!strcmp(a, "--duration-s")) {
            if (!parse_double(v, &o->duration_s) || o->duration_s <= 0 ||
                o->duration_s > 3600) {
                return cli_usage_error("--duration-s '%s' must be a number in "
                                 "(0, 3600]", v);
            }
        } else if (!strcmp(a, "--idle-s")) {
            if (!parse_double(v, &o->idle_s) || o->idle_s < 0) {
                return cli_usage_error("--idle-s '%s' must be a number >= 0", v);
            }
        } else if (!strcmp(a, "--step-gb")) {
            if (!parse_double(v, &o->step_gb) || o->step_gb <= 0) {
                return cli_usage_error("--step-gb '%s' must be a number > 0", v);
            }
        } else if (!strcmp(a, "--after-gb")) {
            if (!parse_double(v, &o->after_gb) || o->after_gb < 0) {
                return cli_usage_error("--after-gb '%s' must be a number >= 0", v);
            }
        } else {
            return cli_usage_error("unknown option '%s'", a);
        }
    }
    return 0;
}

NvmProfile *cli_load_profile(const Opts *o)
{
    g_autoptr(GError) err = NULL;
    NvmProfile *p = nvm_profile_load(o->profile, o->profile_dir, &err);

    if (!p) {
        fprintf(stderr, "nvmimic: %s\n", err->message);
    }
    return p;
}

/* The commands with their own parsers: argv[0] is the command's name. */
static int main_report(int argc, char **argv, const char *profile_dir)
{
    return nvm_report_main(argc, argv, profile_dir);
}

static int main_run(int argc, char **argv, const char *profile_dir)
{
    return nvm_cmd_run(argc + 1, argv - 1, profile_dir);
}

static int main_qtest(int argc, char **argv, const char *profile_dir)
{
    return nvm_cmd_qtest(argc, argv, profile_dir);
}

static int main_trace2iolog(int argc, char **argv, const char *profile_dir)
{
    (void)profile_dir;
    return cmd_trace2iolog(argc, argv);
}

static int main_libvirt_xml(int argc, char **argv, const char *profile_dir)
{
    return nvm_cmd_libvirt_xml(argc + 1, argv - 1, profile_dir);
}

static int main_matrix(int argc, char **argv, const char *profile_dir)
{
    return nvm_cmd_matrix(argc + 1, argv - 1, profile_dir);
}

/* The commands sharing Opts: parsed here first. */
typedef enum { OPTS_NONE, OPTS_SHARED } OptsKind;

typedef struct Command {
    const char *name;
    OptsKind opts;
    int (*main)(int argc, char **argv, const char *profile_dir);
    int (*main_opts)(const Opts *o);
} Command;

static int main_profile_keys(const Opts *o)
{
    (void)o;
    return cmd_profile_keys();
}

/* A new command is one line here. */
static const Command commands[] = {
    { "profiles", OPTS_SHARED, NULL, cmd_profiles },
    { "sim", OPTS_SHARED, NULL, cmd_sim },
    { "calibrate", OPTS_SHARED, NULL, cmd_calibrate },
    { "profile-keys", OPTS_SHARED, NULL, main_profile_keys },
    { "report", OPTS_NONE, main_report, NULL },
    { "compare", OPTS_NONE, main_report, NULL },
    { "run", OPTS_NONE, main_run, NULL },
    { "qtest", OPTS_NONE, main_qtest, NULL },
    { "trace2iolog", OPTS_NONE, main_trace2iolog, NULL },
    { "libvirt-xml", OPTS_NONE, main_libvirt_xml, NULL },
    { "matrix", OPTS_NONE, main_matrix, NULL },
};

int main(int argc, char **argv)
{
    Opts o = {
        .profile_dir = g_getenv("NVMIMIC_PROFILE_DIR") ?
                       g_getenv("NVMIMIC_PROFILE_DIR") : NVMIMIC_PROFILE_DIR,
        .format = "table",
        .threads = "stated",
        .seed = 1,
        .idle_s = -1,
        .after_gb = -1,
    };
    const char *cmd;
    int rc;

    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") ||
        !strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    for (unsigned i = 0; i < G_N_ELEMENTS(commands); i++) {
        const Command *c = &commands[i];

        if (strcmp(cmd, c->name)) {
            continue;
        }
        if (c->opts == OPTS_NONE) {
            return c->main(argc - 1, argv + 1, o.profile_dir);
        }
        rc = parse_opts(argc, argv, &o);
        return rc ? rc : c->main_opts(&o);
    }
    return cli_usage_error("unknown command '%s'", cmd);
}
