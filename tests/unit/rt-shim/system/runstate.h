/* SPDX-License-Identifier: GPL-2.0-or-later */
/* See ../shim.h (tests/unit/rt-shim/README.md). */
#include "../shim.h"
