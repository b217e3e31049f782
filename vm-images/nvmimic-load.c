/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic-load: the four-corners method of nvmimic sim, in the guest.
 *
 * One process drives N "threads" (vdbench's outstanding I/Os) on a block
 * device through io_uring, with the device registered and one registered
 * buffer per thread.  Each thread keeps at most one I/O in flight, as
 * harness/sim/curve.c drives the model:
 *
 *   closed loop (the peak)  a thread submits again as soon as its I/O
 *                           completes;
 *   open loop (a rate R)    each thread has its own Poisson arrivals at
 *                           R / N per second; an arrival that finds its
 *                           thread busy waits for the thread's I/O.
 *
 * With --points the whole curve runs in one go, as nvmimic sim runs it:
 * (--precondition: the span written once, 128 KiB at 8 outstanding), the
 * peak, then each percentage of the peak measured here, every phase right
 * after the previous one, so the drive never idles between them.
 *
 * fio cannot produce the open-loop process: a rate-limited job that is
 * ahead of its schedule waits for every I/O in flight before it sleeps
 * (io_u_quiesce() in fio's rate_ddir()), which bunches arrivals near
 * saturation; and its cost per I/O on one simulated CPU is ~4 times this
 * program's.
 *
 * Random addresses are uniform over the span in block-size steps;
 * sequential ones are one stream the threads share, from the span's start
 * in each phase.  Each thread draws its addresses and arrivals from its
 * own stream of backends/rng.h, as the model's driver does, so with the
 * same seeds (--seeds: one per phase) the guest issues the same I/Os at
 * the same offsets from each phase's start as nvmimic sim.  Latency runs from submission to the completion the
 * thread sees.  A phase counts the I/Os submitted in its measured time
 * (after its ramp), each with its latency, as the model's statistics do.
 *
 * Marks (--marks): the drive's in-band marks (nvmimic's vendor admin
 * command C0h, through the NVMe driver's admin passthrough on the device),
 * mark N + 2K where phase K's measured time begins (the drive snapshots its
 * statistics, then resets them) and N + 2K + 1 where it ends (a snapshot),
 * K = 0 the peak, 1.. the points, N = $NVMIMIC_MARK_N (the guest agent's,
 * vm-images/agent.sh).  So the device's window over each phase opens and
 * closes at the instants the guest chose, in virtual time.  Output: fio's JSON layout for what
 * nvmimic run reads, one "jobs" entry per phase ("read" or "write":
 * iops, bw_bytes, lat_ns.mean, lat_ns.percentile."50.000000", ...), and
 * late_ns (mean, max): in an open-loop phase, how long after it was due
 * each measured I/O went out, the generator's lag behind the schedule.
 *
 * Mixes (--mix, the VDI job files): as harness/sim/mix.c drives the model.
 * JOBS x IODEPTH threads; each I/O's direction, size (--bssplit) and
 * random or sequential address are drawn from its thread's stream, a
 * sequential one continuing where the job's last I/O of that direction
 * ended.  With bursts (fio's thinktime_iotime) the closed loop issues for
 * IOTIME, waits for the job's I/Os, then idles THINK; the open loop's
 * Poisson arrivals fall only in windows of IOTIME every IOTIME + THINK
 * from the phase's start, at the rate that gives --rate on average, and
 * the ramp and run are rounded up to whole cycles.  fio cannot produce
 * this process either: after a think time it catches up on the I/Os its
 * rate "missed", as one burst as deep as its iodepth (with
 * rate_ignore_thinktime=1 it credits only the direction of the I/O that
 * ended the burst).  The JSON then has one "mixed" section per phase.
 * With --sync (a job file's sync=1) every write of the mix goes with
 * RWF_DSYNC, so Linux sends it with FUA on the O_DIRECT device, as fio's
 * O_SYNC/O_DSYNC open does and as mix.c sets NVM_CMD_FUA on the model's.
 *
 * usage: nvmimic-load --dev DEV --rw randread|randwrite|read|write --bs B
 *            --threads N --span BYTES [--offset BYTES] [--seed N]
 *            [--rate IOPS | --points PCT,PCT,...] [--seeds S,S,...]
 *            [--precondition]
 *            [--peak-ramp-ms MS] --ramp-ms MS --run-ms MS [--poll]
 *            [--marks] [--output FILE]
 *        nvmimic-load --dev DEV --mix RD%,RAND_RD%,RAND_WR%,JOBS,IODEPTH,
 *            THINK_NS,IOTIME_NS --bssplit B/PCT:B/PCT...,B/PCT:... (reads,
 *            then writes) [--sync] --span BYTES ... (the rest as above)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <liburing.h>
#include <linux/nvme_ioctl.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "burst.h"      /* harness/sim: the model's numbers and bursts */

#define MAX_THREADS 4096
#define MAX_POINTS 64
#define PRE_BS (128 * 1024)
#define PRE_THREADS 8
#define MAX_SPLIT 16
#define MAX_JOBS 256
/* latency histogram: 2^SUB_BITS linear buckets per power of two of ns */
#define SUB_BITS 6
#define HIST_BUCKETS ((64 - SUB_BITS + 1) << SUB_BITS)

typedef struct Thread {
    uint64_t rng;               /* its own addresses and arrivals */
    uint64_t next_ns;           /* next arrival (open loop) */
    double on_ns;               /* mix, open loop: arrival in issuing time */
    uint64_t arrival_ns;        /* mix, open loop: ... of the next I/O */
    uint64_t submit_ns;         /* of the I/O in flight */
    bool busy;
    bool counted;               /* the I/O in flight is in the window */
} Thread;

/* A direction's block-size split (fio's bssplit) */
typedef struct Split {
    unsigned n;
    uint32_t bytes[MAX_SPLIT];
    double pct[MAX_SPLIT];
} Split;

/* --mix: the job file's mix, as harness/sim/jobfile.h's NvmMix */
typedef struct Mix {
    double read_pct, random_pct[2];     /* [0] reads, [1] writes */
    unsigned jobs, iodepth;
    uint64_t think_ns, iotime_ns;
    Split bs[2];
} Mix;

/* A mix's job: its sequential positions and its burst cycle */
typedef struct Job {
    uint64_t last_end[2];       /* bytes into the span */
    uint64_t cycle_ns, on_end_ns;   /* closed loop: this burst */
    uint64_t max_done_ns;       /* its latest completion */
    unsigned inflight;
} Job;

typedef struct Opts {
    const char *dev, *rw, *output;
    uint32_t bs;
    unsigned threads;
    uint64_t span, offset, seed;
    double rate;
    int points[MAX_POINTS];
    unsigned n_points;
    uint64_t seeds[1 + MAX_POINTS];     /* per phase (--seeds), or 0 */
    unsigned n_seeds;
    bool precondition;
    double peak_ramp_ms, ramp_ms, run_ms;
    bool poll, marks;
    bool mixed;                 /* --mix */
    bool sync;                  /* --sync: the mix's writes with FUA */
    Mix mix;
} Opts;

/* What one phase measured. */
typedef struct Phase {
    int pct;                    /* 0: the peak */
    double target_iops;
    double secs;                /* measured time */
    uint64_t ios, bytes, lat_sum, lat_min, lat_max;
    /* open loop: how late the measured I/Os went out after they were due
     * (their arrival, or the completion that freed their thread), the
     * load generator's own lag behind the model's schedule */
    uint64_t late_sum, late_max;
    uint64_t hist[HIST_BUCKETS];
} Phase;

typedef struct Ctx {
    Opts o;
    struct io_uring ring;
    struct iovec *iov;
    Thread *th;
    Job *jobs;                  /* --mix */
    bool open;                  /* --mix: the phase has a rate */
    uint64_t phase_t0;          /* --mix: the phase's start */
    bool write, random;
    int mark_fd;                /* the device, for admin passthrough; -1: no marks */
    unsigned mark_n;            /* the first mark's number */
} Ctx;

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static unsigned hist_bucket(uint64_t ns)
{
    unsigned msb;

    if (ns < (1u << SUB_BITS)) {
        return (unsigned)ns;
    }
    msb = 63 - __builtin_clzll(ns);
    return ((msb - SUB_BITS + 1) << SUB_BITS) |
           (unsigned)((ns >> (msb - SUB_BITS)) & ((1u << SUB_BITS) - 1));
}

/* the middle of bucket @b, in ns */
static double hist_value(unsigned b)
{
    unsigned e = b >> SUB_BITS, m = b & ((1u << SUB_BITS) - 1);
    double w;

    if (!e) {
        return m;
    }
    w = ldexp(1.0, (int)e - 1);
    return ldexp(1.0, (int)e + SUB_BITS - 1) + m * w + w / 2;
}

static double hist_pct(const uint64_t *h, uint64_t n, double q)
{
    uint64_t want = (uint64_t)ceil(q * n), seen = 0;

    for (unsigned b = 0; b < HIST_BUCKETS; b++) {
        seen += h[b];
        if (seen >= want && h[b]) {
            return hist_value(b);
        }
    }
    return 0;
}

static void die(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "nvmimic-load: ");
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    exit(1);
}

static void usage(void)
{
    fputs("usage: nvmimic-load --dev DEV --rw randread|randwrite|read|write "
          "--bs B --threads N --span BYTES [--offset BYTES] [--seed N] "
          "[--rate IOPS | --points PCT,...] [--seeds S,...] [--precondition] "
          "[--peak-ramp-ms MS] --ramp-ms MS --run-ms MS [--poll] [--marks] "
          "[--output FILE]\n"
          "       nvmimic-load --dev DEV --mix RD%,RAND_RD%,RAND_WR%,JOBS,"
          "IODEPTH,THINK_NS,IOTIME_NS --bssplit B/PCT:...,B/PCT:... "
          "[--sync] --span BYTES ... (the rest as above)\n", stderr);
    exit(2);
}

static uint64_t num(const char *opt, const char *s)
{
    char *end;
    unsigned long long v;

    errno = 0;
    v = strtoull(s, &end, 0);
    if (errno || end == s || *end || *s == '-') {
        fprintf(stderr, "nvmimic-load: %s '%s' is not a number\n", opt, s);
        exit(2);
    }
    return v;
}

static double dnum(const char *opt, const char *s)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= 0) || isinf(v)) {
        fprintf(stderr, "nvmimic-load: %s '%s' is not a number >= 0\n", opt,
                s);
        exit(2);
    }
    return v;
}

