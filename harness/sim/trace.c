/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Device traces: parser, fio iolog conversion and model-only replay.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "trace.h"

#define TRACE_ERR(errp, ...) \
    g_set_error(errp, G_FILE_ERROR, G_FILE_ERROR_INVAL, __VA_ARGS__)

void nvm_trace_free(NvmTrace *t)
{
    if (t) {
        g_free(t->profile);
        if (t->cmds) {
            g_array_free(t->cmds, TRUE);
        }
        g_free(t);
    }
}

/* times past 2^62 ns would wrap when replayed from a later state */
#define NVM_TRACE_MAX_NS (UINT64_C(1) << 62)
/* NLB is a 16-bit count (0's based) in a Read or Write */
#define NVM_TRACE_MAX_RW_BLOCKS 65536

static bool parse_u64(const char *s, uint64_t *out)
{
    char *end;

    if (!g_ascii_isdigit(*s)) {
        return false;
    }
    errno = 0;
    *out = g_ascii_strtoull(s, &end, 10);
    return !errno && !*end;
}

/* The names a trace's commands may have, for an error: "read, write, ..." */
static char *cmd_names(void)
{
    GString *s = g_string_new(NULL);

    for (unsigned o = 0; o < NVM_CLASS_COUNT; o++) {
        const char *fua = nvm_cmd_name((NvmOp)o, NVM_CMD_FUA);

        g_string_append_printf(s, "%s%s", s->len ? ", " : "",
                               nvm_op_name((NvmOp)o));
        if (strcmp(fua, nvm_op_name((NvmOp)o))) {
            g_string_append_printf(s, ", %s", fua);
        }
    }
    return g_string_free(s, FALSE);
}

/* "# key=value key=value" header line */
static bool parse_header(NvmTrace *t, const char *line, const char *origin,
                         unsigned ln, GError **errp)
{
    g_auto(GStrv) f = g_strsplit_set(line + 1, " \t", -1);

    for (char **p = f; *p; p++) {
        char *eq = strchr(*p, '=');
        uint64_t v;

        if (!eq) {
            continue;
        }
        *eq = '\0';
        if (!strcmp(*p, "profile")) {
            g_free(t->profile);
            t->profile = g_strdup(eq + 1);
            continue;
        }
        if (strcmp(*p, "lba-bytes") && strcmp(*p, "capacity-bytes") &&
            strcmp(*p, "start-ns")) {
            continue;
        }
        if (!parse_u64(eq + 1, &v)) {
            TRACE_ERR(errp, "%s:%u: %s=%s is not a number", origin, ln, *p,
                      eq + 1);
            return false;
        }
        if (!strcmp(*p, "lba-bytes")) {
            if (v < 512 || v > 65536 || (v & (v - 1))) {
                TRACE_ERR(errp, "%s:%u: lba-bytes=%s is not a power of two "
                          "512..65536", origin, ln, eq + 1);
                return false;
            }
            t->lba_bytes = (uint32_t)v;
        } else if (!strcmp(*p, "start-ns")) {
            t->start_ns = v;
        } else {
            t->capacity_bytes = v;
        }
    }
    return true;
}

