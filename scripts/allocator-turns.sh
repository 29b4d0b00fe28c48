#!/usr/bin/env bash
# glibc's malloc against tcmalloc for the cpu and djl backends, in turns (ROUNDS rounds, default 3): prints each
# run's per-epoch wall seconds from its report. The README's allocator figures come from it.
set -euo pipefail
cd "$(dirname "$0")/.."
out="$(mktemp -d)"
for round in $(seq "${ROUNDS:-3}"); do
    for backend in cpu djl; do
        for malloc in glibc tcmalloc; do
            LAB_MALLOC=$malloc ./lab train --backend "$backend" --epochs 2 --quiet --report "$out/r.json" \
                --plot-dir "$out/plots" >/dev/null 2>&1
            python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(sys.argv[2], [round(e['wall_sec'], 2) for e in r['epochs']])" \
                "$out/r.json" "round $round $backend $malloc"
        done
    done
done
rm -rf "$out"
