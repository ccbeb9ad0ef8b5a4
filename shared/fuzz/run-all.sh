#!/usr/bin/env bash
# Runs every fuzz target in turn, one process on one core each (-jobs=1 -workers=1), for
# SECONDS_EACH seconds (default 600), growing corpus/<target>; logs and crash inputs go to
# logs/<target>/.
# Usage, from anywhere: bash shared/fuzz/run-all.sh [target ...]
set -u
cd "$(dirname "$0")/.."
SECONDS_EACH=${SECONDS_EACH:-600}
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(client_message fen move_text play time_control)
for t in "${targets[@]}"; do
    mkdir -p "fuzz/logs/$t"
    echo "== $t: $(date -u +%H:%M:%S) for ${SECONDS_EACH}s"
    ( cd "fuzz/logs/$t" && cargo +nightly fuzz run --fuzz-dir ../.. -O -s none "$t" "../../corpus/$t" -- \
        -jobs=1 -workers=1 -max_total_time="$SECONDS_EACH" -timeout=10 -print_final_stats=1 \
        -artifact_prefix="$PWD/" >run.log 2>&1 )
    echo "   exit $? at $(date -u +%H:%M:%S)"
    grep -h "stat::number_of_executed_units\|stat::peak_rss\|DONE\|INITED\|SUMMARY\|panicked" \
        "fuzz/logs/$t"/fuzz-0.log 2>/dev/null | tail -8
done