NvmTrace *nvm_trace_parse(const char *text, const char *origin,
                          GError **errp)
{
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    NvmTrace *t = g_new0(NvmTrace, 1);
    uint64_t last = 0;

    t->cmds = g_array_new(FALSE, FALSE, sizeof(NvmTraceCmd));
    if (!lines[0] || strcmp(g_strchomp(lines[0]), NVM_TRACE_MAGIC)) {
        TRACE_ERR(errp, "%s: not an nvmimic trace (the first line is not "
                  "'%s')", origin, NVM_TRACE_MAGIC);
        goto fail;
    }
    for (unsigned i = 1; lines[i]; i++) {
        char *line = g_strstrip(lines[i]);
        g_auto(GStrv) f = NULL;
        NvmTraceCmd c = { .line = i + 1 };
        unsigned nf;
        NvmOp op;
        uint64_t nlb;

        if (!*line) {
            continue;
        }
        if (*line == '#') {
            if (!parse_header(t, line, origin, i + 1, errp)) {
                goto fail;
            }
            continue;
        }
        f = g_strsplit_set(line, " \t", -1);
        nf = g_strv_length(f);
        if (nf != 4 && nf != 5) {
            TRACE_ERR(errp, "%s:%u: expected 'submit_ns op slba nlb "
                      "[complete_ns]', got '%s'", origin, i + 1, line);
            goto fail;
        }
        if (!nvm_cmd_from_name(f[1], &op, &c.flags)) {
            g_autofree char *names = cmd_names();

            TRACE_ERR(errp, "%s:%u: unknown op '%s' (%s)", origin, i + 1,
                      f[1], names);
            goto fail;
        }
        c.op = op;
        if (!parse_u64(f[0], &c.submit_ns) || !parse_u64(f[2], &c.slba) ||
            !parse_u64(f[3], &nlb) || nlb > UINT32_MAX) {
            TRACE_ERR(errp, "%s:%u: submit_ns, slba and nlb must be "
                      "unsigned integers: '%s'", origin, i + 1, line);
            goto fail;
        }
        if (c.submit_ns > NVM_TRACE_MAX_NS) {
            TRACE_ERR(errp, "%s:%u: submit_ns %" G_GUINT64_FORMAT " is past "
                      "2^62 ns (146 years)", origin, i + 1, c.submit_ns);
            goto fail;
        }
        if ((op == NVM_OP_READ || op == NVM_OP_WRITE) &&
            nlb > NVM_TRACE_MAX_RW_BLOCKS) {
            TRACE_ERR(errp, "%s:%u: %s of %" G_GUINT64_FORMAT " blocks: one "
                      "NVMe command moves at most 65,536", origin, i + 1,
                      f[1], nlb);
            goto fail;
        }
        c.nlb = (uint32_t)nlb;
        if ((op == NVM_OP_FLUSH) != (nlb == 0)) {
            TRACE_ERR(errp, "%s:%u: %s with %" G_GUINT64_FORMAT " blocks",
                      origin, i + 1, f[1], nlb);
            goto fail;
        }
        c.complete_ns = NVM_TRACE_NO_COMPLETION;
        if (nf == 5 && strcmp(f[4], "-") &&
            (!parse_u64(f[4], &c.complete_ns) ||
             c.complete_ns < c.submit_ns ||
             c.complete_ns > NVM_TRACE_MAX_NS)) {
            TRACE_ERR(errp, "%s:%u: complete_ns '%s' is not a time at or "
                      "after the submission", origin, i + 1, f[4]);
            goto fail;
        }
        if (c.submit_ns < last) {
            TRACE_ERR(errp, "%s:%u: submit_ns goes back in time", origin,
                      i + 1);
            goto fail;
        }
        last = c.submit_ns;
        g_array_append_val(t->cmds, c);
    }
    if (!t->lba_bytes) {
        TRACE_ERR(errp, "%s: the header gives no lba-bytes", origin);
        goto fail;
    }
    for (unsigned i = 0; t->capacity_bytes && i < t->cmds->len; i++) {
        const NvmTraceCmd *c = &g_array_index(t->cmds, NvmTraceCmd, i);
        uint64_t blocks = t->capacity_bytes / t->lba_bytes;

        if (c->slba > blocks || c->nlb > blocks - c->slba) {
            TRACE_ERR(errp, "%s:%u: blocks %" G_GUINT64_FORMAT " to %"
                      G_GUINT64_FORMAT " are past the drive's %"
                      G_GUINT64_FORMAT " (capacity-bytes)", origin, c->line,
                      c->slba, c->slba + c->nlb - 1, blocks);
            goto fail;
        }
    }
    return t;

fail:
    nvm_trace_free(t);
    return NULL;
}

NvmTrace *nvm_trace_load(const char *path, GError **errp)
{
    g_autofree char *text = NULL;

    if (!nvm_text_file_load(path, G_MAXSIZE, &text, errp)) {
        return NULL;
    }
    return nvm_trace_parse(text, path, errp);
}

