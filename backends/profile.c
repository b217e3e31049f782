/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Drive profiles: reading profile files, composing a drive file with the
 * parts it names into one key set, and the loading API (profile-parse.c
 * parses the set, profile-keys.c holds the keys).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile-int.h"

/* Fill in the name (file name without .ini) and path of a parsed profile. */
static NvmProfile *profile_named(NvmProfile *p, const char *path)
{
    char *base;

    p->path = g_strdup(path);
    base = g_path_get_basename(path);
    if (g_str_has_suffix(base, ".ini")) {
        base[strlen(base) - 4] = 0;
    }
    p->name = base;
    return p;
}

/* A profile is a few KiB of text: a bound for files that are not one. */
#define NVM_PROFILE_MAX_BYTES (1 << 20)

/*
 * Read @path whole: a regular file of at most NVM_PROFILE_MAX_BYTES.  The
 * name is the user's (profile= can be any file QEMU may read), so errors
 * name the file and the problem, never what it holds.
 */
static char *read_profile_file(const char *path, gsize *len, GError **errp)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    char *data;
    struct stat st;
    gsize got = 0;
    int e = 0;

    if (fd < 0 || fstat(fd, &st) < 0) {
        e = errno;
        g_set_error(errp, G_FILE_ERROR, g_file_error_from_errno(e), "%s: %s",
                    path, g_strerror(e));
        if (fd >= 0) {
            close(fd);
        }
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        g_set_error(errp, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "%s: not a regular file", path);
        close(fd);
        return NULL;
    }
    /* st_size may be stale: read at most one byte past the limit */
    data = g_malloc(NVM_PROFILE_MAX_BYTES + 1);
    while (got <= NVM_PROFILE_MAX_BYTES) {
        ssize_t n = read(fd, data + got, NVM_PROFILE_MAX_BYTES + 1 - got);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            e = errno;
        }
        if (n <= 0) {
            break;
        }
        got += n;
    }
    close(fd);
    if (e) {
        g_set_error(errp, G_FILE_ERROR, g_file_error_from_errno(e), "%s: %s",
                    path, g_strerror(e));
    } else if (got > NVM_PROFILE_MAX_BYTES) {
        g_set_error(errp, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "%s: larger than %d bytes, the most a profile may have",
                    path, NVM_PROFILE_MAX_BYTES);
    }
    if (e || got > NVM_PROFILE_MAX_BYTES) {
        g_free(data);
        return NULL;
    }
    data = g_realloc(data, got + 1);
    data[got] = 0;
    *len = got;
    return data;
}

/*
 * The first line of @text that GKeyFile refuses: not blank, a # comment,
 * a [group] or a key = value after a group (0 when none is found).
 */
static unsigned first_bad_line(const char *text, gsize len)
{
    g_autofree char *copy = NULL;
    g_auto(GStrv) lines = NULL;
    bool in_group = false;

    if (!g_utf8_validate(text, len, NULL) || memchr(text, 0, len)) {
        return 0;
    }
    /* @text holds @len bytes and need not end in a NUL */
    copy = g_strndup(text, len);
    lines = g_strsplit(copy, "\n", -1);
    for (unsigned i = 0; lines[i]; i++) {
        const char *l = g_strstrip(lines[i]);
        size_t n = strlen(l);

        if (!n || l[0] == '#') {
            continue;
        }
        if (l[0] == '[' && l[n - 1] == ']') {
            in_group = true;
            continue;
        }
        if (!in_group || !strchr(l, '=') || l[0] == '=') {
            return i + 1;
        }
    }
    return 0;
}

/*
 * The first key = value line of @text whose key holds a '[' (0: none).
 * GKeyFile takes "key[xx] = v" for a translation of key and lists no
 * such key, so the unknown-key check would never see it.
 */
