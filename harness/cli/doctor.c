/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic doctor: can this host hold the drive's timing in real time?
 * Whether KVM works (a guest that actually boots, run-guest.sh's probe),
 * the cores, CPU frequency scaling, isolation, the clock source, the load,
 * and a self-test of the timing thread's method on this host: sleep until
 * a spin window before each deadline, spin the rest (docs/realtime.md).
 * The self-test runs in this process, without QEMU: it measures the host,
 * not the device (bench/lateness.sh measures the device).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>

#include "cli.h"
#include "paths.h"

typedef struct DoctorOpts {
    const char *format;
    double seconds;
    unsigned spin_us;
    unsigned cpu;
    bool cpu_set;
    bool no_kvm;
} DoctorOpts;

static int64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * (int64_t)1000000000 + ts.tv_nsec;
}

static void sleep_ns(int64_t ns)
{
    struct timespec ts = { ns / 1000000000, ns % 1000000000 };

    /* ppoll, as the timing thread (and QEMU's main loop) sleeps */
    ppoll(NULL, 0, &ts, NULL);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

static double pct_us(GArray *v, double q)
{
    size_t i;

    if (!v->len) {
        return NAN;
    }
    i = (size_t)ceil(q * v->len);
    i = i ? i - 1 : 0;
    return g_array_index(v, int64_t, MIN(i, v->len - 1)) / 1e3;
}

typedef struct SelfTest {
    unsigned events;
    double sleep_p50, sleep_p99, sleep_max;     /* a timer's wake-up */
    double late_p50, late_p99, late_max;        /* sleep, then spin */
    double spin_share;          /* of one core, while the test ran */
    double window_us;           /* the spin window it came to */
} SelfTest;

/*
 * For @secs seconds, deadlines 50-200 us apart (some 8,000 a second): half
 * are waited for with a plain sleep to the deadline (what a timer in a
 * main loop gets: how late it wakes), half as the timing thread waits
 * (hw/nvmimic-rt.c: sleep until a window before it, spin the rest; the
 * window the 99th percentile of how late the last 256 sleeps woke plus
 * 2 us, at most @spin_us).
 */
static void self_test(double secs, unsigned spin_us, SelfTest *st)
{
    g_autoptr(GArray) plain = g_array_new(false, false, sizeof(int64_t));
    g_autoptr(GArray) spun = g_array_new(false, false, sizeof(int64_t));
    int64_t spin_max = (int64_t)spin_us * 1000, spin_ns = spin_max;
    int64_t wakes[256], spin_total = 0;
    unsigned n_wakes = 0;
    int64_t t0 = now_ns(), end = t0 + (int64_t)(secs * 1e9);
    GRand *rnd = g_rand_new_with_seed(1);
    bool spin = false;

    /* the timing thread's slack: none */
    prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0);
    for (int64_t now = t0; now < end; now = now_ns(), spin = !spin) {
        int64_t deadline = now + g_rand_int_range(rnd, 50000, 200000);
        int64_t late;

        if (!spin) {
            sleep_ns(deadline - now);
            late = now_ns() - deadline;
            g_array_append_val(plain, late);
            continue;
        }
        if (deadline - spin_ns > now) {
            int64_t target = deadline - spin_ns;

            sleep_ns(target - now);
            now = now_ns();
            wakes[n_wakes++ % 256] = now - target;
            if (!(n_wakes % 32)) {
                unsigned k = MIN(n_wakes, 256);
                int64_t sorted[256];

                memcpy(sorted, wakes, k * sizeof(sorted[0]));
                qsort(sorted, k, sizeof(sorted[0]), cmp_i64);
                spin_ns = MIN(spin_max, sorted[(k * 99 - 1) / 100] + 2000);
            }
        }
        now = now_ns();
        {
            int64_t s0 = now;

            while (now < deadline) {
                now = now_ns();
            }
            spin_total += now - s0;
        }
        late = now - deadline;
        g_array_append_val(spun, late);
    }
    g_rand_free(rnd);
    g_array_sort(plain, cmp_i64);
    g_array_sort(spun, cmp_i64);
    st->events = plain->len + spun->len;
    st->sleep_p50 = pct_us(plain, 0.5);
    st->sleep_p99 = pct_us(plain, 0.99);
    st->sleep_max = pct_us(plain, 1);
    st->late_p50 = pct_us(spun, 0.5);
    st->late_p99 = pct_us(spun, 0.99);
    st->late_max = pct_us(spun, 1);
    st->spin_share = (double)spin_total / (now_ns() - t0);
    st->window_us = spin_ns / 1e3;
}

