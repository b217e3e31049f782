/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fio job files (harness/jobfile.c), the mixed-workload driver
 * (harness/mix.c), device traces (harness/trace.c) and the VDI suite
 * (harness/vdi.c), all against the model alone.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "fio-options.h"
#include "trace.h"
#include "vdi.h"
#include "test-profile.h"

#ifndef NVMIMIC_WORKLOAD_DIR
#define NVMIMIC_WORKLOAD_DIR "harness/workloads"
#endif

static NvmMix *parse_ok(const char *text)
{
    g_autoptr(GError) err = NULL;
    NvmMix *m = nvm_jobfile_parse(text, "t.fio", NULL, &err);

    g_assert_no_error(err);
    g_assert_nonnull(m);
    return m;
}

static void vdi_job_files_load_with_their_stated_mixes(void)
{
    static const struct {
        const char *name;
        double read_pct, rand_r, rand_w;
        unsigned outstanding;
    } want[NVM_VDI_WORKLOADS] = {
        /* the reviews' peaks are closed-loop at these counts (Little's law
         * on profiles/reviews/vdi-calibration.tsv), with no idle */
        { "vdi-boot", 84, 80, 90, 32 },
        { "vdi-initial-login", 20, 75, 80, 30 },
        { "vdi-monday-login", 38, 80, 85, 16 },
    };

    for (unsigned w = 0; w < NVM_VDI_WORKLOADS; w++) {
        g_autoptr(GError) err = NULL;
        g_autofree char *path = g_strdup_printf("%s/%s.fio",
                                                NVMIMIC_WORKLOAD_DIR,
                                                nvm_vdi_names[w]);
        g_autofree char *text = NULL;
        NvmMix *m = nvm_jobfile_load(path, nvm_vdi_names[w], &err);
        double sum;

        g_assert_no_error(err);
        g_assert_cmpstr(m->name, ==, want[w].name);
        g_assert_cmpfloat(m->read_pct, ==, want[w].read_pct);
        g_assert_cmpfloat(m->random_pct[NVM_DIR_READ], ==, want[w].rand_r);
        g_assert_cmpfloat(m->random_pct[NVM_DIR_WRITE], ==, want[w].rand_w);
        g_assert_cmpuint(m->think_ns, ==, 0);
        g_assert_cmpuint(nvm_mix_outstanding(m), ==, want[w].outstanding);
        for (int d = 0; d < NVM_DIRS; d++) {
            sum = 0;
            g_assert_cmpuint(m->bs[d].n, >=, 3);
            for (unsigned i = 0; i < m->bs[d].n; i++) {
                g_assert_cmpuint(m->bs[d].bytes[i] % 4096, ==, 0);
                sum += m->bs[d].pct[i];
            }
            g_assert_cmpfloat_with_epsilon(sum, 100, 1e-9);
        }
        /* every file cites where its numbers come from */
        g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
        g_assert_nonnull(strstr(text, "Sources"));
        g_assert_nonnull(strstr(text, "Assumptions"));
        nvm_mix_free(m);
    }
}

static void jobfile_reads_fio_defaults_units_and_split_forms(void)
{
    NvmMix *m;

    /* rw=read: sequential, whatever percentage_random says; bs for both */
    m = parse_ok("[global]\nbs=8k\n[j]\nrw=read\npercentage_random=50\n");
    g_assert_cmpfloat(m->read_pct, ==, 100);
    g_assert_cmpfloat(m->random_pct[NVM_DIR_READ], ==, 0);
    g_assert_cmpuint(m->bs[NVM_DIR_WRITE].bytes[0], ==, 8192);
    g_assert_cmpuint(nvm_mix_outstanding(m), ==, 1);
    nvm_mix_free(m);

    /* rwmix before rw, single percentage_random for both directions,
     * empty shares split the rest, thinktime in us, iotime in s */
    m = parse_ok("; c\n[j]\nrwmixwrite=30\nrw=randrw\npercentage_random=60\n"
                 "bssplit=4k/50:16k/:64k/\nthinktime=250\n"
                 "thinktime_iotime=2\niodepth=8\nnumjobs=3\n"
                 "[other]\nrw=write\n");
    g_assert_cmpstr(m->name, ==, "j");
    g_assert_cmpfloat(m->read_pct, ==, 70);
    g_assert_cmpfloat(m->random_pct[NVM_DIR_WRITE], ==, 60);
    g_assert_cmpuint(m->bs[NVM_DIR_WRITE].n, ==, 3);
    g_assert_cmpfloat(m->bs[NVM_DIR_WRITE].pct[2], ==, 25);
    g_assert_cmpuint(m->think_ns, ==, 250000);
    g_assert_cmpuint(m->think_iotime_ns, ==, 2000000000);
    g_assert_cmpuint(nvm_mix_outstanding(m), ==, 24);
    g_assert_cmpfloat_with_epsilon(nvm_mix_mean_block_bytes(m),
                                   0.5 * 4096 + 0.25 * 16384 + 0.25 * 65536,
                                   1e-6);
    nvm_mix_free(m);

    /* separate read and write splits; the job picked by name */
    {
        g_autoptr(GError) err = NULL;

        m = nvm_jobfile_parse("[a]\nrw=randread\n[b]\nrw=randrw\n"
                              "bssplit=4k/100,64k/100\n", "t.fio", "b",
                              &err);
        g_assert_no_error(err);
        g_assert_cmpfloat(m->read_pct, ==, 50);
        g_assert_cmpfloat(m->random_pct[NVM_DIR_READ], ==, 100);
        g_assert_cmpuint(m->bs[NVM_DIR_READ].bytes[0], ==, 4096);
        g_assert_cmpuint(m->bs[NVM_DIR_WRITE].bytes[0], ==, 65536);
        nvm_mix_free(m);
    }
}

