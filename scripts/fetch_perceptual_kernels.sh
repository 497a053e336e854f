#!/usr/bin/env bash
# fetch_perceptual_kernels.sh: fetch the raw triplet judgments of the
# perceptual-kernel study (Demiralp, Bernstein & Heer, InfoVis 2014), verify
# SHA-256 checksums, and place them under data/ (repository-relative,
# gitignored):
#
#   data/perceptual-kernels/{color,shape,size,shapecolor,shapesize,sizecolor}-{tm,td}.txt
#   data/perceptual-kernels/README.md (the authors' description of the format)
#
# Usage:
#   scripts/fetch_perceptual_kernels.sh [--dest DIR]
#   scripts/fetch_perceptual_kernels.sh --originals DIR [--dest DIR]
#   scripts/fetch_perceptual_kernels.sh --mirror DIR [--dest DIR]
#
#   --dest DIR       where to place the files (default: <repo>/data)
#   --originals DIR  copy the files from DIR (laid out like data/, or the
#                    files side by side) instead of downloading them
#   --mirror DIR     the same, from a tree laid out like data/
#
# Every file is verified against the SHA-256 below before it is moved
# into place, and a file already in place with the right checksum is kept.
# Nothing is derived: pkg/data's ReadPerceptualFile reads the raw files as
# they are (docs/datasets.md).
#
# Exit status: 0 all files in place; 1 a download, copy or checksum failed
# (nothing unverified is placed); 2 usage error.
#
# SOURCE AND LICENCE: github.com/uwdata/perceptual-kernels at commit
# eda46ab3d4018e42ef77746e8750777613531238, data/raw/ and README.md.
# The repository has no licence file and its README states no terms:
# publicly readable, licence unstated; treat as research use with
# citation. Cite Demiralp, Bernstein & Heer, "Learning Perceptual Kernels
# for Visualization Design", IEEE TVCG 20(12), InfoVis 2014.
#
# The download path cannot be tested on the machines this was written on (no
# internet access); --originals and --mirror are tested by pkg/data's Go
# tests with small stand-in files. Raw GitHub URLs at a pinned commit are
# used; a Git LFS pointer would fail the checksum rather than be placed.
set -euo pipefail

# relative path | sha256 | URL
MANIFEST=(
  "perceptual-kernels/color-tm.txt|74209e14ed838be06a103c075b007e7fa24c865b729fa7558ab765a8335ceaf5|https://raw.githubusercontent.com/uwdata/perceptual-kernels/eda46ab3d4018e42ef77746e8750777613531238/data/raw/color-tm.txt"
  "perceptual-kernels/color-td.txt|ef8dafe56065c9784441d77f2d7a8016bcfd59178062b82b13de18aa7739917a|https://raw.githubusercontent.com/uwdata/perceptual-kernels/eda46ab3d4018e42ef77746e8750777613531238/data/raw/color-td.txt"
  "perceptual-kernels/shape-tm.txt|35e88170147b6c87ae71676daa2542de45765087f33d8892f50ba08baec16f34|https://raw.githubusercontent.com/uwdata/perceptual-kernels/eda46ab3d4018e42ef77746e8750777613531238/data/raw/shape-tm.txt"
  "perceptual-kernels/shape-td.txt|f52b78c8ce78b9bf8c90413a656a18bdf8193e2a5fd63b965f9137ceafe06150|https://raw.githubusercontent.com/uwdata/perceptual-kernels/eda46ab3d4018e42ef77746e8750777613531238/data/raw/shape-td.txt"
  "perceptual-kernels/size-tm.txt|3a252fe723d31b8966bab6c2141ffff261f1260998ef66215aac413b793f1184|https://raw.githubusercontent.com/uwdata/perceptual-kernels/eda46ab3d4018e42ef77746e8750777613531238/data/raw/size-tm.txt"
  "perceptual-kernels/size-td.txt|e466c2ca3c25aa4956cc6dce1bb82fabb891b2cb70f71bfa622ab03d055f4f9d|https://raw.githubusercontent.com/uwdata/perceptual-kernels/eda46ab3d4018e42ef77746e8750777613531238/data/raw/size-td.txt"
  "perceptual-kernels/shapecolor-tm.txt|30f9ae1914997fa4586fa5386af85753eb276d1449349fc1f104dbfac37282f8|https://raw.githubusercontent.com/uwdata/perceptual-kernels/eda46ab3d4018e42ef77746e8750777613531238/data/raw/shapecolor-tm.txt"
  "perceptual-kernels/shapecolor-td.txt|14b46097ebc78a1192c2e91dba0f966e992a79b1ca3b1df104958eb933a6f429|https://raw.githubusercontent.com/uwdata/perceptual-kernels/eda46ab3d4018e42ef77746e8750777613531238/data/raw/shapecolor-td.txt"
  "perceptual-kernels/shapesize-tm.txt|2f6dae4894dc2f98dfe2d17664a6dff6a9fef2c36c28c7fcc06d56d06dcf3233|https://raw.githubusercontent.com/uwdata/perceptual-kernels/eda46ab3d4018e42ef77746e8750777613531238/data/raw/shapesize-tm.txt"
  "perceptual-kernels/shapesize-td.txt|617c137eb05fbad94de4b34ece46192a3908ea2554d68c20641d477a544fad69|https://raw.githubusercontent.com/uwdata/perceptual-kernels/eda46ab3d4018e42ef77746e8750777613531238/data/raw/shapesize-td.txt"
  "perceptual-kernels/sizecolor-tm.txt|d93136d397ecaba4996a9065a94bf1a8782aac2c9c4de606512785706bcaf3c2|https://raw.githubusercontent.com/uwdata/perceptual-kernels/eda46ab3d4018e42ef77746e8750777613531238/data/raw/sizecolor-tm.txt"
  "perceptual-kernels/sizecolor-td.txt|ce010f39c0f203cd36a31df0d06793a530e778d9ff2fd36fb3216aed2c9e4edf|https://raw.githubusercontent.com/uwdata/perceptual-kernels/eda46ab3d4018e42ef77746e8750777613531238/data/raw/sizecolor-td.txt"
  "perceptual-kernels/README.md|b99120fdcc24c865c52094181fd96d06a5892cb7b5348d5c0787a2914b1ed030|https://raw.githubusercontent.com/uwdata/perceptual-kernels/eda46ab3d4018e42ef77746e8750777613531238/README.md"
)
PREPARE=()

# ---- shared code: download or mirror, verify, place ----------------------------
# shellcheck source=lib/fetch_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/fetch_common.sh"