/*
 * The host's floor: what no timing thread can beat.  A thread that never
 * sleeps, pinned to one CPU at SCHED_FIFO priority 1 where the host allows
 * it (the device's timing-cpu and timing-fifo=on), reads the clock in a
 * loop; a gap between two reads longer than 1 us is time the host took
 * from it (interrupts, a hypervisor running something else, the kernel's
 * real-time throttling).  A deadline that falls at a uniform instant is
 * late by the rest of the gap it falls in, so the share of deadlines late
 * by more than x is sum(max(0, gap - x)) / time; its 50th, 99th and 99.9th
 * percentiles are what a perfect thread on this CPU would post at.  The
 * spin runs in 50 ms slices 5 ms apart, under the kernel's default real-time
 * throttling (950 ms of each second), so that the throttling itself is not
 * what is measured.
 */
#define FLOOR_SLICE_NS 50000000
#define FLOOR_PAUSE_NS 5000000
#define FLOOR_GAP_NS 1000

typedef struct Floor {
    int cpu;                    /* -1: not pinned */
    bool fifo;
    double spun_s;              /* the time it spun */
    uint64_t gaps;              /* reads more than 1 us apart */
    double lost_share;          /* their time, of spun_s */
    double gap_max_us;
    double p50_us, p99_us, p999_us;
} Floor;

/* x such that sum(max(0, gap - x)) = @share * @total, by bisection */
static double floor_quantile(const GArray *gaps, double total, double share)
{
    double lo = 0, hi = 1e9;

    for (int it = 0; it < 64; it++) {
        double x = (lo + hi) / 2, s = 0;

        for (guint i = 0; i < gaps->len; i++) {
            int64_t g = g_array_index(gaps, int64_t, i);

            s += g > x ? g - x : 0;
        }
        if (s > share * total) {
            lo = x;
        } else {
            hi = x;
        }
    }
    return lo / 1e3;
}

static gpointer floor_thread(gpointer opaque)
{
    Floor *f = opaque;
    double secs = f->spun_s;
    g_autoptr(GArray) gaps = g_array_new(false, false, sizeof(int64_t));
    struct sched_param sp = { .sched_priority = 1 };
    int64_t total = 0, lost = 0, gmax = 0;
    int64_t want = (int64_t)(secs * 1e9);

    if (f->cpu >= 0) {
        cpu_set_t set;

        CPU_ZERO(&set);
        CPU_SET(f->cpu, &set);
        if (sched_setaffinity(0, sizeof(set), &set)) {
            f->cpu = -1;
        }
    }
    f->fifo = !sched_setscheduler(0, SCHED_FIFO, &sp);
    while (total < want) {
        int64_t t0 = now_ns(), prev = t0;
        int64_t end = t0 + MIN(FLOOR_SLICE_NS, want - total);

        while (prev < end) {
            int64_t t = now_ns();

            if (t - prev > FLOOR_GAP_NS) {
                int64_t g = t - prev;

                g_array_append_val(gaps, g);
                lost += g;
                gmax = MAX(gmax, g);
            }
            prev = t;
        }
        total += prev - t0;
        sleep_ns(FLOOR_PAUSE_NS);
    }
    f->spun_s = total / 1e9;
    f->gaps = gaps->len;
    f->lost_share = total ? (double)lost / total : 0;
    f->gap_max_us = gmax / 1e3;
    f->p50_us = floor_quantile(gaps, total, 0.5);
    f->p99_us = floor_quantile(gaps, total, 0.01);
    f->p999_us = floor_quantile(gaps, total, 0.001);
    return NULL;
}