static void jobfile_bad_values_name_file_line_and_value(void)
{
    static const struct {
        const char *text;
        const char *want;
    } bad[] = {
        { "[j]\nbssplit=4k/50:8k/40\n", "t.fio:2: bssplit=4k/50:8k/40: "
          "the percentages do not add up to 100" },
        { "[j]\nbs=1000\n", "t.fio:2: bs=1000: not a multiple of 512" },
        { "[j]\nbssplit=4k/50:12m/50\n", "t.fio:2: bssplit" },
        { "[j]\nrw=randomrw\n", "t.fio:2: rw=randomrw: not one of" },
        { "[j]\nrwmixread=101\n", "t.fio:2: rwmixread=101" },
        { "[j]\niodepth=0\n", "t.fio:2: iodepth=0" },
        { "[j]\n\nnumjobs=-1\n", "t.fio:3: numjobs=-1" },
        { "[j]\nthinktime=5ms\n", "needs thinktime_iotime" },
        { "[j]\nthinktime_iotime=1s\n", "needs thinktime" },
        { "[j]\nthinktime=5 hours\nthinktime_iotime=1\n", "thinktime=5" },
        { "[j]\nrate_iops=100\n", "rate_iops=100: not modelled" },
        { "[j]\nsync=maybe\n", "t.fio:2: sync=maybe: not one of" },
        { "[j]\niodepth=4096\nnumjobs=2\n", "more than 4096" },
        { "[global]\nrw=read\n", "no job section" },
        { "[j\nrw=read\n", "t.fio:1: malformed section header" },
    };

    for (unsigned i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_autoptr(GError) err = NULL;
        NvmMix *m = nvm_jobfile_parse(bad[i].text, "t.fio", NULL, &err);

        g_assert_null(m);
        g_assert_nonnull(err);
        if (!strstr(err->message, bad[i].want)) {
            g_test_message("'%s' gave '%s', want '%s'", bad[i].text,
                           err->message, bad[i].want);
            g_test_fail();
        }
    }
    {
        g_autoptr(GError) err = NULL;

        g_assert_null(nvm_jobfile_parse("[a]\n", "t.fio", "zz", &err));
        g_assert_nonnull(strstr(err->message, "no job [zz]"));
    }
}

/*
 * fio replaces ${NAME} in a job file with the environment's NAME (an unset
 * one with nothing); the job files of workloads/seq/ take their queue
 * depth that way, and failed `nvmimic jobfile show` as "${SEQ_QD}: not a
 * whole number".
 */
static void jobfile_values_take_the_environment_as_fio_does(void)
{
    static const char *const seq[] = { "seq-read.fio", "seq-write.fio" };
    g_autoptr(GError) err = NULL;
    NvmMix *m;

    g_setenv("NVM_TEST_QD", "12", TRUE);
    g_setenv("NVM_TEST_KIB", "8", TRUE);
    g_unsetenv("NVM_TEST_UNSET");
    m = parse_ok("[j]\nrw=randread\niodepth=${NVM_TEST_QD}\n"
                 "bs=${NVM_TEST_KIB}k\n");
    g_assert_cmpuint(m->iodepth, ==, 12);
    g_assert_cmpfloat(nvm_mix_mean_block_bytes(m), ==, 8192);
    nvm_mix_free(m);
    /* unset: as fio, nothing; the error names the variable */
    g_assert_null(nvm_jobfile_parse("[j]\niodepth=${NVM_TEST_UNSET}\n",
                                    "t.fio", NULL, &err));
    g_assert_nonnull(strstr(err->message, "t.fio:2: iodepth=${NVM_TEST_UNSET}"
                            ": not a whole number 1..4096 (${NVM_TEST_UNSET} "
                            "is not set in the environment"));
    /* a "$" without braces, or "${}", is left as it is */
    g_clear_error(&err);
    g_assert_null(nvm_jobfile_parse("[j]\niodepth=$NVM_TEST_QD\n", "t.fio",
                                    NULL, &err));
    g_assert_nonnull(strstr(err->message, "iodepth=$NVM_TEST_QD: not"));
    g_setenv("SEQ_QD", "32", TRUE);
    for (unsigned i = 0; i < G_N_ELEMENTS(seq); i++) {
        g_autofree char *path = g_build_filename(NVMIMIC_SOURCE_ROOT,
                                                 "workloads", "seq", seq[i],
                                                 NULL);

        g_clear_error(&err);
        m = nvm_jobfile_load(path, NULL, &err);
        g_assert_no_error(err);
        g_assert_cmpuint(m->iodepth, ==, 32);
        g_assert_cmpfloat(nvm_mix_mean_block_bytes(m), ==, 1048576);
        nvm_mix_free(m);
    }
    g_unsetenv("SEQ_QD");
    g_unsetenv("NVM_TEST_QD");
    g_unsetenv("NVM_TEST_KIB");
}

/*
 * fio refuses a job file with a key it does not know ("Bad option"); sim
 * used to skip it as fio's, running the mix without it (a typo such as
 * iodepht ran at one outstanding).  fio's own options, their aliases and
 * the engines' options are skipped as before.
 */
