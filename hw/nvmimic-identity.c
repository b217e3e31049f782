/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic: what a profiled NVMe controller reports of itself: PCI IDs,
 * Identify Controller and Namespace fields, power state descriptors,
 * the commands and log pages the drive has, the namespace's capacity.
 *
 * Copyright (c) 2026 the nvmimic authors
 */

#include "qemu/osdep.h"
#include <math.h>
#include "qapi/error.h"
#include "qemu/cutils.h"
#include "system/block-backend.h"
#include "hw/pci/pci.h"

#include "nvmimic-int.h"

void nvmimic_init_pci(NvmeCtrl *n, PCIDevice *pci_dev)
{
    NvmProfile *p;
    uint8_t *conf = pci_dev->config;

    if (!n->nvmimic) {
        return;
    }
    p = n->nvmimic->profile;
    pci_config_set_vendor_id(conf, p->pci_vendor_id);
    pci_config_set_device_id(conf, p->pci_device_id);
    pci_set_word(conf + PCI_SUBSYSTEM_VENDOR_ID, p->pci_subsys_vendor_id);
    pci_set_word(conf + PCI_SUBSYSTEM_ID, p->pci_subsys_id);
}

static void nvmimic_psd(NvmePSD *psd, const NvmPowerState *ps, unsigned i)
{
    uint8_t flags = ps->non_operational ? 0x2 : 0;
    double mp = ps->max_power_w * 100.0;

    /*
     * Max Power in units of 0.01 W, or with Max Power Scale set in units
     * of 0.0001 W when that is needed to report the profile's value (as
     * drives do for their low-power states, e.g. 0.0025 W or 0.025 W).
     */
    if (fabs(mp - round(mp)) > 0.000001 || round(mp) < 1.0) {
        double fine = ps->max_power_w * 10000.0;

        if (fine + 0.5 < 65536.0) {
            flags |= 0x1;
            mp = fine;
        }
    }
    psd->mp = cpu_to_le16((uint16_t)MIN(mp + 0.5, 65535.0));
    psd->reserved = cpu_to_le16((uint16_t)flags << 8);
    psd->enlat = cpu_to_le32(ps->entry_lat_us);
    psd->exlat = cpu_to_le32(ps->exit_lat_us);
    /* relative read/write throughput and latency: rank of the state */
    psd->rrt = psd->rrl = psd->rwt = psd->rwl = i;
}

/* The profile's transitions, as a table the guest can read back. */
void nvmimic_default_apst_table(const NvmProfile *p, uint8_t *table)
{
    unsigned from = 0, i, j;
    uint32_t prev_ms = 0;

    memset(table, 0, NVMIMIC_APST_BYTES);
    for (i = 1; i < p->n_power_states; i++) {
        const NvmPowerState *ps = &p->ps[i];
        uint64_t e;

        if (!ps->non_operational || !ps->idle_before_entry_ms ||
            ps->idle_before_entry_ms <= prev_ms) {
            continue;
        }
        e = ((uint64_t)(ps->idle_before_entry_ms - prev_ms) << 8) |
            (i << 3);
        for (j = from; j < i; j++) {
            stq_le_p(table + 8 * j, e);
        }
        from = i;
        prev_ms = ps->idle_before_entry_ms;
    }
}