/* In a thread of its own, so that this one keeps its CPUs and priority. */
static void floor_test(double secs, int cpu, Floor *f)
{
    *f = (Floor){ .cpu = cpu, .spun_s = secs };
    g_thread_join(g_thread_new("doctor-floor", floor_thread, f));
}

/* The last CPU this process may run on (where a timing-cpu would go). */
static int last_usable_cpu(void)
{
    cpu_set_t set;

    if (sched_getaffinity(0, sizeof(set), &set)) {
        return -1;
    }
    for (int c = CPU_SETSIZE - 1; c >= 0; c--) {
        if (CPU_ISSET(c, &set)) {
            return c;
        }
    }
    return -1;
}

static char *read_line(const char *path)
{
    g_autofree char *s = NULL;

    if (!g_file_get_contents(path, &s, NULL, NULL)) {
        return NULL;
    }
    return g_strstrip(g_strdup(s));
}

/* "performance" or "powersave,schedutil" ...: the governors in use */
static char *governors(unsigned ncpu, char **driver)
{
    g_autoptr(GPtrArray) seen = g_ptr_array_new_with_free_func(g_free);
    GString *s = g_string_new(NULL);

    *driver = NULL;
    for (unsigned c = 0; c < ncpu; c++) {
        g_autofree char *p = g_strdup_printf(
            "/sys/devices/system/cpu/cpu%u/cpufreq/scaling_governor", c);
        g_autofree char *d = g_strdup_printf(
            "/sys/devices/system/cpu/cpu%u/cpufreq/scaling_driver", c);
        char *g = read_line(p);
        bool dup = false;

        if (!*driver) {
            *driver = read_line(d);
        }
        if (!g) {
            continue;
        }
        for (unsigned i = 0; i < seen->len; i++) {
            dup |= !strcmp(seen->pdata[i], g);
        }
        if (dup) {
            g_free(g);
        } else {
            g_string_append_printf(s, "%s%s", s->len ? "," : "", g);
            g_ptr_array_add(seen, g);
        }
    }
    return g_string_free(s, !s->len);
}

/* isolcpus= or nohz_full= on the kernel command line, or "" */
static char *cmdline_word(const char *key)
{
    g_autofree char *cl = read_line("/proc/cmdline");
    g_auto(GStrv) w = cl ? g_strsplit(cl, " ", -1) : NULL;
    size_t n = strlen(key);

    for (unsigned i = 0; w && w[i]; i++) {
        if (!strncmp(w[i], key, n) && w[i][n] == '=') {
            return g_strdup(w[i] + n + 1);
        }
    }
    return g_strdup("");
}

/* run-guest.sh --probe-kvm: "ok" or why not */
static char *kvm_probe(bool *ok)
{
    g_autofree char *script = g_build_filename(nvm_path_vm_images(),
                                               "run-guest.sh", NULL);
    const char *qemu = nvm_path_qemu(), *guest = nvm_path_guest();
    g_autofree char *vmlinuz = g_build_filename(guest, "vmlinuz", NULL);
    g_autofree char *out = NULL, *err = NULL;
    const char *argv[] = { "bash", script, "--probe-kvm", qemu, guest, NULL };
    int status = 0;

    *ok = false;
    if (access("/dev/kvm", F_OK)) {
        return g_strdup("no /dev/kvm");
    }
    if (access("/dev/kvm", R_OK | W_OK)) {
        return g_strdup("no read/write access to /dev/kvm");
    }
    if (access(qemu, X_OK) || access(vmlinuz, R_OK)) {
        return g_strdup_printf("/dev/kvm is there; not probed: no QEMU at %s "
                               "or no guest kernel at %s (make)", qemu,
                               vmlinuz);
    }
    if (!g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH, NULL,
                      NULL, &out, &err, &status, NULL)) {
        return g_strdup("cannot run run-guest.sh --probe-kvm");
    }
    g_strstrip(out);
    if (g_spawn_check_wait_status(status, NULL) &&
        !strcmp(out, "kvm: ok")) {
        *ok = true;
        return g_strdup("a test guest boots under KVM");
    }
    return g_strdup(g_str_has_prefix(out, "kvm: ") ? out + 5 :
                    *g_strstrip(err) ? err : "the probe failed");
}

