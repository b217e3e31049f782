/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vdi-probe: one VDI workload's peak as `nvmimic sim --suite vdi` runs it
 * (the same seed, state and point, so the same IOPS), with the model's
 * probe (nvm_model_probe()): where each read's and each write's time goes.
 *   vdi-probe PROFILE WORKLOAD [DURATION_S [SECTION KEY VALUE]...]
 * Each SECTION KEY VALUE replaces a profile value (a what-if).  Environment:
 * SEED (default 1), NVMIMIC_WORKLOAD_DIR (job files, default
 * harness/workloads), NVMIMIC_PROFILE_DIR (default profiles).  Run from the
 * checkout's root; bench/vdi_five.sh runs the five calibration peaks.
 * The lines above the last are for people; the last is for scripts: "probe"
 * then tab-separated KEY=VALUE fields (drive, workload, seconds, iops,
 * lat_us, read_iops, read_lat_us, write_iops, write_lat_us, write_mbps,
 * dies, write_core_wait_us, wa), read by bench/probe_line.py.
 * A diagnostic of issue 28 (docs/vdi.md), not a benchmark of meson's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vdi.h"
#include "sim.h"

typedef struct Probe {
    NvmModel *m;
    NvmStats st;
} Probe;

static void on_stats(void *opaque, uint64_t t, const NvmStats *st)
{
    Probe *p = opaque;

    (void)t;
    p->st = *st;
}

#define US(x, n) ((n) ? (double)(x) / (n) / 1000.0 : 0.0)

