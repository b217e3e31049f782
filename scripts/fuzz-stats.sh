# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by scripts/fuzz.sh and scripts/qemu-fuzz.sh: one row of
# BUILD/fuzz/stats.tsv per fuzzing run, the source of docs/fuzzing.md's
# table (scripts/fuzz-table.py).  Columns, tab-separated, after a header:
#   start end     UTC, when the run began and ended (end - start = wall_s)
#   target        profile, model, heap, qemu-baseline, qemu-profile, nvmimic
#   wall_s        seconds between start and end
#   cpu_s user_s sys_s   CPU time of the fuzzer process(es), from
#                 /usr/bin/time (user + sys = cpu; several lines of a
#                 restarted run are summed)
#   execs cov ft corpus  libFuzzer's executions, coverage counters, corpus
#   crashes       reproducers saved (crashes, hangs, leaks)
#   commit        the code fuzzed, "-dirty" when tracked files differed:
#                 $FUZZ_COMMIT when set (the caller took it when the run
#                 began, or from the binary's build), else HEAD now
#   nice load1    the run's priority and the load average when it began

FUZZ_STATS_HEADER='start	end	target	wall_s	cpu_s	user_s	sys_s	execs	cov	ft	corpus	crashes	commit	nice	load1'

fuzz_utc() {  # epoch seconds -> ISO 8601 UTC
    date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ
}

# user and sys seconds summed over the lines /usr/bin/time wrote ("%e %U %S")
fuzz_user_sys() {  # file
    awk '/^[0-9.]+ [0-9.]+ [0-9.]+$/ { u += $2; s += $3 }
         END { printf "%.1f %.1f\n", u, s }' "$1"
}

fuzz_cpu_s() {  # file
    fuzz_user_sys "$1" | awk '{ printf "%.1f\n", $1 + $2 }'
}

# libFuzzer's figures in LOG: executions (summed over the runs a restarted
# fuzzer appended), and the coverage and features of its last status line
fuzz_log_figures() {  # log -> "execs cov ft"
    _fx_execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$1" |
                awk '{ n += $1 } END { print n + 0 }')
    _fx_last=$(grep -E '^#[0-9]+.*cov: ' "$1" | tail -n 1)
    _fx_cov=$(echo "$_fx_last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
    _fx_ft=$(echo "$_fx_last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
    echo "$_fx_execs ${_fx_cov:-0} ${_fx_ft:-0}"
}

# the files of DIR not named in BEFORE (one name per line): a run's new
# reproducers
fuzz_new_files() {  # before dir
    ls "$2" | sort | while read -r f; do
        echo "$1" | grep -qx "$f" || echo "$f"
    done
}

fuzz_commit() {
    c=$(git -C "$ROOT" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
    if [ -n "$(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
        c="$c-dirty"
    fi
    echo "$c"
}

fuzz_stats_row() {  # tsv start end target timefile execs cov ft corpus crashes load1
    tsv=$1
    if [ -s "$tsv" ] && [ "$(head -n 1 "$tsv")" != "$FUZZ_STATS_HEADER" ]; then
        mv "$tsv" "$tsv.old-format"     # rows of an earlier layout
    fi
    [ -s "$tsv" ] || echo "$FUZZ_STATS_HEADER" >"$tsv"
    set -- "$2" "$3" "$4" "$(fuzz_user_sys "$5")" "$6" "$7" "$8" "$9" "${10}" "${11}"
    us=$4
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
        "$(fuzz_utc "$1")" "$(fuzz_utc "$2")" "$3" "$(( $2 - $1 ))" \
        "$(echo "$us" | awk '{ printf "%.1f", $1 + $2 }')" \
        "${us% *}" "${us#* }" "$5" "$6" "$7" "$8" "$9" \
        "${FUZZ_COMMIT:-$(fuzz_commit)}" \
        "${NICE:-0}" "${10}" >>"$tsv"
}
