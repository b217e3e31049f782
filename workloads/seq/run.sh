#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Job for nvmimic's initramfs guest: large sequential write then read on the
# emulated drive at each queue depth of SEQ_QDS.  Optional ./seq.conf (sourced)
# sets SEQ_DEV (/dev/nvme0n1), SEQ_SIZE (4g), SEQ_QDS ("8 32").  Results:
# $RESULTS/seq-{write,read}-qdN.json (fio JSON); seq-report.py on the host
# turns them into GB/s.
set -eu
SEQ_DEV=/dev/nvme0n1; SEQ_SIZE=4g; SEQ_QDS="8 32"; SEQ_DIRECT=1
[ -f ./seq.conf ] && . ./seq.conf
RESULTS=${RESULTS:-/results}
export SEQ_DEV SEQ_SIZE SEQ_DIRECT
for SEQ_QD in $SEQ_QDS; do
    export SEQ_QD
    for rw in write read; do
        fio "./seq-$rw.fio" --output-format=json --output="$RESULTS/seq-$rw-qd$SEQ_QD.json"
    done
done
