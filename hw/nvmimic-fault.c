/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic faults: QMP nvmimic-fault and query-nvmimic-faults, the faults
 * queued for a mark or a delay, and applying a fault when it starts.
 * What the active faults do to each command (media errors, latency
 * spikes, stalls, a hung controller) is nvmimic-fault-cmd.c; the power
 * cut's journal is nvmimic-powercut.c.
 *
 * Every fault starts at an instant of QEMU_CLOCK_VIRTUAL: when the
 * command asks for it, or a delay after it or after an in-band mark, on
 * a virtual-time timer (never inside the command processing the mark
 * arrived in: a power cut resets the controller that processes it).  What
 * a fault does depends only on what the guest did before that instant,
 * so a run under -icount or qtest gives the same result every time.
 *
 * Copyright (c) 2026 the nvmimic authors
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qapi/clone-visitor.h"
#include "qapi/qapi-commands-nvmimic.h"
#include "qapi/qapi-visit-nvmimic.h"
#include "qemu/timer.h"
#include "qemu/units.h"
#include "system/block-backend.h"
#include "system/cpu-timers.h"
#include "system/runstate.h"
#include "exec/memory.h"

#include "nvmimic-fault-int.h"
#include "trace.h"

/* Faults waiting for their mark or delay; one more is refused. */
#define FAULTS_QUEUED_MAX 1024
/* Applied faults query-nvmimic-faults keeps; older ones are dropped. */
#define FAULTS_APPLIED_MAX 1024
/* Latency faults at once; one more is refused (media: FAULTS_RANGES_MAX). */
#define FAULTS_LATENCY_MAX 64
#define FAULTS_STALLS_MAX 64
#define FAULTS_DELAY_MAX_NS (3600 * NANOSECONDS_PER_SECOND)
#define FAULTS_LATENCY_MAX_US (60 * 1000 * 1000)
#define FAULTS_STALL_MAX_US (600ULL * 1000 * 1000)

typedef struct Queued {
    NvmimicFaults *f;
    NvmimicFault *spec;         /* as the host gave it */
    QEMUTimer *timer;           /* armed once its start is known */
    bool waits_for_mark;
} Queued;

/* ---- setup --------------------------------------------------------- */

static void queued_free(Queued *q)
{
    timer_free(q->timer);
    qapi_free_NvmimicFault(q->spec);
    g_free(q);
}

NvmimicFaults *nvmimic_faults_new(NvmeCtrl *n)
{
    NvmimicFaults *f = g_new0(NvmimicFaults, 1);

    f->n = n;
    f->queued = g_ptr_array_new_with_free_func((GDestroyNotify)queued_free);
    f->applied = g_ptr_array_new_with_free_func(
        (GDestroyNotify)qapi_free_NvmimicFaultEvent);
    f->media = g_array_new(false, false, sizeof(MediaRange));
    f->latency = g_array_new(false, false, sizeof(Latency));
    f->stalls = g_array_new(false, false, sizeof(Stall));
    f->held = g_queue_new();
    f->stall_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL,
                                  nvmimic_fault_stall_timer_cb, f);
    return f;
}

void nvmimic_faults_free(NvmimicFaults *f)
{
    if (!f) {
        return;
    }
    g_ptr_array_free(f->queued, true);
    g_ptr_array_free(f->applied, true);
    g_array_free(f->media, true);
    g_array_free(f->latency, true);
    g_array_free(f->stalls, true);
    timer_free(f->stall_timer);
    /* the controller's reset (nvme_exit) let every held request go */
    g_queue_free(f->held);
    nvmimic_journal_free(f->journal);
    g_free(f);
}

void nvmimic_faults_init_ctrl(NvmeCtrl *n)
{
    n->id_ctrl.elpe = FAULTS_ERROR_LOG - 1;
}

/* ---- what was applied ------------------------------------------------ */

static const char *class_name(NvmimicFaultClass c)
{
    return NvmimicFaultClass_str(c);
}