/* --mix RD%,RAND_RD%,RAND_WR%,JOBS,IODEPTH,THINK_NS,IOTIME_NS */
static void parse_mix(const char *arg, Mix *m)
{
    char *list = strdup(arg), *tok, *save;
    const char *f[7];
    unsigned n = 0;

    for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n == 7) {
            usage();
        }
        f[n++] = tok;
    }
    if (n != 7) {
        usage();
    }
    m->read_pct = dnum("--mix", f[0]);
    m->random_pct[0] = dnum("--mix", f[1]);
    m->random_pct[1] = dnum("--mix", f[2]);
    m->jobs = (unsigned)num("--mix", f[3]);
    m->iodepth = (unsigned)num("--mix", f[4]);
    m->think_ns = num("--mix", f[5]);
    m->iotime_ns = num("--mix", f[6]);
    if (m->read_pct > 100 || m->random_pct[0] > 100 ||
        m->random_pct[1] > 100 || !m->jobs || m->jobs > MAX_JOBS ||
        !m->iodepth || (m->think_ns && !m->iotime_ns)) {
        fprintf(stderr, "nvmimic-load: --mix '%s': percentages 0..100, "
                "1..%u jobs, an iodepth, IOTIME with THINK\n", arg,
                MAX_JOBS);
        exit(2);
    }
    free(list);
}

