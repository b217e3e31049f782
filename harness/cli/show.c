/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic profile show and nvmimic jobfile show: what nvmimic's own readers
 * make of a profile (its parts merged and checked, each value with the file
 * that sets it) and of a fio job file (the mix harness/sim runs), for the
 * scripts and tests that need those facts, so that none parses the files
 * again with rules of its own.
 */
#include <stdio.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "cli.h"
#include "jobfile.h"
#include "paths.h"

typedef struct ShowOpts {
    const char *profile_dir;
    const char *section;
    const char *key;
    bool json;
} ShowOpts;

/* "show" and its argument into *@arg: 0, -1 (--help), or the exit status
 * after a message. */
static int show_args(const NvmCommand *cmd, int argc, char **argv,
                     ShowOpts *o, const char **arg)
{
    g_autoptr(GPtrArray) args = g_ptr_array_new();
    int rc = nvm_opts_parse(cmd, argc, argv, o, args);

    if (rc) {
        return rc == NVM_OPTS_HELP ? -1 : rc;
    }
    if (strcmp(g_ptr_array_index(args, 0), "show") || args->len != 2) {
        return nvm_opts_error(cmd, "the subcommand is show %s",
                              cmd->args + strlen("show "));
    }
    *arg = g_ptr_array_index(args, 1);
    return 0;
}

static void print_json(JsonBuilder *b)
{
    g_autoptr(JsonGenerator) g = json_generator_new();
    g_autoptr(JsonNode) root = json_builder_get_root(b);
    g_autofree char *text = NULL;

    json_generator_set_root(g, root);
    json_generator_set_pretty(g, TRUE);
    json_generator_set_indent(g, 1);
    text = json_generator_to_data(g, NULL);
    printf("%s\n", text);
}

static void member_str(JsonBuilder *b, const char *name, const char *v)
{
    json_builder_set_member_name(b, name);
    if (v) {
        json_builder_add_string_value(b, v);
    } else {
        json_builder_add_null_value(b);
    }
}

/* ------------------------------------------------------------------ */
/* nvmimic profile show */

typedef struct ProfileKey {
    char *group, *key, *value, *file;
} ProfileKey;

static void profile_key_free(gpointer p)
{
    ProfileKey *k = p;

    g_free(k->group);
    g_free(k->key);
    g_free(k->value);
    g_free(k->file);
    g_free(k);
}

static void add_key(const char *group, const char *key, const char *value,
                    const char *file, void *opaque)
{
    ProfileKey *k = g_new0(ProfileKey, 1);

    k->group = g_strdup(group);
    k->key = g_strdup(key);
    k->value = g_strdup(value);
    k->file = g_strdup(file);
    g_ptr_array_add(opaque, k);
}

static void profile_json(const NvmProfile *p, GPtrArray *keys)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    const char *group = NULL;

    json_builder_begin_object(b);
    member_str(b, "name", p->name);
    member_str(b, "file", p->path);
    json_builder_set_member_name(b, "parts");
    json_builder_begin_object(b);
    if (p->nand_part) {
        json_builder_set_member_name(b, "nand");
        json_builder_begin_object(b);
        member_str(b, "name", p->nand_part);
        member_str(b, "file", p->nand_part_path);
        json_builder_end_object(b);
    }
    if (p->controller_part) {
        json_builder_set_member_name(b, "controller");
        json_builder_begin_object(b);
        member_str(b, "name", p->controller_part);
        member_str(b, "file", p->controller_part_path);
        json_builder_end_object(b);
    }
    json_builder_end_object(b);
    json_builder_set_member_name(b, "groups");
    json_builder_begin_object(b);
    for (guint i = 0; i < keys->len; i++) {
        const ProfileKey *k = g_ptr_array_index(keys, i);

        if (g_strcmp0(group, k->group)) {
            if (group) {
                json_builder_end_object(b);
            }
            group = k->group;
            json_builder_set_member_name(b, group);
            json_builder_begin_object(b);
        }
        json_builder_set_member_name(b, k->key);
        json_builder_begin_object(b);
        member_str(b, "value", k->value);
        member_str(b, "file", k->file);
        json_builder_end_object(b);
    }
    if (group) {
        json_builder_end_object(b);
    }
    json_builder_end_object(b);
    json_builder_end_object(b);
    print_json(b);
}