static void fault_record(NvmimicFaults *f, const NvmimicFault *spec,
                         int64_t now, const char *detail)
{
    NvmimicCtrl *s = f->n->nvmimic;
    NvmimicFaultEvent *ev = g_new0(NvmimicFaultEvent, 1);

    ev->kind = spec->kind;
    ev->has_time_ns = true;
    ev->time_ns = now;
    ev->has_at_mark = spec->has_at_mark;
    ev->at_mark = spec->at_mark;
    ev->has_delay_ns = spec->has_delay_ns;
    ev->delay_ns = spec->delay_ns;
    ev->detail = g_strdup(detail);
    if (f->applied->len >= FAULTS_APPLIED_MAX) {
        g_ptr_array_remove_index(f->applied, 0);
    }
    g_ptr_array_add(f->applied, ev);
    trace_nvmimic_fault(NvmimicFaultKind_str(spec->kind), now, detail);
    if (s->iolog) {
        g_autofree char *note = g_strdup_printf(
            "fault kind=%s %s", NvmimicFaultKind_str(spec->kind), detail);

        nvmimic_iolog_note(s->iolog, now, note);
    }
}

/* ---- applying a fault --------------------------------------------- */

static void power_cut(NvmimicFaults *f, const NvmimicFault *spec,
                      int64_t now)
{
    NvmeCtrl *n = f->n;
    bool machine = spec->u.power_cut.has_machine &&
                   spec->u.power_cut.machine;
    NvmimicCut cut = { 0 };
    g_autofree char *detail = NULL;

    if (f->journal) {
        nvmimic_journal_cut(f->journal, &cut);
    }
    f->power_cuts++;
    detail = g_strdup_printf("machine=%s volatile=%s lost-writes=%" PRIu64
                             " lost-bytes=%" PRIu64 " in-flight-writes=%"
                             PRIu64 " in-flight-bytes=%" PRIu64
                             " kept-writes=%" PRIu64 " overflow-writes=%"
                             PRIu64 "%s%s", machine ? "on" : "off",
                             f->plp_lies ? "on" : "off", cut.lost_writes, cut.lost_bytes,
                             cut.inflight_writes, cut.inflight_bytes,
                             cut.kept_writes, cut.overflow_writes,
                             cut.error ? " error=" : "",
                             cut.error ? strerror(-cut.error) : "");
    fault_record(f, spec, now, detail);
    if (cut.error) {
        error_report("nvmimic: power cut: could not restore what the "
                     "drive lost: %s", strerror(-cut.error));
    }
    /*
     * The drive comes back as at power-on: its registers reset, every
     * queue and command gone (the writes the journal held back too), as
     * the host's own CC.EN = 0 does; nothing is left for the timing to
     * wait for.
     */
    f->hung = false;
    f->off = machine;
    memory_region_dispatch_write(&n->iomem, NVME_REG_CC, 0,
                                 MO_32 | MO_LE, MEMTXATTRS_UNSPECIFIED);
    g_queue_clear(f->held);
    if (machine) {
        /*
         * The whole machine is off: the drive answers nothing more, and
         * QEMU exits (the host boots the VM again on the same disk).
         */
        qemu_system_shutdown_request(SHUTDOWN_CAUSE_HOST_QMP_QUIT);
    }
}