static void jobfile_keys_fio_does_not_take_are_refused(void)
{
    static const char *const typos[] = { "iodepht=8", "rwmixred=70",
                                         "ioengin=libaio", "group_report" };
    g_autoptr(GError) err = NULL;
    NvmMix *m;

    /* the build found fio (scripts/deps.sh installs it): the check is on */
    g_assert_cmpint(NVM_FIO_HAVE_LIST, ==, 1);
    g_assert_cmpint(NVM_FIO_N_OPTIONS, >, 150);
    for (unsigned i = 0; i < G_N_ELEMENTS(typos); i++) {
        g_autofree char *text = g_strdup_printf("[j]\nrw=randread\n%s\n",
                                                typos[i]);
        g_autofree char *want = g_strdup_printf("t.fio:3: %s%s: not an "
                                                "option of fio-", typos[i],
                                                strchr(typos[i], '=') ? ""
                                                                      : "=");
        g_autoptr(GError) e = NULL;

        g_assert_null(nvm_jobfile_parse(text, "t.fio", NULL, &e));
        if (!strstr(e->message, want)) {
            g_test_message("'%s' gave '%s', want '%s'", typos[i],
                           e->message, want);
            g_test_fail();
        }
    }
    m = nvm_jobfile_parse("[j]\nioengine=libaio\nuserspace_reap\n"
                          "readwrite=randrw\nrwmixread=70\ndirect=1\n"
                          "group_reporting\nhipri\ntime_based\n"
                          "runtime=30\nfilename=/dev/nvme0n1\n", "t.fio",
                          NULL, &err);
    g_assert_no_error(err);
    g_assert_nonnull(m);
    g_assert_cmpfloat(m->read_pct, ==, 70);
    nvm_mix_free(m);
}

typedef struct Seen {
    uint64_t n, reads, bytes, sequential;
    uint64_t last_end[2];
    uint64_t first_ns, last_ns;
    uint64_t gaps_over_1ms;
} Seen;

static void see(void *opaque, const NvmCmd *cmd, uint64_t t)
{
    Seen *s = opaque;
    int d = cmd->op == NVM_OP_READ ? 0 : 1;

    if (s->n && t - s->last_ns > 1000000) {
        s->gaps_over_1ms++;
    }
    if (!s->n) {
        s->first_ns = t;
    }
    s->n++;
    s->reads += !d;
    s->bytes += (uint64_t)cmd->nlb * 512;
    s->sequential += s->n > 1 && cmd->slba == s->last_end[d];
    s->last_end[d] = cmd->slba + cmd->nlb;
    s->last_ns = t;
}

static void run_mix(const char *text, double rate, uint64_t dur_ms,
                    Seen *seen, NvmMixResult *res)
{
    NvmProfile *p = load("crucial-p5-2tb");
    NvmModel *m = nvm_model_new(p, 1);
    NvmMix *mix = parse_ok(text);
    uint64_t now = 0;
    NvmMixSpec spec = {
        .mix = mix,
        .lba_bytes = p->lba_bytes,
        .span_bytes = 8ULL << 30,
        .duration_ns = dur_ms * 1000000,
        .rate_iops = rate,
        .on_submit = see,
        .opaque = seen,
    };

    g_assert_cmpuint(p->lba_bytes, ==, 512);
    memset(seen, 0, sizeof(*seen));
    nvm_mix_run(m, &spec, 7, &now, res);
    g_assert_cmpuint(now, ==, spec.duration_ns);
    nvm_mix_free(mix);
    nvm_model_free(m);
    nvm_profile_free(p);
}

static void mix_issues_the_read_share_block_split_and_sequential_share(void)
{
    Seen s;
    NvmMixResult r;
    double rd, mean_bs, seq;

    run_mix("[j]\nrw=randrw\nrwmixread=70\npercentage_random=50\n"
            "bssplit=4k/50:64k/50\niodepth=1\n", 0, 200, &s, &r);
    rd = (double)s.reads / s.n;
    mean_bs = (double)s.bytes / s.n;
    seq = (double)s.sequential / s.n;
    g_test_message("%" G_GUINT64_FORMAT " I/Os, %.3f reads, mean %.0f B, "
                   "%.3f sequential", s.n, rd, mean_bs, seq);
    g_assert_cmpuint(s.n, >, 2000);
    g_assert_cmpfloat(fabs(rd - 0.70), <, 0.03);
    g_assert_cmpfloat(fabs(mean_bs - 34816) / 34816, <, 0.05);
    /* half the I/Os continue their direction's previous one */
    g_assert_cmpfloat(fabs(seq - 0.50), <, 0.04);
    /* the model counted what was submitted */
    g_assert_cmpuint(r.all.ios, ==, r.cls[0].ios + r.cls[1].ios);
    g_assert_cmpuint(r.all.ios, <=, s.n);
    g_assert_cmpfloat(r.all.fig.lat_us, >, 0);
    g_assert_cmpfloat(r.all.fig.p99_us, >=, r.all.fig.p50_us);

    run_mix("[j]\nrw=randrw\npercentage_random=100\nbs=4k\niodepth=4\n",
            0, 50, &s, &r);
    g_assert_cmpfloat((double)s.sequential / s.n, <, 0.01);
}

/*
 * sync=1 (fio: O_SYNC; with direct=1 every write carries FUA): each write
 * of the mix completes once programmed, not when the buffer takes it.
 */
static void mix_sync_writes_complete_once_programmed(void)
{
    NvmProfile *p = load("crucial-p5-2tb");
    Seen s;
    NvmMixResult buffered, sync;
    NvmMix *m = parse_ok("[j]\nrw=randwrite\nbs=4k\nsync=1\n");

    g_assert_true(m->write_sync);
    nvm_mix_free(m);
    m = parse_ok("[j]\nrw=randwrite\nbs=4k\nsync=1\nsync=none\n");
    g_assert_false(m->write_sync);
    nvm_mix_free(m);
    run_mix("[j]\nrw=randwrite\nbs=4k\niodepth=4\n", 0, 50, &s,
            &buffered);
    run_mix("[j]\nrw=randwrite\nbs=4k\niodepth=4\nsync=1\n", 0, 50, &s,
            &sync);
    g_test_message("4K random writes at 4 outstanding: %.1f us buffered, "
                   "%.1f us with sync=1 (SLC program %.0f us)",
                   buffered.cls[NVM_DIR_WRITE].fig.lat_us,
                   sync.cls[NVM_DIR_WRITE].fig.lat_us, p->program_us_slc);
    g_assert_cmpfloat(buffered.cls[NVM_DIR_WRITE].fig.lat_us, <,
                      p->program_us_slc / 4);
    g_assert_cmpfloat(sync.cls[NVM_DIR_WRITE].fig.lat_us, >,
                      p->program_us_slc);
    nvm_profile_free(p);
}

