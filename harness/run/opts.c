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

#include "paths.h"
#include "run-int.h"

/* --suite all: every application workload */
static const int all_suites[] = { S_VDI, S_SQL, S_RENDER, S_SEQ };

/* in a function with the command (nvm_cmd_run, run.c) as @cmd */
#define run_usage(...) nvm_opts_error(cmd, __VA_ARGS__)

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

/*
 * What an SQL preset fixes besides its options' values (run_presets): the
 * database guest's vCPUs, shared_buffers' share of its RAM (kept when
 * --sql-mem-mib changes the RAM), the users a warehouse (--sql-users'
 * default).
 */
typedef struct SqlShape {
    const char *preset;         /* --sql-preset (--quick: quick), or NULL */
    unsigned smp;
    unsigned buffers_mib, at_mem_mib;
    unsigned users_per_w_x10;
} SqlShape;

static const SqlShape sql_shapes[] = {
    /* drive-bound at a 2-core host's scale: W=20 (2.0 GB) in a 352 MiB
     * guest (5.4 : 1, the reviews' 5.2 : 1), shared_buffers 64 MiB */
    { NULL, 2, 64, 352, 10 },
    /* a loaded W=1 (30 s to build): for tests, not drive-bound */
    { "quick", 2, 64, 352, 100 },
    /* a 16-core 64 GB host: an 8-vCPU 16 GiB guest with the reviews'
     * ratios: database 5.2 x RAM (PostgreSQL holds ~100 MB a warehouse),
     * buffer 14 % of the database (their 48 GB of 333), the load of 10
     * users a warehouse at spec think times, warm-up 5 x the sample */
    { "mid", 8, 12288, 16384, 5 },
    /* the reviews' SQL Server test: 1,500 warehouses (~333 GB), 2.5 h +
     * 30 min, a 16-vCPU 64 GB VM with a 48 GB buffer, and their 15,000
     * users' load at spec think times as 1,500 users at x 0.1: a
     * PostgreSQL connection is a process (SQL_CONN_MIB), 15,000 of them
     * would need 45 GB more */
    { "review", 16, 49152, 65536, 10 },
};

/*
 * The sql suite's sizes that follow from the options (their defaults and
 * presets are the table's): users, vCPUs, shared_buffers; then what must
 * hold before anything boots.  0, or the exit status.
 */
static int resolve_sql_opts(Run *r, const NvmCommand *cmd)
{
    RunOpts *o = &r->o;
    const SqlShape *sh = &sql_shapes[0];
    uint64_t need_mib;

    for (size_t i = 1; i < G_N_ELEMENTS(sql_shapes); i++) {
        if (!g_strcmp0(o->sql_preset, sql_shapes[i].preset)) {
            sh = &sql_shapes[i];
        }
    }
    o->sql_users = o->sql_users ? o->sql_users :
                   MAX(1, o->sql_w * sh->users_per_w_x10 / 10);
    o->sql_smp = sh->smp;
    o->sql_buffers_mib = MAX(16, (unsigned)((uint64_t)o->sql_mem_mib *
                                            sh->buffers_mib /
                                            sh->at_mem_mib));
    if (!run_has_suite(r, S_SQL)) {
        return 0;
    }
    if ((uint64_t)o->sql_w * TPCC_BYTES_PER_W > r->p->capacity_bytes) {
        fprintf(stderr, "nvmimic run: --sql-warehouses %u: the TPC-C "
                "database needs about %.0f GB (%.0f MB a warehouse, the "
                "reviews' 333 GB for 1,500) but %s holds %.0f GB; use at most "
                "%" G_GUINT64_FORMAT " warehouses\n", o->sql_w,
                o->sql_w * TPCC_BYTES_PER_W / 1e9, TPCC_BYTES_PER_W / 1e6,
                r->p->name, r->p->capacity_bytes / 1e9,
                (guint64)(r->p->capacity_bytes / TPCC_BYTES_PER_W));
        return 2;
    }
    need_mib = SQL_GUEST_BASE_MIB + o->sql_buffers_mib +
               (uint64_t)SQL_CONN_MIB * o->sql_users;
    if (o->sql_mem_mib < need_mib) {
        return run_usage("--sql-mem-mib %u: too small for PostgreSQL with %u "
                         "users and %u MiB of shared_buffers (at least %"
                         G_GUINT64_FORMAT " MiB: %d for the guest, %d a "
                         "connection)", o->sql_mem_mib, o->sql_users,
                         o->sql_buffers_mib, need_mib, SQL_GUEST_BASE_MIB,
                         SQL_CONN_MIB);
    }
    if (o->connect && strcmp(o->sql_topology, "nvme")) {
        return run_usage("--sql-topology %s needs a local QEMU (with "
                         "--connect the database disk is the NVMe drive)",
                         o->sql_topology);
    }
    return 0;
}