static unsigned first_locale_key_line(const char *text, gsize len)
{
    g_autofree char *copy = g_strndup(text, len);
    g_auto(GStrv) lines = g_strsplit(copy, "\n", -1);

    for (unsigned i = 0; lines[i]; i++) {
        const char *l = g_strchug(lines[i]);
        const char *eq = strchr(l, '=');
        const char *br = strchr(l, '[');

        if (l[0] != '#' && l[0] != '[' && eq && br && br < eq) {
            return i + 1;
        }
    }
    return 0;
}

/* @data (of @path) as a key file; NULL with one line naming the file. */
static GKeyFile *load_key_data(const char *path, const char *data,
                               size_t len, GError **errp)
{
    GKeyFile *kf = g_key_file_new();
    g_autoptr(GError) err = NULL;
    const char *nul = memchr(data, 0, len);
    unsigned bad;

    /* GKeyFile would end the line there: "Cru\0cial" would load as "Cru" */
    if (nul) {
        unsigned line = 1;

        for (const char *c = data; c < nul; c++) {
            line += *c == '\n';
        }
        g_set_error(errp, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE,
                    "%s: not a profile: line %u holds a NUL byte", path,
                    line);
        g_key_file_free(kf);
        return NULL;
    }
    bad = first_locale_key_line(data, len);
    if (bad) {
        g_set_error(errp, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE,
                    "%s: not a profile: line %u: a key with [...] (a key "
                    "file's translation) is no profile key", path, bad);
        g_key_file_free(kf);
        return NULL;
    }
    if (!g_key_file_load_from_data(kf, data, len, G_KEY_FILE_NONE, &err)) {
        /* GKeyFile's message quotes the offending line: not repeated */
        bad = first_bad_line(data, len);
        if (bad) {
            g_set_error(errp, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE,
                        "%s: not a profile: line %u is not a [group], a "
                        "key = value in a group or a # comment", path, bad);
        } else {
            g_set_error(errp, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE,
                        "%s: not a profile: not a key file of UTF-8 text",
                        path);
        }
        g_key_file_free(kf);
        return NULL;
    }
    return kf;
}

/* ------------------------------------------------------------------ */
/*
 * Composition: a drive file may name shared part files in [parts]
 * (nand = NAME, controller = NAME), found as parts/<kind>/NAME.ini beside
 * the drive file or under the search directory.  Their keys and the
 * drive's are merged into one key set, each key set by exactly one file
 * (a drive does not override its parts), then checked as one profile.
 * [fit] sections name the keys of their own file that `nvmimic fit` may
 * change ("group.key = LO..HI").
 */

typedef struct Compose {
    GKeyFile *kf;               /* the composed key set */
    Src src;
    GPtrArray *files;           /* owns the file names src points to */
    GArray *free;               /* NvmFreeParam */
    char *part_name[3];
} Compose;

static void compose_clear(Compose *c)
{
    if (c->kf) {
        g_key_file_free(c->kf);
    }
    if (c->src.by_key) {
        g_hash_table_destroy(c->src.by_key);
    }
    if (c->files) {
        g_ptr_array_free(c->files, TRUE);
    }
    if (c->free) {
        for (unsigned i = 0; i < c->free->len; i++) {
            NvmFreeParam *f = &g_array_index(c->free, NvmFreeParam, i);

            g_free(f->group);
            g_free(f->key);
            g_free(f->file);
        }
        g_array_free(c->free, TRUE);
    }
    for (int i = 0; i < 3; i++) {
        g_free(c->part_name[i]);
    }
    memset(c, 0, sizeof(*c));
}

static const char *compose_keep(Compose *c, const char *file)
{
    char *f = g_strdup(file);

    g_ptr_array_add(c->files, f);
    return f;
}