static void mix_open_loop_reaches_its_rate_with_and_without_bursts(void)
{
    Seen s;
    NvmMixResult r;

    run_mix("[j]\nrw=randrw\nrwmixread=50\nbs=4k\niodepth=8\nnumjobs=2\n",
            20000, 500, &s, &r);
    g_test_message("plain: %.0f IOPS", r.all.fig.iops);
    g_assert_cmpfloat(fabs(r.all.fig.iops - 20000) / 20000, <, 0.03);
    g_assert_cmpuint(s.gaps_over_1ms, ==, 0);

    /* 30 ms on, 70 ms off: the same average, idle gaps between bursts */
    run_mix("[j]\nrw=randrw\nrwmixread=50\nbs=4k\niodepth=8\nnumjobs=2\n"
            "thinktime=70ms\nthinktime_iotime=30ms\n", 20000, 500, &s, &r);
    g_test_message("bursts: %.0f IOPS, %" G_GUINT64_FORMAT " gaps",
                   r.all.fig.iops, s.gaps_over_1ms);
    g_assert_cmpfloat(fabs(r.all.fig.iops - 20000) / 20000, <, 0.05);
    g_assert_cmpuint(s.gaps_over_1ms, >=, 4);
}

static void mix_closed_loop_bursts_idle_for_the_think_time(void)
{
    Seen s;
    NvmMixResult plain, burst;

    run_mix("[j]\nrw=randread\nbs=4k\niodepth=32\n", 0, 400, &s, &plain);
    run_mix("[j]\nrw=randread\nbs=4k\niodepth=32\n"
            "thinktime=50ms\nthinktime_iotime=50ms\n", 0, 400, &s, &burst);
    g_test_message("plain %.0f, 50 %% duty %.0f IOPS", plain.all.fig.iops,
                   burst.all.fig.iops);
    /* issuing half the time: about half the I/Os, minus the drains */
    g_assert_cmpfloat(burst.all.fig.iops / plain.all.fig.iops, >, 0.45);
    g_assert_cmpfloat(burst.all.fig.iops / plain.all.fig.iops, <, 0.52);
    g_assert_cmpuint(s.gaps_over_1ms, >=, 3);
}

static const char trace_text[] =
    "# nvmimic trace 1\n"
    "# profile=crucial-p5-2tb lba-bytes=512 capacity-bytes=2000398934016 "
    "start-ns=5\n"
    "# submit_ns op slba nlb complete_ns\n"
    "0 read 2048 8 90000\n"
    "1500 write 4096 16 30000\n"
    "2000000 flush 0 0 2010000\n"
    "2000000 discard 8 8 2005000\n"
    "3000999 write-zeroes 16 8 3100000\n";

static void trace_converts_to_fio_iolog_v3_in_microseconds(void)
{
    g_autoptr(GError) err = NULL;
    NvmTrace *t = nvm_trace_parse(trace_text, "t.trace", &err);
    GString *log;
    unsigned dropped, unfua;

    g_assert_no_error(err);
    g_assert_cmpuint(t->cmds->len, ==, 5);
    g_assert_cmpuint(t->lba_bytes, ==, 512);
    g_assert_cmpstr(t->profile, ==, "crucial-p5-2tb");
    log = nvm_trace_to_iolog(t, "/dev/nvme0n1", &dropped, &unfua);
    g_assert_cmpstr(log->str, ==,
                    "fio version 3 iolog\n"
                    "1 /dev/nvme0n1 add\n"
                    "1 /dev/nvme0n1 open\n"
                    "1 /dev/nvme0n1 read 1048576 4096\n"
                    "2 /dev/nvme0n1 write 2097152 8192\n"
                    "2001 /dev/nvme0n1 sync 0 0\n"
                    "3001 /dev/nvme0n1 write 8192 4096\n"
                    "3001 /dev/nvme0n1 close\n");
    g_assert_cmpuint(dropped, ==, 1);
    g_assert_cmpuint(unfua, ==, 0);
    /* read [0, 90 us) and write [1.5, 30 us) overlap; the rest do not */
    g_assert_cmpuint(nvm_trace_max_outstanding(t), ==, 2);
    g_string_free(log, TRUE);
    nvm_trace_free(t);
}