/* The capabilities the profile reports, as far as nvmimic implements them. */
static void nvmimic_init_caps(NvmeCtrl *n, const NvmProfile *p)
{
    static const struct {
        uint16_t oncs;
        uint8_t opc;
    } io_opt[] = {
        { NVME_ONCS_COMPARE, NVME_CMD_COMPARE },
        { NVME_ONCS_WRITE_UNCORR, NVME_CMD_WRITE_UNCOR },
        { NVME_ONCS_DSM, NVME_CMD_DSM },
        { NVME_ONCS_WRITE_ZEROES, NVME_CMD_WRITE_ZEROES },
        { NVME_ONCS_VERIFY, NVME_CMD_VERIFY },
        { NVME_ONCS_COPY, NVME_CMD_COPY },
    };
    NvmeIdCtrl *id = &n->id_ctrl;
    uint16_t oacs = p->oacs & NVMIMIC_OACS_IMPL;
    uint16_t oncs = p->oncs & NVMIMIC_ONCS_IMPL;
    unsigned i;

    id->ieee[0] = p->ieee_oui;
    id->ieee[1] = p->ieee_oui >> 8;
    id->ieee[2] = p->ieee_oui >> 16;
    id->nn = cpu_to_le32(p->namespaces);
    id->oacs = cpu_to_le16(oacs);
    id->oncs = cpu_to_le16(oncs);
    id->frmw = p->frmw;
    id->lpa = p->lpa & NVMIMIC_LPA_IMPL;
    id->oaes = cpu_to_le32(p->oaes & NVMIMIC_OAES_IMPL);
    id->sanicap = cpu_to_le32(p->sanicap & NVMIMIC_SANICAP_IMPL);
    stq_le_p(id->tnvmcap, p->tnvmcap_bytes);
    stq_le_p(id->tnvmcap + 8, 0);
    stq_le_p(id->unvmcap, p->unvmcap_bytes);
    stq_le_p(id->unvmcap + 8, 0);
    id->awun = cpu_to_le16(p->awun);
    id->awupf = cpu_to_le16(p->awupf);
    if (!(oncs & NVME_ONCS_COPY)) {
        id->ocfs = 0;
    }

    /*
     * A command the drive does not report is an invalid opcode, as on the
     * drive: QEMU checks these tables before it dispatches a command, and
     * the Commands Supported and Effects log shows them.
     */
    n->cse.acs[NVME_ADM_CMD_NS_ATTACHMENT] = 0;
    n->cse.acs[NVME_ADM_CMD_DIRECTIVE_SEND] = 0;
    n->cse.acs[NVME_ADM_CMD_DIRECTIVE_RECV] = 0;
    n->cse.acs[NVME_ADM_CMD_DBBUF_CONFIG] = 0;
    n->cse.acs[NVME_ADM_CMD_VIRT_MNGMT] = 0;
    if (!(oacs & NVME_OACS_FORMAT)) {
        n->cse.acs[NVME_ADM_CMD_FORMAT_NVM] = 0;
    }
    /* nvmimic_cmd() executes these: ctrl.c never sees them */
    if (oacs & NVME_OACS_SECURITY) {
        n->cse.acs[NVME_ADM_CMD_SECURITY_SEND] = NVME_CMD_EFF_CSUPP;
        n->cse.acs[NVME_ADM_CMD_SECURITY_RECV] = NVME_CMD_EFF_CSUPP;
    }
    if (oacs & NVME_OACS_FW) {
        n->cse.acs[NVMIMIC_ADM_FW_COMMIT] = NVME_CMD_EFF_CSUPP;
        n->cse.acs[NVMIMIC_ADM_FW_DOWNLOAD] = NVME_CMD_EFF_CSUPP;
    }
    if (oacs & NVMIMIC_OACS_DST) {
        n->cse.acs[NVMIMIC_ADM_SELF_TEST] = NVME_CMD_EFF_CSUPP;
    }
    for (i = 0; i < ARRAY_SIZE(io_opt); i++) {
        if (!(oncs & io_opt[i].oncs)) {
            n->cse.iocs.nvm[io_opt[i].opc] = 0;
        } else if (io_opt[i].opc == NVME_CMD_WRITE_UNCOR) {
            /* nvmimic_cmd() executes it: ctrl.c never sees it */
            n->cse.iocs.nvm[NVME_CMD_WRITE_UNCOR] = NVME_CMD_EFF_CSUPP |
                                                    NVME_CMD_EFF_LBCC;
        }
    }
    n->cse.iocs.nvm[NVME_CMD_IO_MGMT_RECV] = 0;
    n->cse.iocs.nvm[NVME_CMD_IO_MGMT_SEND] = 0;
}

/* Identify Namespace: the drive's LBA formats, the current one selected. */
static void nvmimic_init_lba_formats(NvmeNamespace *ns, const NvmProfile *p,
                                     bool copy)
{
    NvmeIdNs *id_ns = &ns->id_ns;
    unsigned i, cur = 0;

    memset(id_ns->lbaf, 0, sizeof(id_ns->lbaf));
    memset(ns->id_ns_nvm.elbaf, 0, sizeof(ns->id_ns_nvm.elbaf));
    for (i = 0; i < p->lba_formats.n; i++) {
        id_ns->lbaf[i].ds = ctz32(p->lba_formats.bytes[i]);
        id_ns->lbaf[i].rp = p->lba_formats.rp[i];
        if (p->lba_formats.bytes[i] == ns->blkconf.logical_block_size) {
            cur = i;
        }
    }
    ns->nlbaf = p->lba_formats.n;
    id_ns->nlbaf = ns->nlbaf - 1;
    id_ns->flbas = cur;
    if (!copy) {
        id_ns->mssrl = 0;
        id_ns->mcl = 0;
        id_ns->msrc = 0;
    }
    nvme_ns_init_format(ns);
}

