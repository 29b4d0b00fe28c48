#!/usr/bin/env bash
# Two values of one of ./lab's environment settings, in turns: runs `./lab ARGS... --quiet --report FILE` once with
# VAR=A and once with VAR=B per round (ROUNDS rounds, default 5; A first in odd rounds, B first in even ones, so
# that a drift of the shared machine falls on both alike), prints each run's per-epoch wall seconds from its
# report, then for each value the median of the first epochs (the JIT's) and of the epochs after them.
#
#   scripts/env-turns.sh LAB_MALLOC glibc tcmalloc train --backend djl --epochs 2
#   ROUNDS=8 scripts/env-turns.sh LAB_HUGE_PAGES off on train --backend cpu --epochs 3 --train-samples 20000
set -euo pipefail
if [ $# -lt 4 ]; then
    echo "usage: [ROUNDS=N] $0 VAR A B LAB-ARGS..." >&2
    exit 2
fi
var="$1" a="$2" b="$3"
shift 3
cd "$(dirname "$0")/.."
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
for round in $(seq "${ROUNDS:-5}"); do
    order="$a $b"
    [ $((round % 2)) = 0 ] && order="$b $a"
    for value in $order; do
        env "$var=$value" ./lab "$@" --quiet --report "$out/r.json" --plot-dir "$out/plots" >/dev/null 2>&1
        python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(sys.argv[2], [round(e['wall_sec'], 2) for e in r['epochs']])" \
            "$out/r.json" "round $round $var=$value" | tee -a "$out/runs.txt"
    done
done
python3 - "$out/runs.txt" "$var" "$a" "$b" <<'PY'
import ast, statistics, sys
runs, var, values = sys.argv[1], sys.argv[2], sys.argv[3:]
first = {v: [] for v in values}
later = {v: [] for v in values}
for line in open(runs):
    value = line.split(" [")[0].split("=", 1)[1]
    epochs = ast.literal_eval(line[line.index("["):])
    first[value].append(epochs[0])
    later[value] += epochs[1:]
for v in values:
    if later[v]:
        print(f"{var}={v}: first epoch's median {statistics.median(first[v]):.2f} s over {len(first[v])},"
              f" later epochs' median {statistics.median(later[v]):.2f} s over {len(later[v])}")
PY
