/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The option parser, the --help and the man page section of every command
 * (opts.h).  Options are "--name value" or "--name=value"; "--" ends them.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "opts.h"

#define HELP_COL 28             /* where an option's help starts */

int nvm_opts_error(const NvmCommand *cmd, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "nvmimic %s: ", cmd->name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (see nvmimic %s --help)\n", cmd->name);
    return 2;
}

static const NvmOpt *find(const NvmCommand *cmd, const char *name, size_t len)
{
    for (const NvmOpt *o = cmd->opts; o && o->name; o++) {
        if (strlen(o->name) == len && !strncmp(o->name, name, len)) {
            return o;
        }
    }
    return NULL;
}

static bool takes_value(const NvmOpt *o)
{
    return o->type != NVM_OPT_FLAG;
}

static bool repeatable(const NvmOpt *o)
{
    return o->type == NVM_OPT_LIST || o->type == NVM_OPT_CALL;
}

/* "1..64", "(0, 100]", "> 0", ">= 0" */
static char *range_text(const NvmOpt *o)
{
    bool whole = o->type == NVM_OPT_UINT || o->type == NVM_OPT_U64;

    if (o->min == 0 && o->max == 0) {
        return g_strdup(whole ? "" : o->min_open ? " > 0" : "");
    }
    if (whole) {
        return g_strdup_printf(" in %.0f..%.0f", o->min, o->max);
    }
    if (o->max == 0 || isinf(o->max)) {
        return g_strdup_printf(" %s %g", o->min_open ? ">" : ">=", o->min);
    }
    return g_strdup_printf(" in %c%g, %g]", o->min_open ? '(' : '[', o->min,
                           o->max);
}

static bool parse_whole(const NvmOpt *o, const char *v, uint64_t *out)
{
    char *end;

    /* decimal, or hex after 0x; never octal (010 is ten, not eight) */
    bool hex = v[0] == '0' && (v[1] == 'x' || v[1] == 'X');

    errno = 0;
    *out = g_ascii_strtoull(v, &end, hex ? 16 : 10);
    if (errno || !*v || *end || !g_ascii_isdigit(*v)) {
        return false;
    }
    return (o->min == 0 && o->max == 0) ||
           ((double)*out >= o->min && (double)*out <= o->max);
}

static bool parse_number(const NvmOpt *o, const char *v, double *out)
{
    char *end;

    errno = 0;
    *out = g_ascii_strtod(v, &end);
    /* decimal only: strtod's hex floats (0x1p-1074) are not for people */
    if (errno || end == v || *end || !isfinite(*out) || strpbrk(v, "xX")) {
        return false;
    }
    if (o->min_open ? !(*out > o->min) : !(*out >= o->min)) {
        return false;
    }
    return o->max == 0 || *out <= o->max;
}

/* Store @v for @o at @base (@given: on the command line); 0, or the exit
 * status after a message. */
static int set_value(const NvmCommand *cmd, const NvmOpt *o, void *base,
                     const char *v, bool given)
{
    char *at = (char *)base + o->offset;
    g_autofree char *range = range_text(o);

    switch (o->type) {
    case NVM_OPT_FLAG:
        *(bool *)at = true;
        break;
    case NVM_OPT_STR:
        /* a name, a path, a list: none is empty ('--out ""' used to reach
         * mkdir as "" and fail as ": Invalid argument"); extra arguments
         * may be none (.empty_ok) */
        if (!*v && !o->empty_ok) {
            return nvm_opts_error(cmd, "--%s: an empty value", o->name);
        }
        *(const char **)at = v;
        break;
    case NVM_OPT_CHOICE: {
        g_auto(GStrv) ok = g_strsplit(o->choices, "|", -1);

        if (!g_strv_contains((const char *const *)ok, v)) {
            g_autofree char *l = g_strjoinv(", ", ok);

            return nvm_opts_error(cmd, "--%s '%s' is not one of %s", o->name,
                                  v, l);
        }
        *(const char **)at = v;
        break;
    }
    case NVM_OPT_U64:
    case NVM_OPT_UINT: {
        uint64_t n;

        if (!parse_whole(o, v, &n)) {
            return nvm_opts_error(cmd, "--%s '%s' must be a whole number%s",
                                  o->name, v, range);
        }
        if (o->type == NVM_OPT_U64) {
            *(uint64_t *)at = n;
        } else {
            *(unsigned *)at = (unsigned)n;
        }
        break;
    }
    case NVM_OPT_DOUBLE:
        if (!parse_number(o, v, (double *)at)) {
            return nvm_opts_error(cmd, "--%s '%s' must be a number%s",
                                  o->name, v, range);
        }
        break;
    case NVM_OPT_LIST: {
        GPtrArray **list = (GPtrArray **)at;

        if (!*list) {
            *list = g_ptr_array_new();
        }
        g_ptr_array_add(*list, (gpointer)v);
        break;
    }
    case NVM_OPT_CALL: {
        g_autofree char *why = NULL;

        if (!o->parse(base, v, &why)) {
            return nvm_opts_error(cmd, "--%s %s", o->name, why);
        }
        break;
    }
    }
    if (o->given && given) {
        *(bool *)((char *)base + o->given - 1) = true;
    }
    return 0;
}

