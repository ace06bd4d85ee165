#!/usr/bin/env bash
# Rebuild truth, run the gate once per plugin module (sequentially), score.
set -u
cd "$(dirname "$0")"
top=$(cd ../.. && pwd)
PY="${PY:-$top/.venv/bin/python}"
GATE="${GATE:-$top/.venv/bin/spec-protocols}"
mkdir -p out
if [ "${REBUILD_TRUTH:-0}" = 1 ]; then
  "$PY" truth.py                  # -> truth.json, truth_detail.json (one subprocess per module)
fi
for f in plugins/rtf_*.py; do
  m=$(basename "$f" .py)
  PYTHONPATH=$PWD/plugins "$GATE" check "$m" --format json --no-cache > "out/$m.json"
  echo "$m gate rc=$?"
done
"$PY" score.py | tee score.txt      # -> score.json