static void trace_bad_lines_are_refused_with_their_line(void)
{
    static const struct {
        const char *text;
        const char *want;
    } bad[] = {
        { "0 read 0 8 10\n", "not an nvmimic trace" },
        { "# nvmimic trace 1\n0 read 0 8 10\n", "gives no lba-bytes" },
        { "# nvmimic trace 1\n# lba-bytes=1000\n", "t.trace:2: lba-bytes" },
        { "# nvmimic trace 1\n# lba-bytes=512\n0 scan 0 8 10\n",
          "t.trace:3: unknown op 'scan'" },
        { "# nvmimic trace 1\n# lba-bytes=512\n0 read 0 0 10\n",
          "t.trace:3: read with 0 blocks" },
        { "# nvmimic trace 1\n# lba-bytes=512\n0 flush 0 8 10\n",
          "t.trace:3: flush with 8 blocks" },
        { "# nvmimic trace 1\n# lba-bytes=512\n50 read 0 8 10\n",
          "t.trace:3: complete_ns '10'" },
        { "# nvmimic trace 1\n# lba-bytes=512\n50 read 0 8\n40 read 0 8\n",
          "t.trace:4: submit_ns goes back" },
        { "# nvmimic trace 1\n# lba-bytes=512\n-5 read 0 8\n",
          "t.trace:3: submit_ns, slba and nlb" },
        { "# nvmimic trace 1\n# lba-bytes=512\n0 read 0\n",
          "t.trace:3: expected" },
        /* replayed from a later state, it wrapped to a 2.2 s latency */
        { "# nvmimic trace 1\n# lba-bytes=512\n"
          "18446744073709551000 read 0 8\n", "t.trace:3: submit_ns" },
        { "# nvmimic trace 1\n# lba-bytes=512\n0 read 0 8 "
          "18446744073709551000\n", "t.trace:3: complete_ns" },
        /* a terabyte in one command was timed as one */
        { "# nvmimic trace 1\n# lba-bytes=512\n0 write 0 1953525000\n",
          "t.trace:3: write of 1953525000 blocks" },
        { "# nvmimic trace 1\n# lba-bytes=512 capacity-bytes=1048576\n"
          "0 read 0 8\n5 read 2040 16\n",
          "t.trace:4: blocks 2040 to 2055 are past the drive's 2048" },
    };

    for (unsigned i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_autoptr(GError) err = NULL;
        NvmTrace *t = nvm_trace_parse(bad[i].text, "t.trace", &err);

        g_assert_null(t);
        if (!err || !strstr(err->message, bad[i].want)) {
            g_test_message("'%s' gave '%s', want '%s'", bad[i].text,
                           err ? err->message : "(none)", bad[i].want);
            g_test_fail();
        }
    }
}

static void trace_replay_submits_each_command_at_its_time(void)
{
    g_autoptr(GError) err = NULL;
    NvmProfile *p = load("crucial-p5-2tb");
    NvmTrace *t;
    NvmTraceReplay r;
    GString *text = g_string_new("# nvmimic trace 1\n# lba-bytes=4096\n");
    NvmModel *m;
    uint64_t now = 0, span, sum = 0;

    /* QD1 reads 1 ms apart (4 KiB LBAs in the trace, 512 in the profile) */
    for (unsigned i = 0; i < 200; i++) {
        g_string_append_printf(text, "%u read %u 1 %u\n", i * 1000000,
                               i * 977 % 100000, i * 1000000 + 80000);
    }
    t = nvm_trace_parse(text->str, "q.trace", &err);
    g_assert_no_error(err);
    g_assert_true(nvm_trace_replay(t, p, 3, NULL, &r, &err));
    g_assert_cmpuint(r.model[NVM_OP_READ].count, ==, 200);
    g_assert_cmpuint(r.model[NVM_OP_READ].bytes, ==, 200 * 4096);
    g_assert_cmpuint(r.model[NVM_OP_WRITE].count, ==, 0);
    g_assert_cmpuint(r.captured[NVM_OP_READ].count, ==, 200);
    g_assert_cmpfloat(r.captured[NVM_OP_READ].fig.lat_us, ==, 80);
    g_assert_cmpfloat(r.duration_s, >, 0.199);
    g_assert_cmpfloat(r.duration_s, <, 0.2005);

    /* the same commands submitted by hand give the same mean */
    m = nvm_model_new(p, 3);
    nvm_sim_review_state(m, p, &span, &now);
    for (unsigned i = 0; i < 200; i++) {
        NvmCmd c = { NVM_OP_READ, (uint64_t)(i * 977 % 100000) * 8, 8, 0 };
        uint64_t at = now + (uint64_t)i * 1000000;

        sum += nvm_model_submit(m, &c, at) - at;
    }
    g_assert_cmpfloat_with_epsilon(r.model[NVM_OP_READ].fig.lat_us,
                                   sum / 200.0 / 1000.0, 0.01);
    nvm_model_free(m);

    /*
     * --trace-state erased: the filled drive's data is gone, so the same
     * reads are unmapped (no data read from NAND: 85 against 153 us, the
     * map chunk still read); the log gives the trace back line for line
     * with the model's completion times.
     */
    {
        FILE *log = tmpfile();
        NvmTraceReplay e;
        char line[256];
        unsigned n = 0;
        uint64_t sub, done, slba;
        unsigned nlb;
        char op[16];
        NvmTraceReplayOpts ro = { .erased = true };

        g_assert_nonnull(log);
        ro.log = log;
        g_assert_true(nvm_trace_replay(t, p, 3, &ro, &e, &err));
        g_assert_cmpuint(e.model[NVM_OP_READ].count, ==, 200);
        g_assert_cmpfloat(e.model[NVM_OP_READ].fig.lat_us, <,
                          r.model[NVM_OP_READ].fig.lat_us * 0.7);
        rewind(log);
        g_assert_nonnull(fgets(line, sizeof(line), log));
        g_assert_cmpstr(line, ==, NVM_TRACE_MAGIC "\n");
        while (fgets(line, sizeof(line), log)) {
            if (line[0] == '#') {
                continue;
            }
            g_assert_cmpint(sscanf(line, "%" SCNu64 " %15s %" SCNu64 " %u %"
                                   SCNu64, &sub, op, &slba, &nlb, &done), ==,
                            5);
            g_assert_cmpuint(sub, ==, (uint64_t)n * 1000000);
            g_assert_cmpstr(op, ==, "read");
            g_assert_cmpuint(slba, ==, (uint64_t)(n * 977 % 100000) * 8);
            g_assert_cmpuint(nlb, ==, 8);
            g_assert_cmpuint(done, >, sub);
            n++;
        }
        g_assert_cmpuint(n, ==, 200);
        fclose(log);

        /*
         * --trace-from-ns: the state is set 100 ms into the trace; the
         * 100 reads before are logged without a completion, not replayed
         */
        log = tmpfile();
        ro = (NvmTraceReplayOpts){ .from_ns = 100000000, .log = log };
        g_assert_true(nvm_trace_replay(t, p, 3, &ro, &e, &err));
        g_assert_cmpuint(e.model[NVM_OP_READ].count, ==, 100);
        g_assert_cmpuint(e.captured[NVM_OP_READ].count, ==, 100);
        g_assert_cmpfloat(e.duration_s, <, 0.1005);
        rewind(log);
        n = 0;
        while (fgets(line, sizeof(line), log)) {
            if (line[0] != '#') {
                g_assert_true((strstr(line, " -\n") != NULL) == (n < 100));
                n++;
            }
        }
        g_assert_cmpuint(n, ==, 200);
        fclose(log);

        /*
         * until_ns ends the replay (the next workload's state), and
         * done_ns gives each command's completion on the trace's clock:
         * the same as a replay that runs on, since later commands cannot
         * change earlier ones; none for those not replayed
         */
        {
            g_autofree uint64_t *all = g_new(uint64_t, 200);
            g_autofree uint64_t *part = g_new(uint64_t, 200);

            ro = (NvmTraceReplayOpts){ .from_ns = 50000000,
                                       .done_ns = all };
            g_assert_true(nvm_trace_replay(t, p, 3, &ro, &e, &err));
            ro.until_ns = 150000000;
            ro.done_ns = part;
            g_assert_true(nvm_trace_replay(t, p, 3, &ro, &e, &err));
            g_assert_cmpuint(e.model[NVM_OP_READ].count, ==, 100);
            for (unsigned i = 0; i < 200; i++) {
                if (i < 50 || i >= 150) {
                    g_assert_cmpuint(part[i], ==, NVM_TRACE_NO_COMPLETION);
                } else {
                    g_assert_cmpuint(part[i], ==, all[i]);
                    g_assert_cmpuint(part[i], >, (uint64_t)i * 1000000);
                }
            }
            g_assert_cmpuint(all[199], !=, NVM_TRACE_NO_COMPLETION);
        }
    }
    nvm_trace_free(t);

    /* the header's start-ns: the drive's clock when the trace started */
    g_string_assign(text, "# nvmimic trace 1\n# profile=x lba-bytes=512 "
                    "capacity-bytes=1000000 start-ns=123456789\n");
    t = nvm_trace_parse(text->str, "q.trace", &err);
    g_assert_no_error(err);
    g_assert_cmpuint(t->start_ns, ==, 123456789);
    nvm_trace_free(t);

    /* beyond the profile's capacity: refused, naming the line */
    g_string_printf(text, "# nvmimic trace 1\n# lba-bytes=512\n"
                    "0 read 0 8\n10 write %" G_GUINT64_FORMAT " 8\n",
                    p->capacity_bytes / 512 - 4);
    t = nvm_trace_parse(text->str, "q.trace", &err);
    g_assert_no_error(err);
    g_assert_false(nvm_trace_replay(t, p, 3, NULL, &r, &err));
    g_assert_nonnull(strstr(err->message, "trace line 4: write"));
    nvm_trace_free(t);
    g_string_free(text, TRUE);
    nvm_profile_free(p);
}