int main(int argc, char **argv)
{
    const char *dir = getenv("NVMIMIC_WORKLOAD_DIR") ?
                      getenv("NVMIMIC_WORKLOAD_DIR") : "harness/workloads";
    const char *pdir = getenv("NVMIMIC_PROFILE_DIR") ?
                       getenv("NVMIMIC_PROFILE_DIR") : "profiles";
    const char **ov = g_new0(const char *, argc + 1);
    NvmVdiResult res[NVM_VDI_WORKLOADS];
    GError *err = NULL;
    NvmProfile *p;
    int w;
    double dur = argc > 3 ? atof(argv[3]) : 30;
    NvmSimOptions o = { .seed = getenv("SEED") ? strtoull(getenv("SEED"), NULL, 10) : 1,
                        .duration_s = dur, .peaks_only = true };
    Probe pr = { 0 };
    NvmRunHook hook = { .opaque = &pr, .stats = on_stats };
    NvmProbe q;
    NvmMixResult *r;
    int n = 0;

    if (argc < 3 || (argc > 4 && (argc - 4) % 3) || !(dur > 0)) {
        fprintf(stderr, "usage: vdi-probe PROFILE WORKLOAD [DURATION_S "
                "[SECTION KEY VALUE]...] (DURATION_S > 0)\n");
        return 2;
    }
    for (int i = 4; i + 2 < argc; i += 3) {
        ov[n++] = argv[i];
        ov[n++] = argv[i + 1];
        ov[n++] = argv[i + 2];
    }
    ov[n] = NULL;
    p = nvm_profile_load_with(argv[1], pdir, ov, &err);
    if (!p) {
        fprintf(stderr, "%s\n", err->message);
        return 1;
    }
    if (!nvm_vdi_load(p, dir, res, &err)) {
        fprintf(stderr, "%s\n", err->message);
        return 1;
    }
    w = nvm_vdi_index(argv[2]);
    if (w < 0) {
        fprintf(stderr, "no workload %s\n", argv[2]);
        return 1;
    }
    pr.m = nvm_model_new(p, o.seed);
    nvm_sim_vdi_one(p, &o, w, pr.m, &hook, &res[w]);
    nvm_model_probe(pr.m, &q);
    r = &res[w].peak;
    printf("%s %s %.0fs: %.0f IOPS, %.1f us (R %.0f IOPS %.1f us, W %.0f IOPS %.1f us, %.1f MB/s W), dies %.2f\n",
           argv[1], argv[2], dur, r->all.fig.iops, r->all.fig.lat_us,
           r->cls[NVM_DIR_READ].fig.iops, r->cls[NVM_DIR_READ].fig.lat_us,
           r->cls[NVM_DIR_WRITE].fig.iops, r->cls[NVM_DIR_WRITE].fig.lat_us,
           r->cls[NVM_DIR_WRITE].fig.mbps, r->die_busy);
    printf("  read/cmd us: core-wait %.1f core %.1f map %.1f nand %.1f (of %.0f %% that touch NAND) post %.1f\n",
           US(q.rd_core_wait, q.rd_n), US(q.rd_core, q.rd_n),
           US(q.rd_map, q.rd_n), US(q.rd_nand, q.rd_nand_cmds),
           q.rd_n ? 100.0 * q.rd_nand_cmds / q.rd_n : 0, US(q.rd_post, q.rd_n));
    printf("  page reads: %.2f/read; per page us: tR %.1f wait %.1f chan %.1f; suspended %.0f %% (%.1f us), waited for op %.0f %% (%.1f us avg when so)\n",
           q.rd_n ? (double)q.pg_n / q.rd_n : 0, US(q.pg_tr, q.pg_n),
           US(q.pg_wait, q.pg_n), US(q.pg_chan, q.pg_n),
           q.pg_n ? 100.0 * q.pg_susp_n / q.pg_n : 0, US(q.pg_susp_ns, q.pg_susp_n),
           q.pg_n ? 100.0 * q.pg_opwait_n / q.pg_n : 0, US(q.pg_opwait_ns, q.pg_opwait_n));
    printf("  write/cmd us: core-wait %.1f core %.1f front(link,path,map) %.1f buffer-wait %.1f (%.0f %% wait)\n",
           US(q.wr_core_wait, q.wr_n), US(q.wr_core, q.wr_n),
           US(q.wr_front, q.wr_n), US(q.wr_buf, q.wr_n),
           q.wr_n ? 100.0 * q.wr_buf_n / q.wr_n : 0);
    {
        const char *kn[3] = { "native", "slc", "erase" };
        const char *on[3] = { "program", "erase", "copy" };

        for (int k = 0; k < 3; k++) {
            printf("  slot %-6s n %7lu wait %.1f us | push %-7s n %7lu dur %.0f us queue-wait %.1f us\n",
                   kn[k], (unsigned long)q.slot_n[k], US(q.slot_wait[k], q.slot_n[k]),
                   on[k], (unsigned long)q.push_n[k], US(q.push_dur[k], q.push_n[k]),
                   US(q.push_wait[k], q.push_n[k]));
        }
    }
    printf("  map misses %lu write-backs %lu temp %.1f C throttled %.3f s\n", (unsigned long)pr.st.map_misses, (unsigned long)pr.st.map_writebacks, pr.st.temp_c, pr.st.throttled_ns / 1e9);
    {
        NvmDieTime dt;

        nvm_model_die_time(pr.m, &dt);
        printf("  running operations a full die queue forgot: %lu\n",
               (unsigned long)dt.forgotten);
    }
    printf("  WA %.2f host %.0f MB nand %.0f MB fold %.0f MB gc %.0f MB erases %lu suspends %lu buf-hits %lu slc used/size %.1f/%.1f GB free sb %u\n",
           pr.st.write_amplification, pr.st.host_bytes_written / 1e6,
           pr.st.nand_bytes_written / 1e6, pr.st.fold_bytes / 1e6,
           pr.st.gc_bytes / 1e6, (unsigned long)pr.st.erases,
           (unsigned long)pr.st.suspends, (unsigned long)pr.st.buffer_read_hits,
           pr.st.slc_used_bytes / 1e9, pr.st.slc_size_bytes / 1e9,
           pr.st.free_superblocks);
    printf("probe\tdrive=%s\tworkload=%s\tseconds=%g\tiops=%.0f\tlat_us=%.1f"
           "\tread_iops=%.0f\tread_lat_us=%.1f\twrite_iops=%.0f"
           "\twrite_lat_us=%.1f\twrite_mbps=%.1f\tdies=%.2f"
           "\twrite_core_wait_us=%.1f\twa=%.2f\n",
           argv[1], argv[2], dur, r->all.fig.iops, r->all.fig.lat_us,
           r->cls[NVM_DIR_READ].fig.iops, r->cls[NVM_DIR_READ].fig.lat_us,
           r->cls[NVM_DIR_WRITE].fig.iops, r->cls[NVM_DIR_WRITE].fig.lat_us,
           r->cls[NVM_DIR_WRITE].fig.mbps, r->die_busy,
           US(q.wr_core_wait, q.wr_n), pr.st.write_amplification);
    return 0;
}
