/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic's QMP commands: statistics, marks, state injection and the
 * device trace of a profiled nvme device or nvmimic block filter node.
 *
 * Copyright (c) 2026 the nvmimic authors
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qapi/clone-visitor.h"
#include "qapi/qapi-commands-nvmimic.h"
#include "qapi/qapi-visit-nvmimic.h"
#include "qom/object.h"

#include "nvmimic-int.h"

/* ---- QMP ---------------------------------------------------------------- */

/*
 * The longest @id looked up: QOM paths of devices and block node names
 * are far shorter.  A partial QOM path is searched for through the whole
 * tree, and a 100 KB one held the main loop for 11 s.
 */
#define NVMIMIC_ID_MAX 255

static bool nvmimic_id_ok(const char *id, Error **errp)
{
    size_t len = strnlen(id, NVMIMIC_ID_MAX + 1);

    if (len > NVMIMIC_ID_MAX) {
        error_setg(errp, "id is longer than %d bytes, more than any "
                   "device id, QOM path or node name", NVMIMIC_ID_MAX);
        return false;
    }
    if (!len) {
        error_setg(errp, "id is empty");
        return false;
    }
    return true;
}

NvmeCtrl *nvmimic_find(const char *id, Error **errp)
{
    bool ambiguous = false;
    Object *obj;
    NvmeCtrl *n;

    if (!nvmimic_id_ok(id, errp)) {
        return NULL;
    }
    obj = object_resolve_path_type(id, TYPE_NVME, &ambiguous);
    if (!obj) {
        g_autofree char *path = g_strdup_printf("/machine/peripheral/%s", id);

        obj = object_resolve_path_type(path, TYPE_NVME, NULL);
    }
    if (!obj) {
        error_setg(errp, "%s: no nvme device or nvmimic block node with "
                   "this id%s", id,
                   ambiguous ? " (the path is ambiguous)" : "");
        return NULL;
    }
    n = NVME(obj);
    if (!n->nvmimic) {
        error_setg(errp, "%s: this nvme device has no profile", id);
        return NULL;
    }
    return n;
}

/*
 * The timing of the nvme device or nvmimic block filter node @id: the
 * statistics and state commands take either.
 */
static NvmimicTiming *nvmimic_find_timing(const char *id, char **canon,
                                          Error **errp)
{
    Error *local_err = NULL;
    NvmeCtrl *n;
    NvmimicTiming *t;

    if (!nvmimic_id_ok(id, errp)) {
        return NULL;
    }
    n = nvmimic_find(id, &local_err);
    if (n) {
        *canon = object_get_canonical_path(OBJECT(n));
        return &n->nvmimic->t;
    }
    t = nvmimic_block_find(id);
    if (t) {
        error_free(local_err);
        *canon = g_strdup(id);
        return t;
    }
    error_propagate(errp, local_err);
    return NULL;
}

NvmimicStats *qmp_query_nvmimic_stats(const char *id, Error **errp)
{
    char *canon = NULL;
    NvmimicTiming *t = nvmimic_find_timing(id, &canon, errp);
    NvmimicStats *r = t ? nvmimic_timing_query(t, canon) : NULL;

    if (r && r->realtime && r->realtime->has_doorbell_replays) {
        /* only a controller's thread replays doorbells */
        NvmimicCtrl *s = container_of(t, NvmimicCtrl, t);

        r->realtime->has_doorbell_writes = true;
        r->realtime->has_doorbell_writes_by_vcpu = true;
        nvmimic_doorbells_stats(s->n, &r->realtime->doorbell_writes,
                                &r->realtime->doorbell_writes_by_vcpu);
    }
    return r;
}

/*
 * One page of the marks: at most @count (NVMIMIC_MARKS_PAGE) from seq
 * @start, and in @next the seq of the first matching mark after them.
 * One answer with all 4096 marks was 6.1 MB of JSON.
 */
NvmimicMarks *qmp_query_nvmimic_marks(const char *id, bool has_mark,
                                      uint32_t mark, bool has_start,
                                      uint64_t start, bool has_count,
                                      uint32_t count, Error **errp)
{
    NvmeCtrl *n = nvmimic_find(id, errp);
    NvmimicMarkList **tail;
    NvmimicMarks *r;
    NvmimicCtrl *s;
    uint32_t taken = 0;
    guint i;
    int j;

    if (!n) {
        return NULL;
    }
    if (has_count && (count < 1 || count > NVMIMIC_MARKS_PAGE)) {
        error_setg(errp, "%s: count %" PRIu32 " is not 1 to %d, the most "
                   "marks one answer holds", id, count, NVMIMIC_MARKS_PAGE);
        return NULL;
    }
    count = has_count ? count : NVMIMIC_MARKS_PAGE;
    start = has_start ? start : 0;
    s = n->nvmimic;
    r = g_new0(NvmimicMarks, 1);
    tail = &r->marks;
    /* the kept marks hold seqs marks_dropped, marks_dropped + 1, ... */
    i = start > s->marks_dropped ?
        MIN(start - s->marks_dropped, s->marks->len) : 0;
    for (; i < s->marks->len; i++) {
        NvmimicMark *m = g_ptr_array_index(s->marks, i);

        if (has_mark && m->mark != mark) {
            continue;
        }
        if (taken == count) {
            r->has_next = true;
            r->next = m->seq;
            break;
        }
        QAPI_LIST_APPEND(tail, QAPI_CLONE(NvmimicMark, m));
        taken++;
    }
    for (j = s->pending->len - 1; j >= 0; j--) {
        QAPI_LIST_PREPEND(r->pending,
                          g_array_index(s->pending, NvmimicPending, j).mark);
    }
    r->dropped = s->marks_dropped;
    return r;
}