static void vdi_suite_curve_reaches_targets_and_saturates_at_the_peak(void)
{
    g_autoptr(GError) err = NULL;
    NvmProfile *p = load("crucial-p5-2tb");
    NvmSimOptions o = { .seed = 1, .duration_s = 0.5 };
    NvmVdiResult res[NVM_VDI_WORKLOADS];

    /*
     * The curve's mechanics, not the drive: through its static SLC (as
     * shipped) a 0.5 s peak is the cache's transient (docs/sim.md, "Point
     * length"), and 40 % of it overloads the drive once that has passed.
     */
    p->slc_first_when_full = false;

    g_assert_true(nvm_sim_vdi(p, &o, NVMIMIC_WORKLOAD_DIR, res, &err));
    g_assert_no_error(err);
    for (unsigned w = 0; w < NVM_VDI_WORKLOADS; w++) {
        const NvmVdiResult *r = &res[w];
        double rd = r->peak.cls[NVM_DIR_READ].ios /
                    (double)r->peak.all.ios;

        g_test_message("%s: peak %.0f IOPS, %.3f reads", r->mix->name,
                       r->peak.all.fig.iops, rd);
        g_assert_cmpstr(r->mix->name, ==, nvm_vdi_names[w]);
        g_assert_cmpfloat(r->peak.all.fig.iops, >, 1000);
        g_assert_cmpfloat(fabs(rd * 100 - r->mix->read_pct), <, 3);
        g_assert_cmpuint(r->n_curve, ==, NVM_CURVE_POINTS);
        /* 10..50 %: within 5 % of the target */
        for (unsigned i = 0; i < 5; i++) {
            g_test_message("  %d %%: %.0f of %.0f IOPS", r->target_pct[i],
                           r->curve[i].all.fig.iops, r->target_iops[i]);
            g_assert_cmpfloat(fabs(r->curve[i].all.fig.iops -
                                   r->target_iops[i]) / r->target_iops[i],
                              <, 0.05);
        }
        /* 120 %: no more than the peak, give or take noise */
        g_assert_cmpfloat(r->curve[11].all.fig.iops, <,
                          r->peak.all.fig.iops * 1.06);
    }
    nvm_vdi_results_clear(res);
    nvm_profile_free(p);
}

