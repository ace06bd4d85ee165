#!/usr/bin/env bash
# The replay red team (issue 26): the gate over the corpus, scored against both truths.
#   benchmarks/redteam_replay/run.sh                 (the checkout's .venv; GATE=... PY=... to choose)
#   REBUILD_TRUTH=1 benchmarks/redteam_replay/run.sh (re-run both independent drivers first, ~10 min each)
set -u
cd "$(dirname "$0")"
top=$(cd ../.. && pwd)
GATE="${GATE:-$top/.venv/bin/spec-protocols}"
PY="${PY:-$top/.venv/bin/python}"
export PYTHONPATH="$PWD/plugins"
TARGETS=$(cat targets.txt)
if [ "${REBUILD_TRUTH:-0}" = 1 ]; then
  "$PY" truth/driver.py 2> /dev/null && "$PY" truth/make_truth.py || exit 2
  READ_RESULT=1 "$PY" truth/driver.py 2> /dev/null && "$PY" truth/make_truth.py --result || exit 2
fi
out=$(mktemp -d)
"$GATE" check $TARGETS --format json --no-cache --checker runtime --checker mypy --checker pyright > "$out/before.json" 2> "$out/before.err"
"$GATE" check $TARGETS --format json --no-cache > "$out/after.json" 2> "$out/after.err"
for truth in truth.json truth_result.json; do
  "$PY" score.py "$truth" "$out/before.json" "without the replay, against $truth" | sed -n '1,9p'
  "$PY" score.py "$truth" "$out/after.json" "the default checkers, against $truth"
done