void qmp_nvmimic_set_state(const char *id,
                           bool has_secure_erase, bool secure_erase,
                           bool has_fill_pct, double fill_pct,
                           bool has_slc_used_bytes, uint64_t slc_used_bytes,
                           bool has_wear_pct, double wear_pct,
                           bool has_reset_stats, bool reset_stats,
                           bool has_at_mark, uint32_t at_mark,
                           bool has_thermal, bool thermal,
                           bool has_steady_random_bytes,
                           uint64_t steady_random_bytes,
                           bool has_warm_map_bytes, uint64_t warm_map_bytes,
                           Error **errp)
{
    g_autofree char *canon = NULL;
    NvmimicTiming *t = nvmimic_find_timing(id, &canon, errp);
    NvmimicState st = {
        .erase = has_secure_erase && secure_erase,
        .has_fill = has_fill_pct,
        .fill_pct = fill_pct,
        .has_slc = has_slc_used_bytes,
        .slc_used_bytes = slc_used_bytes,
        .has_wear = has_wear_pct,
        .wear_pct = wear_pct,
        .has_thermal = has_thermal,
        .thermal = thermal,
        .has_steady = has_steady_random_bytes,
        .steady_bytes = steady_random_bytes,
        .has_warm = has_warm_map_bytes,
        .warm_bytes = warm_map_bytes,
        .reset = has_reset_stats && reset_stats,
    };

    if (!t || !nvmimic_timing_check_state(t, id, &st, errp)) {
        return;
    }
    if (has_at_mark) {
        NvmeCtrl *n = nvmimic_find(id, NULL);
        NvmimicPending p = { .mark = at_mark, .st = st };
        NvmimicCtrl *s;

        if (!n) {
            error_setg(errp, "%s: at-mark needs an nvme device: marks are "
                       "its admin commands, a block filter node has none",
                       id);
            return;
        }
        s = n->nvmimic;
        if (s->pending->len >= NVMIMIC_PENDING_MAX) {
            error_setg(errp, "%s: %u states already wait for their marks",
                       id, s->pending->len);
            return;
        }
        g_array_append_val(s->pending, p);
        return;
    }
    if (nvmimic_timing_apply_state(t, id, &st, errp)) {
        NvmeCtrl *n = nvmimic_find(id, NULL);

        if (n) {
            nvmimic_state_applied(n, &st);
        }
    }
}

void qmp_nvmimic_trace_start(const char *id, const char *path,
                             bool has_max_bytes, uint64_t max_bytes,
                             Error **errp)
{
    NvmeCtrl *n = nvmimic_find(id, errp);
    NvmimicCtrl *s;
    const NvmProfile *p;
    Error *local_err = NULL;

    if (!n) {
        return;
    }
    s = n->nvmimic;
    p = s->profile;
    if (s->iolog) {
        error_setg(errp, "%s: a trace is already running (to %s); stop it "
                   "with nvmimic-trace-stop first", id,
                   nvmimic_iolog_path(s->iolog));
        return;
    }
    if (!*path) {
        error_setg(errp, "%s: trace path is empty", id);
        return;
    }
    s->iolog = nvmimic_iolog_start(path, has_max_bytes ? max_bytes :
                                   NVMIMIC_IOLOG_DEFAULT_MAX_BYTES,
                                   nvmimic_now(), p->name, p->lba_bytes,
                                   p->capacity_bytes, &local_err);
    if (!s->iolog) {
        error_propagate_prepend(errp, local_err, "%s: trace: ", id);
    }
}

NvmimicTraceInfo *qmp_nvmimic_trace_stop(const char *id, Error **errp)
{
    NvmeCtrl *n = nvmimic_find(id, errp);
    g_autofree char *path = NULL;
    Error *local_err = NULL;
    NvmimicTraceInfo *info;
    uint64_t commands, dropped;
    NvmimicCtrl *s;
    bool ok;

    if (!n) {
        return NULL;
    }
    s = n->nvmimic;
    if (!s->iolog) {
        error_setg(errp, "%s: no trace is running", id);
        return NULL;
    }
    path = g_strdup(nvmimic_iolog_path(s->iolog));
    ok = nvmimic_iolog_stop(s->iolog, &commands, &dropped, &local_err);
    s->iolog = NULL;
    if (!ok) {
        error_propagate_prepend(errp, local_err, "%s: ", id);
        return NULL;
    }
    info = g_new0(NvmimicTraceInfo, 1);
    info->path = g_steal_pointer(&path);
    info->commands = commands;
    info->dropped = dropped;
    return info;
}