GString *nvm_trace_to_iolog(const NvmTrace *t, const char *device,
                            unsigned *dropped, unsigned *unfua)
{
    GString *s = g_string_new("fio version 3 iolog\n");
    uint64_t ts = 1;

    *dropped = *unfua = 0;
    g_string_append_printf(s, "1 %s add\n1 %s open\n", device, device);
    for (unsigned i = 0; i < t->cmds->len; i++) {
        const NvmTraceCmd *c = &g_array_index(t->cmds, NvmTraceCmd, i);
        uint64_t off = c->slba * t->lba_bytes;
        uint64_t len = (uint64_t)c->nlb * t->lba_bytes;

        ts = c->submit_ns / 1000 + 1;
        switch (c->op) {
        case NVM_OP_READ:
            g_string_append_printf(s, "%" G_GUINT64_FORMAT " %s read %"
                                   G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
                                   "\n", ts, device, off, len);
            break;
        case NVM_OP_WRITE:
        case NVM_OP_WRITE_ZEROES:
            *unfua += !!(c->flags & NVM_CMD_FUA);
            g_string_append_printf(s, "%" G_GUINT64_FORMAT " %s write %"
                                   G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
                                   "\n", ts, device, off, len);
            break;
        case NVM_OP_FLUSH:
            g_string_append_printf(s, "%" G_GUINT64_FORMAT " %s sync 0 0\n",
                                   ts, device);
            break;
        default:
            (*dropped)++;
            break;
        }
    }
    g_string_append_printf(s, "%" G_GUINT64_FORMAT " %s close\n", ts,
                           device);
    return s;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

unsigned nvm_trace_max_outstanding(const NvmTrace *t)
{
    unsigned n = t->cmds->len, j = 0, cur = 0, best = 0;
    uint64_t *done = g_new(uint64_t, n ? n : 1);

    for (unsigned i = 0; i < n; i++) {
        done[i] = g_array_index(t->cmds, NvmTraceCmd, i).complete_ns;
        if (done[i] == NVM_TRACE_NO_COMPLETION) {
            g_free(done);
            return 0;
        }
    }
    qsort(done, n, sizeof(*done), cmp_u64);
    /* submissions are in order; count those not yet completed */
    for (unsigned i = 0; i < n; i++) {
        uint64_t s = g_array_index(t->cmds, NvmTraceCmd, i).submit_ns;

        while (j < n && done[j] <= s) {
            j++;
            cur--;
        }
        cur++;
        best = MAX(best, cur);
    }
    g_free(done);
    return best;
}

/* Exact statistics of a sorted array of latencies in ns. */
static void class_from_sorted(const uint64_t *lat, uint64_t n, uint64_t bytes,
                              NvmTraceClass *c)
{
    double sum = 0;

    memset(c, 0, sizeof(*c));
    c->count = n;
    c->bytes = bytes;
    if (!n) {
        return;
    }
    for (uint64_t i = 0; i < n; i++) {
        sum += lat[i];
    }
    c->fig.lat_us = sum / n / 1000.0;
    c->fig.p50_us = lat[(uint64_t)ceil(0.50 * n) - 1] / 1000.0;
    c->fig.p99_us = lat[(uint64_t)ceil(0.99 * n) - 1] / 1000.0;
    c->fig.p999_us = lat[(uint64_t)ceil(0.999 * n) - 1] / 1000.0;
    c->max_us = lat[n - 1] / 1000.0;
}

bool nvm_trace_replay(const NvmTrace *t, const NvmProfile *p, uint64_t seed,
                      const NvmTraceReplayOpts *opts, NvmTraceReplay *out,
                      GError **errp)
{
    static const NvmTraceReplayOpts defaults;
    FILE *log;
    uint64_t from, until;
    unsigned first = 0;
    unsigned n = t->cmds->len;
    NvmModel *m;
    uint64_t now = 0, span, t0, end = 0;
    GArray *lat[NVM_CLASS_COUNT];
    uint64_t bytes[NVM_CLASS_COUNT] = { 0 };
    bool have_captured = n > 0;

    memset(out, 0, sizeof(*out));
    opts = opts ? opts : &defaults;
    log = opts->log;
    from = opts->from_ns;
    until = opts->until_ns ? opts->until_ns : UINT64_MAX;
    /* check every command before running anything */
    for (unsigned i = 0; i < n; i++) {
        const NvmTraceCmd *c = &g_array_index(t->cmds, NvmTraceCmd, i);
        uint64_t off = c->slba * t->lba_bytes;
        uint64_t len = (uint64_t)c->nlb * t->lba_bytes;

        if (c->slba > UINT64_MAX / t->lba_bytes || off % p->lba_bytes ||
            len % p->lba_bytes || off > p->capacity_bytes ||
            len > p->capacity_bytes - off) {
            TRACE_ERR(errp, "trace line %u: %s of %" G_GUINT64_FORMAT
                      " bytes at byte %" G_GUINT64_FORMAT " does not fit %s "
                      "(%" G_GUINT64_FORMAT " bytes, %u-byte LBAs)", c->line,
                      nvm_cmd_name(c->op, c->flags), len, off, p->name,
                      p->capacity_bytes,
                      p->lba_bytes);
            return false;
        }
        have_captured &= c->complete_ns != NVM_TRACE_NO_COMPLETION;
    }

    m = nvm_model_new(p, seed);
    if (opts->wear_pct > 0 && !nvm_model_set_wear(m, opts->wear_pct, errp)) {
        nvm_model_free(m);
        return false;
    }
    /* on the trace's own clock: the state is set at @from, as the drive's
     * was (nvm_model_state_at makes the figures the same at any time) */
    now = from;
    if (opts->erased) {
        nvm_model_secure_erase(m);
        nvm_model_state_at(m, now);
    } else {
        nvm_sim_review_state_hook(m, p, &span, &now, NULL, opts->reads_only);
    }
    t0 = now;
    if (log) {
        fprintf(log, "%s\n# profile=%s lba-bytes=%u capacity-bytes=%"
                G_GUINT64_FORMAT " start-ns=0\n"
                "# submit_ns op slba nlb complete_ns (the model's)\n",
                NVM_TRACE_MAGIC, p->name, p->lba_bytes, p->capacity_bytes);
    }
    nvm_model_reset_stats(m, t0);
    for (int o = 0; o < NVM_CLASS_COUNT; o++) {
        lat[o] = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    }
    for (unsigned i = 0; i < n; i++) {
        const NvmTraceCmd *c = &g_array_index(t->cmds, NvmTraceCmd, i);
        NvmCmd cmd = {
            .op = c->op,
            .flags = c->flags,
            .slba = c->slba * t->lba_bytes / p->lba_bytes,
            .nlb = (uint32_t)((uint64_t)c->nlb * t->lba_bytes /
                              p->lba_bytes),
        };
        uint64_t done;

        if (c->submit_ns < from || c->submit_ns >= until) {
            if (opts->done_ns) {
                opts->done_ns[i] = NVM_TRACE_NO_COMPLETION;
            }
            if (log) {
                fprintf(log, "%" G_GUINT64_FORMAT " %s %" G_GUINT64_FORMAT
                        " %u -\n", c->submit_ns,
                        nvm_cmd_name(c->op, c->flags), cmd.slba, cmd.nlb);
            }
            if (c->submit_ns < from) {
                first = i + 1;
            }
            continue;
        }
        done = nvm_model_submit(m, &cmd, t0 + c->submit_ns - from);
        end = MAX(end, done);
        if (opts->done_ns) {
            opts->done_ns[i] = done - t0 + from;
        }
        if (log) {
            fprintf(log, "%" G_GUINT64_FORMAT " %s %" G_GUINT64_FORMAT
                    " %u %" G_GUINT64_FORMAT "\n", c->submit_ns,
                    nvm_cmd_name(c->op, c->flags), cmd.slba, cmd.nlb,
                    done - t0 + from);
        }
        bytes[c->op] += (uint64_t)c->nlb * t->lba_bytes;
        if (have_captured) {
            uint64_t l = c->complete_ns - c->submit_ns;

            g_array_append_val(lat[c->op], l);
        }
    }
    {
        NvmStats *st = g_new(NvmStats, 1);

        nvm_model_get_stats(m, MAX(end, t0), st);
        for (int o = 0; o < NVM_CLASS_COUNT; o++) {
            NvmTraceClass *mc = &out->model[o];

            mc->count = st->cls[o].count;
            mc->bytes = st->cls[o].bytes;
            mc->fig.lat_us = st->cls[o].mean_us;
            mc->fig.p50_us = st->cls[o].p50_us;
            mc->fig.p99_us = st->cls[o].p99_us;
            mc->fig.p999_us = st->cls[o].p999_us;
            mc->max_us = st->cls[o].max_us;
            g_array_sort(lat[o], cmp_u64);
            class_from_sorted((const uint64_t *)lat[o]->data, lat[o]->len,
                              bytes[o], &out->captured[o]);
            g_array_free(lat[o], TRUE);
        }
        g_free(st);
    }
    if (first < n) {
        out->duration_s = (end - t0 -
                           (g_array_index(t->cmds, NvmTraceCmd,
                                          first).submit_ns - from)) / 1e9;
    }
    for (int o = 0; o < NVM_CLASS_COUNT; o++) {
        NvmTraceClass *cs[2] = { &out->model[o], &out->captured[o] };

        for (int k = 0; k < 2; k++) {
            double secs = out->duration_s;

            cs[k]->fig.iops = secs > 0 ? cs[k]->count / secs : 0;
            cs[k]->fig.mbps = secs > 0 ? cs[k]->bytes / secs / 1e6 : 0;
        }
    }
    nvm_model_free(m);
    return true;
}