static void jstr(GString *s, const char *key, const char *v)
{
    g_autofree char *e = g_strescape(v ? v : "", NULL);

    g_string_append_printf(s, "\"%s\": \"%s\", ", key, e);
}

static int doctor_main(int argc, char **argv);

#define O(f) NVM_OPT_AT(DoctorOpts, f)
static const NvmOpt doctor_opts[] = {
    NVM_OPT("format", NVM_OPT_CHOICE, O(format), NULL,
            "table (default) or json", .choices = "table|json"),
    NVM_OPT("seconds", NVM_OPT_DOUBLE, O(seconds), "S",
            "length of the timing self-test (default 1)",
            .min = 0.01, .max = 60),
    NVM_OPT("spin-us", NVM_OPT_UINT, O(spin_us), "N",
            "the self-test's largest spin window, as the device's\n"
            "timing-spin-us (default 200)", .min = 0, .max = 10000),
    NVM_OPT("cpu", NVM_OPT_UINT, O(cpu), "N",
            "the CPU of the floor test (default: the last this\n"
            "process may run on)", .min = 0, .max = CPU_SETSIZE - 1,
            .given = NVM_OPT_GIVEN(DoctorOpts, cpu_set)),
    NVM_OPT("no-kvm-probe", NVM_OPT_FLAG, O(no_kvm), NULL,
            "skip the KVM probe (it boots a guest: up to 10 s)"),
    NVM_OPT_END,
};
#undef O

const NvmCommand nvm_cmd_doctor = {
    .name = "doctor",
    .synopsis = "[--format table|json] [--seconds S] [--spin-us N] "
                "[--cpu N]",
    .summary = "Check whether this host can hold the drive's timing in real "
               "time.",
    .description =
"Reports whether KVM works (a guest that actually boots under it), the\n"
"cores this process may run on, CPU frequency scaling, isolated CPUs, the\n"
"clock source and the load, then a self-test of the device's timing thread\n"
"on this host, without QEMU: how late a plain sleep wakes (what a timer in\n"
"QEMU's main loop gets) and how late the thread's sleep-then-spin is with\n"
"the given spin window; then the host's floor: how much of its time a\n"
"thread that never sleeps, pinned to one CPU at SCHED_FIFO where allowed,\n"
"loses to the host, and the lateness that alone gives a deadline at a\n"
"random instant.  docs/realtime.md says what to make of it.\n",
    .opts = doctor_opts,
    .main = doctor_main,
};

