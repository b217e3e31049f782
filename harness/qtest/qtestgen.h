/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic qtest: the reviews' suites through the emulated device, with no
 * guest.  A load generator plays the guest's NVMe driver over qtest in
 * virtual time and writes nvmimic sim's JSON with "mode": "qtest".
 */
#ifndef NVMIMIC_QTESTGEN_H
#define NVMIMIC_QTESTGEN_H

/* nvmimic qtest ...: argv[0] is "qtest"; returns the exit status. */
int nvm_cmd_qtest(int argc, char **argv, const char *profile_dir);

#endif