/*
 * The model's figures do not depend on when its state was set: the guest's
 * drive has its review state set seconds into its boot, nvmimic sim's model
 * at 0.  A P2 2 TB (GC steady state, where any small difference grows)
 * runs the same vdi-monday-login peak with its state set at 0 and at
 * 40 ms; every command completes the same time after its submission.  Both
 * kinds of steady state: the shipped profile's, and one reached by
 * simulation (which quiesces the pipeline after the state's time was set:
 * the cores' clock gating then counted from 0, 6 us on the first command).
 */
typedef struct Lat {
    GArray *sub;                /* submission times, in order */
} Lat;

static void note_submit(void *opaque, const NvmCmd *cmd, uint64_t t)
{
    Lat *l = opaque;

    (void)cmd;
    g_array_append_val(l->sub, t);
}

static void state_time_does_not_move_figures(NvmProfile *p)
{
    g_autoptr(GError) err = NULL;
    NvmVdiResult res[NVM_VDI_WORKLOADS];
    NvmMixResult out[2];
    GArray *sub[2];
    const uint64_t at[2] = { 0, 40000000 };

    g_assert_true(nvm_vdi_load(p, NVMIMIC_WORKLOAD_DIR, res, &err));
    for (unsigned k = 0; k < 2; k++) {
        NvmModel *m = nvm_model_new(p, 1);
        uint64_t now = at[k], span;
        Lat l = { g_array_new(FALSE, FALSE, sizeof(uint64_t)) };
        NvmMixSpec spec = {
            .mix = res[2].mix, .lba_bytes = p->lba_bytes,
            .duration_ns = 2000000000ULL, .on_submit = note_submit,
            .opaque = &l,
        };

        nvm_sim_review_state(m, p, &span, &now);
        spec.span_bytes = span;
        nvm_mix_run(m, &spec, 7, &now, &out[k]);
        sub[k] = l.sub;
        nvm_model_free(m);
    }
    g_test_message("state at 0: %" G_GUINT64_FORMAT " I/Os, %.3f us; "
                   "at 40 ms: %" G_GUINT64_FORMAT " I/Os, %.3f us",
                   out[0].all.ios, out[0].all.fig.lat_us, out[1].all.ios,
                   out[1].all.fig.lat_us);
    g_assert_cmpuint(out[0].all.ios, >, 1000);
    g_assert_cmpuint(out[0].all.ios, ==, out[1].all.ios);
    g_assert_cmpfloat(out[0].all.fig.lat_us, ==, out[1].all.fig.lat_us);
    g_assert_cmpuint(sub[0]->len, ==, sub[1]->len);
    for (unsigned i = 0; i < sub[0]->len; i++) {
        g_assert_cmpuint(g_array_index(sub[1], uint64_t, i) -
                         g_array_index(sub[0], uint64_t, i), ==, at[1]);
    }
    g_array_free(sub[0], TRUE);
    g_array_free(sub[1], TRUE);
    nvm_vdi_results_clear(res);
    nvm_profile_free(p);
}

static void model_figures_do_not_depend_on_when_the_state_was_set(void)
{
    state_time_does_not_move_figures(load("crucial-p2-2tb"));
    state_time_does_not_move_figures(load_with("crucial-p2-2tb", "review",
                                               "steady-state",
                                               "simulated"));
}

/*
 * A drive given a state after other work times what follows as a new one
 * given that state: the device runs one model through a suite and sets
 * each workload's state on it, nvmimic sim gives each workload a new model.
 * A P2 2 TB writes 4K at random, then 64K in order (its last programs
 * still running), is secure-erased and given the review's state 1 ms
 * after its last write, and then writes and reads 64K in order; a new
 * model given the state at the same time must complete every command at
 * the same time.  Before the pipeline was reset with the state, the die
 * rotation and the write stream carried over (648 against 430 us).
 */
static void model_figures_do_not_depend_on_the_work_before_the_state(void)
{
    NvmProfile *p = load("crucial-p2-2tb");
    NvmModel *used = nvm_model_new(p, 1);
    NvmModel *fresh = nvm_model_new(p, 1);
    uint64_t now = 0, span, t = 0, at;
    unsigned differ = 0;

    nvm_sim_review_state(used, p, &span, &now);
    for (unsigned i = 0; i < 20000; i++) {
        NvmCmd c = { NVM_OP_WRITE, (uint64_t)(i * 7919 % 500000) * 8, 8, 0 };

        t = now + (uint64_t)i * 20000;
        nvm_model_submit(used, &c, t);
    }
    for (unsigned i = 0; i < 3000; i++) {
        NvmCmd c = { NVM_OP_WRITE, (uint64_t)i * 128, 128, 0 };

        t += 30000;
        nvm_model_submit(used, &c, t);
    }
    at = t + 1000000;
    nvm_model_secure_erase(used);
    now = at;
    nvm_sim_review_state(used, p, &span, &now);
    now = at;
    nvm_sim_review_state(fresh, p, &span, &now);
    t = at;
    for (unsigned i = 0; i < 4000; i++) {
        NvmCmd c = { i % 4 == 3 ? NVM_OP_READ : NVM_OP_WRITE,
                     (uint64_t)i * 128, 128, 0 };
        uint64_t a, b;

        t += 25000;
        a = nvm_model_submit(used, &c, t);
        b = nvm_model_submit(fresh, &c, t);
        if (a != b && !differ++) {
            g_test_message("command %u: %.1f us after other work, %.1f us "
                           "on a new model", i, (a - t) / 1e3,
                           (b - t) / 1e3);
        }
    }
    g_assert_cmpuint(differ, ==, 0);
    nvm_model_free(used);
    nvm_model_free(fresh);
    nvm_profile_free(p);
}