static void fault_apply(NvmimicFaults *f, const NvmimicFault *spec)
{
    int64_t now = nvmimic_now();
    g_autofree char *detail = NULL;

    switch (spec->kind) {
    case NVMIMIC_FAULT_KIND_POWER_CUT:
        f->cuts_queued--;
        power_cut(f, spec, now);
        if (!f->cuts_queued && f->journal) {
            /* no cut left to keep track for: nothing is in it now */
            nvmimic_journal_free(f->journal);
            f->journal = NULL;
            f->plp_lies = false;
        }
        return;
    case NVMIMIC_FAULT_KIND_MEDIA_ERROR: {
        const NvmimicFaultMedia *m = &spec->u.media_error;
        MediaRange r = {
            .nsid = m->has_nsid ? m->nsid : 1,
            .start = m->slba,
            .end = m->slba + m->nlb,
            .error = m->error,
        };

        g_array_append_val(f->media, r);
        detail = g_strdup_printf("error=%s nsid=%u slba=%" PRIu64 " nlb=%"
                                 PRIu64, NvmimicMediaError_str(m->error),
                                 r.nsid, m->slba, m->nlb);
        break;
    }
    case NVMIMIC_FAULT_KIND_LATENCY: {
        const NvmimicFaultLatency *l = &spec->u.latency;
        Latency lat = {
            .cls = l->q_class,
            .delay_ns = l->delay_us * 1000,
            .left = l->has_count ? l->count : UINT64_MAX,
        };

        g_array_append_val(f->latency, lat);
        detail = l->has_count ?
            g_strdup_printf("class=%s delay-us=%" PRIu64 " count=%" PRIu64,
                            class_name(l->q_class), l->delay_us, l->count) :
            g_strdup_printf("class=%s delay-us=%" PRIu64 " until-cleared",
                            class_name(l->q_class), l->delay_us);
        break;
    }
    case NVMIMIC_FAULT_KIND_STALL: {
        const NvmimicFaultStall *st = &spec->u.stall;
        Stall s = {
            .cls = st->q_class,
            .until_ns = st->has_duration_us ?
                        now + (int64_t)st->duration_us * 1000 : INT64_MAX,
        };

        g_array_append_val(f->stalls, s);
        nvmimic_fault_stall_timer_arm(f);
        detail = st->has_duration_us ?
            g_strdup_printf("class=%s duration-us=%" PRIu64,
                            class_name(st->q_class), st->duration_us) :
            g_strdup_printf("class=%s until-cleared", class_name(st->q_class));
        break;
    }
    case NVMIMIC_FAULT_KIND_HANG:
        f->hung = true;
        detail = g_strdup("until the host resets the controller");
        break;
    case NVMIMIC_FAULT_KIND_CLEAR: {
        const NvmimicFaultClear *c = &spec->u.clear;
        uint32_t kinds = 0;
        NvmimicFaultKindList *k;
        GString *names = g_string_new(NULL);
        guint i = 0;

        if (c->has_kinds) {
            for (k = c->kinds; k; k = k->next) {
                kinds |= 1u << k->value;
            }
        } else {
            kinds = ~0u;
        }
        for (i = 0; i < NVMIMIC_FAULT_KIND__MAX; i++) {
            if ((kinds & (1u << i)) && i != NVMIMIC_FAULT_KIND_CLEAR) {
                g_string_append_printf(names, "%s%s", names->len ? "," : "",
                                       NvmimicFaultKind_str(i));
            }
        }
        if (kinds & (1u << NVMIMIC_FAULT_KIND_MEDIA_ERROR)) {
            g_array_set_size(f->media, 0);
        }
        if (kinds & (1u << NVMIMIC_FAULT_KIND_LATENCY)) {
            g_array_set_size(f->latency, 0);
        }
        if (kinds & (1u << NVMIMIC_FAULT_KIND_STALL)) {
            g_array_set_size(f->stalls, 0);
            nvmimic_fault_stall_timer_arm(f);
        }
        if (kinds & (1u << NVMIMIC_FAULT_KIND_HANG)) {
            f->hung = false;
        }
        /* queued faults of those kinds are dropped */
        i = 0;
        while (i < f->queued->len) {
            Queued *q = g_ptr_array_index(f->queued, i);

            if (kinds & (1u << q->spec->kind)) {
                if (q->spec->kind == NVMIMIC_FAULT_KIND_POWER_CUT) {
                    f->cuts_queued--;
                }
                g_ptr_array_remove_index(f->queued, i);
            } else {
                i++;
            }
        }
        if (!f->cuts_queued && f->journal) {
            f->plp_lies = false;
            nvmimic_journal_arm(f->journal, false, false);
        }
        detail = g_strdup_printf("kinds=%s", names->str);
        g_string_free(names, true);
        fault_record(f, spec, now, detail);
        nvmimic_fault_release_held(f);
        return;
    }
    default:
        g_assert_not_reached();
    }
    fault_record(f, spec, now, detail);
}

static void queued_timer_cb(void *opaque)
{
    Queued *q = opaque;
    NvmimicFaults *f = q->f;

    guint i;

    /* taken off the queue first: applying it may change the queue */
    if (g_ptr_array_find(f->queued, q, &i)) {
        g_ptr_array_steal_index(f->queued, i);
    }
    fault_apply(f, q->spec);
    queued_free(q);
}