/* --bssplit B/PCT:B/PCT...,B/PCT:... (reads, then writes) */
static void parse_bssplit(const char *arg, Split bs[2])
{
    char *list = strdup(arg), *dir, *tok, *save, *save2, *slash;
    unsigned d = 0;

    for (dir = strtok_r(list, ",", &save); dir;
         dir = strtok_r(NULL, ",", &save)) {
        if (d == 2) {
            usage();
        }
        for (tok = strtok_r(dir, ":", &save2); tok;
             tok = strtok_r(NULL, ":", &save2)) {
            slash = strchr(tok, '/');
            if (!slash || bs[d].n == MAX_SPLIT) {
                fprintf(stderr, "nvmimic-load: --bssplit '%s': B/PCT, at "
                        "most %u per direction\n", arg, MAX_SPLIT);
                exit(2);
            }
            *slash = '\0';
            bs[d].bytes[bs[d].n] = (uint32_t)num("--bssplit", tok);
            bs[d].pct[bs[d].n] = dnum("--bssplit", slash + 1);
            if (!bs[d].bytes[bs[d].n] || bs[d].bytes[bs[d].n] % 512) {
                fprintf(stderr, "nvmimic-load: --bssplit '%s': a block "
                        "size is not a multiple of 512\n", arg);
                exit(2);
            }
            bs[d].n++;
        }
        if (!bs[d].n) {
            usage();
        }
        d++;
    }
    if (d != 2) {
        usage();
    }
    free(list);
}

static void parse(int argc, char **argv, Opts *o)
{
    static const struct option longopts[] = {
        { "dev", 1, NULL, 'd' }, { "rw", 1, NULL, 'w' },
        { "bs", 1, NULL, 'b' }, { "threads", 1, NULL, 't' },
        { "span", 1, NULL, 's' }, { "offset", 1, NULL, 'o' },
        { "rate", 1, NULL, 'r' }, { "points", 1, NULL, 'P' },
        { "precondition", 0, NULL, 'C' }, { "peak-ramp-ms", 1, NULL, 'K' },
        { "ramp-ms", 1, NULL, 'R' }, { "run-ms", 1, NULL, 'T' },
        { "seed", 1, NULL, 'S' }, { "poll", 0, NULL, 'p' },
        { "marks", 0, NULL, 'M' }, { "output", 1, NULL, 'O' },
        { "seeds", 1, NULL, 'E' }, { "mix", 1, NULL, 'X' },
        { "bssplit", 1, NULL, 'B' }, { "sync", 0, NULL, 'Y' },
        { NULL, 0, NULL, 0 },
    };
    char *list, *tok, *save;
    int c;

    memset(o, 0, sizeof(*o));
    o->seed = 1;
    o->peak_ramp_ms = -1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'd': o->dev = optarg; break;
        case 'w': o->rw = optarg; break;
        case 'b': o->bs = (uint32_t)num("--bs", optarg); break;
        case 't': o->threads = (unsigned)num("--threads", optarg); break;
        case 's': o->span = num("--span", optarg); break;
        case 'o': o->offset = num("--offset", optarg); break;
        case 'r': o->rate = dnum("--rate", optarg); break;
        case 'P':
            list = strdup(optarg);
            for (tok = strtok_r(list, ",", &save); tok;
                 tok = strtok_r(NULL, ",", &save)) {
                if (o->n_points == MAX_POINTS) {
                    usage();
                }
                o->points[o->n_points] = (int)num("--points", tok);
                if (o->points[o->n_points] <= 0) {
                    usage();
                }
                o->n_points++;
            }
            free(list);
            if (!o->n_points) {
                usage();
            }
            break;
        case 'E':
            list = strdup(optarg);
            for (tok = strtok_r(list, ",", &save); tok;
                 tok = strtok_r(NULL, ",", &save)) {
                if (o->n_seeds == 1 + MAX_POINTS) {
                    usage();
                }
                o->seeds[o->n_seeds++] = num("--seeds", tok);
            }
            free(list);
            break;
        case 'C': o->precondition = true; break;
        case 'K': o->peak_ramp_ms = dnum("--peak-ramp-ms", optarg); break;
        case 'R': o->ramp_ms = dnum("--ramp-ms", optarg); break;
        case 'T': o->run_ms = dnum("--run-ms", optarg); break;
        case 'S': o->seed = num("--seed", optarg); break;
        case 'p': o->poll = true; break;
        case 'M': o->marks = true; break;
        case 'O': o->output = optarg; break;
        case 'X': parse_mix(optarg, &o->mix); o->mixed = true; break;
        case 'B': parse_bssplit(optarg, o->mix.bs); break;
        case 'Y': o->sync = true; break;
        default: usage();
        }
    }
    if (o->sync && !o->mixed) {
        /* the curves' single operations run as nvmimic sim's, buffered */
        fprintf(stderr, "nvmimic-load: --sync is for --mix (the job file's "
                "writes); a single-operation curve has no sync writes\n");
        exit(2);
    }
    if (o->mixed) {
        /* the largest block of the split, for the buffers and the span */
        if (!o->mix.bs[0].n || o->rw || o->bs) {
            usage();
        }
        o->rw = "mixed";
        o->threads = o->mix.jobs * o->mix.iodepth;
        for (int d = 0; d < 2; d++) {
            for (unsigned i = 0; i < o->mix.bs[d].n; i++) {
                if (o->mix.bs[d].bytes[i] > o->bs) {
                    o->bs = o->mix.bs[d].bytes[i];
                }
            }
        }
    }
    if (optind != argc || !o->dev || !o->rw || !o->bs || !o->threads ||
        o->threads > MAX_THREADS || !o->run_ms || o->bs % 512 ||
        o->span < o->bs || (o->rate > 0 && o->n_points) ||
        (o->precondition && o->span < PRE_BS)) {
        usage();
    }
    if (o->peak_ramp_ms < 0) {
        o->peak_ramp_ms = o->ramp_ms;
    }
    if (!o->mixed && strcmp(o->rw, "randread") && strcmp(o->rw, "randwrite") &&
        strcmp(o->rw, "read") && strcmp(o->rw, "write")) {
        fprintf(stderr, "nvmimic-load: --rw '%s' (randread, randwrite, read, "
                "write)\n", o->rw);
        exit(2);
    }
}

