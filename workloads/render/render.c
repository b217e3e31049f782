// SPDX-License-Identifier: GPL-2.0-or-later
//
// render: a swap-heavy workload in the spirit of the reviews' Houdini
// (Maelstrom) step: load packed points from disk single-threaded, unpack them
// multi-threaded into one flat array larger than RAM, repack them into spatial
// buckets multi-threaded.  Prints seconds per phase and in total as JSON, after
// checking that every point landed in its bucket exactly once, unchanged.
//
// C11 + POSIX threads, no other dependency: build it static for the initramfs
// guest (gcc -static -O2 -pthread).  See workloads/README.md.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rng.h"            /* backends/: nvmimic's splitmix64 */

// On disk: 8 bytes a point (three 16-bit quantised coordinates, a 16-bit
// attribute); the point's id is its index.
typedef struct { uint16_t q[3]; uint16_t attr; } packed_t;
// Unpacked, the working array: 32 bytes a point.
typedef struct { double x, y, z; uint32_t id; float density; } point_t;
// Repacked into buckets: 16 bytes a point.
typedef struct { float x, y, z; uint32_t id; } bpoint_t;

#define GRID 16                 // buckets per axis
#define NBUCKETS (GRID * GRID * GRID)
#define SPAN 100.0              // scene size in each axis

/* Point @i: the first number of splitmix64 seeded with @i, so any point
 * can be made again from its index alone. */
static packed_t gen_point(uint64_t i)
{
    uint64_t s = i;
    uint64_t h = nvm_rng_u64(&s);
    packed_t p = { { (uint16_t)h, (uint16_t)(h >> 16), (uint16_t)(h >> 32) },
                   (uint16_t)(h >> 48) };
    return p;
}

static double coord(uint16_t q) { return q * (SPAN / 65536.0); }
static unsigned bucket_of(double x, double y, double z)
{
    unsigned cx = (unsigned)(x * GRID / SPAN), cy = (unsigned)(y * GRID / SPAN),
             cz = (unsigned)(z * GRID / SPAN);
    return (cx * GRID + cy) * GRID + cz;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
    fprintf(stderr, "render: %s: %s\n", what, errno ? strerror(errno) : "failed");
    exit(2);
}

static uint64_t npoints;
static unsigned nthreads;
static packed_t *packed;
static point_t *points;
static bpoint_t *buckets;
static uint64_t (*hist)[NBUCKETS];      // per thread: points per bucket, then offsets
static uint64_t bstart[NBUCKETS + 1];

static void range(unsigned t, uint64_t *lo, uint64_t *hi)
{
    *lo = npoints * t / nthreads;
    *hi = npoints * (t + 1) / nthreads;
}

static void *unpack_worker(void *arg)
{
    unsigned t = (unsigned)(uintptr_t)arg;
    uint64_t lo, hi;
    range(t, &lo, &hi);
    for (uint64_t i = lo; i < hi; i++) {
        packed_t p = packed[i];
        points[i] = (point_t){ coord(p.q[0]), coord(p.q[1]), coord(p.q[2]),
                               (uint32_t)i, p.attr / 65535.0f };
    }
    return NULL;
}

static void *count_worker(void *arg)
{
    unsigned t = (unsigned)(uintptr_t)arg;
    uint64_t lo, hi;
    range(t, &lo, &hi);
    memset(hist[t], 0, sizeof hist[t]);
    for (uint64_t i = lo; i < hi; i++)
        hist[t][bucket_of(points[i].x, points[i].y, points[i].z)]++;
    return NULL;
}

static void *scatter_worker(void *arg)
{
    unsigned t = (unsigned)(uintptr_t)arg;
    uint64_t lo, hi;
    range(t, &lo, &hi);
    for (uint64_t i = lo; i < hi; i++) {
        const point_t *p = &points[i];
        unsigned b = bucket_of(p->x, p->y, p->z);
        buckets[hist[t][b]++] = (bpoint_t){ (float)p->x, (float)p->y, (float)p->z, p->id };
    }
    return NULL;
}