bool nvmimic_fault_mark(NvmeCtrl *n, uint32_t mark, int64_t now)
{
    NvmimicFaults *f = n->nvmimic->faults;
    bool any = false;
    guint i;

    for (i = 0; i < f->queued->len; i++) {
        Queued *q = g_ptr_array_index(f->queued, i);

        if (q->waits_for_mark && q->spec->at_mark == mark) {
            q->waits_for_mark = false;
            /* never inside the command that brought the mark */
            timer_mod(q->timer, now + (int64_t)q->spec->delay_ns);
            any = true;
        }
    }
    return any;
}

/* ---- QMP ---------------------------------------------------------- */

/* Namespace @nsid of @n, attached yet or not (before the host enabled it) */
static NvmeNamespace *fault_ns(NvmeCtrl *n, uint32_t nsid)
{
    NvmeNamespace *ns = nvme_ns(n, nsid);

    if (!ns && n->subsys && nsid && nsid <= NVME_MAX_NAMESPACES) {
        ns = nvme_subsys_ns(n->subsys, nsid);
        if (ns && !ns->params.shared && ns->ctrl != n) {
            ns = NULL;
        }
    }
    return ns;
}

static bool fault_check(NvmeCtrl *n, const NvmimicFault *spec, Error **errp)
{
    const char *id = spec->id;

    if (spec->has_delay_ns && spec->delay_ns > FAULTS_DELAY_MAX_NS) {
        error_setg(errp, "%s: delay-ns %" PRIu64 " is more than 3600 s",
                   id, spec->delay_ns);
        return false;
    }
    switch (spec->kind) {
    case NVMIMIC_FAULT_KIND_MEDIA_ERROR: {
        const NvmimicFaultMedia *m = &spec->u.media_error;
        uint32_t nsid = m->has_nsid ? m->nsid : 1;
        NvmeNamespace *ns = fault_ns(n, nsid);
        uint64_t nsze;

        if (!ns) {
            error_setg(errp, "%s: media-error: no namespace %u", id, nsid);
            return false;
        }
        nsze = le64_to_cpu(ns->id_ns.nsze);
        if (!m->nlb || m->slba >= nsze || m->nlb > nsze - m->slba) {
            error_setg(errp, "%s: media-error: LBAs %" PRIu64 " + %" PRIu64
                       " are not inside namespace %u (nlb at least 1)", id,
                       m->slba, m->nlb, nsid);
            return false;
        }
        return true;
    }
    case NVMIMIC_FAULT_KIND_LATENCY: {
        const NvmimicFaultLatency *l = &spec->u.latency;

        if (!l->delay_us || l->delay_us > FAULTS_LATENCY_MAX_US) {
            error_setg(errp, "%s: latency: delay-us %" PRIu64 " is not 1 "
                       "to %d", id, l->delay_us, FAULTS_LATENCY_MAX_US);
            return false;
        }
        if (l->has_count && !l->count) {
            error_setg(errp, "%s: latency: count must be at least 1", id);
            return false;
        }
        return true;
    }
    case NVMIMIC_FAULT_KIND_STALL: {
        const NvmimicFaultStall *st = &spec->u.stall;

        if (st->has_duration_us &&
            (!st->duration_us || st->duration_us > FAULTS_STALL_MAX_US)) {
            error_setg(errp, "%s: stall: duration-us %" PRIu64 " is not 1 "
                       "to %llu", id, st->duration_us, FAULTS_STALL_MAX_US);
            return false;
        }
        return true;
    }
    case NVMIMIC_FAULT_KIND_CLEAR: {
        NvmimicFaultKindList *k;

        for (k = spec->u.clear.kinds; k; k = k->next) {
            if (k->value == NVMIMIC_FAULT_KIND_CLEAR) {
                error_setg(errp, "%s: clear: 'clear' is not a kind to end",
                           id);
                return false;
            }
        }
        return true;
    }
    default:
        return true;
    }
}