/* Phase @k's seed: --seeds' (nvmimic run passes nvmimic sim's), else one
 * derived from --seed. */
static uint64_t phase_seed(const Opts *o, unsigned k)
{
    return k < o->n_seeds ? o->seeds[k] : o->seed * 131 + k;
}

/* Phase @k's opening (@stop false) or closing in-band mark */
static void mark(Ctx *x, unsigned k, bool stop)
{
    struct nvme_admin_cmd cmd = {
        .opcode = 0xc0,
        .cdw12 = x->mark_n + 2 * k + stop,
        .cdw13 = stop ? 0 : 1,      /* bit 0: reset after the snapshot */
    };
    int ret;

    if (x->mark_fd < 0) {
        return;
    }
    ret = ioctl(x->mark_fd, NVME_IOCTL_ADMIN_CMD, &cmd);
    if (ret) {
        char n[16];

        snprintf(n, sizeof(n), "%u", cmd.cdw12);
        die("in-band mark %s: %s", n, ret < 0 ? strerror(errno) :
            "the drive refused it (is the drive nvmimic's?)");
    }
}

/*
 * A mix's thread @i completed an I/O at @now: its job's drain, and in the
 * open loop its next submission, at its arrival or now, whichever is
 * later, moved out of an idle window (as mix.c: fio issues nothing while
 * a job thinks).
 */
static void mix_done(Ctx *x, unsigned i, uint64_t now)
{
    const Mix *m = &x->o.mix;
    Thread *t = &x->th[i];
    Job *job = &x->jobs[i / m->iodepth];

    job->inflight--;
    job->max_done_ns = now > job->max_done_ns ? now : job->max_done_ns;
    if (x->open) {
        t->next_ns = nvm_burst_skip_idle(m->iotime_ns, m->think_ns,
                                         x->phase_t0,
                                         t->arrival_ns > now ? t->arrival_ns
                                                             : now);
    }
}

/* Reap completions; returns how many.  @ph (may be NULL) gets the
 * latencies of I/Os counted in its window. */
static unsigned reap(Ctx *x, Phase *ph, bool closed, unsigned *inflight,
                     uint64_t now)
{
    struct io_uring_cqe *cqe;
    unsigned head, n = 0;

    if (*inflight && x->o.poll) {
        io_uring_submit_and_wait(&x->ring, 0);  /* IOPOLL: poll the queue */
    }
    io_uring_for_each_cqe(&x->ring, head, cqe) {
        Thread *t = &x->th[cqe->user_data];

        if (cqe->res < 0 || (uint64_t)cqe->res != x->iov[cqe->user_data].iov_len) {
            die("I/O failed: %s%s", cqe->res < 0 ? strerror(-cqe->res)
                                                 : "short transfer", "");
        }
        n++;
        t->busy = false;
        (*inflight)--;
        if (x->o.mixed) {
            mix_done(x, (unsigned)cqe->user_data, now);
        }
        if (ph && t->counted) {
            uint64_t lat = now - t->submit_ns;

            ph->ios++;
            ph->bytes += x->iov[cqe->user_data].iov_len;
            ph->lat_sum += lat;
            ph->lat_min = lat < ph->lat_min ? lat : ph->lat_min;
            ph->lat_max = lat > ph->lat_max ? lat : ph->lat_max;
            ph->hist[hist_bucket(lat)]++;
        }
        if (closed) {
            t->next_ns = now;
        }
    }
    io_uring_cq_advance(&x->ring, n);
    return n;
}