static void profile_text(const NvmProfile *p, GPtrArray *keys)
{
    const char *group = NULL;

    printf("# %s: %s", p->name, p->path);
    if (p->nand_part) {
        printf(", nand part %s", p->nand_part);
    }
    if (p->controller_part) {
        printf(", controller part %s", p->controller_part);
    }
    printf("\n");
    for (guint i = 0; i < keys->len; i++) {
        const ProfileKey *k = g_ptr_array_index(keys, i);

        if (g_strcmp0(group, k->group)) {
            group = k->group;
            printf("\n[%s]\n", group);
        }
        printf("%s = %s    # %s\n", k->key, k->value, k->file);
    }
}

/* --key GROUP.KEY: its value alone, for shell scripts. */
static int profile_one_key(const NvmProfile *p, GPtrArray *keys,
                           const char *want)
{
    for (guint i = 0; i < keys->len; i++) {
        const ProfileKey *k = g_ptr_array_index(keys, i);
        size_t n = strlen(k->group);

        if (!strncmp(want, k->group, n) && want[n] == '.' &&
            !strcmp(want + n + 1, k->key)) {
            printf("%s\n", k->value);
            return 0;
        }
    }
    fprintf(stderr, "nvmimic profile: %s: no key %s in it or its parts\n",
            p->path, want);
    return 1;
}

static int profile_main(int argc, char **argv)
{
    const NvmCommand *cmd = &nvm_cmd_profile;
    ShowOpts o = { 0 };
    g_autoptr(GError) err = NULL;
    g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func(
        profile_key_free);
    const char *name = NULL;
    NvmProfile *p;
    int rc = show_args(cmd, argc, argv, &o, &name);

    if (rc) {
        return rc < 0 ? 0 : rc;
    }
    if (o.json && o.key) {
        /* --key prints the bare value: there is no JSON of it to give */
        return nvm_opts_error(cmd, "takes --json or --key, not both");
    }
    p = nvm_profile_load(name, o.profile_dir, &err);
    if (!p || !nvm_profile_compose_each(name, o.profile_dir, add_key, keys,
                                        &err)) {
        fprintf(stderr, "nvmimic profile: %s\n", err->message);
        nvm_profile_free(p);
        return 1;
    }
    if (o.key) {
        rc = profile_one_key(p, keys, o.key);
    } else if (o.json) {
        profile_json(p, keys);
    } else {
        profile_text(p, keys);
    }
    nvm_profile_free(p);
    return rc;
}

#define O(f) NVM_OPT_AT(ShowOpts, f)

static const NvmOpt profile_opts[] = {
    NVM_OPT("json", NVM_OPT_FLAG, O(json), NULL,
            "as JSON: {name, file, parts: {nand, controller: {name,\n"
            "file}}, groups: {GROUP: {KEY: {value, file}}}}"),
    NVM_OPT("key", NVM_OPT_STR, O(key), "GROUP.KEY",
            "only that key's value, e.g. identity.capacity-bytes"),
    NVM_OPT_PROFILE_DIR(ShowOpts, profile_dir),
    NVM_OPT_END,
};

const NvmCommand nvm_cmd_profile = {
    .name = "profile",
    .synopsis = "show NAME|PATH [--json | --key GROUP.KEY] "
                "[--profile-dir DIR]",
    .summary = "A drive profile as nvmimic reads it: its parts merged, "
               "every value with the file that sets it.",
    .description =
"Loads the profile as the device and the model do (a profile that does not\n"
"load is an error naming the file and the key) and prints each key of the\n"
"drive file and its parts (profiles/parts/) as written, with the file that\n"
"sets it.  Scripts and tests read profiles through it.\n",
    .opts = profile_opts,
    .args = "show NAME|PATH",
    .min_args = 2,
    .max_args = 2,
    .main = profile_main,
};

/* ------------------------------------------------------------------ */
/* nvmimic jobfile show */

static void split_json(JsonBuilder *b, const NvmBsSplit *bs)
{
    json_builder_begin_array(b);
    for (unsigned i = 0; i < bs->n; i++) {
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "bytes");
        json_builder_add_int_value(b, bs->bytes[i]);
        json_builder_set_member_name(b, "pct");
        json_builder_add_double_value(b, bs->pct[i]);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
}

