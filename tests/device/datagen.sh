#!/usr/bin/env bash
# Self-play data on a lent many-core machine (docs/evaluation.md,
# "Generations"): four datagen processes of four threads side by side for
# SECONDS, seeds FIRST..FIRST+3, each file compressed into OUT.
#
#   make lasker-v3 && mkdir -p .device && cp lasker-tools-v3 .device/
#   # then, on the device (with .device carried):
#   bash tests/device/datagen.sh .device/lasker-tools-v3 3001 500 "$OUT"
#
# Seeds 1000-1999 are taken in ../shared/data; give each run new ones and
# write them down with the files' SHA-256 (docs/evaluation.md).
set -euo pipefail
tools=${1:?tools binary}
first=${2:?first seed}
seconds=${3:?seconds}
out=${4:?output folder}
mkdir -p "$out"
pids=()
for i in 0 1 2 3; do
  seed=$((first + i))
  timeout "$seconds" "$tools" datagen --out "$out/gen-s$seed.vf" --threads 4 --seed "$seed" \
    2> "$out/gen-s$seed.log" &
  pids+=($!)
done
# timeout's status 124 is the planned end.
for pid in "${pids[@]}"; do wait "$pid" || [ $? -eq 124 ]; done
for i in 0 1 2 3; do
  seed=$((first + i))
  tail -n 1 "$out/gen-s$seed.log"
  sha256sum "$out/gen-s$seed.vf"
  xz -6 -T 4 "$out/gen-s$seed.vf"
done