/*
 * A trace's write-fua lines replay with NVM_CMD_FUA: 4 KiB writes 500 us
 * apart (1 ms idle would add a power-state exit), every other one FUA,
 * on the P5 2 TB.  The FUA ones wait for their
 * program (the open unit programmed at once, padded), hundreds of us; the
 * plain ones are buffered (~20 us).  Were the name read as a plain write,
 * both would be ~20 us.  The log gives the names back as they came.
 */
static void trace_fua_writes_replay_as_fua(void)
{
    g_autoptr(GError) err = NULL;
    NvmProfile *p = load("crucial-p5-2tb");
    GString *text = g_string_new("# nvmimic trace 1\n# lba-bytes=512\n");
    const unsigned n = 200;
    g_autofree uint64_t *done = g_new(uint64_t, n);
    NvmTraceReplayOpts ro = { .done_ns = done };
    NvmTraceReplay r;
    double sum[2] = { 0, 0 };
    unsigned fua_lines = 0;
    char line[256];
    FILE *log = tmpfile();
    NvmTrace *t;

    for (unsigned i = 0; i < n; i++) {
        g_string_append_printf(text, "%u %s %u 8 -\n", i * 500000,
                               i % 2 ? "write-fua" : "write",
                               (i * 7919u) % 1000000 * 8);
    }
    t = nvm_trace_parse(text->str, "fua.trace", &err);
    g_assert_no_error(err);
    for (unsigned i = 0; i < n; i++) {
        const NvmTraceCmd *c = &g_array_index(t->cmds, NvmTraceCmd, i);

        g_assert_cmpint(c->op, ==, NVM_OP_WRITE);
        g_assert_cmpuint(c->flags, ==, i % 2 ? NVM_CMD_FUA : 0);
    }
    g_assert_nonnull(log);
    ro.log = log;
    g_assert_true(nvm_trace_replay(t, p, 5, &ro, &r, &err));
    g_assert_no_error(err);
    /* one class: FUA writes are writes */
    g_assert_cmpuint(r.model[NVM_OP_WRITE].count, ==, n);
    for (unsigned i = 0; i < n; i++) {
        g_assert_cmpuint(done[i], !=, NVM_TRACE_NO_COMPLETION);
        sum[i % 2] += (done[i] - (uint64_t)i * 500000) / 1e3;
    }
    g_test_message("4 KiB writes 500 us apart on the P5 2 TB: %.1f us plain, "
                   "%.1f us write-fua (SLC program %.0f us)",
                   sum[0] / (n / 2), sum[1] / (n / 2), p->program_us_slc);
    g_assert_cmpfloat(sum[0] / (n / 2), <, p->program_us_slc / 4);
    g_assert_cmpfloat(sum[1] / (n / 2), >, p->program_us_slc);
    rewind(log);
    while (fgets(line, sizeof(line), log)) {
        fua_lines += line[0] != '#' && strstr(line, " write-fua ") != NULL;
    }
    g_assert_cmpuint(fua_lines, ==, n / 2);
    fclose(log);
    nvm_trace_free(t);
    g_string_free(text, TRUE);
    nvm_profile_free(p);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/vdi/job_files_load_with_their_stated_mixes",
                    vdi_job_files_load_with_their_stated_mixes);
    g_test_add_func("/jobfile/reads_fio_defaults_units_and_split_forms",
                    jobfile_reads_fio_defaults_units_and_split_forms);
    g_test_add_func("/jobfile/keys_fio_does_not_take_are_refused",
                    jobfile_keys_fio_does_not_take_are_refused);
    g_test_add_func("/jobfile/values_take_the_environment_as_fio_does",
                    jobfile_values_take_the_environment_as_fio_does);
    g_test_add_func("/jobfile/bad_values_name_file_line_and_value",
                    jobfile_bad_values_name_file_line_and_value);
    g_test_add_func("/mix/issues_the_read_share_block_split_and_"
                    "sequential_share",
                    mix_issues_the_read_share_block_split_and_sequential_share);
    g_test_add_func("/mix/sync_writes_complete_once_programmed",
                    mix_sync_writes_complete_once_programmed);
    g_test_add_func("/mix/open_loop_reaches_its_rate_with_and_without_bursts",
                    mix_open_loop_reaches_its_rate_with_and_without_bursts);
    g_test_add_func("/mix/closed_loop_bursts_idle_for_the_think_time",
                    mix_closed_loop_bursts_idle_for_the_think_time);
    g_test_add_func("/trace/converts_to_fio_iolog_v3_in_microseconds",
                    trace_converts_to_fio_iolog_v3_in_microseconds);
    g_test_add_func("/trace/bad_lines_are_refused_with_their_line",
                    trace_bad_lines_are_refused_with_their_line);
    g_test_add_func("/trace/fua_writes_replay_as_fua",
                    trace_fua_writes_replay_as_fua);
    g_test_add_func("/trace/replay_submits_each_command_at_its_time",
                    trace_replay_submits_each_command_at_its_time);
    g_test_add_func("/model/figures_do_not_depend_on_when_the_state_was_set",
                    model_figures_do_not_depend_on_when_the_state_was_set);
    g_test_add_func("/model/figures_do_not_depend_on_the_work_before_the_"
                    "state",
                    model_figures_do_not_depend_on_the_work_before_the_state);
    g_test_add_func("/vdi/suite_curve_reaches_targets_and_saturates_at_the_"
                    "peak",
                    vdi_suite_curve_reaches_targets_and_saturates_at_the_peak);
    return g_test_run();
}