/* Wait for something to happen: a completion, or the time @soonest. */
static void idle(Ctx *x, unsigned inflight, uint64_t soonest, uint64_t now)
{
    if (!inflight) {
        struct timespec ts = {
            .tv_sec = soonest / 1000000000u,
            .tv_nsec = soonest % 1000000000u,
        };

        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    } else if (!x->o.poll) {
        struct io_uring_cqe *cqe;
        struct __kernel_timespec kts;
        uint64_t wait = soonest > now ? soonest - now : 0;

        if (soonest == UINT64_MAX) {
            io_uring_wait_cqe(&x->ring, &cqe);
        } else if (wait) {
            kts.tv_sec = wait / 1000000000u;
            kts.tv_nsec = wait % 1000000000u;
            io_uring_wait_cqe_timeout(&x->ring, &cqe, &kts);
        }
    }
}

/*
 * A phase's loop found nothing to submit at @now: false when the phase is
 * over (its end has passed and nothing is in flight); else wait for a
 * completion, the next arrival or burst (@soonest), or the instant a mark
 * is due (@measure_ns, 0 once sent; @end_ns), whichever comes first.  The
 * window is the model's, whatever the arrivals: a phase whose next
 * arrival falls after its end still ends at its end, not at once, and
 * opens its window on time in an idle stretch.
 */
static bool phase_wait(Ctx *x, unsigned inflight, uint64_t now,
                       uint64_t soonest, uint64_t measure_ns, uint64_t end_ns)
{
    uint64_t wake = soonest;

    if (now >= end_ns) {
        if (!inflight) {
            return false;
        }
        wake = UINT64_MAX;      /* only the last completions are awaited */
    } else {
        wake = measure_ns > now && measure_ns < wake ? measure_ns : wake;
        wake = end_ns < wake ? end_ns : wake;
    }
    idle(x, inflight, wake, now);
    return true;
}

/*
 * One phase: @rate IOPS (0: closed loop) over @threads threads, ramp then
 * run; marks around the measured time when @k >= 0.
 */
static void run_phase(Ctx *x, Phase *ph, int k, unsigned threads, bool write,
                      bool random, uint32_t bs, double rate, double ramp_ms,
                      double run_ms, uint64_t seed)
{
    uint64_t t0 = now_ns(), seq = 0;
    uint64_t measure_ns = t0 + (uint64_t)(ramp_ms * 1e6);
    uint64_t end_ns = measure_ns + (uint64_t)(run_ms * 1e6);
    uint64_t nblocks = x->o.span / bs;
    /* as harness/sim/curve.c computes it, to the last bit */
    double gap_ns = rate > 0 ? 1e9 / (rate / threads) : 0;
    unsigned inflight = 0;
    bool started = false, stopped = false;

    ph->secs = run_ms / 1e3;
    ph->lat_min = UINT64_MAX;
    for (unsigned i = 0; i < threads; i++) {
        Thread *t = &x->th[i];

        t->busy = false;
        t->rng = nvm_rng_stream(seed, i);
        t->next_ns = gap_ns ? t0 + (uint64_t)(-log(nvm_rng_01(&t->rng)) *
                                              gap_ns) : t0;
    }
    for (;;) {
        uint64_t now = now_ns(), soonest = UINT64_MAX;
        unsigned queued = 0;

        reap(x, ph, !gap_ns, &inflight, now);
        if (k >= 0 && !started && now >= measure_ns) {
            mark(x, (unsigned)k, false);
            started = true;
        }
        if (k >= 0 && !stopped && now >= end_ns) {
            mark(x, (unsigned)k, true);
            stopped = true;
        }
        for (unsigned i = 0; i < threads; i++) {
            Thread *t = &x->th[i];
            struct io_uring_sqe *sqe;
            uint64_t blk, off;

            if (t->busy) {
                continue;
            }
            /* as the model's driver: nothing is submitted at or after the
             * end, however far behind a thread's arrivals are */
            if (t->next_ns > now || now >= end_ns) {
                soonest = t->next_ns < soonest ? t->next_ns : soonest;
                continue;
            }
            sqe = io_uring_get_sqe(&x->ring);
            if (!sqe) {
                break;
            }
            if (random) {
                blk = nvm_rng_u64(&t->rng) % nblocks;
            } else {
                blk = seq;
                seq = seq + 1 == nblocks ? 0 : seq + 1;
            }
            off = x->o.offset + blk * bs;
            x->iov[i].iov_len = bs;
            if (write) {
                io_uring_prep_write_fixed(sqe, 0, x->iov[i].iov_base, bs,
                                          off, (int)i);
            } else {
                io_uring_prep_read_fixed(sqe, 0, x->iov[i].iov_base, bs, off,
                                         (int)i);
            }
            sqe->flags |= IOSQE_FIXED_FILE;
            sqe->user_data = i;
            t->busy = true;
            t->submit_ns = now;
            t->counted = now >= measure_ns;
            if (t->counted && gap_ns) {
                uint64_t late = now - t->next_ns;

                ph->late_sum += late;
                ph->late_max = late > ph->late_max ? late : ph->late_max;
            }
            if (gap_ns) {
                t->next_ns += (uint64_t)(-log(nvm_rng_01(&t->rng)) *
                                         gap_ns);
            }
            queued++;
            inflight++;
        }
        if (queued) {
            io_uring_submit(&x->ring);
            continue;
        }
        if (!phase_wait(x, inflight, now, soonest, started ? 0 : measure_ns,
                        end_ns)) {
            break;
        }
    }
    if (k >= 0 && !stopped) {
        mark(x, (unsigned)k, true);
    }
}