/* Every option's default from the table; 0, or 2 for a default its own
 * option refuses (a mistake in the table, said as such). */
static int set_defaults(const NvmCommand *cmd, void *base)
{
    for (const NvmOpt *o = cmd->opts; o && o->name; o++) {
        const char *v = o->def_fn ? o->def_fn() : o->def;

        if (v && set_value(cmd, o, base, v, false)) {
            fprintf(stderr, "nvmimic %s: the table's default of --%s is "
                    "refused (a bug)\n", cmd->name, o->name);
            return 2;
        }
    }
    return 0;
}

/* Does a preset's condition hold: a flag set, or NAME=VALUE? */
static bool preset_holds(const NvmCommand *cmd, const NvmOptPreset *ps,
                         void *base)
{
    const char *eq = strchr(ps->when, '=');
    const NvmOpt *o = find(cmd, ps->when, eq ? (size_t)(eq - ps->when)
                                              : strlen(ps->when));
    char *at = o ? (char *)base + o->offset : NULL;

    if (!o) {
        return false;
    }
    if (!eq) {
        return o->type == NVM_OPT_FLAG && *(bool *)at;
    }
    return (o->type == NVM_OPT_STR || o->type == NVM_OPT_CHOICE) &&
           !g_strcmp0(*(const char **)at, eq + 1);
}

/* The presets that hold, in order, on options not given (@seen); an option
 * takes the first that applies to it.  0, or 2 (a bug in the table). */
static int set_presets(const NvmCommand *cmd, void *base, GHashTable *seen)
{
    g_autoptr(GHashTable) set = g_hash_table_new(NULL, NULL);

    for (const NvmOptPreset *ps = cmd->presets; ps && ps->when; ps++) {
        const NvmOpt *o = find(cmd, ps->opt, strlen(ps->opt));

        if (!o || g_hash_table_contains(seen, o) ||
            g_hash_table_contains(set, o) || !preset_holds(cmd, ps, base)) {
            continue;
        }
        if (set_value(cmd, o, base, ps->value, false)) {
            fprintf(stderr, "nvmimic %s: the table's --%s preset of --%s is "
                    "refused (a bug)\n", cmd->name, ps->when, o->name);
            return 2;
        }
        g_hash_table_add(set, (gpointer)o);
    }
    return 0;
}

int nvm_opts_parse(const NvmCommand *cmd, int argc, char **argv, void *base,
                   GPtrArray *args)
{
    return nvm_opts_parse_given(cmd, argc, argv, base, args, NULL);
}

int nvm_opts_parse_given(const NvmCommand *cmd, int argc, char **argv,
                         void *base, GPtrArray *args, GPtrArray *given)
{
    g_autoptr(GHashTable) seen = g_hash_table_new(NULL, NULL);
    bool only_args = false;
    unsigned n_args = 0;
    int rc;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--")) {
            break;
        }
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            nvm_opts_help(cmd, stdout);
            return NVM_OPTS_HELP;
        }
    }
    rc = set_defaults(cmd, base);
    if (rc) {
        return rc;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *eq, *v = NULL;
        const NvmOpt *o;

        if (only_args || a[0] != '-' || !a[1]) {
            if (!args || (cmd->max_args && n_args == cmd->max_args)) {
                return nvm_opts_error(cmd, "unexpected argument '%s'", a);
            }
            g_ptr_array_add(args, (gpointer)a);
            n_args++;
            continue;
        }
        if (!strcmp(a, "--")) {
            only_args = true;
            continue;
        }
        eq = strchr(a, '=');
        o = strncmp(a, "--", 2) ? NULL :
            find(cmd, a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2));
        if (!o) {
            g_autofree char *name = eq ? g_strndup(a, eq - a) : g_strdup(a);

            return nvm_opts_error(cmd, "unknown option '%s'", name);
        }
        if (g_hash_table_contains(seen, o) && !repeatable(o)) {
            return nvm_opts_error(cmd, "option --%s given twice", o->name);
        }
        g_hash_table_add(seen, (gpointer)o);
        if (takes_value(o)) {
            if (eq) {
                v = eq + 1;
            } else if (i + 1 < argc) {
                v = argv[++i];
            } else {
                return nvm_opts_error(cmd, "option --%s needs a value (%s)",
                                      o->name, o->arg ? o->arg : "VALUE");
            }
        } else if (eq) {
            return nvm_opts_error(cmd, "option --%s takes no value",
                                  o->name);
        }
        rc = set_value(cmd, o, base, v, true);
        if (rc) {
            return rc;
        }
        if (given) {
            g_ptr_array_add(given, (gpointer)o);
            g_ptr_array_add(given, (gpointer)v);
        }
    }
    if (args && n_args < cmd->min_args) {
        return nvm_opts_error(cmd, "needs %s", cmd->args);
    }
    return set_presets(cmd, base, seen);
}

/*
 * An option's help as the table has it: its text, then "(repeatable)",
 * then its default and the presets that change it: "(default 30; --quick:
 * 0.5)".
 */
