/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The invariants both fuzz targets check: completions never precede their
 * submission and stay below 2^63 and a day, a flush completes after every
 * earlier write, statistics count exactly what was submitted, hold no NaN
 * or infinity, account every nanosecond to one power state and only grow
 * between resets, state injection accepts exactly its documented ranges,
 * and the model's memory (its mapping state grows as data is written in
 * mixed order) stays within the bound of nvm_model_max_memory_bytes().
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-common.h"

#define TIME_LIMIT (1ULL << 62)

void fuzz_fail(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fputs("fuzz invariant violated: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

void fuzz_check_profile(const NvmProfile *p)
{
    /* What hw/nvmimic.c writes into 16-bit and fixed-size fields. */
    FUZZ_CHECK(p->pci_vendor_id >= 1 && p->pci_vendor_id < 0xffff &&
               p->pci_device_id >= 1 && p->pci_device_id < 0xffff &&
               p->pci_subsys_vendor_id >= 1 &&
               p->pci_subsys_vendor_id < 0xffff &&
               p->pci_subsys_id >= 1 && p->pci_subsys_id < 0xffff,
               "PCI ID beyond 16 bits");
    FUZZ_CHECK(p->temp_warn_c + 273 <= 0xffff &&
               p->temp_crit_c + 273 <= 0xffff &&
               p->temp_idle_c + 273 <= 0xffff &&
               p->temp_idle_c > -273, "temperature beyond Kelvin's field");
    FUZZ_CHECK(strlen(p->model_number) <= 40 && strlen(p->firmware) <= 8 &&
               strlen(p->serial) <= 20, "identity string too long");
    FUZZ_CHECK(p->mdts >= 1 && p->mdts <= 9 &&
               (1u << p->mdts) == p->mdts_pages, "MDTS %u", p->mdts);
    FUZZ_CHECK(p->lba_bytes == 512 || p->lba_bytes == 4096, "LBA size");
    FUZZ_CHECK(p->capacity_bytes >= p->lba_bytes &&
               p->capacity_bytes % p->lba_bytes == 0 &&
               p->capacity_bytes <= NVM_MAX_CAPACITY_BYTES, "capacity");
    FUZZ_CHECK(p->n_power_states >= 1 &&
               p->n_power_states <= NVM_MAX_POWER_STATES, "power states");
    for (unsigned i = 0; i < p->n_power_states; i++) {
        FUZZ_CHECK(p->ps[i].idle_before_entry_ms < (1u << 24),
                   "APST idle time beyond ITPT's 24 bits");
        FUZZ_CHECK(isfinite(p->ps[i].max_power_w) &&
                   p->ps[i].max_power_w > 0 &&
                   p->ps[i].max_power_w * 100 < 65536, "max power");
    }
    FUZZ_CHECK(!p->ps[0].non_operational, "PS0 non-operational");
    FUZZ_CHECK(p->nvme_version >= 0x10000 && p->nvme_version <= 0x20100,
               "NVMe version");
    FUZZ_CHECK((uint64_t)p->planes * p->page_bytes * p->cell_mode <
               (1ULL << 32), "program unit beyond 32 bits");
}

void fuzz_check_error(const char *path, const GError *err)
{
    FUZZ_CHECK(err && err->message, "rejected without a message");
    FUZZ_CHECK(!strchr(err->message, '\n'), "error of several lines: %s",
               err->message);
    FUZZ_CHECK(g_str_has_prefix(err->message, path),
               "error does not name the file: %s", err->message);
}

void fuzz_driver_init(FuzzDriver *d, NvmModel *m, const NvmProfile *p,
                      uint64_t start_ns)
{
    memset(d, 0, sizeof(*d));
    d->m = m;
    d->p = p;
    d->now = start_ns;
    d->memory = nvm_model_memory_bytes(m);
    FUZZ_CHECK(d->memory <= nvm_model_max_memory_bytes(),
               "model takes %zu bytes, more than the stated bound %zu",
               d->memory, nvm_model_max_memory_bytes());
}

void fuzz_advance(FuzzDriver *d, uint64_t step_ns)
{
    d->now = step_ns < TIME_LIMIT - d->now ? d->now + step_ns : TIME_LIMIT;
}

uint64_t fuzz_submit(FuzzDriver *d, NvmOp op, uint64_t slba, uint32_t nlb)
{
    NvmCmd c = { .op = op, .slba = slba, .nlb = nlb };
    uint64_t cap = d->p->capacity_bytes;
    uint64_t cap_lbas = cap / d->p->lba_bytes;
    /* an LBA past the end wraps in LBAs, as the model does (no overflow) */
    uint64_t off = (slba >= cap_lbas ? slba % cap_lbas : slba) *
                   d->p->lba_bytes;
    uint64_t bytes = (uint64_t)nlb * d->p->lba_bytes;
    uint64_t done;
    unsigned cls = op < NVM_CLASS_COUNT ? op : NVM_OP_FLUSH;

    if (off + bytes > cap) {
        bytes = cap - off;
    }
    done = nvm_model_submit(d->m, &c, d->now);
    d->ops++;
    FUZZ_CHECK(done >= d->now, "op %d completes at %" PRIu64
               " before its submission at %" PRIu64, op, done, d->now);
    FUZZ_CHECK(done - d->now <= FUZZ_MAX_LATENCY_NS,
               "op %d waits %" PRIu64 " ns", op, done - d->now);
    FUZZ_CHECK(done < (1ULL << 63), "deadline beyond 2^63");
    if (op == NVM_OP_WRITE && done > d->max_write_done) {
        d->max_write_done = done;
    }
    if (cls == NVM_OP_FLUSH) {
        FUZZ_CHECK(done >= d->max_write_done,
                   "flush completes at %" PRIu64 " before a write it "
                   "covers (%" PRIu64 ")", done, d->max_write_done);
        bytes = 0;
    }
    d->count[cls]++;
    d->bytes[cls] += bytes;
    return done;
}

/*
 * State injection takes no time argument: it replaces the SLC contents as
 * of the last command, so background folding that a statistics read since
 * then estimated is not accounted.  NAND bytes written only grow again
 * from the injected state on.
 */
static void no_fold_since_last_command(FuzzDriver *d)
{
    NvmStats st;

    nvm_model_get_stats(d->m, d->now, &st);
    d->last_nand_written = st.nand_bytes_written;
}

void fuzz_set_fill(FuzzDriver *d, double pct)
{
    g_autoptr(GError) err = NULL;
    bool ok = nvm_model_set_fill(d->m, pct, &err);
    bool want = pct >= 0 && pct <= 100;

    FUZZ_CHECK(ok == want && ok == !err, "set_fill(%g) returned %d", pct,
               ok);
    if (ok) {
        no_fold_since_last_command(d);
        NvmStats st;

        nvm_model_get_stats(d->m, d->now, &st);
        FUZZ_CHECK(fabs(st.fill_pct - pct) < 1e-6,
                   "fill %g %% after set_fill(%g)", st.fill_pct, pct);
    }
}

void fuzz_set_slc_used(FuzzDriver *d, uint64_t bytes)
{
    g_autoptr(GError) err = NULL;
    bool ok = nvm_model_set_slc_used(d->m, bytes, &err);

    FUZZ_CHECK(ok == !err, "set_slc_used: result and error disagree");
    if (ok) {
        no_fold_since_last_command(d);
        NvmStats st;

        nvm_model_get_stats(d->m, d->now, &st);
        FUZZ_CHECK(st.slc_used_bytes <= bytes, "SLC holds %" PRIu64
                   " after set_slc_used(%" PRIu64 ")", st.slc_used_bytes,
                   bytes);
    }
}

void fuzz_set_wear(FuzzDriver *d, double pct)
{
    g_autoptr(GError) err = NULL;
    bool ok = nvm_model_set_wear(d->m, pct, &err);
    bool want = pct >= 0 && pct <= 255;

    FUZZ_CHECK(ok == want && ok == !err, "set_wear(%g) returned %d", pct,
               ok);
    if (ok) {
        NvmStats st;

        nvm_model_get_stats(d->m, d->now, &st);
        FUZZ_CHECK(st.wear_pct >= pct * (1 - 1e-9),
                   "wear %g %% after set_wear(%g)", st.wear_pct, pct);
        d->last_total_host = st.total_host_bytes_written;
    }
}

void fuzz_secure_erase(FuzzDriver *d)
{
    NvmStats st;

    nvm_model_secure_erase(d->m);
    no_fold_since_last_command(d);
    nvm_model_get_stats(d->m, d->now, &st);
    FUZZ_CHECK(st.valid_bytes == 0, "data left after secure erase");
}

void fuzz_reset_stats(FuzzDriver *d)
{
    nvm_model_reset_stats(d->m, d->now);
    d->reset_at = d->now;
    memset(d->count, 0, sizeof(d->count));
    memset(d->bytes, 0, sizeof(d->bytes));
    d->last_nand_written = 0;
}

void fuzz_set_apst(FuzzDriver *d, bool enabled, const uint32_t *idle_ms,
                   unsigned n)
{
    g_autoptr(GError) err = NULL;
    bool ok = nvm_model_set_apst(d->m, enabled, idle_ms, n, &err);
    bool want = n == d->p->n_power_states;

    for (unsigned i = 0; want && idle_ms && i < n; i++) {
        want = !idle_ms[i] || d->p->ps[i].non_operational;
    }
    FUZZ_CHECK(ok == want && ok == !err, "set_apst returned %d", ok);
}

void fuzz_reset_apst(FuzzDriver *d)
{
    nvm_model_reset_apst(d->m);
}

static void check_finite(double v, double lo, const char *what)
{
    FUZZ_CHECK(isfinite(v) && v >= lo, "%s is %g", what, v);
}

void fuzz_check_stats(FuzzDriver *d)
{
    NvmStats st;
    uint64_t ps_sum = 0;

    nvm_model_get_stats(d->m, d->now, &st);
    for (unsigned c = 0; c < NVM_CLASS_COUNT; c++) {
        const NvmClassStats *s = &st.cls[c];
        uint64_t h = 0;

        FUZZ_CHECK(s->count == d->count[c], "class %u counts %" PRIu64
                   " commands, %" PRIu64 " were submitted", c, s->count,
                   d->count[c]);
        FUZZ_CHECK(s->bytes == d->bytes[c], "class %u counts %" PRIu64
                   " bytes, %" PRIu64 " were submitted", c, s->bytes,
                   d->bytes[c]);
        for (unsigned b = 0; b < NVM_HIST_BUCKETS; b++) {
            h += s->hist[b];
        }
        FUZZ_CHECK(h == s->count, "histogram of class %u holds %" PRIu64
                   " of %" PRIu64, c, h, s->count);
        check_finite(s->mean_us, 0, "mean latency");
        check_finite(s->p50_us, 0, "p50");
        check_finite(s->p99_us, s->p50_us, "p99 (below p50)");
        check_finite(s->p999_us, s->p99_us, "p99.9 (below p99)");
        check_finite(s->max_us, 0, "max latency");
        FUZZ_CHECK(s->mean_us <= s->max_us * (1 + 1e-12),
                   "mean %g above max %g", s->mean_us, s->max_us);
    }
    FUZZ_CHECK(st.host_bytes_written == d->bytes[NVM_OP_WRITE],
               "host bytes written %" PRIu64 ", submitted %" PRIu64,
               st.host_bytes_written, d->bytes[NVM_OP_WRITE]);
    FUZZ_CHECK(st.nand_bytes_written >= d->last_nand_written,
               "NAND bytes written went down: %" PRIu64 " -> %" PRIu64,
               d->last_nand_written, st.nand_bytes_written);
    d->last_nand_written = st.nand_bytes_written;
    FUZZ_CHECK(st.total_host_bytes_written >= d->last_total_host,
               "lifetime host bytes went down");
    d->last_total_host = st.total_host_bytes_written;
    check_finite(st.write_amplification, 0, "write amplification");
    check_finite(st.gc_wa_now, 1 - 1e-9, "GC write amplification");
    check_finite(st.wear_pct, 0, "wear");
    check_finite(st.fill_pct, 0, "fill");
    FUZZ_CHECK(st.fill_pct <= 100 + 1e-6, "fill %g %%", st.fill_pct);
    FUZZ_CHECK(st.valid_bytes <= d->p->capacity_bytes, "valid bytes %"
               PRIu64 " above the capacity", st.valid_bytes);
    FUZZ_CHECK(st.slc_size_bytes <= d->p->slc_static_bytes +
               d->p->slc_dynamic_max_bytes, "SLC cache above its maximum");
    FUZZ_CHECK(st.power_state < d->p->n_power_states, "power state %u",
               st.power_state);
    for (unsigned s = 0; s < NVM_MAX_POWER_STATES; s++) {
        ps_sum += st.ps_time_ns[s];
    }
    FUZZ_CHECK(ps_sum == d->now - d->reset_at, "power states account %"
               PRIu64 " ns of %" PRIu64, ps_sum, d->now - d->reset_at);
    FUZZ_CHECK(nvm_model_memory_bytes(d->m) <= nvm_model_max_memory_bytes(),
               "model memory %zu above the bound %zu",
               nvm_model_memory_bytes(d->m), nvm_model_max_memory_bytes());
}