/*
 * May thread @i of a mix submit at @now?  Closed loop with bursts: not
 * after its job's burst ended until the job has drained and thought
 * (*soonest: when the next burst starts).
 */
static bool mix_may_submit(Ctx *x, unsigned i, uint64_t now,
                           uint64_t *soonest)
{
    const Mix *m = &x->o.mix;
    Job *job = &x->jobs[i / m->iodepth];

    if (x->open || !m->think_ns) {
        return true;
    }
    if (now >= job->on_end_ns) {
        if (job->inflight) {
            return false;       /* fio drains first */
        }
        job->cycle_ns = (job->on_end_ns > job->max_done_ns ?
                         job->on_end_ns : job->max_done_ns) + m->think_ns;
        job->on_end_ns = job->cycle_ns + m->iotime_ns;
    }
    if (now < job->cycle_ns) {
        *soonest = job->cycle_ns < *soonest ? job->cycle_ns : *soonest;
        return false;
    }
    return true;
}

/* Thread @i's next I/O of the mix, as mix.c draws it: direction, size,
 * random or where the job's last one of that direction ended. */
static void mix_prep(Ctx *x, unsigned i, struct io_uring_sqe *sqe)
{
    const Mix *m = &x->o.mix;
    Thread *t = &x->th[i];
    Job *job = &x->jobs[i / m->iodepth];
    uint64_t span = x->o.span, off;
    uint32_t bs, align = UINT32_MAX;
    int dir;

    for (int d = 0; d < 2; d++) {
        for (unsigned k = 0; k < m->bs[d].n; k++) {
            align = m->bs[d].bytes[k] < align ? m->bs[d].bytes[k] : align;
        }
    }
    dir = nvm_rng_01(&t->rng) * 100.0 < m->read_pct ? 0 : 1;
    bs = nvm_pick_split(m->bs[dir].bytes, m->bs[dir].pct, m->bs[dir].n,
                        &t->rng);
    if (bs > span) {
        bs = (uint32_t)(span - span % align);
    }
    if (nvm_rng_01(&t->rng) * 100.0 < m->random_pct[dir]) {
        off = nvm_rng_u64(&t->rng) % ((span - bs) / align + 1) * align;
    } else {
        off = job->last_end[dir];
        if (off + bs > span) {
            off = 0;
        }
    }
    job->last_end[dir] = off + bs;
    job->inflight++;
    x->iov[i].iov_len = bs;
    if (dir) {
        io_uring_prep_write_fixed(sqe, 0, x->iov[i].iov_base, bs,
                                  x->o.offset + off, (int)i);
        if (x->o.sync) {
            /* O_DIRECT + RWF_DSYNC: the block layer sets REQ_FUA, the
             * NVMe driver the FUA bit (a drive with a volatile cache) */
            sqe->rw_flags = RWF_DSYNC;
        }
    } else {
        io_uring_prep_read_fixed(sqe, 0, x->iov[i].iov_base, bs,
                                 x->o.offset + off, (int)i);
    }
}

/*
 * One phase of a mix, as harness/sim/mix.c runs it on the model: @rate
 * IOPS on average (0: closed loop), the ramp and the run rounded up to
 * whole burst cycles (the run to at least one).
 */
