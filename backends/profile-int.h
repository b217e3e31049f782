/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The profile loader's internals, shared by its files: profile-keys.c (the
 * key table, its bounds and its lookups), profile-parse.c (a composed key
 * set checked and parsed into an NvmProfile) and profile.c (reading the
 * files, composing a drive with its parts, the loading API).  Nothing
 * outside backends/ includes it: the API is nvmimic-model.h.
 */
#ifndef NVMIMIC_PROFILE_INT_H
#define NVMIMIC_PROFILE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "nvmimic-model.h"

typedef enum KeyType {
    KT_STR,
    KT_U32,
    KT_U64,
    KT_I32,
    KT_DBL,
    KT_BOOL,
    KT_CELL,
    KT_MAP,
    KT_REVIEW,
    KT_PLACEMENT,
    KT_STEADY,
    KT_VERSION,
    KT_LBAF,
} KeyType;

/*
 * The enumerated key types with two names (cell mode, map kind, review
 * state, read placement, steady state): the names, the enum values they
 * stand for (each stored as the enum it is, an int), the type's name in
 * the key reference and the one-line reason a value is refused.  NULL for
 * the other types.
 */
typedef struct KeyChoice {
    const char *name[2];
    int value[2];
    const char *type_name;          /* "tlc|qlc" */
    const char *refused;            /* "not tlc or qlc" */
} KeyChoice;

const KeyChoice *nvm_prof_key_choice(KeyType t);

enum {
    KF_REQ = 1,         /* must be present */
    KF_POW2 = 2,        /* must be a power of two */
    KF_TLC = 4,         /* only (and required) when cell-mode = tlc */
    KF_QLC = 8,         /* only (and required) when cell-mode = qlc */
    KF_ASCII = 16,      /* printable ASCII (Identify fields) */
    KF_HEX = 32,        /* bounds shown in hex (IDs) */
};

/*
 * One profile key.  Every numeric key states its bounds: min and max are
 * inclusive, in unit (for strings: the length in characters; for
 * nvme-version: the VS register value), and why says where they come
 * from.  Integer bounds are whole numbers below 2^53, so the double holds
 * them exactly.  Keys of the enumerated types (bool, cell mode, map kind,
 * review state, read placement) take NO_BOUND: their values are the set.
 *
 * The bounds keep everything the model and the device compute from a
 * profile inside 64-bit arithmetic, every allocation inside
 * nvm_model_max_memory_bytes(), and every time a guest can be made to wait
 * in seconds, not days.  A new key declares its bound in its table line.
 */
typedef struct KeyBound {
    double min, max;
    const char *unit;
    const char *why;
} KeyBound;

typedef struct KeyDesc {
    const char *group;
    const char *key;
    KeyType type;
    size_t off;
    unsigned flags;
    KeyBound b;
    const char *doc;
} KeyDesc;

/* Where each key of a composed profile came from (errors name it). */
typedef struct Src {
    const char *drive;          /* the drive file */
    GHashTable *by_key;         /* "group\nkey" -> file; NULL: all drive */
    /* by KeyPart: the part file a missing key is looked for in */
    const char *part_file[3];
} Src;

typedef enum KeyPart {
    KP_DRIVE,
    KP_NAND,
    KP_CONTROLLER,
} KeyPart;

/* The key table (nvm_prof_key_table[N_KEYS], nvm_prof_ps_table[N_PS_KEYS])
 * and its lookups. */
extern const KeyDesc nvm_prof_key_table[];
extern const KeyDesc nvm_prof_ps_table[];
extern const size_t nvm_prof_key_table_len, nvm_prof_ps_table_len;
#define N_KEYS nvm_prof_key_table_len
#define N_PS_KEYS nvm_prof_ps_table_len
extern const char *const nvm_prof_part_names[];

void nvm_prof_format_range(const KeyDesc *d, bool hex, char *buf, size_t n);
KeyPart nvm_prof_key_part(const char *group, const char *key);
const KeyDesc *nvm_prof_find_key(const char *group, const char *key);
bool nvm_prof_group_known(const char *group);

/* profile-parse.c: errors, and a composed key set parsed into @p. */
char *nvm_prof_quote_value(const char *val);

void nvm_prof_set_err(GError **errp, const char *file, const char *group,
                      const char *key, const char *fmt, ...)
    G_GNUC_PRINTF(5, 6);

NvmProfile *nvm_prof_profile_parse(GKeyFile *kf, const Src *src,
                                   NvmProfile *p, GError **errp);

#endif
