/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one option parser of every nvmimic command: a command describes its
 * options in a table (name, type, where the value goes, its help), and
 * nvm_opts_parse() reads argv by it, with the same --help, the same errors
 * (unknown, duplicated, missing value, out of range) and the same words
 * for every command; the same tables make `nvmimic help` and nvmimic.1.
 * Defaults live in the table too (.def, the command's presets), so the help
 * and the page print them from where the parser takes them.
 */
#ifndef NVMIMIC_OPTS_H
#define NVMIMIC_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <glib.h>

typedef enum {
    NVM_OPT_FLAG,       /* bool: given or not */
    NVM_OPT_STR,        /* const char *: any text */
    NVM_OPT_CHOICE,     /* const char *: one of .choices ("a|b|c") */
    NVM_OPT_U64,        /* uint64_t: a whole number in [min, max] */
    NVM_OPT_UINT,       /* unsigned: a whole number in [min, max] */
    NVM_OPT_DOUBLE,     /* double: a number in [min, max] ((min: >) */
    NVM_OPT_LIST,       /* GPtrArray of const char *: repeatable */
    NVM_OPT_CALL,       /* .parse(base, value, &why): repeatable */
} NvmOptType;

typedef struct NvmOpt {
    const char *name;           /* without "--"; NULL ends the table */
    NvmOptType type;
    size_t offset;              /* of the value in the command's options */
    const char *arg;            /* the value's name in the help: NAME, S */
    const char *help;           /* what it does; "\n" starts a new line */
    double min, max;            /* numbers (both 0: any) */
    bool min_open;              /* NVM_OPT_DOUBLE: min itself is refused */
    bool empty_ok;              /* NVM_OPT_STR: "" means something (none) */
    const char *choices;        /* NVM_OPT_CHOICE: "stated|implied" */
    bool (*parse)(void *base, const char *value, char **why);
    int given;                  /* offset + 1 of a bool set when given */
    /* The default, as it would be typed (read like a given value before
     * argv is, shown in the help as "(default DEF)"), or one worked out
     * when the command runs (.def_fn, e.g. a path from the environment),
     * or a rule the command applies (.def_doc alone): .def_doc says it. */
    const char *def;
    const char *(*def_fn)(void);
    const char *def_doc;
} NvmOpt;

/*
 * A command's presets: when @when holds, option @opt takes @value unless
 * it was given.  @when is a flag's name ("quick": it was given) or
 * "NAME=VALUE" (option NAME has that value, given or by a preset above).
 * An option takes the first preset that applies to it; the help shows
 * them after its default: "(default 30; --quick: 0.5)".
 */
typedef struct NvmOptPreset {
    const char *when;           /* NULL ends the table */
    const char *opt;
    const char *value;
} NvmOptPreset;

/* A table entry (designated, so the unused members need not be named);
 * NVM_OPT_END ends a table.  S is the command's options struct. */
#define NVM_OPT(n, t, off, a, h, ...) \
    { .name = (n), .type = (t), .offset = (off), .arg = (a), .help = (h), \
      __VA_ARGS__ }
#define NVM_OPT_END { .name = NULL }
#define NVM_OPT_AT(S, f) offsetof(S, f)
#define NVM_OPT_GIVEN(S, f) ((int)offsetof(S, f) + 1)

/* A command of nvmimic (nvmimic.c's table). */
typedef struct NvmCommand {
    const char *name;
    const char *synopsis;       /* after "nvmimic NAME " */
    const char *summary;        /* one line for nvmimic --help */
    const char *description;    /* paragraphs for --help and nvmimic.1 */
    const NvmOpt *opts;
    const char *args;           /* positional arguments' name, NULL: none */
    unsigned min_args, max_args;    /* max 0: any number */
    int (*main)(int argc, char **argv);     /* argv[0]: the name */
    const NvmOptPreset *presets;    /* or NULL */
} NvmCommand;

enum { NVM_OPTS_OK = 0, NVM_OPTS_HELP = -1 };

/*
 * Read argv[1..] (argv[0] is the command's name) by @cmd->opts into the
 * struct at @base, after the defaults and before the presets (above);
 * positional arguments go to @args (NULL: none taken).
 * --help and -h print the command's help.  Returns NVM_OPTS_OK,
 * NVM_OPTS_HELP (the help was printed: exit 0), or 2 after one line on
 * stderr: "nvmimic NAME: MESSAGE (see nvmimic NAME --help)".
 */
int nvm_opts_parse(const NvmCommand *cmd, int argc, char **argv, void *base,
                   GPtrArray *args);

/* As nvm_opts_parse(), and each option given on the command line (not by
 * a default or a preset) added to @given, when not NULL, as two entries:
 * its NvmOpt and its value as typed (NULL for a flag). */
int nvm_opts_parse_given(const NvmCommand *cmd, int argc, char **argv,
                         void *base, GPtrArray *args, GPtrArray *given);

/* "nvmimic NAME: MESSAGE (see nvmimic NAME --help)" on stderr; 2. */
int nvm_opts_error(const NvmCommand *cmd, const char *fmt, ...)
    G_GNUC_PRINTF(2, 3);

/* The command's line in nvmimic --help. */
void nvm_opts_summary(const NvmCommand *cmd, FILE *f);
/* The command's --help. */
void nvm_opts_help(const NvmCommand *cmd, FILE *f);
/* The command's section of nvmimic.1 (troff). */
void nvm_opts_man(const NvmCommand *cmd, FILE *f);

#endif