/* Room for one more of @kind while it is active */
static bool fault_room(NvmimicFaults *f, const NvmimicFault *spec,
                       Error **errp)
{
    guint active, max;

    switch (spec->kind) {
    case NVMIMIC_FAULT_KIND_MEDIA_ERROR:
        active = f->media->len;
        max = FAULTS_RANGES_MAX;
        break;
    case NVMIMIC_FAULT_KIND_LATENCY:
        active = f->latency->len;
        max = FAULTS_LATENCY_MAX;
        break;
    case NVMIMIC_FAULT_KIND_STALL:
        active = f->stalls->len;
        max = FAULTS_STALLS_MAX;
        break;
    default:
        return true;
    }
    if (active >= max) {
        error_setg(errp, "%s: %u %s faults are active already; clear some "
                   "first", spec->id, active,
                   NvmimicFaultKind_str(spec->kind));
        return false;
    }
    return true;
}

void qmp_nvmimic_fault(NvmimicFault *spec, Error **errp)
{
    NvmeCtrl *n = nvmimic_find(spec->id, errp);
    NvmimicFaults *f;
    Queued *q;

    if (!n) {
        return;
    }
    f = n->nvmimic->faults;
    if (!fault_check(n, spec, errp) || !fault_room(f, spec, errp)) {
        return;
    }
    if (f->off) {
        error_setg(errp, "%s: the machine lost power; it takes no more "
                   "faults", spec->id);
        return;
    }
    if (spec->kind == NVMIMIC_FAULT_KIND_POWER_CUT) {
        /* from now on, keep track of what a cut would lose */
        if (!f->journal) {
            f->journal = nvmimic_journal_new(n);
        }
        f->plp_lies |= spec->u.power_cut.has_q_volatile &&
                       spec->u.power_cut.q_volatile;
        nvmimic_journal_arm(f->journal, true, f->plp_lies);
    }
    if (!spec->has_at_mark && !spec->has_delay_ns) {
        if (spec->kind == NVMIMIC_FAULT_KIND_POWER_CUT) {
            f->cuts_queued++;
        }
        fault_apply(f, spec);
        return;
    }
    if (f->queued->len >= FAULTS_QUEUED_MAX) {
        error_setg(errp, "%s: %u faults already wait for their mark or "
                   "delay", spec->id, f->queued->len);
        return;
    }
    q = g_new0(Queued, 1);
    q->f = f;
    q->spec = QAPI_CLONE(NvmimicFault, spec);
    q->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, queued_timer_cb, q);
    q->waits_for_mark = spec->has_at_mark;
    if (spec->kind == NVMIMIC_FAULT_KIND_POWER_CUT) {
        f->cuts_queued++;
    }
    g_ptr_array_add(f->queued, q);
    if (!q->waits_for_mark) {
        timer_mod(q->timer, nvmimic_now() + (int64_t)spec->delay_ns);
    }
}

NvmimicFaultsInfo *qmp_query_nvmimic_faults(const char *id, Error **errp)
{
    NvmeCtrl *n = nvmimic_find(id, errp);
    NvmimicFaults *f;
    NvmimicFaultsInfo *r;
    int i;

    if (!n) {
        return NULL;
    }
    f = n->nvmimic->faults;
    r = g_new0(NvmimicFaultsInfo, 1);
    for (i = f->applied->len - 1; i >= 0; i--) {
        QAPI_LIST_PREPEND(r->applied,
                          QAPI_CLONE(NvmimicFaultEvent,
                                     g_ptr_array_index(f->applied, i)));
    }
    for (i = f->queued->len - 1; i >= 0; i--) {
        Queued *q = g_ptr_array_index(f->queued, i);
        NvmimicFaultEvent *ev = g_new0(NvmimicFaultEvent, 1);

        ev->kind = q->spec->kind;
        ev->has_at_mark = q->spec->has_at_mark;
        ev->at_mark = q->spec->at_mark;
        ev->has_delay_ns = q->spec->has_delay_ns;
        ev->delay_ns = q->spec->delay_ns;
        ev->detail = g_strdup(q->waits_for_mark ? "waits for its mark" :
                              "waits for its delay");
        QAPI_LIST_PREPEND(r->queued, ev);
    }
    r->journal_bytes = nvmimic_journal_bytes(f->journal);
    r->media_errors = f->media_errors;
    r->power_cuts = f->power_cuts;
    return r;
}
