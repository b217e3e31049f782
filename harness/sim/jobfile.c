/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fio job files, the options that shape an I/O mix.  Everything else in the
 * file (ioengine, filename, ...) is fio's and is skipped, if fio has such an
 * option (fio-options.h, from the build's fio); an option of the subset with
 * a value that fio would not take, or that the model cannot reproduce, and a
 * key fio does not know, are errors naming the file, the line and the value.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "fio-options.h"
#include "jobfile.h"
#include "sim.h"

#define JOB_ERR(errp, ...) \
    g_set_error(errp, G_FILE_ERROR, G_FILE_ERROR_INVAL, __VA_ARGS__)

typedef struct Parse {
    NvmMix *mix;
    bool rand_rw;               /* rw=rand*: percentage_random applies */
    bool have_random;
    bool have_bssplit;
    bool have_think;
    bool have_iotime;
    bool mixed_rw;              /* rw, readwrite or randrw */
    bool have_rwmix;
    double rw_read_pct;         /* what rw= alone implies */
    double rwmix_read_pct;
    double random_pct[NVM_DIRS];
} Parse;

void nvm_mix_free(NvmMix *mix)
{
    if (mix) {
        g_free(mix->name);
        g_free(mix);
    }
}

unsigned nvm_mix_outstanding(const NvmMix *mix)
{
    return mix->iodepth * mix->numjobs;
}

double nvm_mix_mean_block_bytes(const NvmMix *mix)
{
    double mean[NVM_DIRS] = { 0, 0 };

    for (int d = 0; d < NVM_DIRS; d++) {
        for (unsigned i = 0; i < mix->bs[d].n; i++) {
            mean[d] += mix->bs[d].bytes[i] * mix->bs[d].pct[i] / 100.0;
        }
    }
    return (mean[NVM_DIR_READ] * mix->read_pct +
            mean[NVM_DIR_WRITE] * (100.0 - mix->read_pct)) / 100.0;
}

/* "4k", "64K", "1m", "512": bytes (k = 1024, as fio's default kb_base). */
static bool parse_size(const char *s, uint32_t *out)
{
    char *end;
    guint64 v, mult = 1;

    if (!g_ascii_isdigit(*s)) {
        return false;
    }
    errno = 0;
    v = g_ascii_strtoull(s, &end, 10);
    if (errno) {
        return false;
    }
    switch (g_ascii_tolower(*end)) {
    case 'k':
        mult = 1024;
        end++;
        break;
    case 'm':
        mult = 1024 * 1024;
        end++;
        break;
    case '\0':
        break;
    default:
        return false;
    }
    if (mult > 1 && g_ascii_tolower(*end) == 'i') {
        end++;
    }
    if (mult > 1 && g_ascii_tolower(*end) == 'b') {
        end++;
    }
    if (*end || v == 0 || v > NVM_JOB_MAX_BLOCK_BYTES / mult ||
        (v * mult) % 512) {
        return false;
    }
    *out = (uint32_t)(v * mult);
    return true;
}

/* A time with an optional unit (us, ms, s); @unit_ns when it has none. */
static bool parse_time(const char *s, uint64_t unit_ns, uint64_t *out)
{
    char *end;
    guint64 v, mult = unit_ns;

    if (!g_ascii_isdigit(*s)) {
        return false;
    }
    errno = 0;
    v = g_ascii_strtoull(s, &end, 10);
    if (errno) {
        return false;
    }
    if (!strcmp(end, "us") || !strcmp(end, "usec")) {
        mult = 1000;
    } else if (!strcmp(end, "ms") || !strcmp(end, "msec")) {
        mult = 1000000;
    } else if (!strcmp(end, "s") || !strcmp(end, "sec")) {
        mult = 1000000000;
    } else if (*end) {
        return false;
    }
    /* an hour is plenty for one think or burst period */
    if (v > 3600ULL * 1000000000ULL / mult) {
        return false;
    }
    *out = v * mult;
    return true;
}

static bool parse_uint(const char *s, unsigned min, unsigned max,
                       unsigned *out)
{
    char *end;
    guint64 v;

    if (!g_ascii_isdigit(*s)) {
        return false;
    }
    errno = 0;
    v = g_ascii_strtoull(s, &end, 10);
    if (errno || *end || v < min || v > max) {
        return false;
    }
    *out = (unsigned)v;
    return true;
}

/* "4k/40:8k/60" or "4k/:8k/" (empty shares split what is left equally) */
static bool parse_split(const char *s, NvmBsSplit *bs, const char **why)
{
    g_auto(GStrv) parts = g_strsplit(s, ":", -1);
    double sum = 0;
    unsigned empty = 0;

    memset(bs, 0, sizeof(*bs));
    for (char **p = parts; *p; p++) {
        char *slash = strchr(*p, '/');
        size_t len = slash ? (size_t)(slash - *p) : strlen(*p);
        g_autofree char *size = g_strndup(*p, len);
        unsigned pct = 0;

        if (bs->n == NVM_BSSPLIT_MAX) {
            *why = "more than 16 block sizes";
            return false;
        }
        if (!parse_size(size, &bs->bytes[bs->n])) {
            *why = "a block size is not a multiple of 512 bytes up to 8 MiB";
            return false;
        }
        if (slash && slash[1]) {
            if (!parse_uint(slash + 1, 0, 100, &pct)) {
                *why = "a percentage is not a whole number 0..100";
                return false;
            }
            bs->pct[bs->n] = pct;
            sum += pct;
        } else {
            bs->pct[bs->n] = -1;
            empty++;
        }
        bs->n++;
    }
    if (!bs->n) {
        *why = "no block sizes";
        return false;
    }
    if (sum > 100 || (!empty && sum != 100)) {
        *why = "the percentages do not add up to 100";
        return false;
    }
    for (unsigned i = 0; i < bs->n; i++) {
        if (bs->pct[i] < 0) {
            bs->pct[i] = (100 - sum) / empty;
        }
    }
    return true;
}

static void split_single(NvmBsSplit *bs, uint32_t bytes)
{
    memset(bs, 0, sizeof(*bs));
    bs->n = 1;
    bs->bytes[0] = bytes;
    bs->pct[0] = 100;
}

/* bsearch: @key against one name of nvm_fio_options (sorted by strcmp) */
static int cmp_name(const void *key, const void *elem)
{
    return strcmp(key, *(const char *const *)elem);
}

/* Whether fio takes @key (always, built without fio's list). */
static bool fio_knows(const char *key)
{
    return !NVM_FIO_HAVE_LIST ||
           bsearch(key, nvm_fio_options, NVM_FIO_N_OPTIONS,
                   sizeof(nvm_fio_options[0]), cmp_name);
}

/* One option of the subset; false with *why set when its value is bad. */
static bool apply_option(Parse *ps, const char *key, const char *val,
                         const char **why)
{
    NvmMix *m = ps->mix;
    unsigned u;

    if (!strcmp(key, "rw") || !strcmp(key, "readwrite")) {
        static const struct {
            const char *name;
            double read_pct;
            bool rand;
        } rws[] = {
            { "read", 100, false }, { "write", 0, false },
            { "randread", 100, true }, { "randwrite", 0, true },
            { "rw", 50, false }, { "readwrite", 50, false },
            { "randrw", 50, true },
        };

        for (unsigned i = 0; i < G_N_ELEMENTS(rws); i++) {
            if (val && !strcmp(val, rws[i].name)) {
                ps->rw_read_pct = rws[i].read_pct;
                ps->mixed_rw = rws[i].read_pct == 50;
                ps->rand_rw = rws[i].rand;
                return true;
            }
        }
        *why = "not one of read, write, randread, randwrite, rw, "
               "readwrite, randrw";
        return false;
    }
    if (!strcmp(key, "rwmixread") || !strcmp(key, "rwmixwrite")) {
        if (!val || !parse_uint(val, 0, 100, &u)) {
            *why = "not a whole percentage 0..100";
            return false;
        }
        ps->rwmix_read_pct = !strcmp(key, "rwmixread") ? u : 100 - u;
        ps->have_rwmix = true;
        return true;
    }
    if (!strcmp(key, "percentage_random")) {
        g_auto(GStrv) v = val ? g_strsplit(val, ",", -1) : NULL;
        unsigned n = v ? g_strv_length(v) : 0;

        if (n < 1 || n > 3) {
            *why = "not PCT[,PCT[,PCT]]";
            return false;
        }
        for (unsigned d = 0; d < NVM_DIRS; d++) {
            const char *s = v[d < n ? d : n - 1];

            if (!parse_uint(s, 0, 100, &u)) {
                *why = "not a whole percentage 0..100";
                return false;
            }
            ps->random_pct[d] = u;
        }
        ps->have_random = true;
        return true;
    }
    if (!strcmp(key, "bs") || !strcmp(key, "blocksize")) {
        g_auto(GStrv) v = val ? g_strsplit(val, ",", -1) : NULL;
        unsigned n = v ? g_strv_length(v) : 0;
        uint32_t b[NVM_DIRS];

        if (n < 1 || n > 3) {
            *why = "not SIZE[,SIZE[,SIZE]]";
            return false;
        }
        for (unsigned d = 0; d < NVM_DIRS; d++) {
            if (!parse_size(v[d < n ? d : n - 1], &b[d])) {
                *why = "not a multiple of 512 bytes up to 8 MiB";
                return false;
            }
        }
        if (!ps->have_bssplit) {
            split_single(&m->bs[NVM_DIR_READ], b[NVM_DIR_READ]);
            split_single(&m->bs[NVM_DIR_WRITE], b[NVM_DIR_WRITE]);
        }
        return true;
    }
    if (!strcmp(key, "bssplit")) {
        g_auto(GStrv) v = val ? g_strsplit(val, ",", -1) : NULL;
        unsigned n = v ? g_strv_length(v) : 0;

        if (n < 1 || n > 3) {
            *why = "not SPLIT[,SPLIT[,SPLIT]]";
            return false;
        }
        for (unsigned d = 0; d < NVM_DIRS; d++) {
            if (!parse_split(v[d < n ? d : 0], &m->bs[d], why)) {
                return false;
            }
        }
        ps->have_bssplit = true;
        return true;
    }
    if (!strcmp(key, "iodepth")) {
        if (!val || !parse_uint(val, 1, NVM_JOB_MAX_OUTSTANDING,
                                &m->iodepth)) {
            *why = "not a whole number 1..4096";
            return false;
        }
        return true;
    }
    if (!strcmp(key, "numjobs")) {
        if (!val || !parse_uint(val, 1, 256, &m->numjobs)) {
            *why = "not a whole number 1..256";
            return false;
        }
        return true;
    }
    if (!strcmp(key, "thinktime")) {
        /* fio: microseconds when the unit is omitted */
        if (!val || !parse_time(val, 1000, &m->think_ns)) {
            *why = "not a time (us, ms or s) up to an hour";
            return false;
        }
        ps->have_think = m->think_ns > 0;
        return true;
    }
    if (!strcmp(key, "thinktime_iotime")) {
        /* fio: seconds when the unit is omitted */
        if (!val || !parse_time(val, 1000000000, &m->think_iotime_ns)) {
            *why = "not a time (us, ms or s) up to an hour";
            return false;
        }
        ps->have_iotime = m->think_iotime_ns > 0;
        return true;
    }
    if (!strcmp(key, "sync")) {
        /*
         * fio: sync=1 (or sync, dsync) opens the file O_SYNC (O_DSYNC):
         * with direct=1 on a block device every write carries FUA
         */
        if (val && (!strcmp(val, "1") || !strcmp(val, "sync") ||
                    !strcmp(val, "dsync"))) {
            m->write_sync = true;
        } else if (val && (!strcmp(val, "0") || !strcmp(val, "none"))) {
            m->write_sync = false;
        } else {
            *why = "not one of 0, 1, none, sync, dsync";
            return false;
        }
        return true;
    }
    if (!strcmp(key, "thinktime_blocks") || !strcmp(key, "thinktime_spin") ||
        !strcmp(key, "rate") || !strcmp(key, "rate_iops") ||
        !strcmp(key, "rate_process") || !strcmp(key, "zonemode") ||
        !strcmp(key, "random_distribution") ||
        !strcmp(key, "bs_unaligned")) {
        *why = "not modelled by nvmimic sim (see "
               "harness/workloads/README.md)";
        return false;
    }
    if (!fio_knows(key)) {
        /* fio refuses it ("Bad option"): a typo, not an option to skip */
        *why = "not an option of " NVM_FIO_VERSION_TEXT
               " (fio --cmdhelp=KEY names the closest)";
        return false;
    }
    return true;                /* fio's alone */
}

/*
 * @v with each ${NAME} replaced by the environment's NAME, as fio reads a
 * job file (an unset one becomes "", as in fio); *@unset gets the first
 * name that was not set, for the error when the value then fails.
 */
static char *expand_env(const char *v, char **unset)
{
    GString *s = g_string_new(NULL);

    while (*v) {
        const char *end = v[0] == '$' && v[1] == '{' ? strchr(v + 2, '}')
                                                     : NULL;

        if (end && end > v + 2) {
            g_autofree char *name = g_strndup(v + 2, end - v - 2);
            const char *e = g_getenv(name);

            if (e) {
                g_string_append(s, e);
            } else if (!*unset) {
                *unset = g_steal_pointer(&name);
            }
            v = end + 1;
            continue;
        }
        g_string_append_c(s, *v++);
    }
    return g_string_free(s, FALSE);
}

NvmMix *nvm_jobfile_parse(const char *text, const char *origin,
                          const char *section, GError **errp)
{
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    Parse ps = { 0 };
    NvmMix *m = g_new0(NvmMix, 1);
    /* 0: before any section, 1: [global], 2: our job, 3: another job */
    int where = 0;
    bool found = false;

    ps.mix = m;
    ps.rw_read_pct = 100;       /* fio's default rw=read */
    m->iodepth = 1;
    m->numjobs = 1;
    split_single(&m->bs[NVM_DIR_READ], 4096);
    split_single(&m->bs[NVM_DIR_WRITE], 4096);

    for (unsigned ln = 0; lines[ln]; ln++) {
        g_autofree char *line = g_strstrip(g_strdup(lines[ln]));
        g_autofree char *val = NULL;
        g_autofree char *unset = NULL;
        char *eq;
        const char *why = NULL;

        if (!*line || *line == ';' || *line == '#') {
            continue;
        }
        if (*line == '[') {
            size_t len = strlen(line);
            g_autofree char *name = NULL;

            if (len < 3 || line[len - 1] != ']') {
                g_autofree char *q = nvm_quote40(line);

                JOB_ERR(errp, "%s:%u: malformed section header '%s'", origin,
                        ln + 1, q);
                nvm_mix_free(m);
                return NULL;
            }
            name = g_strndup(line + 1, len - 2);
            if (!strcmp(name, "global")) {
                where = found ? 3 : 1;
            } else if (!found && (!section || !strcmp(section, name))) {
                where = 2;
                found = true;
                m->name = g_strdup(name);
            } else {
                where = 3;
            }
            continue;
        }
        if (where == 0 || where == 3) {
            continue;
        }
        eq = strchr(line, '=');
        if (eq) {
            *eq = '\0';
            g_strchomp(line);
        }
        if (eq) {
            eq = g_strchug(eq + 1);
            val = expand_env(eq, &unset);
        }
        if (!apply_option(&ps, line, val, &why)) {
            g_autofree char *qk = nvm_quote40(line);
            g_autofree char *qv = nvm_quote40(eq ? eq : "");
            g_autofree char *qu = unset ? nvm_quote40(unset) : NULL;

            JOB_ERR(errp, "%s:%u: %s=%s: %s%s%s%s", origin, ln + 1, qk, qv,
                    why, qu ? " (${" : "", qu ? qu : "",
                    qu ? "} is not set in the environment, where fio "
                         "reads it)" : "");
            nvm_mix_free(m);
            return NULL;
        }
    }
    if (!found) {
        if (section) {
            JOB_ERR(errp, "%s: no job [%s]", origin, section);
        } else {
            JOB_ERR(errp, "%s: no job section", origin);
        }
        nvm_mix_free(m);
        return NULL;
    }
    /* rwmix* only matters to the mixed rw= types, given in either order */
    m->read_pct = ps.mixed_rw && ps.have_rwmix ? ps.rwmix_read_pct
                                               : ps.rw_read_pct;
    for (unsigned d = 0; d < NVM_DIRS; d++) {
        m->random_pct[d] = !ps.rand_rw ? 0 :
                           ps.have_random ? ps.random_pct[d] : 100;
    }
    if (ps.have_iotime && !ps.have_think) {
        JOB_ERR(errp, "%s: [%s]: thinktime_iotime needs thinktime", origin,
                m->name);
        nvm_mix_free(m);
        return NULL;
    }
    if (ps.have_think && !ps.have_iotime) {
        JOB_ERR(errp, "%s: [%s]: nvmimic sim models thinktime as bursts and "
                "needs thinktime_iotime with it", origin, m->name);
        nvm_mix_free(m);
        return NULL;
    }
    if (nvm_mix_outstanding(m) > NVM_JOB_MAX_OUTSTANDING) {
        JOB_ERR(errp, "%s: [%s]: iodepth x numjobs is %u, more than %u",
                origin, m->name, nvm_mix_outstanding(m),
                NVM_JOB_MAX_OUTSTANDING);
        nvm_mix_free(m);
        return NULL;
    }
    return m;
}

NvmMix *nvm_jobfile_load(const char *path, const char *section,
                         GError **errp)
{
    g_autofree char *text = NULL;

    /* fio job files are a few lines: 1 MiB is plenty */
    if (!nvm_text_file_load(path, 1 << 20, &text, errp)) {
        return NULL;
    }
    return nvm_jobfile_parse(text, path, section, errp);
}