static int doctor_main(int argc, char **argv)
{
    DoctorOpts o = { .format = "table", .seconds = 1, .spin_us = 200 };
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set;
    int usable = 0, rc;
    g_autofree char *driver = NULL, *gov = NULL, *isolated = NULL;
    g_autofree char *nohz = NULL, *isolcpus = NULL, *clocksrc = NULL;
    g_autofree char *loadavg = NULL, *kvm = NULL;
    g_autofree char *rt_runtime = NULL;
    bool kvm_ok = false;
    double load1 = NAN;
    SelfTest st;
    Floor fl;
    char cpu_name[32];

    rc = nvm_opts_parse(&nvm_cmd_doctor, argc, argv, &o, NULL);
    if (rc != NVM_OPTS_OK) {
        return rc == NVM_OPTS_HELP ? 0 : rc;
    }
    if (!sched_getaffinity(0, sizeof(set), &set)) {
        usable = CPU_COUNT(&set);
        if (o.cpu_set && !CPU_ISSET(o.cpu, &set)) {
            fprintf(stderr, "nvmimic doctor: --cpu %u is not a CPU this "
                    "process may run on\n", o.cpu);
            return 2;
        }
    }
    gov = governors(ncpu > 0 ? ncpu : 0, &driver);
    isolated = read_line("/sys/devices/system/cpu/isolated");
    nohz = read_line("/sys/devices/system/cpu/nohz_full");
    isolcpus = cmdline_word("isolcpus");
    clocksrc = read_line(
        "/sys/devices/system/clocksource/clocksource0/current_clocksource");
    loadavg = read_line("/proc/loadavg");
    if (loadavg) {
        load1 = g_ascii_strtod(loadavg, NULL);
    }
    kvm = o.no_kvm ? g_strdup("not probed (--no-kvm-probe)") :
          kvm_probe(&kvm_ok);
    rt_runtime = read_line("/proc/sys/kernel/sched_rt_runtime_us");
    self_test(o.seconds, o.spin_us, &st);
    floor_test(o.seconds, o.cpu_set ? (int)o.cpu : last_usable_cpu(), &fl);

    if (!strcmp(o.format, "json")) {
        g_autoptr(GString) s = g_string_new("{");

#define JSTR(k, v) jstr(s, k, v)
        g_string_append_printf(s, "\"kvm\": %s, ", kvm_ok ? "true" : "false");
        JSTR("kvm_detail", kvm);
        g_string_append_printf(s, "\"cpus_online\": %ld, \"cpus_usable\": %d, ",
                               ncpu, usable);
        JSTR("cpufreq_driver", driver);
        JSTR("cpufreq_governors", gov);
        JSTR("isolated_cpus", isolated);
        JSTR("nohz_full", nohz);
        JSTR("isolcpus", isolcpus);
        JSTR("clocksource", clocksrc);
#undef JSTR
        g_string_append_printf(s, "\"load1\": %.2f, ", load1);
        g_string_append_printf(s, "\"selftest\": {\"seconds\": %g, "
                               "\"events\": %u, \"spin_us\": %u, "
                               "\"sleep_late_p50_us\": %.1f, "
                               "\"sleep_late_p99_us\": %.1f, "
                               "\"sleep_late_max_us\": %.1f, "
                               "\"late_p50_us\": %.2f, \"late_p99_us\": %.2f, "
                               "\"late_max_us\": %.1f, "
                               "\"spin_share\": %.3f, \"window_us\": %.1f}, ",
                               o.seconds, st.events, o.spin_us, st.sleep_p50,
                               st.sleep_p99, st.sleep_max, st.late_p50,
                               st.late_p99, st.late_max, st.spin_share,
                               st.window_us);
        g_string_append_printf(s, "\"floor\": {\"cpu\": %d, \"fifo\": %s, "
                               "\"sched_rt_runtime_us\": %s, "
                               "\"seconds\": %.3f, \"gaps\": %" PRIu64 ", "
                               "\"lost_share\": %.4f, \"gap_max_us\": %.1f, "
                               "\"late_p50_us\": %.2f, \"late_p99_us\": %.2f, "
                               "\"late_p999_us\": %.2f}}",
                               fl.cpu, fl.fifo ? "true" : "false",
                               rt_runtime ? rt_runtime : "null", fl.spun_s,
                               fl.gaps, fl.lost_share, fl.gap_max_us,
                               fl.p50_us, fl.p99_us, fl.p999_us);
        puts(s->str);
        return 0;
    }
    printf("KVM:            %s: %s\n", kvm_ok ? "yes" : "no", kvm);
    printf("CPUs:           %ld online, %d usable by this process%s\n", ncpu,
           usable, usable <= 2 ? " (the timing thread and one vCPU share "
           "them)" : "");
    if (driver || gov) {
        printf("CPU frequency:  %s, governor %s%s\n", driver ? driver : "?",
               gov ? gov : "?",
               gov && strcmp(gov, "performance") ? " (performance holds "
               "the clock steady)" : "");
    } else {
        printf("CPU frequency:  no cpufreq interface (a VM, or scaling off "
               "in the firmware)\n");
    }
    printf("Isolated CPUs:  %s%s%s%s\n",
           isolated && *isolated ? isolated : "none",
           nohz && *nohz ? ", nohz_full=" : "", nohz ? nohz : "",
           *isolcpus ? "" : " (no isolcpus= on the kernel command line)");
    printf("Clock source:   %s%s\n", clocksrc ? clocksrc : "?",
           clocksrc && !strcmp(clocksrc, "hpet") ? " (slow to read: each "
           "clock read of the spin costs a microsecond)" : "");
    printf("Load (1 min):   %.2f on %ld CPUs%s\n", load1, ncpu,
           load1 > ncpu * 0.5 ? ": busy, expect late wake-ups" : "");
    printf("Self-test, %g s, %u deadlines 50-200 us apart:\n", o.seconds,
           st.events);
    printf("  a plain sleep wakes late by   p50 %7.1f us  p99 %7.1f us  "
           "max %8.1f us  (a main-loop timer)\n",
           st.sleep_p50, st.sleep_p99, st.sleep_max);
    printf("  sleep + spin <= %u us: late by p50 %7.2f us  p99 %7.2f us  "
           "max %8.1f us  (the timing thread;\n"
           "                                spinning took %.0f %% of one "
           "core, window %.0f us at the end)\n", o.spin_us, st.late_p50,
           st.late_p99, st.late_max, st.spin_share * 100, st.window_us);
    if (fl.cpu >= 0) {
        g_snprintf(cpu_name, sizeof(cpu_name), "on CPU %d", fl.cpu);
    } else {
        g_strlcpy(cpu_name, "unpinned", sizeof(cpu_name));
    }
    printf("Floor, %.2f s of a thread that never sleeps, %s%s:\n"
           "  the host took %.1f %% of its time in %" PRIu64 " gaps over "
           "1 us (longest %.1f us);\n"
           "  a deadline at a random instant is late by   p50 %7.2f us  "
           "p99 %7.2f us  p99.9 %7.2f us\n"
           "  the least lateness any timing thread can have on this CPU, "
           "at those percentiles.\n",
           fl.spun_s, cpu_name, fl.fifo ? ", SCHED_FIFO" : ", normal priority (SCHED_FIFO "
           "refused)", fl.lost_share * 100, fl.gaps, fl.gap_max_us,
           fl.p50_us, fl.p99_us, fl.p999_us);
    if (rt_runtime && strcmp(rt_runtime, "-1")) {
        printf("  Real-time throttling is on (sched_rt_runtime_us %s): a "
               "timing-fifo=on thread\n  that keeps busy goes back to normal "
               "priority for the rest of each period\n  before the kernel "
               "would stop it (realtime.fifo-rests, docs/realtime.md).\n",
               rt_runtime);
    }
    if (usable >= 2) {
        printf("  With a core to spare for it, the lowest lateness here "
               "comes from a thread\n  that polls at SCHED_FIFO: -device "
               "nvme,...,timing-fifo=on,timing-poll-us=100000\n  (one core "
               "kept busy while the guest does I/O; docs/realtime.md).\n");
    }
    if (st.sleep_p99 > 1000 && st.sleep_p99 > o.spin_us) {
        printf("  Wake-ups a millisecond late are the host's load, not "
               "something a spin window\n  can cover: run on a quieter "
               "host, or give the timing thread a CPU of its own\n"
               "  (timing-cpu, isolcpus; docs/realtime.md).\n");
    } else if (st.sleep_p99 > o.spin_us) {
        printf("  A largest spin window of %.0f us would cover 99 %% of the "
               "wake-ups here\n  (timing-spin-us), at more CPU time; on 2 "
               "cores the vCPU pays for it.\n", ceil(st.sleep_p99));
    }
    return 0;
}
