#!/usr/bin/env bash
# The single-fit commands on the toy example (examples/toy): native accuracy
# of each kernel, fit in the four modes (K1/K4, diagonal/full, MKPOE Alg. 4),
# eval on comparisons about new items, embed. The experiment quickstart is
# `mkpoe run configs/quickstart.yaml` (README). Usage:
# scripts/toy_commands.sh [OUTDIR] (default results/toy_commands).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/toy_commands}
mkdir -p "$out"
toy=examples/toy
echo "== building mkpoe"
go build -o "$out/mkpoe" ./cmd/mkpoe
m="$out/mkpoe"
kernels=(--kernel $toy/view1_rbf.train.tsv --kernel $toy/view2_noise.train.tsv)
rows=(--kernel-rows $toy/view1_rbf.test-rows.tsv --kernel-rows $toy/view2_noise.test-rows.tsv)
echo "== native accuracy of each kernel on the training comparisons"
for k in view1_rbf view2_noise; do
  printf '%-12s ' "$k"; "$m" native --kernel $toy/$k.train.tsv --comparisons $toy/train-comparisons.tsv
done
for mode in diag full; do
  for combine in sum separate; do
    echo "== fit: mode=$mode combine=$combine (K1 on the sum kernel / K4 MKPOE), beta=100"
    "$m" fit "${kernels[@]}" --comparisons $toy/train-comparisons.tsv --beta 100 \
      --mode $mode --combine $combine --out "$out/model-$mode-$combine.json" | grep -E 'objective|relative_gap|seconds'
    printf 'test accuracy (new items): '
    "$m" eval --model "$out/model-$mode-$combine.json" --comparisons $toy/test-comparisons.tsv "${rows[@]}"
  done
done
"$m" embed --model "$out/model-full-separate.json" "${rows[@]}" --out "$out/embedding.tsv"
echo "== models and embedding in $out"