/* [fit] of @file: "group.key = LO..HI" for keys @file itself sets. */
static bool compose_fit(Compose *c, GKeyFile *kf, const char *file,
                        GError **errp)
{
    g_auto(GStrv) keys = g_key_file_get_keys(kf, "fit", NULL, NULL);

    for (char **k = keys; k && *k; k++) {
        g_autofree char *val = g_key_file_get_value(kf, "fit", *k, NULL);
        const char *dot = strchr(*k, '.');
        g_autofree char *group = dot ? g_strndup(*k, dot - *k) : NULL;
        NvmFreeParam fp = { 0 };
        const KeyDesc *d;
        char *end = NULL, *sep;
        g_autofree char *shown = NULL;

        d = dot ? nvm_prof_find_key(group, dot + 1) : NULL;
        if (!d || d->type != KT_DBL) {
            nvm_prof_set_err(errp, file, "fit", *k, "not a numeric key of the "
                             "profile (write group.key, e.g. "
                             "nand.read-us-tlc)");
            return false;
        }
        if (!g_key_file_has_key(kf, group, dot + 1, NULL)) {
            nvm_prof_set_err(errp, file, "fit", *k,
                             "this file does not set [%s] %s",
                             group, dot + 1);
            return false;
        }
        g_strstrip(val);
        shown = nvm_prof_quote_value(val);
        /* "LO..HI prior P": where cross-validation starts (nvmimic fit) */
        sep = strstr(val, "prior");
        if (sep) {
            char *pv = sep + strlen("prior");

            *sep = 0;
            g_strchomp(val);
            fp.prior = g_ascii_strtod(pv, &end);
            while (*end == ' ' || *end == '\t') {
                end++;
            }
            if (end == pv || *end) {
                nvm_prof_set_err(errp, file, "fit", *k,
                                 "'%s': the prior is not a number", shown);
                return false;
            }
            fp.has_prior = true;
        }
        sep = strstr(val, "..");
        if (sep) {
            *sep = 0;
            fp.lo = g_ascii_strtod(val, &end);
        }
        if (!sep || *end || end == val) {
            nvm_prof_set_err(errp, file, "fit", *k,
                             "'%s' is not a range LO..HI",
                             shown);
            return false;
        }
        fp.hi = g_ascii_strtod(sep + 2, &end);
        if (*end || end == sep + 2 || !(fp.lo > 0 && fp.lo < fp.hi) ||
            fp.lo < d->b.min || fp.hi > d->b.max) {
            nvm_prof_set_err(errp, file, "fit", *k,
                             "'%s' is not a range LO..HI "
                             "with 0 < LO < HI inside the key's bounds", shown);
            return false;
        }
        if (fp.has_prior && !(fp.prior >= fp.lo && fp.prior <= fp.hi)) {
            nvm_prof_set_err(errp, file, "fit", *k,
                             "'%s': the prior is outside LO..HI", shown);
            return false;
        }
        fp.group = g_strdup(group);
        fp.key = g_strdup(dot + 1);
        fp.file = g_strdup(file);
        g_array_append_val(c->free, fp);
    }
    return true;
}

/* Add the keys of @kf (from @file, a @kind file) to the composed set. */
static bool compose_add(Compose *c, GKeyFile *kf, const char *file,
                        KeyPart kind, bool has_parts, GError **errp)
{
    g_auto(GStrv) groups = g_key_file_get_groups(kf, NULL);
    const char *f = compose_keep(c, file);

    for (char **g = groups; *g; g++) {
        g_auto(GStrv) keys = NULL;

        if (!strcmp(*g, "parts") || !strcmp(*g, "fit")) {
            continue;
        }
        keys = g_key_file_get_keys(kf, *g, NULL, NULL);
        for (char **k = keys; *k; k++) {
            g_autofree char *val = g_key_file_get_value(kf, *g, *k, NULL);
            g_autofree char *id = g_strconcat(*g, "\n", *k, NULL);
            const char *prev = g_hash_table_lookup(c->src.by_key, id);
            KeyPart home = nvm_prof_key_part(*g, *k);

            if (prev) {
                nvm_prof_set_err(errp, f, *g, *k,
                                 "also set in %s; a key is set in "
                                 "one file (a drive does not override its "
                                 "parts)",
                                 prev);
                return false;
            }
            if (kind != KP_DRIVE && home != kind && nvm_prof_find_key(*g, *k)) {
                nvm_prof_set_err(errp, f, *g, *k,
                                 "belongs in the %s file, not in "
                                 "a %s part", nvm_prof_part_names[home],
                                 nvm_prof_part_names[kind]);
                return false;
            }
            if (kind == KP_DRIVE && has_parts && home != KP_DRIVE &&
                c->part_name[home] && nvm_prof_find_key(*g, *k)) {
                nvm_prof_set_err(errp, f, *g, *k, "belongs in the %s part (%s)",
                                 nvm_prof_part_names[home], c->part_name[home]);
                return false;
            }
            g_key_file_set_value(c->kf, *g, *k, val);
            g_hash_table_insert(c->src.by_key, g_steal_pointer(&id),
                                (gpointer)f);
        }
    }
    return compose_fit(c, kf, f, errp);
}

