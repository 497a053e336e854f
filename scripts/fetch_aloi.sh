#!/usr/bin/env bash
# fetch_aloi.sh: fetch the ALOI-10 multi-view feature set, verify SHA-256
# checksums, and place it under data/ (repository-relative, gitignored) in
# the layout of ../shared/data:
#
#   data/aloi10/{view1_64d_hist_sum1.tsv,view2_64d_hist_sum1.tsv,view3_77d.tsv,
#                view4_13d_haralick_like.tsv,labels.tsv,subset_10x20_row_indices.tsv,SOURCE.txt}
#   data/aloi10/original/ALOI_UIMC.mat
#
# Usage:
#   scripts/fetch_aloi.sh [--dest DIR]
#   scripts/fetch_aloi.sh --originals DIR [--dest DIR]
#   scripts/fetch_aloi.sh --mirror DIR [--dest DIR]
#
#   --dest DIR       where to place the files (default: <repo>/data)
#   --originals DIR  copy the original from DIR (laid out like data/, or the
#                    file by itself) instead of downloading it
#   --mirror DIR     copy every file, derived ones too, from DIR, a tree laid
#                    out like ../shared/data (for machines without Go)
#
# Every file is verified against the SHA-256 below before it is moved into
# place, and a file already in place with the right checksum is kept. The
# derived files are made from the original by
# "go run ./cmd/mkpoe data prepare aloi" (Go must be on PATH) and checked
# against the same pins; with --mirror they are copied and checked instead.
#
# Exit status: 0 all files in place; 1 a download, copy, derivation or
# checksum failed (nothing unverified is placed); 2 usage error; 3 the
# original is in place but Go is not on PATH to derive the rest.
#
# SOURCE AND LICENCE (from ../shared/data/aloi10/SOURCE.txt; cite the works
# in docs/datasets.md):
#
# ALOI (Amsterdam Library of Object Images; Geusebroek, Burghouts & Smeulders,
#   IJCV 61:103-112, 2005), 10 objects, 1079 images, 4 precomputed feature
#   views, as distributed with the UIMC code: github.com/AllminerLab/
#   Code-for-UIMC-master at commit c6b06be146850db6b56ee713e0359e6aa73175a6,
#   data/ALOI.mat (placed as original/ALOI_UIMC.mat). The repository has no
#   licence file; the ALOI images are "publicly available for scientific
#   research purposes". Treat as research-only and cite ALOI.
#   (An identical copy of the data, in N x d orientation, is
#   github.com/huangsuj/MvI-GCN datasets/ALOI.mat at commit
#   2b7471db87dfabf755f7e5f4d52f13456c1581e7; it is a different file, so the
#   checksum below does not apply to it.)
#
# DERIVED FILES. The view*.tsv, labels.tsv and subset_10x20_row_indices.tsv
# files are derived from ALOI_UIMC.mat by "mkpoe data prepare aloi"
# (pkg/data/prepare.go: views transposed to one row per image, %.10g; the
# subset takes, class by class, in-class positions 0,5,...,95). The pins
# below are those of the curators' files in ../shared/data, which prepare
# reproduces byte for byte (pkg/data TestPrepareMatchesShared). SOURCE.txt is
# written by prepare and is pinned only when copied from a mirror.
#
# The download path cannot be tested on the machines this was written on (no
# internet access); --originals and --mirror are tested by pkg/data's Go
# tests. If the file were stored with Git LFS the checksum check would fail
# rather than place a pointer file.
set -euo pipefail

# relative path | sha256 | URL ("-": derived; "doc": SOURCE.txt, pinned for a mirror's copy only)
MANIFEST=(
  "aloi10/original/ALOI_UIMC.mat|1f5e540e0a83a6548cd9a25d99f619189861f737dd60bcbdfffbca9b69b964f1|https://raw.githubusercontent.com/AllminerLab/Code-for-UIMC-master/c6b06be146850db6b56ee713e0359e6aa73175a6/data/ALOI.mat"
  "aloi10/view1_64d_hist_sum1.tsv|6f4d980d85185608167b218e036ff3edcf237bbcf43ef00683ffaa969fe3601a|-"
  "aloi10/view2_64d_hist_sum1.tsv|b9c712dc7b5a78311e6a50b91ceff7e5d6b540e10d4df91a8244e57547752fe4|-"
  "aloi10/view3_77d.tsv|fdd414f6067c08e7d8ac179be0b57b3240b836aa2e72c068e3a19ab3dde74616|-"
  "aloi10/view4_13d_haralick_like.tsv|2c09103adcdb9c3a0611a6f6c2642d245914364b8ce51a80397b9d1af5d81682|-"
  "aloi10/labels.tsv|6744835c5df2f5bf50b6d53fcafde515677d722306fb4fbae93879cb97ec2f5a|-"
  "aloi10/subset_10x20_row_indices.tsv|00e987c36b54ad690860f6a45e33c304644c966bc6fa9837aece31d4901ec5b6|-"
  "aloi10/SOURCE.txt|00117c4f6c7090c56b065f4a6d96bc299770e0f526bf8ea7d242873a4b18b4d7|doc"
)
PREPARE=(aloi)

# ---- shared code: download or mirror, verify, place ----------------------------
# shellcheck source=lib/fetch_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/fetch_common.sh"
