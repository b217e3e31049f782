/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic qtest: the reviews' suites through the emulated device, with no
 * guest.  A load generator plays the guest's NVMe driver over qtest in
 * virtual time and writes nvmimic sim's JSON with "mode": "qtest".
 */
#ifndef NVMIMIC_QTESTGEN_H
#define NVMIMIC_QTESTGEN_H

#include "opts.h"

/* The command (cli/opts.h). */
extern const NvmCommand nvm_cmd_qtest;

#endif