static char *help_text(const NvmCommand *cmd, const NvmOpt *o)
{
    GString *s = g_string_new(o->help);
    const char *def = o->def_doc ? o->def_doc : o->def;
    bool open = false;

    if (repeatable(o)) {
        g_string_append(s, " (repeatable)");
    }
    if (def) {
        g_string_append_printf(s, " (default %s", def);
        open = true;
    }
    for (const NvmOptPreset *ps = cmd->presets; ps && ps->when; ps++) {
        g_autofree char *when = g_strdelimit(g_strdup(ps->when), "=", ' ');

        if (strcmp(ps->opt, o->name)) {
            continue;
        }
        g_string_append_printf(s, "%s--%s: %s", open ? "; " : " (", when,
                               ps->value);
        open = true;
    }
    if (open) {
        g_string_append_c(s, ')');
    }
    return g_string_free(s, FALSE);
}

/* "--name ARG" as the help and the man page show it */
static char *opt_label(const NvmOpt *o)
{
    if (!takes_value(o)) {
        return g_strdup_printf("--%s", o->name);
    }
    return g_strdup_printf("--%s %s", o->name,
                           o->type == NVM_OPT_CHOICE && !o->arg ? o->choices :
                           o->arg ? o->arg : "VALUE");
}

/* @text from column @col on, after a line already @at long, its words
 * wrapped at 79 columns ("\n" in @text is a space like any other). */
static void wrap(FILE *f, const char *text, int col, int at)
{
    g_autofree char *flat = g_strdelimit(g_strdup(text), "\n", ' ');
    g_auto(GStrv) words = g_strsplit(flat, " ", -1);
    bool first = true;

    if (at > 0 && at + 1 > col) {       /* no room for a space */
        fputc('\n', f);
        at = 0;
    }
    fprintf(f, "%*s", col - at, "");
    at = col;
    for (char **w = words; *w; w++) {
        int len = (int)strlen(*w);

        if (!len) {
            continue;
        }
        if (!first && at + 1 + len > 79) {
            fprintf(f, "\n%*s", col, "");
            at = col;
        } else if (!first) {
            fputc(' ', f);
            at++;
        }
        fputs(*w, f);
        at += len;
        first = false;
    }
    fputc('\n', f);
}

void nvm_opts_summary(const NvmCommand *cmd, FILE *f)
{
    int col0 = fprintf(f, "  %s", cmd->name);

    wrap(f, cmd->summary, 16, col0);
}

void nvm_opts_help(const NvmCommand *cmd, FILE *f)
{
    fprintf(f, "usage: nvmimic %s %s\n", cmd->name, cmd->synopsis);
    wrap(f, cmd->summary, 0, 0);
    if (cmd->description && *cmd->description) {
        fprintf(f, "\n%s", cmd->description);
    }
    fputs("\noptions:\n", f);
    for (const NvmOpt *o = cmd->opts; o && o->name; o++) {
        g_autofree char *label = opt_label(o);
        g_autofree char *help = help_text(cmd, o);
        int col0 = fprintf(f, "  %s", label);

        wrap(f, help, HELP_COL, col0);
    }
    fprintf(f, "  -h, --help%*sthis help\n", HELP_COL - 12, "");
}

/* troff: backslashes escaped, a leading '.' or '\'' made literal, "--" as
 * two minus signs (options stay copyable) */
static void man_text(FILE *f, const char *s)
{
    char prev = '\n';

    for (const char *c = s; *c; prev = *c++) {
        if (prev == '\n' && (*c == '.' || *c == '\'')) {
            fputs("\\&", f);
        }
        if (*c == '\\') {
            fputs("\\e", f);
        } else if (*c == '-' && (c[1] == '-' || prev == '-')) {
            fputs("\\-", f);
        } else {
            fputc(*c, f);
        }
    }
}

void nvm_opts_man(const NvmCommand *cmd, FILE *f)
{
    fprintf(f, ".SS \"nvmimic %s\"\n.B nvmimic %s\n", cmd->name, cmd->name);
    man_text(f, cmd->synopsis);
    fputs("\n.PP\n", f);
    man_text(f, cmd->summary);
    fputc('\n', f);
    if (cmd->description && *cmd->description) {
        fputs(".PP\n.nf\n", f);
        man_text(f, cmd->description);
        fputs(".fi\n", f);
    }
    for (const NvmOpt *o = cmd->opts; o && o->name; o++) {
        g_autofree char *text = help_text(cmd, o);
        g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
        g_autofree char *help = g_strjoinv(" ", lines);
        g_autofree char *name = g_strdup_printf("--%s", o->name);

        fputs(".TP\n\\fB", f);
        man_text(f, name);
        fputs("\\fR", f);
        if (takes_value(o)) {
            fputs(" \\fI", f);
            man_text(f, o->type == NVM_OPT_CHOICE && !o->arg ? o->choices :
                        o->arg ? o->arg : "VALUE");
            fputs("\\fR", f);
        }
        fputc('\n', f);
        man_text(f, help);
        fputc('\n', f);
    }
}
