#!/usr/bin/env bash
# Build mkpoe with the OpenBLAS backend (go build -tags openblas): LAPACK's
# eigensolvers and Cholesky and OpenBLAS's matrix products instead of
# gonum's pure-Go ones (README, "Optional OpenBLAS build"; docs/speed.md for
# the speed-up per workload). Installs the Debian packages it needs (with
# sudo unless run as root), builds ./mkpoe, and prints the backend and the
# CPU kernels OpenBLAS chose, with the OPENBLAS_CORETYPE advice when the
# library falls back to its generic kernels.
# Usage: scripts/build_openblas.sh [OUTPUT]   (default ./mkpoe)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-./mkpoe}
pkgs=(gcc libc6-dev libopenblas-dev liblapacke-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null; then
    echo "build_openblas: needs ${missing[*]} (Debian/Ubuntu packages); install them, then rerun" >&2
    exit 1
  fi
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "== installing ${missing[*]}"
  $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
echo "== go build -tags openblas -o $out ./cmd/mkpoe"
go build -tags openblas -o "$out" ./cmd/mkpoe
# A three-item fit prints the backend line (and run prints the advice).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '0 1 0 2\n1 2 0 2\n' > "$tmp/c.tsv"
"$out" fit --identity 3 --comparisons "$tmp/c.tsv" --beta 10 --out "$tmp/m.json" | grep '^backend'
echo "== built $out; run it as $out run CONFIG (env.json of each run records the backend)"
