/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic run: the command line.  Parses and checks the options into
 * RunOpts, fills in the defaults (the application suites' sizes for a
 * 2-core host, the SQL presets), loads the profile and chooses the suites.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run-int.h"

/* --suite all: every application workload */
static const int all_suites[] = { S_VDI, S_SQL, S_RENDER, S_SEQ };

static const char *const modes[] = { "simtime", "realtime", NULL };

static int run_usage(const char *fmt, ...) G_GNUC_PRINTF(1, 2);

static int run_usage(const char *fmt, ...)
{
    va_list ap;

    fputs("nvmimic run: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(" (see nvmimic run --help)\n", stderr);
    return 2;
}

static void run_help(void)
{
    fputs(
"usage: nvmimic run --profile NAME|PATH --suite SUITE[,SUITE...]\n"
"    [--mode simtime|realtime] [--quick] [--out DIR] [--seed N]\n"
"    [--workloads a,b] [--threads stated|implied] [--points 10,50,100]\n"
"    [--run-s S] [--ramp-s S] [--point-timeout-s S]\n"
"    [--sql-warehouses W] [--sql-users N] [--sql-precondition-s S]\n"
"    [--sql-sample-s S] [--sql-think-factor F] [--sql-preset quick|review]\n"
"    [--seq-mib N]\n"
"    [--render-mem-mib N] [--render-ram-factor F]\n"
"    [--qemu PATH] [--guest-dir DIR] [--dbguest-dir DIR]\n"
"    [--profile-dir DIR] [--connect URI [--pool NAME]]\n"
"Suites: four-corners, vdi, sql, render, seq; all = vdi,sql,render,seq.\n"
"Each suite boots its own guest (vm-images/) with the profiled drive.\n"
"four-corners and vdi: preconditioned like the review, each workload runs\n"
"with fio (vdi: harness/workloads/vdi-*.fio): an unthrottled peak at the\n"
"workload's outstanding count, then Poisson rates of 10..120 % of that peak.\n"
"Per point it records the guest's fio figures, the device's own statistics\n"
"over the same interval (QMP) and the model's curve (nvmimic sim).\n"
"The application suites start from a secure-erased drive:\n"
"  seq     1 MiB sequential write then read at QD 8 and 32, GB/s\n"
"          (--seq-mib, default 4096, 1024 with --quick)\n"
"  render  workloads/render in a guest with --render-mem-mib of RAM (384)\n"
"          and swap on the drive; seconds per phase (--render-ram-factor:\n"
"          working array / available RAM, default 1.5, 1.2 with --quick)\n"
"  sql     TPC-C on PostgreSQL 15 in the database guest (make dbguest):\n"
"          load, precondition, sample; latency per transaction and the\n"
"          device's over the sample.  Defaults W=1, 10 users, 60 + 120 s,\n"
"          think x 0.1 (--quick: 10 + 30 s).  --sql-preset review: the\n"
"          reviews' W=1500, 15000 users, 9000 + 1800 s, think x 1, in a\n"
"          16-vCPU 64 GB guest (a big host, --mode realtime with KVM)\n"
"  --mode simtime    TCG with -icount shift=0,sleep=off (default; exact,\n"
"                    repeatable; the guest's CPU tops out near 55 K IOPS)\n"
"  --mode realtime   KVM when a probe guest boots under it, else TCG\n"
"  --quick           0.5 s per point after a 0.1 s ramp (default 30 s after\n"
"                    6 s for the peak and 3 s for the rates, as vdbench)\n"
"  --out DIR         default out/PROFILE-SUITE-YYYYmmdd-HHMMSS\n"
"  --connect URI     run the guest as a libvirt domain on URI (qemu:///system,\n"
"                    qemu+ssh://HOST/system): QMP through libvirt, the same\n"
"                    outputs; --qemu names the emulator path on that host.\n"
"                    Exit status 3: the host was unreachable or dropped the\n"
"                    domain (nvmimic matrix retries such a run elsewhere)\n"
"  --pool NAME       with --connect: the storage pool on the host the guest's\n"
"                    files are uploaded to (default: one the run makes under\n"
"                    /var/lib/libvirt/nvmimic and removes)\n"
"Writes DIR/results.json (after every point; \"complete\": false until the\n"
"end), DIR/results.csv and the guest's logs in DIR/guest/.\n"
"Environment: NVMIMIC_QEMU (QEMU binary), NVMIMIC_GUEST_DIR, NVMIMIC_AGENT\n"
"(the guest agent script, for tests), NVMIMIC_DBGUEST_DIR, NVMIMIC_RENDER\n"
"(the static render program).\n", stdout);
}

static bool parse_pos_double(const char *s, double *out)
{
    char *end;

    errno = 0;
    *out = g_ascii_strtod(s, &end);
    return !errno && end != s && !*end && isfinite(*out) && *out > 0;
}

static char *join_list(const char *const *v)
{
    return g_strjoinv(", ", (char **)v);
}

static bool in_list(const char *s, const char *const *v)
{
    for (; *v; v++) {
        if (!strcmp(s, *v)) {
            return true;
        }
    }
    return false;
}

static int parse_run_opts(int argc, char **argv, RunOpts *o)
{
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;

        if (!strcmp(a, "--quick")) {
            o->quick = true;
            continue;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            run_help();
            exit(0);
        }
        if (strncmp(a, "--", 2)) {
            return run_usage("unexpected argument '%s'", a);
        }
        if (!v) {
            return run_usage("option %s needs a value", a);
        }
        i++;
        if (!strcmp(a, "--profile")) {
            o->profile = v;
        } else if (!strcmp(a, "--profile-dir")) {
            o->profile_dir = v;
        } else if (!strcmp(a, "--suite")) {
            o->suite = v;
        } else if (!strcmp(a, "--mode")) {
            o->mode = v;
        } else if (!strcmp(a, "--out")) {
            o->out = v;
        } else if (!strcmp(a, "--workloads")) {
            o->workloads = v;
        } else if (!strcmp(a, "--threads")) {
            o->threads = v;
        } else if (!strcmp(a, "--qemu")) {
            o->qemu = v;
        } else if (!strcmp(a, "--guest-dir")) {
            o->guest_dir = v;
        } else if (!strcmp(a, "--points")) {
            o->points = v;
        } else if (!strcmp(a, "--connect")) {
            o->connect = v;
        } else if (!strcmp(a, "--pool")) {
            o->pool = v;
        } else if (!strcmp(a, "--dbguest-dir")) {
            o->dbguest_dir = v;
        } else if (!strcmp(a, "--sql-preset")) {
            if (strcmp(v, "quick") && strcmp(v, "review")) {
                return run_usage("--sql-preset '%s': quick or review", v);
            }
            o->sql_preset = v;
        } else if (!strcmp(a, "--sql-warehouses") ||
                   !strcmp(a, "--sql-users") ||
                   !strcmp(a, "--sql-precondition-s") ||
                   !strcmp(a, "--sql-sample-s") ||
                   !strcmp(a, "--seq-mib") ||
                   !strcmp(a, "--render-mem-mib")) {
            char *end;
            guint64 n;

            errno = 0;
            n = g_ascii_strtoull(v, &end, 10);
            if (errno || !*v || *end || *v == '-' || n > 1000000 ||
                (n == 0 && strcmp(a, "--sql-precondition-s"))) {
                return run_usage("%s '%s' must be a whole number in %s..1000000",
                                 a, v, strcmp(a, "--sql-precondition-s") ?
                                 "1" : "0");
            }
            if (!strcmp(a, "--sql-warehouses")) {
                o->sql_w = n;
            } else if (!strcmp(a, "--sql-users")) {
                o->sql_users = n;
            } else if (!strcmp(a, "--sql-precondition-s")) {
                o->sql_pre_s = n;
                o->sql_pre_set = true;
            } else if (!strcmp(a, "--sql-sample-s")) {
                o->sql_sample_s = n;
            } else if (!strcmp(a, "--seq-mib")) {
                o->seq_bytes = n << 20;
            } else {
                if (n < 128) {
                    return run_usage("--render-mem-mib %s: the guest needs at "
                                     "least 128 MiB", v);
                }
                o->render_mem_mib = n;
            }
        } else if (!strcmp(a, "--sql-think-factor") ||
                   !strcmp(a, "--render-ram-factor")) {
            double f;

            if (!parse_pos_double(v, &f) || f > 100) {
                return run_usage("%s '%s' must be a number in (0, 100]", a, v);
            }
            if (!strcmp(a, "--sql-think-factor")) {
                o->sql_think = f;
            } else {
                o->render_ram_factor = f;
            }
        } else if (!strcmp(a, "--seed")) {
            char *end;

            errno = 0;
            o->seed = g_ascii_strtoull(v, &end, 0);
            if (errno || !*v || *end || *v == '-') {
                return run_usage("--seed '%s' is not an unsigned integer", v);
            }
        } else if (!strcmp(a, "--run-s")) {
            if (!parse_pos_double(v, &o->run_s) || o->run_s > 3600) {
                return run_usage("--run-s '%s' must be a number in (0, 3600]",
                                 v);
            }
        } else if (!strcmp(a, "--ramp-s")) {
            if (!parse_pos_double(v, &o->ramp_s) || o->ramp_s > 600) {
                return run_usage("--ramp-s '%s' must be a number in (0, 600]",
                                 v);
            }
        } else if (!strcmp(a, "--point-timeout-s")) {
            if (!parse_pos_double(v, &o->point_timeout_s)) {
                return run_usage("--point-timeout-s '%s' must be a number > 0",
                                 v);
            }
        } else {
            return run_usage("unknown option '%s'", a);
        }
    }
    return 0;
}