static void run_mix_phase(Ctx *x, Phase *ph, int k, double rate,
                          double ramp_ms, double run_ms, uint64_t seed)
{
    const Mix *m = &x->o.mix;
    unsigned threads = x->o.threads;
    uint64_t t0 = now_ns();
    uint64_t warm = nvm_burst_whole(m->iotime_ns, m->think_ns,
                                    (uint64_t)(ramp_ms * 1e6), 0);
    uint64_t dur = nvm_burst_whole(m->iotime_ns, m->think_ns,
                                   (uint64_t)(run_ms * 1e6), 1);
    uint64_t measure_ns = t0 + warm, end_ns = measure_ns + dur;
    double duty = m->think_ns ? (double)m->iotime_ns /
                                (m->iotime_ns + m->think_ns) : 1.0;
    /* per thread, in issuing time: the idle share is made up inside */
    double gap_on_ns = rate > 0 ? 1e9 * duty / (rate / threads) : 0;
    unsigned inflight = 0;
    bool started = false, stopped = false;

    ph->secs = dur / 1e9;
    ph->lat_min = UINT64_MAX;
    x->open = gap_on_ns > 0;
    x->phase_t0 = t0;
    memset(x->jobs, 0, sizeof(*x->jobs) * m->jobs);
    for (unsigned j = 0; j < m->jobs; j++) {
        x->jobs[j].cycle_ns = t0;
        x->jobs[j].on_end_ns = m->think_ns ? t0 + m->iotime_ns : UINT64_MAX;
    }
    for (unsigned i = 0; i < threads; i++) {
        Thread *t = &x->th[i];

        t->busy = false;
        t->rng = nvm_rng_stream(seed, i);
        if (x->open) {
            t->on_ns = -log(nvm_rng_01(&t->rng)) * gap_on_ns;
            t->next_ns = nvm_burst_on_to_real(m->iotime_ns, m->think_ns, t0,
                                              t->on_ns);
        } else {
            t->next_ns = t0;
        }
    }
    for (;;) {
        uint64_t now = now_ns(), soonest = UINT64_MAX;
        unsigned queued = 0;

        reap(x, ph, !x->open, &inflight, now);
        if (k >= 0 && !started && now >= measure_ns) {
            mark(x, (unsigned)k, false);
            started = true;
        }
        if (k >= 0 && !stopped && now >= end_ns) {
            mark(x, (unsigned)k, true);
            stopped = true;
        }
        for (unsigned i = 0; i < threads; i++) {
            Thread *t = &x->th[i];
            struct io_uring_sqe *sqe;

            if (t->busy) {
                continue;
            }
            if (t->next_ns > now || now >= end_ns) {
                soonest = t->next_ns < soonest ? t->next_ns : soonest;
                continue;
            }
            if (!mix_may_submit(x, i, now, &soonest)) {
                continue;
            }
            sqe = io_uring_get_sqe(&x->ring);
            if (!sqe) {
                break;
            }
            mix_prep(x, i, sqe);
            sqe->flags |= IOSQE_FIXED_FILE;
            sqe->user_data = i;
            t->busy = true;
            t->submit_ns = now;
            t->counted = now >= measure_ns;
            if (t->counted && x->open) {
                uint64_t late = now - t->next_ns;

                ph->late_sum += late;
                ph->late_max = late > ph->late_max ? late : ph->late_max;
            }
            if (x->open) {
                t->on_ns += -log(nvm_rng_01(&t->rng)) * gap_on_ns;
                t->arrival_ns = nvm_burst_on_to_real(m->iotime_ns,
                                                     m->think_ns, t0,
                                                     t->on_ns);
            }
            queued++;
            inflight++;
        }
        if (queued) {
            io_uring_submit(&x->ring);
            continue;
        }
        if (!phase_wait(x, inflight, now, soonest, started ? 0 : measure_ns,
                        end_ns)) {
            break;
        }
    }
    if (k >= 0 && !stopped) {
        mark(x, (unsigned)k, true);
    }
}

/* The span written once, sequentially, 128 KiB at 8 outstanding, as
 * nvm_curve_precondition() writes it to the model. */
static void precondition(Ctx *x)
{
    uint64_t off = 0, end = x->o.span - x->o.span % PRE_BS;
    unsigned inflight = 0;

    for (unsigned i = 0; i < PRE_THREADS; i++) {
        x->th[i].busy = false;
    }
    while (off < end || inflight) {
        unsigned queued = 0;

        reap(x, NULL, false, &inflight, 0);
        for (unsigned i = 0; i < PRE_THREADS && off < end; i++) {
            struct io_uring_sqe *sqe;

            if (x->th[i].busy || !(sqe = io_uring_get_sqe(&x->ring))) {
                continue;
            }
            x->iov[i].iov_len = PRE_BS;
            io_uring_prep_write_fixed(sqe, 0, x->iov[i].iov_base, PRE_BS,
                                      x->o.offset + off, (int)i);
            sqe->flags |= IOSQE_FIXED_FILE;
            sqe->user_data = i;
            x->th[i].busy = true;
            off += PRE_BS;
            queued++;
            inflight++;
        }
        if (queued) {
            io_uring_submit(&x->ring);
        } else if (inflight) {
            /* (with nothing in flight the span is written: the loop ends) */
            idle(x, inflight, UINT64_MAX, 0);
        }
    }
}

static void json_phase(FILE *f, const Ctx *x, const Phase *ph, bool first)
{
    double secs = ph->secs;
    const char *dd = x->o.mixed ? "mixed" : x->write ? "write" : "read";

    fprintf(f, "%s\n  {\"jobname\": \"%s\", \"target_pct\": %d, "
            "\"target_iops\": %.1f, \"threads\": %u, "
            "\"late_ns\": {\"mean\": %.1f, \"max\": %" PRIu64 "}, \"%s\": "
            "{\"total_ios\": %" PRIu64 ", \"io_bytes\": %" PRIu64 ", "
            "\"iops\": %.17g, \"bw_bytes\": %.0f, \"lat_ns\": {\"min\": %"
            PRIu64 ", \"max\": %" PRIu64 ", \"mean\": %.3f, \"percentile\": "
            "{\"50.000000\": %.0f, \"99.000000\": %.0f, \"99.900000\": "
            "%.0f}}}, \"%s\": {\"total_ios\": 0}}", first ? "" : ",",
            ph->target_iops > 0 ? "rate" : "peak", ph->pct, ph->target_iops,
            x->o.threads, ph->ios ? (double)ph->late_sum / ph->ios : 0,
            ph->late_max, dd, ph->ios, ph->bytes, ph->ios / secs,
            ph->bytes / secs, ph->ios ? ph->lat_min : 0, ph->lat_max,
            ph->ios ? (double)ph->lat_sum / ph->ios : 0,
            hist_pct(ph->hist, ph->ios, 0.50), hist_pct(ph->hist, ph->ios,
                                                         0.99),
            hist_pct(ph->hist, ph->ios, 0.999),
            x->o.mixed ? "trim" : x->write ? "read" : "write");
}