static void run_threads(void *(*fn)(void *))
{
    pthread_t th[nthreads];
    for (unsigned t = 0; t < nthreads; t++)
        if ((errno = pthread_create(&th[t], NULL, fn, (void *)(uintptr_t)t)))
            die("pthread_create");
    for (unsigned t = 0; t < nthreads; t++)
        pthread_join(th[t], NULL);
}

// The RAM the program can have: MemAvailable, not MemTotal, which in the
// initramfs guest also counts the ~90 MB its root filesystem pins in RAM.
static uint64_t mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    uint64_t kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %" SCNu64, &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb * 1024;
}

static void usage(void)
{
    fputs("usage: render [--points N | --ram-factor F] [--threads T]\n"
          "              [--file PATH [--offset BYTES]] [--no-generate | --generate-only]\n"
          "              [--drop-caches]\n"
          "  --points N      points (32 bytes each unpacked; default: the unpacked\n"
          "                  array is F x the available RAM, MemAvailable)\n"
          "  --ram-factor F  default 1.5\n"
          "  --threads T     unpack/repack threads (default: CPUs)\n"
          "  --file PATH     the packed file (8 bytes a point); a block device works,\n"
          "                  at --offset; written first unless --no-generate\n"
          "                  (default: render-points.bin in the current directory)\n"
          "  --generate-only write the packed file and stop (a swap device cannot\n"
          "                  be opened for writing: write it before swapon)\n"
          "  --drop-caches   empty the page cache before loading (in the guest)\n"
          "  --corrupt       damage one point before checking (the check must fail)\n",
          stderr);
    exit(2);
}

