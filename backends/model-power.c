/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The drive model's power: APST's non-operational states and ASPM L1 on
 * the link (what an idle drive pays to wake), and the thermal model
 * (power -> temperature -> throttling).
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "model-int.h"

/* ------------------------------------------------------------------ */
/* Power: APST non-operational states and ASPM L1 on the link. */

/*
 * Split the idle time [from, now) of an idle period that began at
 * @idle_start among the power states APST walks through.
 */
void nvm_account_idle(const NvmModel *m, uint64_t *ps_time,
                      uint64_t idle_start, uint64_t from,
                      uint64_t now, unsigned *state_out)
{
    uint64_t t = idle_start;
    unsigned cur = 0;

    for (;;) {
        unsigned best = 0;
        uint64_t best_at = UINT64_MAX;

        if (!m->apst_enabled) {
            break;
        }
        /* The next state entered: smallest idle time beyond t. */
        for (unsigned s = 1; s < m->n_ps; s++) {
            uint64_t at;

            if (!m->apst_idle_ms[s] || !m->ps[s].non_operational) {
                continue;
            }
            at = idle_start + m->apst_idle_ms[s] * NS_PER_MS;
            if (at > t && at <= now && at < best_at) {
                best = s;
                best_at = at;
            }
        }
        if (!best) {
            break;
        }
        if (best_at > from) {
            ps_time[cur] += best_at - (t > from ? t : from);
        }
        t = best_at;
        cur = best;
    }
    if (now > from) {
        ps_time[cur] += now - (t > from ? t : from);
    }
    *state_out = cur;
}

/* Returns when the command can start after the drive wakes up. */
uint64_t nvm_wake(NvmModel *m, uint64_t now)
{
    uint64_t gap, penalty = 0;
    unsigned state;

    if (now <= m->busy_until) {
        return now;
    }
    if (m->busy_until > m->acct_ns) {
        m->ps_time_ns[0] += m->busy_until - m->acct_ns;
        m->acct_ns = m->busy_until;
    }
    gap = now - m->busy_until;
    nvm_account_idle(m, m->ps_time_ns, m->busy_until, m->acct_ns, now,
                     &state);
    m->acct_ns = now;
    if (state) {
        uint64_t entered = m->busy_until +
                           m->apst_idle_ms[state] * NS_PER_MS +
                           m->ps[state].entry_lat_us * 1000ULL;

        penalty = m->ps[state].exit_lat_us * 1000ULL;
        if (entered > now) {
            penalty += entered - now;   /* finish entering, then exit */
        }
        m->power_exits++;
    }
    if (gap >= m->l1_idle_ns && m->l1_exit_ns > penalty) {
        penalty = m->l1_exit_ns;
    }
    return now + penalty;
}


/* ------------------------------------------------------------------ */
/* Thermal: power -> temperature (first order) -> throttling. */

void nvm_thermal_update(NvmModel *m, uint64_t now)
{
    double dt, util, p_w, t_ss;

    if (!m->thermal_on || now < m->temp_t + NS_PER_MS) {
        return;
    }
    dt = now - m->temp_t;
    /*
     * The controller is as busy as the busier of its firmware cores and
     * its data path (host link, DMA, ECC): 128 KiB writes at the link's
     * rate keep the data path streaming while the cores, a few us per
     * command, are mostly idle.
     */
    util = MAX(m->core_busy_ns / (dt * m->cores),
               MAX(m->rx_busy_ns, m->tx_busy_ns) / dt);
    p_w = m->idle_w + (m->active_w - m->idle_w) * (util > 1 ? 1 : util) +
          m->energy_nj / dt;
    t_ss = m->idle_c + m->c_per_w * (p_w - m->idle_w);
    if (m->throttled) {
        m->throttled_ns += now - m->temp_t;
        m->total_throttled_ns += now - m->temp_t;
    }
    m->temp_c = t_ss + (m->temp_c - t_ss) * exp(-dt / m->tau_ns);
    m->temp_t = now;
    m->energy_nj = 0;
    m->core_busy_ns = 0;
    m->rx_busy_ns = 0;
    m->tx_busy_ns = 0;
    /* 2 degrees of hysteresis, as firmware does to avoid flapping */
    if (m->temp_c >= m->throttle_c) {
        m->throttles += !m->throttled;
        m->throttled = true;
    } else if (m->temp_c < m->throttle_c - 2) {
        m->throttled = false;
    }
    m->slow = m->throttled ? m->throttle_slowdown : 1.0;
}


bool nvm_model_set_apst(NvmModel *m, bool enabled, const uint32_t *idle_ms,
                        unsigned n, GError **errp)
{
    if (n != m->n_ps) {
        g_set_error(errp, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "APST table has %u entries, the drive has %u power "
                    "states", n, m->n_ps);
        return false;
    }
    for (unsigned i = 0; i < n; i++) {
        if (idle_ms && idle_ms[i] && !m->ps[i].non_operational) {
            g_set_error(errp, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                        "APST can only enter non-operational states; "
                        "power state %u is operational", i);
            return false;
        }
    }
    m->apst_enabled = enabled;
    for (unsigned i = 0; i < n; i++) {
        m->apst_idle_ms[i] = idle_ms ? idle_ms[i] : 0;
    }
    return true;
}

void nvm_model_reset_apst(NvmModel *m)
{
    m->apst_enabled = m->apst_default_enabled;
    for (unsigned i = 0; i < m->n_ps; i++) {
        m->apst_idle_ms[i] = m->ps[i].idle_before_entry_ms;
    }
}


void nvm_model_set_thermal(NvmModel *m, bool enabled)
{
    m->thermal_on = enabled;
    m->temp_c = m->idle_c;
    m->temp_t = m->now;
    m->energy_nj = 0;
    m->core_busy_ns = 0;
    m->rx_busy_ns = 0;
    m->tx_busy_ns = 0;
    m->throttled = false;
    m->slow = 1.0;
}