static bool part_name_ok(const char *n)
{
    if (!*n || *n == '.') {
        return false;
    }
    for (; *n; n++) {
        if (!g_ascii_isalnum(*n) && *n != '-' && *n != '_' && *n != '.') {
            return false;
        }
    }
    return true;
}

/* Compose @drive_kf (read from @path) with the parts it names. */
static bool compose(Compose *c, GKeyFile *drive_kf, const char *path,
                    const char *search_dir, GError **errp)
{
    g_autofree char *dir = g_path_get_dirname(path);
    bool has_parts = g_key_file_has_group(drive_kf, "parts");
    GKeyFile *part_kf[3] = { NULL };
    bool ok = false;

    c->kf = g_key_file_new();
    c->files = g_ptr_array_new_with_free_func(g_free);
    c->src.by_key = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                          NULL);
    c->src.drive = compose_keep(c, path);
    c->free = g_array_new(FALSE, TRUE, sizeof(NvmFreeParam));

    if (has_parts) {
        g_auto(GStrv) keys = g_key_file_get_keys(drive_kf, "parts", NULL,
                                                 NULL);

        for (char **k = keys; k && *k; k++) {
            KeyPart kind = !strcmp(*k, "nand") ? KP_NAND
                         : !strcmp(*k, "controller") ? KP_CONTROLLER
                         : KP_DRIVE;
            g_autofree char *name = g_key_file_get_value(drive_kf, "parts",
                                                         *k, NULL);
            g_autofree char *p1 = NULL, *p2 = NULL;
            const char *found = NULL;
            gsize len;

            if (kind == KP_DRIVE) {
                nvm_prof_set_err(errp, path, "parts", *k,
                                 "unknown key (parts are nand and controller)");
                goto out;
            }
            if (c->part_name[kind]) {
                nvm_prof_set_err(errp, path, "parts", *k, "set twice");
                goto out;
            }
            g_strstrip(name);
            if (!part_name_ok(name)) {
                g_autofree char *q = nvm_prof_quote_value(name);

                nvm_prof_set_err(errp, path, "parts", *k,
                                 "'%s' is not a part name",
                                 q);
                goto out;
            }
            p1 = g_strdup_printf("%s/parts/%s/%s.ini", dir, *k, name);
            if (search_dir) {
                p2 = g_strdup_printf("%s/parts/%s/%s.ini", search_dir, *k,
                                     name);
            }
            found = g_file_test(p1, G_FILE_TEST_IS_REGULAR) ? p1
                  : p2 && g_file_test(p2, G_FILE_TEST_IS_REGULAR) ? p2
                  : NULL;
            if (!found) {
                nvm_prof_set_err(errp, path, "parts", *k,
                                 "no %s part '%s' (looked "
                                 "for %s%s%s)", *k, name, p1, p2 ? " and " : "",
                                 p2 ? p2 : "");
                goto out;
            }
            {
                g_autofree char *text = read_profile_file(found, &len, errp);

                part_kf[kind] = text ? load_key_data(found, text, len, errp)
                                     : NULL;
                if (!part_kf[kind]) {
                    goto out;
                }
            }
            c->part_name[kind] = g_strdup(name);
            c->src.part_file[kind] = compose_keep(c, found);
        }
        for (int i = KP_NAND; i <= KP_CONTROLLER; i++) {
            if (part_kf[i] && !compose_add(c, part_kf[i],
                                           c->src.part_file[i], i, true,
                                           errp)) {
                goto out;
            }
        }
    }
    ok = compose_add(c, drive_kf, path, KP_DRIVE, has_parts, errp);