/* A phase of the single operation or of the mix */
static void one_phase(Ctx *x, Phase *ph, int k, double rate, double ramp_ms,
                      uint64_t seed)
{
    if (x->o.mixed) {
        run_mix_phase(x, ph, k, rate, ramp_ms, x->o.run_ms, seed);
    } else {
        run_phase(x, ph, k, x->o.threads, x->write, x->random, x->o.bs, rate,
                  ramp_ms, x->o.run_ms, seed);
    }
}

int main(int argc, char **argv)
{
    static Ctx ctx;
    Ctx *x = &ctx;
    Opts *o = &x->o;
    Phase *ph;
    unsigned n_ph, entries = 1, nbuf;
    uint32_t buf_bytes;
    const char *mn;
    int fd, ret;
    FILE *out;

    parse(argc, argv, o);
    x->write = !strcmp(o->rw, "write") || !strcmp(o->rw, "randwrite");
    x->random = !strncmp(o->rw, "rand", 4);
    x->mark_fd = -1;
    mn = getenv("NVMIMIC_MARK_N");
    if (o->marks) {
        if (!mn) {
            die("--marks needs NVMIMIC_MARK_N, the first mark's number%s%s",
                "", "");
        }
        x->mark_n = (unsigned)num("NVMIMIC_MARK_N", mn);
        x->mark_fd = open(o->dev, O_RDONLY);
        if (x->mark_fd < 0) {
            die("%s: %s", o->dev, strerror(errno));
        }
    }
    /* sleep to the ns: a timer may fire up to the slack late (50 us) */
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);

    fd = open(o->dev, (x->write || o->mixed || o->precondition ? O_RDWR :
                       O_RDONLY) |
                      O_DIRECT);
    if (fd < 0) {
        die("%s: %s", o->dev, strerror(errno));
    }
    nbuf = o->threads > PRE_THREADS ? o->threads : PRE_THREADS;
    while (entries < nbuf) {
        entries <<= 1;
    }
    ret = io_uring_queue_init(entries, &x->ring,
                              o->poll ? IORING_SETUP_IOPOLL : 0);
    if (ret < 0) {
        die("io_uring set-up%s: %s", o->poll ? " (polled)" : "",
            strerror(-ret));
    }
    buf_bytes = o->precondition && o->bs < PRE_BS ? PRE_BS : o->bs;
    x->iov = calloc(nbuf, sizeof(*x->iov));
    x->th = calloc(nbuf, sizeof(*x->th));
    x->jobs = calloc(o->mixed ? o->mix.jobs : 1, sizeof(*x->jobs));
    n_ph = 1 + (o->rate > 0 ? 0 : o->n_points);
    ph = calloc(n_ph, sizeof(*ph));
    if (!x->iov || !x->th || !x->jobs || !ph) {
        die("out of memory%s%s", "", "");
    }
    for (unsigned i = 0; i < nbuf; i++) {
        if (posix_memalign(&x->iov[i].iov_base, 4096, buf_bytes)) {
            die("out of memory%s%s", "", "");
        }
        memset(x->iov[i].iov_base, 0x5a, buf_bytes);
        x->iov[i].iov_len = buf_bytes;
    }
    if ((ret = io_uring_register_files(&x->ring, &fd, 1)) < 0 ||
        (ret = io_uring_register_buffers(&x->ring, x->iov, nbuf)) < 0) {
        die("io_uring register: %s%s", strerror(-ret), "");
    }

    if (o->precondition) {
        precondition(x);
    }
    if (o->rate > 0) {
        ph[0].target_iops = o->rate;
        one_phase(x, &ph[0], o->marks ? 0 : -1, o->rate, o->ramp_ms,
                  phase_seed(o, 0));
    } else {
        one_phase(x, &ph[0], o->marks ? 0 : -1, 0, o->peak_ramp_ms,
                  phase_seed(o, 0));
        for (unsigned i = 0; i < o->n_points; i++) {
            double peak = ph[0].ios / ph[0].secs;

            ph[1 + i].pct = o->points[i];
            ph[1 + i].target_iops = peak * o->points[i] / 100.0;
            one_phase(x, &ph[1 + i], o->marks ? (int)(1 + i) : -1,
                      ph[1 + i].target_iops, o->ramp_ms,
                      phase_seed(o, 1 + i));
        }
    }

    out = o->output ? fopen(o->output, "w") : stdout;
    if (!out) {
        die("%s: %s", o->output, strerror(errno));
    }
    fprintf(out, "{\"fio version\": \"nvmimic-load\", \"jobs\": [");
    for (unsigned i = 0; i < n_ph; i++) {
        json_phase(out, x, &ph[i], i == 0);
    }
    fprintf(out, "]}\n");
    if (o->output && fclose(out)) {
        die("%s: %s", o->output, strerror(errno));
    }
    io_uring_queue_exit(&x->ring);
    return 0;
}