/*
 * The options that shape one kind of suite, and the suites that read each:
 * given without any of them, one used to be ignored without a word
 * (--sql-users with --suite four-corners, --points with --suite sql).
 * A name ending in '-' covers every option it begins.
 */
static const struct {
    const char *opt;
    unsigned suites;            /* 1 << S_* */
} suite_opts[] = {
    { "workloads", 1u << S_FC | 1u << S_VDI },
    { "threads", 1u << S_FC | 1u << S_VDI },
    { "points", 1u << S_FC | 1u << S_VDI },
    { "run-s", 1u << S_FC | 1u << S_VDI },
    { "ramp-s", 1u << S_FC | 1u << S_VDI },
    { "point-timeout-s", 1u << S_FC | 1u << S_VDI },
    { "sql-", 1u << S_SQL },
    { "sqldb-dir", 1u << S_SQL },
    { "dbguest-dir", 1u << S_SQL },
    { "seq-", 1u << S_SEQ },
    { "render-", 1u << S_RENDER },
};

unsigned nvm_run_opt_suites(const char *name)
{
    for (size_t k = 0; k < G_N_ELEMENTS(suite_opts); k++) {
        const char *n = suite_opts[k].opt;
        size_t len = strlen(n);

        if (n[len - 1] == '-' ? !strncmp(name, n, len) : !strcmp(name, n)) {
            return suite_opts[k].suites;
        }
    }
    return ~0u;
}

unsigned nvm_run_suite_mask(const char *suites)
{
    g_auto(GStrv) v = g_strsplit(suites, ",", -1);
    unsigned mask = 0;

    for (char **sv = v; *sv; sv++) {
        int s = 0;

        while (nvm_run_suites[s] && strcmp(nvm_run_suites[s], *sv)) {
            s++;
        }
        if (!nvm_run_suites[s]) {
            return 0;
        }
        if (s == S_N) {         /* "all" */
            for (size_t k = 0; k < G_N_ELEMENTS(all_suites); k++) {
                mask |= 1u << all_suites[k];
            }
        } else {
            mask |= 1u << s;
        }
    }
    return mask;
}

char *nvm_run_suite_names(unsigned mask)
{
    GString *names = g_string_new(NULL);

    for (int s = 0; s < S_N; s++) {
        if (mask & 1u << s) {
            g_string_append_printf(names, "%s%s", names->len ? " or " : "",
                                   nvm_run_suites[s]);
        }
    }
    return g_string_free(names, FALSE);
}

/*
 * 0, or 2 after one line naming the first option @given that none of the
 * chosen suites reads.
 */
static int check_suite_opts(const Run *r, const NvmCommand *cmd,
                            GPtrArray *given)
{
    unsigned have = 0;

    for (unsigned i = 0; i < r->n_order; i++) {
        have |= 1u << r->order[i];
    }
    for (guint i = 0; given && i + 1 < given->len; i += 2) {
        const NvmOpt *opt = g_ptr_array_index(given, i);
        unsigned want = nvm_run_opt_suites(opt->name);
        g_autofree char *names = NULL;

        if (want & have) {
            continue;
        }
        names = nvm_run_suite_names(want);
        return run_usage("--%s is for --suite %s, which this run (--suite "
                         "%s) does not include", opt->name, names,
                         r->o.suite);
    }
    return 0;
}

/*
 * Check the options nvm_opts_parse() read into r->o (with the table's
 * defaults and presets; @given: those on the command line), work out what
 * follows from them, load the profile, and choose the suites (r->order).
 * 0, or the exit status.
 */