out:
    for (int i = 0; i < 3; i++) {
        if (part_kf[i]) {
            g_key_file_free(part_kf[i]);
        }
    }
    return ok;
}

/* Parse the composed set into a profile named after @path. */
static NvmProfile *compose_parse(Compose *c, const char *path, GError **errp)
{
    NvmProfile *p = g_new0(NvmProfile, 1);

    p->nand_part = g_strdup(c->part_name[KP_NAND]);
    p->controller_part = g_strdup(c->part_name[KP_CONTROLLER]);
    p->nand_part_path = g_strdup(c->src.part_file[KP_NAND]);
    p->controller_part_path = g_strdup(c->src.part_file[KP_CONTROLLER]);
    if (!nvm_prof_profile_parse(c->kf, &c->src, p, errp)) {
        return NULL;
    }
    p->n_free_params = c->free->len;
    p->free_params = (NvmFreeParam *)g_array_free(c->free, FALSE);
    c->free = NULL;
    return profile_named(p, path);
}

NvmProfile *nvm_profile_load_data(const char *path, const char *data,
                                  size_t len, GError **errp)
{
    g_autoptr(GKeyFile) kf = load_key_data(path, data, len, errp);
    Compose c = { 0 };
    NvmProfile *p = NULL;

    if (!kf) {
        return NULL;
    }
    if (compose(&c, kf, path, NULL, errp)) {
        p = compose_parse(&c, path, errp);
    }
    compose_clear(&c);
    return p;
}

static char *profile_path(const char *name_or_path, const char *search_dir)
{
    if (strchr(name_or_path, '/') || g_str_has_suffix(name_or_path, ".ini")) {
        return g_strdup(name_or_path);
    }
    return g_strdup_printf("%s/%s.ini", search_dir ? search_dir : ".",
                           name_or_path);
}

/* Read and compose the drive file; false with the error set. */
static bool compose_file(Compose *c, const char *name_or_path,
                         const char *search_dir, char **path_out,
                         GError **errp)
{
    g_autofree char *text = NULL;
    g_autoptr(GKeyFile) kf = NULL;
    g_autoptr(GError) err = NULL;
    char *path;
    gsize len;

    if (!name_or_path || !*name_or_path) {
        g_set_error(errp, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "no profile name given");
        return false;
    }
    path = profile_path(name_or_path, search_dir);
    *path_out = path;
    text = read_profile_file(path, &len, &err);
    if (!text) {
        if (g_error_matches(err, G_FILE_ERROR, G_FILE_ERROR_NOENT)) {
            g_set_error(errp, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                        "%s: no such profile (try `nvmimic profiles`)",
                        path);
        } else {
            g_propagate_error(errp, g_steal_pointer(&err));
        }
        return false;
    }
    kf = load_key_data(path, text, len, errp);
    return kf && compose(c, kf, path, search_dir, errp);
}

