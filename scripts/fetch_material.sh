#!/usr/bin/env bash
# fetch_material.sh: fetch the material appearance similarity crowd set
# (Lagunas et al., SIGGRAPH 2019), verify SHA-256 checksums, and place it
# under data/ (repository-relative, gitignored):
#
#   data/material/{answers_processed_train.json,answers_processed_test.json,LICENSE}
#
# Usage:
#   scripts/fetch_material.sh [--dest DIR]
#   scripts/fetch_material.sh --originals DIR [--dest DIR]
#   scripts/fetch_material.sh --mirror DIR [--dest DIR]
#
#   --dest DIR       where to place the files (default: <repo>/data)
#   --originals DIR  copy the files from DIR (laid out like data/, or the
#                    files side by side) instead of downloading them
#   --mirror DIR     the same, from a tree laid out like data/
#
# Every file is verified against the SHA-256 below before it is moved
# into place, and a file already in place with the right checksum is kept.
# Nothing is derived: pkg/data's LoadMaterial reads the JSON files as they
# are (docs/datasets.md).
#
# Exit status: 0 all files in place; 1 a download, copy or checksum failed
# (nothing unverified is placed); 2 usage error.
#
# SOURCE AND LICENCE: github.com/mlagunas/material-appearance-similarity at
# commit e5fccab94462f8b245e29818a31e83253369db6e, data/. The repository's
# LICENSE is the GNU GPL version 2 (fetched beside the data); the data
# files carry no other terms. Cite Lagunas, Malpica, Serrano, Garces,
# Gutierrez & Masia, "A Similarity Measure for Material Appearance", ACM
# Trans. Graph. 38(4), SIGGRAPH 2019.
#
# The download path cannot be tested on the machines this was written on (no
# internet access); --originals and --mirror are tested by pkg/data's Go
# tests with small stand-in files. Raw GitHub URLs at a pinned commit are
# used; a Git LFS pointer would fail the checksum rather than be placed.
set -euo pipefail

# relative path | sha256 | URL
MANIFEST=(
  "material/answers_processed_train.json|eafd46b57a8220d7b650961dd119faabf30424620828eb37a7d00b0390085214|https://raw.githubusercontent.com/mlagunas/material-appearance-similarity/e5fccab94462f8b245e29818a31e83253369db6e/data/answers_processed_train.json"
  "material/answers_processed_test.json|8705e1d38f9762da6a66ab4b26fb691aacdea706692ebfe2ef206262de979def|https://raw.githubusercontent.com/mlagunas/material-appearance-similarity/e5fccab94462f8b245e29818a31e83253369db6e/data/answers_processed_test.json"
  "material/LICENSE|8177f97513213526df2cf6184d8ff986c675afb514d4e68a404010521b880643|https://raw.githubusercontent.com/mlagunas/material-appearance-similarity/e5fccab94462f8b245e29818a31e83253369db6e/LICENSE"
)
PREPARE=()

# ---- shared code: download or mirror, verify, place ----------------------------
# shellcheck source=lib/fetch_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/fetch_common.sh"
