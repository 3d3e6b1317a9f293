#!/bin/bash
# The same benchmarks on two commits, in one run: retrieval quality and latency
# (bench/retrieval.py, bench/backends.py on SQLite and PostgreSQL) and CPU time per
# search (bench/search_cpu.py, alternated three times on each).
#
#     bench/before_after.sh BEFORE_COMMIT AFTER_COMMIT [OUT_DIR]
#
# Each commit is checked out with `git archive` into OUT_DIR/<name>; results land in
# OUT_DIR/*.txt and each checkout's bench/results/.
set -euo pipefail
before=$1 after=$2 out=${3:-/tmp/memo-before-after}
repo=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-$repo/.venv/bin/python}
export MEMO_SHARED_DIR=${MEMO_SHARED_DIR:-$repo/../shared}
mkdir -p "$out"
for name in before after; do
  commit=$([ $name = before ] && echo "$before" || echo "$after")
  rm -rf "${out:?}/$name" && mkdir -p "$out/$name"
  git -C "$repo" archive "$commit" | tar -x -C "$out/$name"
done
run() { (cd "$out/$1" && PYTHONPATH="$out/$1" nice -n 10 "$py" "${@:2}"); }
for name in before after; do run $name bench/retrieval.py --limit 600 > "$out/retrieval-$name.txt" 2>&1; done
for name in before after; do
  run $name bench/backends.py --chunks 20000 --questions 200 --clients 2 --seconds 8 \
    --name "backends-$name" > "$out/backends-$name.txt" 2>&1
done
for round in 1 2 3; do
  for name in before after; do
    for extra in 0 9500; do
      echo "$name round $round, $extra extra chunks: $(run $name bench/search_cpu.py "$out/cpu-$name-$extra.db" $extra 2>/dev/null)"
    done
  done
done | tee "$out/search_cpu.txt"