/* Parse and check the command line into r->o, fill in defaults, load the
 * profile, and choose the suites (r->order).  0, or the exit status. */
int run_resolve_opts(Run *r, int argc, char **argv,
                     const char *profile_dir)
{
    g_autoptr(GError) err = NULL;
    RunOpts *o = &r->o;
    int rc;

    o->profile_dir = profile_dir;
    o->mode = "simtime";
    o->threads = "stated";
    o->seed = 1;
    o->qemu = g_getenv("NVMIMIC_QEMU") ? g_getenv("NVMIMIC_QEMU")
                                       : NVMIMIC_QEMU;
    o->guest_dir = g_getenv("NVMIMIC_GUEST_DIR") ?
                   g_getenv("NVMIMIC_GUEST_DIR") : NVMIMIC_GUEST_DIR;
    o->dbguest_dir = g_getenv("NVMIMIC_DBGUEST_DIR") ?
                     g_getenv("NVMIMIC_DBGUEST_DIR") : NVMIMIC_DBGUEST_DIR;
    o->workload_dir = g_getenv("NVMIMIC_WORKLOAD_DIR") &&
                      *g_getenv("NVMIMIC_WORKLOAD_DIR") ?
                      g_getenv("NVMIMIC_WORKLOAD_DIR") : NVMIMIC_WORKLOAD_DIR;
    rc = parse_run_opts(argc, argv, o);
    if (rc) {
        return rc;
    }
    if (!o->profile) {
        return run_usage("run needs --profile NAME|PATH");
    }
    if (!o->suite) {
        g_autofree char *l = join_list(run_suite_names);

        return run_usage("run needs --suite (%s)", l);
    }
    {
        g_auto(GStrv) v = g_strsplit(o->suite, ",", -1);

        for (char **sv = v; *sv; sv++) {
            int n = 0;
            const int *add;
            int one;

            if (!in_list(*sv, run_suite_names)) {
                g_autofree char *l = join_list(run_suite_names);

                return run_usage("unknown suite '%s' (valid: %s, or a "
                                 "comma-separated list)", *sv, l);
            }
            if (!strcmp(*sv, "all")) {
                add = all_suites;
                n = G_N_ELEMENTS(all_suites);
            } else {
                for (one = 0; strcmp(run_suite_names[one], *sv); one++) {
                }
                add = &one;
                n = 1;
            }
            for (int k = 0; k < n; k++) {
                if (!run_has_suite(r, add[k])) {
                    r->order[r->n_order++] = add[k];
                }
            }
        }
    }
    if (!in_list(o->mode, modes)) {
        g_autofree char *l = join_list(modes);

        return run_usage("unknown mode '%s' (valid: %s)", o->mode, l);
    }
    if (strcmp(o->threads, "stated") && strcmp(o->threads, "implied")) {
        return run_usage("--threads must be stated or implied, not '%s'",
                         o->threads);
    }
    if (o->points) {
        g_auto(GStrv) v = g_strsplit(o->points, ",", -1);

        for (char **p = v; *p; p++) {
            char *end;
            long pct = strtol(*p, &end, 10);

            if (!**p || *end || pct < 1 || pct > 200 ||
                r->n_pcts == MAX_PCTS) {
                return run_usage("--points '%s': a list of up to %d "
                                 "percentages in 1..200", o->points,
                                 MAX_PCTS);
            }
            r->pcts[r->n_pcts++] = (int)pct;
        }
    } else {
        for (int i = 1; i <= NVM_CURVE_POINTS; i++) {
            r->pcts[r->n_pcts++] = 10 * i;
        }
    }
    r->p = nvm_profile_load(o->profile, o->profile_dir, &err);
    if (!r->p) {
        g_auto(GStrv) names = nvm_profile_list(o->profile_dir, NULL);
        g_autofree char *l = names ? g_strjoinv(", ", names) : g_strdup("?");

        fprintf(stderr, "nvmimic run: %s (valid profiles: %s)\n",
                err->message, l);
        return 2;
    }
    if (strchr(o->profile, '/') || g_str_has_suffix(o->profile, ".ini")) {
        r->profile_path = g_canonicalize_filename(o->profile, NULL);
    } else {
        g_autofree char *f = g_strconcat(o->profile, ".ini", NULL);
        g_autofree char *rel = g_build_filename(o->profile_dir, f, NULL);

        r->profile_path = g_canonicalize_filename(rel, NULL);
    }
    if (o->connect) {
        g_autoptr(GError) ue = NULL;

        if (!nvm_lv_uri_valid(o->connect, &ue)) {
            return run_usage("--connect: %s", ue->message);
        }
    } else if (!g_file_test(o->qemu, G_FILE_TEST_IS_EXECUTABLE)) {
        fprintf(stderr, "nvmimic run: QEMU '%s' not found (build it with "
                "'make qemu', or set --qemu / NVMIMIC_QEMU)\n", o->qemu);
        return 1;
    }
    {
        g_autofree char *k = g_build_filename(o->guest_dir, "vmlinuz", NULL);

        if (!(r->n_order == 1 && r->order[0] == S_SQL) &&
            !g_file_test(k, G_FILE_TEST_EXISTS)) {
            fprintf(stderr, "nvmimic run: no guest in '%s' (build it with "
                    "vm-images/build-guest.sh, or set --guest-dir / "
                    "NVMIMIC_GUEST_DIR)\n", o->guest_dir);
            return 1;
        }
    }
    if (!(o->run_s > 0)) {
        o->run_s = o->quick ? 0.5 : 30;
    }
    /* Application suites: defaults for a 2-core host (README, "Suites") */
    if (!o->seq_bytes) {
        o->seq_bytes = (uint64_t)(o->quick ? 1024 : 4096) << 20;
    }
    if (!o->render_mem_mib) {
        /* the initramfs guest's root filesystem holds ~90 MB of RAM: with
         * 256 MiB the kernel's half-of-RAM tmpfs limit leaves no room */
        o->render_mem_mib = 384;
    }
    if (!(o->render_ram_factor > 0)) {
        o->render_ram_factor = o->quick ? 1.2 : 1.5;
    }
    if (o->sql_preset && !strcmp(o->sql_preset, "review")) {
        /* the reviews' SQL Server test (shared/reviews/README.md): 1,500
         * warehouses (~333 GB), 15,000 users, 2.5 h + 30 min, spec think
         * times; options given explicitly still win */
        o->sql_w = o->sql_w ? o->sql_w : 1500;
        o->sql_users = o->sql_users ? o->sql_users : 15000;
        if (!o->sql_pre_set) {
            o->sql_pre_s = 9000;
            o->sql_pre_set = true;
        }
        o->sql_sample_s = o->sql_sample_s ? o->sql_sample_s : 1800;
        o->sql_think = o->sql_think > 0 ? o->sql_think : 1;
    } else if (o->sql_preset) {
        /* --sql-preset quick: the sizes --quick gives the sql suite */
        if (!o->sql_pre_set) {
            o->sql_pre_s = 10;
            o->sql_pre_set = true;
        }
        o->sql_sample_s = o->sql_sample_s ? o->sql_sample_s : 30;
    }
    if (!o->sql_w) {
        o->sql_w = 1;
    }
    if (!o->sql_users) {
        o->sql_users = 10 * o->sql_w;
    }
    if (!o->sql_pre_set) {
        o->sql_pre_s = o->quick ? 10 : 60;
    }
    if (!o->sql_sample_s) {
        o->sql_sample_s = o->quick ? 30 : 120;
    }
    if (!(o->sql_think > 0)) {
        o->sql_think = 0.1;
    }
    if (run_has_suite(r, S_SQL) &&
        o->sql_w * TPCC_BYTES_PER_W > r->p->capacity_bytes) {
        fprintf(stderr, "nvmimic run: --sql-warehouses %u: the TPC-C "
                "database needs about %.0f GB (%.0f MB a warehouse, the "
                "reviews' 333 GB for 1,500) but %s holds %.0f GB; use at most "
                "%" G_GUINT64_FORMAT " warehouses\n", o->sql_w,
                o->sql_w * TPCC_BYTES_PER_W / 1e9, TPCC_BYTES_PER_W / 1e6,
                r->p->name, r->p->capacity_bytes / 1e9,
                (guint64)(r->p->capacity_bytes / TPCC_BYTES_PER_W));
        return 2;
    }
    if (run_has_suite(r, S_SEQ) && o->seq_bytes > r->p->capacity_bytes / 2) {
        return run_usage("--seq-mib %" G_GUINT64_FORMAT ": more than half "
                         "of %s", o->seq_bytes >> 20, r->p->name);
    }
    if (!(o->ramp_s > 0)) {
        o->ramp_s = o->quick ? 0.1 : o->run_s / 10;
        o->peak_ramp_s = o->quick ? 0.1 : o->run_s / 5;
    } else {
        o->peak_ramp_s = o->ramp_s;
    }
    return 0;
}
