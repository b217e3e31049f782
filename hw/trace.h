/* SPDX-License-Identifier: GPL-2.0-or-later */
/* QEMU's build generates it from hw/nvme/nvmimic/trace-events */
#include "trace/trace-hw_nvme_nvmimic.h"
