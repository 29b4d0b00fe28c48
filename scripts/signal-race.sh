#!/usr/bin/env bash
# Whether the JVM survives PoCL's signal handlers, with and without the JDK's libjsig that ./lab preloads: runs
# scripts/SignalRace.java ROUNDS times each way, in turns (two minutes at most a run), and counts how the runs ended.
# Needs ./lab built (any ./lab command builds it) and an OpenCL platform (PoCL).
#
#   ROUNDS=8 scripts/signal-race.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/find-jdk.sh
jars="$(readlink -f .lab/jars)"
[ -d "$jars" ] || { echo "build ./lab first (e.g. ./lab --help)" >&2; exit 2; }
declare -A ended
for round in $(seq "${ROUNDS:-8}"); do
    for preload in none libjsig; do
        env=()
        [ "$preload" = libjsig ] && env=(LD_PRELOAD="$JAVA_HOME/lib/libjsig.so")
        status=0
        out="$(env "${env[@]}" timeout 120 "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -cp "$jars/*" \
            scripts/SignalRace.java 2>/dev/null)" || status=$?
        case "$status" in
            0) [[ "$out" == *survived* ]] && how=survived || how="exit 0 without finishing" ;;
            124) how="hung (killed after 120 s)" ;;
            139) how="Segmentation fault" ;;
            *) how="exit $status" ;;
        esac
        echo "round $round, $preload: $how"
        key="$preload: $how"
        ended[$key]=$(( ${ended[$key]:-0} + 1 ))
    done
done
echo "--- how the runs ended"
for key in "${!ended[@]}"; do echo "${ended[$key]}  $key"; done | sort -k2