void nvmimic_init_ctrl(NvmeCtrl *n)
{
    NvmimicCtrl *s = n->nvmimic;
    NvmeIdCtrl *id = &n->id_ctrl;
    const NvmProfile *p;
    bool any_nops = false;
    unsigned i;

    if (!s) {
        return;
    }
    p = s->profile;

    strpadcpy((char *)id->mn, sizeof(id->mn), p->model_number, ' ');
    strpadcpy((char *)id->fr, sizeof(id->fr), p->firmware, ' ');
    id->ver = cpu_to_le32(p->nvme_version);
    stl_le_p(&n->bar.vs, p->nvme_version);

    id->vwc = p->volatile_write_cache ?
        (NVME_VWC_NSID_BROADCAST_SUPPORT | NVME_VWC_PRESENT) : 0;
    nvmimic_faults_init_ctrl(n);

    memset(id->psd, 0, sizeof(id->psd));
    for (i = 0; i < p->n_power_states; i++) {
        nvmimic_psd(&id->psd[i], &p->ps[i], i);
        any_nops |= p->ps[i].non_operational;
    }
    id->npss = p->n_power_states - 1;
    id->apsta = any_nops ? 1 : 0;

    /* HMPRE and HMMIN count 4 KiB units; 0 on a drive with DRAM */
    if (p->map_kind == NVM_MAP_HMB) {
        id->hmpre = cpu_to_le32(p->map_cache_bytes / 4096);
        id->hmmin = cpu_to_le32(p->map_hmb_min_bytes / 4096);
    }

    id->wctemp = cpu_to_le16(p->temp_warn_c + 273);
    id->cctemp = cpu_to_le16(p->temp_crit_c + 273);
    n->temperature = p->temp_idle_c + 273;
    n->features.temp_thresh_hi = p->temp_warn_c + 273;

    nvmimic_default_apst_table(p, s->apst_table);
    s->apst_enabled = p->apst_enabled;

    nvmimic_init_caps(n, p);
    nvmimic_init_lba_formats(&n->namespace, p,
                             n->cse.iocs.nvm[NVME_CMD_COPY]);
    /* last: nothing after this can fail realize (nvmimic-doorbell.c) */
    nvmimic_doorbells_init(n);
}

int nvmimic_ns_init_blk(NvmeNamespace *ns, Error **errp)
{
    NvmeCtrl *n = ns->ctrl;
    const NvmProfile *p;

    if (!n || !n->nvmimic || ns != &n->namespace) {
        return 0;
    }
    p = n->nvmimic->profile;
    if (ns->params.ms || ns->params.pi || ns->params.zoned) {
        error_setg(errp, "nvme: profile %s is a drive without metadata, "
                   "protection information or zones (ms=, pi=, zoned=)",
                   p->name);
        return -1;
    }
    if (ns->blkconf.logical_block_size != p->lba_bytes) {
        error_setg(errp, "nvme: profile %s formats %u-byte LBAs but "
                   "logical_block_size is %u", p->name, p->lba_bytes,
                   ns->blkconf.logical_block_size);
        return -1;
    }
    if ((uint64_t)ns->size < p->capacity_bytes) {
        error_setg(errp, "nvme: drive holds %" PRId64 " bytes but profile "
                   "%s needs %" PRIu64 " (make it sparse: truncate -s %"
                   PRIu64 " FILE, or null-co with size=%" PRIu64 ")",
                   ns->size, p->name, p->capacity_bytes, p->capacity_bytes,
                   p->capacity_bytes);
        return -1;
    }
    if (!p->volatile_write_cache) {
        /*
         * A drive without a volatile write cache is never flushed by its
         * host, so nothing the guest wrote may wait in a cache of QEMU's
         * or of the host's: write through (the block layer then flushes
         * after each write).  The guest cannot turn the cache on either
         * (nvmimic_cmd).
         */
        if (ns->blkconf.wce == ON_OFF_AUTO_ON) {
            error_setg(errp, "nvme: profile %s has no volatile write cache: "
                       "write-cache=on contradicts it", p->name);
            return -1;
        }
        blk_set_enable_write_cache(ns->blkconf.blk, false);
    }
    ns->size = p->capacity_bytes;
    if (n->params.nvmimic_map_allocated &&
        !nvmimic_timing_map_from(&n->nvmimic->t, blk_bs(ns->blkconf.blk),
                                 ns->size, errp)) {
        error_prepend(errp, "nvme: profile-map-allocated: ");
        return -1;
    }
    return 0;
}