static void member_num(JsonBuilder *b, const char *name, double v)
{
    json_builder_set_member_name(b, name);
    json_builder_add_double_value(b, v);
}

static void member_int(JsonBuilder *b, const char *name, gint64 v)
{
    json_builder_set_member_name(b, name);
    json_builder_add_int_value(b, v);
}

static void mix_json(const NvmMix *m, const char *path)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    static const char *const dirs[NVM_DIRS] = { "read", "write" };

    json_builder_begin_object(b);
    member_str(b, "file", path);
    member_str(b, "job", m->name);
    member_num(b, "read_pct", m->read_pct);
    json_builder_set_member_name(b, "random_pct");
    json_builder_begin_object(b);
    for (int d = 0; d < NVM_DIRS; d++) {
        member_num(b, dirs[d], m->random_pct[d]);
    }
    json_builder_end_object(b);
    json_builder_set_member_name(b, "bssplit");
    json_builder_begin_object(b);
    for (int d = 0; d < NVM_DIRS; d++) {
        json_builder_set_member_name(b, dirs[d]);
        split_json(b, &m->bs[d]);
    }
    json_builder_end_object(b);
    member_int(b, "iodepth", m->iodepth);
    member_int(b, "numjobs", m->numjobs);
    member_int(b, "outstanding", nvm_mix_outstanding(m));
    member_num(b, "mean_block_bytes", nvm_mix_mean_block_bytes(m));
    member_int(b, "thinktime_ns", (gint64)m->think_ns);
    member_int(b, "thinktime_iotime_ns", (gint64)m->think_iotime_ns);
    json_builder_end_object(b);
    print_json(b);
}

static void mix_text(const NvmMix *m, const char *path)
{
    printf("%s [%s]: %.17g %% reads; random: reads %.17g %%, writes %.17g %%; "
           "iodepth %u x %u jobs, mean block %.1f bytes", path, m->name,
           m->read_pct, m->random_pct[NVM_DIR_READ],
           m->random_pct[NVM_DIR_WRITE], m->iodepth, m->numjobs,
           nvm_mix_mean_block_bytes(m));
    if (m->think_ns) {
        printf(", bursts %" G_GUINT64_FORMAT " ns on / %" G_GUINT64_FORMAT
               " ns idle", m->think_iotime_ns, m->think_ns);
    }
    printf("\n");
}

static int jobfile_main(int argc, char **argv)
{
    const NvmCommand *cmd = &nvm_cmd_jobfile;
    ShowOpts o = { 0 };
    g_autoptr(GError) err = NULL;
    const char *path = NULL;
    NvmMix *m;
    int rc = show_args(cmd, argc, argv, &o, &path);

    if (rc) {
        return rc < 0 ? 0 : rc;
    }
    m = nvm_jobfile_load(path, o.section, &err);
    if (!m) {
        fprintf(stderr, "nvmimic jobfile: %s\n", err->message);
        return 1;
    }
    if (o.json) {
        mix_json(m, path);
    } else {
        mix_text(m, path);
    }
    nvm_mix_free(m);
    return 0;
}

static const NvmOpt jobfile_opts[] = {
    NVM_OPT("json", NVM_OPT_FLAG, O(json), NULL,
            "as JSON: {file, job, read_pct, random_pct, bssplit, iodepth,\n"
            "numjobs, outstanding, mean_block_bytes, thinktime_ns,\n"
            "thinktime_iotime_ns}"),
    NVM_OPT("section", NVM_OPT_STR, O(section), "JOB",
            "the job of that name", .def_doc = "the file's first job"),
    NVM_OPT_END,
};

const NvmCommand nvm_cmd_jobfile = {
    .name = "jobfile",
    .synopsis = "show FILE [--json] [--section JOB]",
    .summary = "A fio job file as nvmimic sim reads it: the I/O mix it "
               "runs.",
    .description =
"Reads the subset of fio's job format that shapes an I/O mix (rw mix,\n"
"block-size split, random share, queue depth, jobs, bursts), as nvmimic sim\n"
"and the guest's nvmimic-load run it; an option of that subset fio or the\n"
"model would not take is an error naming the file and the line, and so is\n"
"a key fio itself does not take (a typo: the build lists fio's options).\n",
    .opts = jobfile_opts,
    .args = "show FILE",
    .min_args = 2,
    .max_args = 2,
    .main = jobfile_main,
};