int run_resolve_opts(Run *r, const NvmCommand *cmd, GPtrArray *given)
{
    g_autoptr(GError) err = NULL;
    RunOpts *o = &r->o;
    int rc;

    o->workload_dir = nvm_path_workloads();
    o->seq_bytes = (uint64_t)o->seq_mib << 20;
    {
        /* each goes into the guest's job as one line */
        const struct { const char *opt, *val; } one_line[] = {
            { "--guest-append", o->guest_append },
            { "--guest-pre", o->guest_pre },
            { "--fio-opts", o->fio_opts },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(one_line); i++) {
            if (one_line[i].val && strpbrk(one_line[i].val, "\n\r")) {
                return run_usage("%s: one line, without line breaks",
                                 one_line[i].opt);
            }
        }
    }
    o->backing_file = !strcmp(o->backing, "file");
    {
        /* 10^9 x 2^k instructions per second is -icount shift=-k */
        double k = log2(o->guest_ips / 1e9);

        if (fabs(k - round(k)) > 1e-9 || k < -10 || k > 3) {
            return run_usage("--guest-ips %g: the simulated CPU runs 10^9 "
                             "x 2^k instructions per second, k from -10 to "
                             "3 (8e9, 4e9, 2e9, 1e9, 5e8, ...)",
                             o->guest_ips);
        }
        o->icount_shift = -(int)round(k);
    }
    if (o->render_mem_mib < 128) {
        return run_usage("--render-mem-mib %u: the guest needs at least "
                         "128 MiB", o->render_mem_mib);
    }
    if (!o->profile) {
        return run_usage("needs --profile NAME|PATH");
    }
    if (!o->suite) {
        g_autofree char *l = join_list(nvm_run_suites);

        return run_usage("needs --suite (%s)", l);
    }
    {
        g_auto(GStrv) v = g_strsplit(o->suite, ",", -1);

        for (char **sv = v; *sv; sv++) {
            int n = 0;
            const int *add;
            int one;

            if (!in_list(*sv, nvm_run_suites)) {
                g_autofree char *l = join_list(nvm_run_suites);

                return run_usage("unknown suite '%s' (valid: %s, or a "
                                 "comma-separated list)", *sv, l);
            }
            if (!strcmp(*sv, "all")) {
                add = all_suites;
                n = G_N_ELEMENTS(all_suites);
            } else {
                for (one = 0; strcmp(nvm_run_suites[one], *sv); one++) {
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
    rc = check_suite_opts(r, cmd, given);
    if (rc) {
        return rc;
    }
    {
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
    if (o->baseline) {
        g_autofree char *rj = g_build_filename(o->baseline, "results.json",
                                               NULL);

        if (!g_file_test(rj, G_FILE_TEST_EXISTS)) {
            fprintf(stderr, "nvmimic run: --baseline %s: no results.json "
                    "there\n", o->baseline);
            return 2;
        }
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
    rc = resolve_sql_opts(r, cmd);
    if (rc) {
        return rc;
    }
    if (o->device_trace) {
        if (r->n_order > 1) {
            /* each suite boots its own guest and drive */
            return run_usage("--device-trace: one suite at a time (each "
                             "suite has its own drive)");
        }
        /* QEMU's working directory is not ours */
        r->trace_path = g_canonicalize_filename(o->device_trace, NULL);
        if (!o->connect) {
            g_autofree char *dir = g_path_get_dirname(r->trace_path);

            if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
                return run_usage("--device-trace %s: no directory %s",
                                 o->device_trace, dir);
            }
        }
    }
    if (o->fault) {
        g_autoptr(GError) e = NULL;

        r->faults = run_faults_parse(o->fault, &e);
        if (!r->faults) {
            return run_usage("--fault: %s", e->message);
        }
    }
    if (o->fio_opts && !run_has_suite(r, S_VDI)) {
        return run_usage("--fio-opts: only the vdi suite's points run fio "
                         "(the four corners run nvmimic-load)");
    }
    if (run_has_suite(r, S_SEQ) && o->seq_bytes > r->p->capacity_bytes / 2) {
        return run_usage("--seq-mib %" G_GUINT64_FORMAT ": more than half "
                         "of %s", o->seq_bytes >> 20, r->p->name);
    }
    if (!(o->ramp_s > 0)) {
        /* nvmimic sim's warm-ups: a fifth of a point (peak), a tenth */
        o->ramp_s = o->run_s / 10;
        o->peak_ramp_s = o->run_s / 5;
    } else {
        o->peak_ramp_s = o->ramp_s;
    }
    return 0;
}

#define O(f) NVM_OPT_AT(RunOpts, f)
#define WHOLE(lo) .min = lo, .max = 1000000
#define NVMIMIC_OWN(var) .def_doc = "$" var ", else nvmimic's own"

const NvmOpt run_opt_table[] = {
    NVM_OPT("profile", NVM_OPT_STR, O(profile), "NAME|PATH",
            "the drive: a profile's name or a profile file"),
    NVM_OPT("suite", NVM_OPT_STR, O(suite), "SUITE[,SUITE...]",
            "four-corners, vdi, sql, render, seq; all = vdi,sql,render,seq"),
    NVM_OPT("mode", NVM_OPT_CHOICE, O(mode), NULL,
            "simtime: TCG with -icount,sleep=off at --guest-ips (exact,\n"
            "repeatable); realtime: KVM when /dev/kvm opens and KVM\n"
            "starts, else TCG; qtest: no guest, nvmimic qtest with these options\n"
            "(--run-s is its --duration-s)",
            .choices = "simtime|realtime|qtest", .def = "simtime"),
    /* a core of the reviews' test bed (Dell R740xd, 2nd-generation Xeon
     * Scalable, ~3.9 GHz turbo) retiring ~1 instruction per cycle on the
     * kernel's I/O path: -icount shift=-2 */
    NVM_OPT("guest-ips", NVM_OPT_DOUBLE, O(guest_ips), "N",
            "simtime: the guest CPU's instructions per second, 10^9 x 2^k,\n"
            "k from -10 to 3; the default is a core of the reviews' Xeon\n"
            "Scalable test bed, ~3.9 GHz at ~1 instruction per cycle",
            .min = 0, .max = 8e9, .min_open = true, .def = "4e9"),
    NVM_OPT("quick", NVM_OPT_FLAG, O(quick), NULL,
            "short points and small application suites, for tests: the\n"
            "values marked --quick below"),
    NVM_OPT("out", NVM_OPT_STR, O(out), "DIR", "where the results go",
            .def_doc = "out/PROFILE-SUITE-YYYYmmdd-HHMMSS"),
    NVM_OPT("seed", NVM_OPT_U64, O(seed), "N",
            "the device's and the model's seed; pgbench's in the sql suite "
            "(modulo 10^9)", .def = "1"),
    NVM_OPT("workloads", NVM_OPT_STR, O(workloads), "A,B",
            "only these workloads of four-corners and vdi"),
    NVM_OPT("threads", NVM_OPT_CHOICE, O(threads), NULL,
            "outstanding counts: the reviews' stated ones\n"
            "or those their latencies imply",
            .choices = "stated|implied", .def = "stated"),
    NVM_OPT("points", NVM_OPT_STR, O(points), "10,50,100",
            "the curve's targets, % of the peak",
            .def = "10,20,30,40,50,60,70,80,90,100,110,120"),
    NVM_OPT("run-s", NVM_OPT_DOUBLE, O(run_s), "S",
            "seconds measured per point, as vdbench", .min = 0,
            .max = 3600, .min_open = true, .def = "30"),
    NVM_OPT("ramp-s", NVM_OPT_DOUBLE, O(ramp_s), "S",
            "the warm-up before each point", .min = 0, .max = 600,
            .min_open = true,
            .def_doc = "a tenth of --run-s, a fifth before the peak, as "
                       "nvmimic sim"),
    NVM_OPT("point-timeout-s", NVM_OPT_DOUBLE, O(point_timeout_s), "S",
            "wall seconds a point may take", .min = 0, .min_open = true,
            .def_doc = "120 s plus 2 s per thousand expected I/Os"),
    NVM_OPT("sql-warehouses", NVM_OPT_UINT, O(sql_w), "W",
            "sql: TPC-C warehouses, loaded once by make sqldb SQL_W=W",
            WHOLE(1), .def = "20"),
    NVM_OPT("sql-users", NVM_OPT_UINT, O(sql_users), "N",
            "sql: users", WHOLE(1),
            .def_doc = "1 per warehouse; --quick: 10 per warehouse; "
                       "--sql-preset mid: 1 per 2"),
    NVM_OPT("sql-precondition-s", NVM_OPT_UINT, O(sql_pre_s), "S",
            "sql: seconds of warm-up before the sample", WHOLE(0),
            .def = "60"),
    NVM_OPT("sql-sample-s", NVM_OPT_UINT, O(sql_sample_s), "S",
            "sql: seconds measured", WHOLE(1), .def = "120"),
    NVM_OPT("sql-think-factor", NVM_OPT_DOUBLE, O(sql_think), "F",
            "sql: keying and think times x F; the default gives 1 user a\n"
            "warehouse the load of 10 at x 0.1",
            .min = 0, .max = 100, .min_open = true, .def = "0.01"),
    NVM_OPT("sql-preset", NVM_OPT_CHOICE, O(sql_preset), NULL,
            "quick: --quick's sizes (W=1); mid: a 16-core 64 GB KVM\n"
            "host, the reviews' ratios in an 8-vCPU 16 GiB guest;\n"
            "review: the reviews' W=1500 in a 16-vCPU 64 GiB guest, their\n"
            "15000 users' load as 1500 at x 0.1; the values marked below",
            .choices = "quick|mid|review"),
    NVM_OPT("sql-topology", NVM_OPT_CHOICE, O(sql_topology), NULL,
            "sql: the database disk on the emulated NVMe drive (nvme),\n"
            "or timed by the same profile through the nvmimic\n"
            "block filter: scsi-hd on an LSI SAS1068, the reviews' VMware\n"
            "'LSI Logic SAS' (sas), or virtio-blk (virtio)",
            .choices = "nvme|sas|virtio", .def = "nvme"),
    NVM_OPT("sql-mem-mib", NVM_OPT_UINT, O(sql_mem_mib), "N",
            "sql: the database guest's RAM (by default the database is\n"
            "5.4 x it); shared_buffers keeps its share", WHOLE(1),
            .def = "352"),
    NVM_OPT("sqldb-dir", NVM_OPT_STR, O(sqldb_dir), "DIR",
            "sql: the loaded databases (make sqldb)",
            .def_fn = nvm_path_sqldb, NVMIMIC_OWN("NVMIMIC_SQLDB_DIR")),
    NVM_OPT("seq-mib", NVM_OPT_UINT, O(seq_mib), "N",
            "seq: MiB per step", WHOLE(1), .def = "4096"),
    NVM_OPT("render-mem-mib", NVM_OPT_UINT, O(render_mem_mib), "N",
            "render: the guest's RAM, at least 128 (the initramfs guest's\n"
            "root holds ~90 MB of it, and a tmpfs may take half)",
            WHOLE(1), .def = "384"),
    NVM_OPT("render-ram-factor", NVM_OPT_DOUBLE, O(render_ram_factor), "F",
            "render: working array / available RAM",
            .min = 0, .max = 100, .min_open = true, .def = "1.5"),
    NVM_OPT("qemu", NVM_OPT_STR, O(qemu), "PATH",
            "QEMU with the nvmimic device; with --connect its path on the\n"
            "libvirt host", .def_fn = nvm_path_qemu,
            NVMIMIC_OWN("NVMIMIC_QEMU")),
    NVM_OPT("guest-dir", NVM_OPT_STR, O(guest_dir), "DIR",
            "the initramfs guest", .def_fn = nvm_path_guest,
            NVMIMIC_OWN("NVMIMIC_GUEST_DIR")),
    NVM_OPT("dbguest-dir", NVM_OPT_STR, O(dbguest_dir), "DIR",
            "the database guest of sql (make dbguest)",
            .def_fn = nvm_path_dbguest, NVMIMIC_OWN("NVMIMIC_DBGUEST_DIR")),
    NVM_OPT("profile-dir", NVM_OPT_STR, O(profile_dir), "DIR",
            "where profile names are looked up",
            .def_fn = nvm_path_profiles, NVMIMIC_OWN("NVMIMIC_PROFILE_DIR")),
    NVM_OPT("connect", NVM_OPT_STR, O(connect), "URI",
            "run the guest as a libvirt domain on URI (qemu:///system,\n"
            "qemu+ssh://HOST/system): QMP through libvirt, the same\n"
            "outputs.  Exit status 3: the host was unreachable or\n"
            "dropped the domain (nvmimic matrix retries such a run)"),
    NVM_OPT("pool", NVM_OPT_STR, O(pool), "NAME",
            "with --connect: the storage pool on the host the guest's\n"
            "files go to",
            .def_doc = "one the run makes under /var/lib/libvirt/nvmimic "
                       "and removes"),
    NVM_OPT("guest-append", NVM_OPT_STR, O(guest_append), "ARGS",
            "the stack under test: added to the guest kernel's command\n"
            "line, e.g. 'nvme.poll_queues=1' (one line)", .empty_ok = true),
    NVM_OPT("guest-pre", NVM_OPT_STR, O(guest_pre), "CMD",
            "the stack under test: a shell command the guest runs before\n"
            "each suite, e.g. 'echo mq-deadline\n"
            ">/sys/block/nvme0n1/queue/scheduler' (one line)",
            .empty_ok = true),
    NVM_OPT("fio-opts", NVM_OPT_STR, O(fio_opts), "OPTS",
            "the stack under test: the VDI points run through fio, with\n"
            "these options (before its job file, as [global] options;\n"
            "without it every curve runs nvmimic-load), e.g.\n"
            "'--ioengine=io_uring'", .empty_ok = true),
    NVM_OPT("backing", NVM_OPT_CHOICE, O(backing), NULL,
            "the drive's data: null (null-co: nothing is kept; render\n"
            "and sql always use a file) or a sparse file in the run's\n"
            "temporary directory", .choices = "null|file", .def = "null"),
    NVM_OPT("device-trace", NVM_OPT_STR, O(device_trace), "FILE",
            "record every command the drive times, from before the guest\n"
            "starts to the end of the run, to FILE on QEMU's host\n"
            "(QMP nvmimic-trace-start); nvmimic sim --trace replays it"),
    NVM_OPT("fault", NVM_OPT_STR, O(fault), "JSON",
            "faults the drive shows during each suite (docs/faults.md):\n"
            "nvmimic-fault's arguments without id, an object or an array\n"
            "of them, e.g. '{\"kind\": \"latency\", \"class\": \"read\",\n"
            "\"delay-us\": 500, \"at-mark\": 3}'; queued before the guest\n"
            "starts, recorded in results.json \"faults\""),
    NVM_OPT("baseline", NVM_OPT_STR, O(baseline), "DIR",
            "the regression gate: after the run, compare it with the run\n"
            "in DIR as nvmimic diff does (DIR/diff.txt); exit status 1\n"
            "when a figure moved beyond --tolerance"),
    NVM_OPT("tolerance", NVM_OPT_DOUBLE, O(tolerance_pct), "PCT",
            "with --baseline: a figure may move this many percent\n"
            "(in simulated time any change is a change)",
            .min = 0, .max = 1e9, .def = "0"),
    NVM_OPT_END,
};

/*
 * The values --quick and the SQL presets give the options not given
 * (the first that applies to an option wins).  resolve_sql_opts() adds
 * what a preset fixes besides them (sql_shapes).
 */
const NvmOptPreset run_presets[] = {
    { "quick", "sql-preset", "quick" },
    { "quick", "run-s", "0.5" },
    { "quick", "seq-mib", "1024" },
    { "quick", "render-ram-factor", "1.2" },
    { "sql-preset=quick", "sql-warehouses", "1" },
    { "sql-preset=quick", "sql-think-factor", "0.1" },
    { "sql-preset=quick", "sql-precondition-s", "10" },
    { "sql-preset=quick", "sql-sample-s", "30" },
    { "sql-preset=mid", "sql-warehouses", "910" },
    { "sql-preset=mid", "sql-mem-mib", "16384" },
    { "sql-preset=mid", "sql-think-factor", "0.05" },
    { "sql-preset=mid", "sql-precondition-s", "3000" },
    { "sql-preset=mid", "sql-sample-s", "600" },
    { "sql-preset=review", "sql-warehouses", "1500" },
    { "sql-preset=review", "sql-mem-mib", "65536" },
    { "sql-preset=review", "sql-think-factor", "0.1" },
    { "sql-preset=review", "sql-precondition-s", "9000" },
    { "sql-preset=review", "sql-sample-s", "1800" },
    { NULL },
};