NvmProfile *nvm_profile_load_with(const char *name_or_path,
                                  const char *search_dir,
                                  const char *const *overrides,
                                  GError **errp)
{
    g_autofree char *path = NULL;
    Compose c = { 0 };
    NvmProfile *p = NULL;

    if (compose_file(&c, name_or_path, search_dir, &path, errp)) {
        for (const char *const *o = overrides; o && o[0]; o += 3) {
            g_autofree char *id = NULL;

            if (!o[1] || !o[2]) {
                g_set_error(errp, G_KEY_FILE_ERROR,
                            G_KEY_FILE_ERROR_INVALID_VALUE,
                            "%s: incomplete override list", path);
                goto out;
            }
            id = g_strconcat(o[0], "\n", o[1], NULL);
            g_key_file_set_value(c.kf, o[0], o[1], o[2]);
            g_hash_table_insert(c.src.by_key, g_steal_pointer(&id),
                                (gpointer)"(override)");
        }
        p = compose_parse(&c, path, errp);
    }
out:
    compose_clear(&c);
    return p;
}

NvmProfile *nvm_profile_load(const char *name_or_path, const char *search_dir,
                             GError **errp)
{
    return nvm_profile_load_with(name_or_path, search_dir, NULL, errp);
}

char *nvm_profile_compose_text(const char *name_or_path,
                               const char *search_dir, GError **errp)
{
    g_autofree char *path = NULL;
    Compose c = { 0 };
    char *text = NULL;

    if (compose_file(&c, name_or_path, search_dir, &path, errp)) {
        text = g_key_file_to_data(c.kf, NULL, NULL);
    }
    compose_clear(&c);
    return text;
}

bool nvm_profile_compose_each(const char *name_or_path,
                              const char *search_dir, NvmProfileKeyFn fn,
                              void *opaque, GError **errp)
{
    g_autofree char *path = NULL;
    g_auto(GStrv) groups = NULL;
    Compose c = { 0 };
    NvmProfile *p = NULL;
    bool ok;

    if (compose_file(&c, name_or_path, search_dir, &path, errp)) {
        p = compose_parse(&c, path, errp);
    }
    ok = p != NULL;
    if (ok) {
        groups = g_key_file_get_groups(c.kf, NULL);
        for (char **g = groups; *g; g++) {
            g_auto(GStrv) keys = g_key_file_get_keys(c.kf, *g, NULL, NULL);

            for (char **k = keys; k && *k; k++) {
                g_autofree char *v = g_key_file_get_value(c.kf, *g, *k,
                                                          NULL);
                g_autofree char *id = g_strconcat(*g, "\n", *k, NULL);
                const char *file = g_hash_table_lookup(c.src.by_key, id);

                fn(*g, *k, g_strstrip(v), file ? file : c.src.drive, opaque);
            }
        }
        nvm_profile_free(p);
    }
    compose_clear(&c);
    return ok;
}

void nvm_profile_free(NvmProfile *p)
{
    if (!p) {
        return;
    }
    for (size_t i = 0; i < N_KEYS; i++) {
        if (nvm_prof_key_table[i].type == KT_STR) {
            g_free(*(char **)((char *)p + nvm_prof_key_table[i].off));
        }
    }
    for (unsigned i = 0; i < p->n_free_params; i++) {
        g_free(p->free_params[i].group);
        g_free(p->free_params[i].key);
        g_free(p->free_params[i].file);
    }
    g_free(p->free_params);
    g_free(p->nand_part);
    g_free(p->nand_part_path);
    g_free(p->controller_part);
    g_free(p->controller_part_path);
    g_free(p->name);
    g_free(p->path);
    g_free(p);
}

static gint cmp_str(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char **nvm_profile_list(const char *dir, GError **errp)
{
    g_autoptr(GDir) d = g_dir_open(dir, 0, errp);
    GPtrArray *names;
    const char *ent;

    if (!d) {
        return NULL;
    }
    names = g_ptr_array_new();
    while ((ent = g_dir_read_name(d))) {
        if (g_str_has_suffix(ent, ".ini")) {
            g_ptr_array_add(names, g_strndup(ent, strlen(ent) - 4));
        }
    }
    g_ptr_array_sort(names, cmp_str);
    g_ptr_array_add(names, NULL);
    return (char **)g_ptr_array_free(names, FALSE);
}