int main(int argc, char **argv)
{
    double ram_factor = 1.5;
    const char *file = "render-points.bin";
    uint64_t offset = 0;
    int generate = 1, generate_only = 0, corrupt = 0, drop_caches = 0;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    nthreads = ncpu > 0 ? (unsigned)ncpu : 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--points") && v) npoints = strtoull(v, NULL, 0), i++;
        else if (!strcmp(a, "--ram-factor") && v) ram_factor = atof(v), i++;
        else if (!strcmp(a, "--threads") && v) nthreads = (unsigned)atoi(v), i++;
        else if (!strcmp(a, "--file") && v) file = v, i++;
        else if (!strcmp(a, "--offset") && v) offset = strtoull(v, NULL, 0), i++;
        else if (!strcmp(a, "--no-generate")) generate = 0;
        else if (!strcmp(a, "--generate-only")) generate_only = 1;
        else if (!strcmp(a, "--corrupt")) corrupt = 1;
        else if (!strcmp(a, "--drop-caches")) drop_caches = 1;
        else usage();
    }
    uint64_t ram = mem_available();
    if (!npoints)
        npoints = (uint64_t)(ram * ram_factor / sizeof(point_t));
    if (npoints < 1 || npoints > UINT32_MAX || nthreads < 1 || nthreads > 1024 || ram_factor <= 0)
        usage();

    // Not timed: write the packed file, then drop it from the page cache so
    // the load phase reads it from the device.
    double t0 = now();
    int fd;
    if (generate) {
        fd = open(file, O_WRONLY | O_CREAT, 0644);
        if (fd < 0) die(file);
        enum { CHUNK = 1 << 16 };
        static packed_t buf[CHUNK];
        for (uint64_t i = 0; i < npoints; i += CHUNK) {
            uint64_t n = npoints - i < CHUNK ? npoints - i : CHUNK;
            for (uint64_t j = 0; j < n; j++)
                buf[j] = gen_point(i + j);
            if (pwrite(fd, buf, n * sizeof *buf, (off_t)(offset + i * sizeof *buf)) !=
                (ssize_t)(n * sizeof *buf))
                die("writing the packed file");
        }
        if (fsync(fd) && errno != EINVAL) die("fsync");
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        close(fd);
    }
    double t_gen = now() - t0;
    if (generate_only) {
        printf("{\"workload\": \"render\", \"points\": %" PRIu64 ", \"generate_s\": %.3f}\n",
               npoints, t_gen);
        return 0;
    }
    if (drop_caches) {          // the guest: empty its whole page cache
        FILE *dc = fopen("/proc/sys/vm/drop_caches", "w");
        if (!dc || fputs("1\n", dc) < 0 || fclose(dc)) die("/proc/sys/vm/drop_caches");
    }

    // Phase 1, single-threaded: load the packed points.
    double t1 = now();
    fd = open(file, O_RDONLY);
    if (fd < 0) die(file);
    uint64_t bytes = npoints * sizeof(packed_t);
    packed = malloc(bytes);
    if (!packed) die("malloc (packed)");
    for (uint64_t done = 0; done < bytes;) {
        size_t want = bytes - done > (1 << 20) ? (1 << 20) : bytes - done;
        ssize_t r = pread(fd, (char *)packed + done, want, (off_t)(offset + done));
        if (r <= 0) { if (!r) errno = 0; die("reading the packed file (short?)"); }
        done += (uint64_t)r;
    }
    close(fd);

    // Phase 2, multi-threaded: unpack into the flat array.
    double t2 = now();
    points = malloc(npoints * sizeof *points);
    if (!points) die("malloc (points)");
    run_threads(unpack_worker);
    free(packed);

    // Phase 3, multi-threaded: repack into buckets (count, offsets, scatter).
    double t3 = now();
    hist = calloc(nthreads, sizeof *hist);
    buckets = malloc(npoints * sizeof *buckets);
    if (!hist || !buckets) die("malloc (buckets)");
    run_threads(count_worker);
    uint64_t off = 0;
    for (unsigned b = 0; b < NBUCKETS; b++) {
        bstart[b] = off;
        for (unsigned t = 0; t < nthreads; t++) {
            uint64_t n = hist[t][b];
            hist[t][b] = off;
            off += n;
        }
    }
    bstart[NBUCKETS] = off;
    run_threads(scatter_worker);
    double t4 = now();
    free(points);

    // Not timed: every point is in its bucket exactly once, unchanged.
    if (corrupt && npoints > 1)
        buckets[npoints / 2].id = buckets[npoints / 2 + 1].id;
    uint8_t *seen = calloc(npoints / 8 + 1, 1);
    if (!seen) die("calloc");
    uint64_t bad = 0;
    for (unsigned b = 0; b < NBUCKETS; b++)
        for (uint64_t i = bstart[b]; i < bstart[b + 1]; i++) {
            bpoint_t p = buckets[i];
            packed_t q = p.id < npoints ? gen_point(p.id) : (packed_t){ { 0, 0, 0 }, 0 };
            int ok = p.id < npoints && !(seen[p.id / 8] & (1u << (p.id % 8))) &&
                     p.x == (float)coord(q.q[0]) && p.y == (float)coord(q.q[1]) &&
                     p.z == (float)coord(q.q[2]) &&
                     bucket_of(coord(q.q[0]), coord(q.q[1]), coord(q.q[2])) == b;
            if (p.id < npoints)
                seen[p.id / 8] |= (uint8_t)(1u << (p.id % 8));
            bad += !ok;
        }
    uint64_t missing = 0;
    for (uint64_t i = 0; i < npoints; i++)
        missing += !(seen[i / 8] & (1u << (i % 8)));

    printf("{\"workload\": \"render\", \"points\": %" PRIu64 ", \"threads\": %u, "
           "\"ram_bytes\": %" PRIu64 ", \"array_bytes\": %" PRIu64 ", "
           "\"packed_bytes\": %" PRIu64 ", \"buckets\": %d, "
           "\"generate_s\": %.3f, \"load_s\": %.3f, \"unpack_s\": %.3f, "
           "\"repack_s\": %.3f, \"total_s\": %.3f, "
           "\"check\": {\"bad\": %" PRIu64 ", \"missing\": %" PRIu64 ", \"ok\": %s}}\n",
           npoints, nthreads, ram, npoints * (uint64_t)sizeof(point_t), bytes, NBUCKETS,
           t_gen, t2 - t1, t3 - t2, t4 - t3, t4 - t1, bad, missing,
           bad || missing ? "false" : "true");
    if (bad || missing) {
        fprintf(stderr, "render: check failed: %" PRIu64 " misplaced or duplicated, "
                "%" PRIu64 " missing\n", bad, missing);
        return 1;
    }
    return 0;
}
