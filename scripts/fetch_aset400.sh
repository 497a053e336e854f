#!/usr/bin/env bash
# fetch_aset400.sh: fetch the aset400 artist-similarity data and the Last.fm
# HetRec 2011 data for its artists, verify SHA-256 checksums, and place them
# under data/ (repository-relative, gitignored) in the layout of
# ../shared/data:
#
#   data/aset400/{triplets.tsv,artists.tsv,genre_labels.tsv,genre_names.txt,SOURCE.txt}
#   data/aset400/original/{music_triplets.mat,music_labels.mat,cblearn_musician_names.txt}
#   data/lastfm-hetrec2011/{artists.dat,tags.dat,user_artists.dat,user_taggedartists.dat,
#                           readme.txt,aset400_to_hetrec_artistID.tsv,SOURCE.txt}
#
# Usage:
#   scripts/fetch_aset400.sh [--dest DIR]
#   scripts/fetch_aset400.sh --originals DIR [--dest DIR]
#   scripts/fetch_aset400.sh --mirror DIR [--dest DIR]
#
#   --dest DIR       where to place the files (default: <repo>/data)
#   --originals DIR  copy the originals from DIR (laid out like data/, or the
#                    files side by side) instead of downloading them
#   --mirror DIR     copy every file, derived ones too, from DIR, a tree laid
#                    out like ../shared/data (for machines without Go)
#
# Every file is verified against the SHA-256 below before it is moved
# into place, and a file already in place with the right checksum is kept.
# The derived files are then made from the originals by
# "go run ./cmd/mkpoe data prepare aset400|lastfm" (Go must be on PATH; the
# first run also fetches mkpoe's Go modules) and checked against the same
# pins; with --mirror they are copied and checked instead.
#
# Exit status: 0 all files in place; 1 a download, copy, derivation or
# checksum failed (nothing unverified is placed); 2 usage error; 3 the
# originals are in place but Go is not on PATH to derive the rest.
#
# SOURCES AND LICENCES (from ../shared/data/*/SOURCE.txt; cite the works in
# docs/datasets.md):
#
# aset400 (Ellis, Whitman, Berenzweig & Lawrence 2002, MusicSeer survey), as
#   processed by McFee & Lanckriet and redistributed in van der Maaten &
#   Weinberger's STE_Release (t-STE, 2012), from
#   github.com/amandasongmm/simi_triplet at commit
#   a22b7160bbfec7ed17f8099eb0197d48a67c5449, STE_Release/data/.
#   Licence: the repository has no licence file; the STE_Release web page
#   says the code is for non-commercial use only; the data's own licence is
#   unstated. Treat as non-commercial research use.
# cblearn_musician_names.txt: github.com/cblearn/cblearn at commit
#   d0beebfd08f4f76f88506386f6000fef051ec298, MIT licence (c) 2020-2021 the
#   cblearn developers.
# Last.fm HetRec 2011 (hetrec2011-lastfm-2k; Cantador, Brusilovsky & Kuflik,
#   RecSys 2011): "made available for non-commercial use" (readme.txt); cite
#   Last.fm and HetRec'11. Copied from github.com/Coder-Yu/QRec at commit
#   a61b79db3fdc15c2c1d739fb3dd60430236ec3e0, dataset/lastfm-2k/. The
#   official archive is https://files.grouplens.org/datasets/hetrec2011/
#   hetrec2011-lastfm-2k.zip; its files were not compared with these
#   checksums, so it is not used here.
#
# DERIVED FILES. triplets.tsv, artists.tsv, genre_labels.tsv and
# genre_names.txt (aset400) and aset400_to_hetrec_artistID.tsv (Last.fm) are
# derived by "mkpoe data prepare" (pkg/data/prepare.go; rules in
# docs/datasets.md). Two kinds of value come from the repository, not from
# the originals: artists.tsv's display names, which a curator read off
# t-STE's music_tste_map.eps (pkg/data/aset400_display_names.tsv), and three
# HetRec matches made by hand (hetrecAliases in pkg/data/prepare.go). The
# pins below are those of the curators' files in ../shared/data, which
# prepare reproduces byte for byte (pkg/data TestPrepareMatchesShared).
# SOURCE.txt is written by prepare (naming the originals and mkpoe's
# version) and is pinned only when copied from a mirror.
#
# The download path cannot be tested on the machines this was written on (no
# internet access); --originals and --mirror are tested by pkg/data's Go
# tests. Raw GitHub URLs at pinned commits are used; if a file were stored
# with Git LFS the checksum check would fail rather than place a pointer file.
set -euo pipefail

# relative path | sha256 | URL ("-": derived; "doc": SOURCE.txt, pinned for a mirror's copy only)
MANIFEST=(
  "aset400/original/music_triplets.mat|ce7b33bbb208ea9e441f2860d59574a98272a0d110fc1b4d9e96d4c88d59b313|https://raw.githubusercontent.com/amandasongmm/simi_triplet/a22b7160bbfec7ed17f8099eb0197d48a67c5449/STE_Release/data/music_triplets.mat"
  "aset400/original/music_labels.mat|1f783ac2f9f02257e599ed8fe3661938334bc6ca03b071ece6a8e6b46e47312f|https://raw.githubusercontent.com/amandasongmm/simi_triplet/a22b7160bbfec7ed17f8099eb0197d48a67c5449/STE_Release/data/music_labels.mat"
  "aset400/original/cblearn_musician_names.txt|d909ba18c81ef9e4ef0eceb6b4cad97128e18737926246a3440caca1137b75cf|https://raw.githubusercontent.com/cblearn/cblearn/d0beebfd08f4f76f88506386f6000fef051ec298/cblearn/datasets/data/musician_names.txt"
  "lastfm-hetrec2011/artists.dat|c173881362c6b28551368fecb3c0be5a6a30a6cd859e1f5775413dfe46d48648|https://raw.githubusercontent.com/Coder-Yu/QRec/a61b79db3fdc15c2c1d739fb3dd60430236ec3e0/dataset/lastfm-2k/artists.dat"
  "lastfm-hetrec2011/readme.txt|44c38757b3a24e68e844ac60c97ba7fd8e0f691cf1b00e9cf6bd8854df0dd64a|https://raw.githubusercontent.com/Coder-Yu/QRec/a61b79db3fdc15c2c1d739fb3dd60430236ec3e0/dataset/lastfm-2k/readme.txt"
  "lastfm-hetrec2011/tags.dat|c815d7216101fd0ba9b9c59fa2a011998d2fd076e0064d281ec4153d95ae8095|https://raw.githubusercontent.com/Coder-Yu/QRec/a61b79db3fdc15c2c1d739fb3dd60430236ec3e0/dataset/lastfm-2k/tags.dat"
  "lastfm-hetrec2011/user_artists.dat|254272fa721c3935e8be286d28c051b206844307128698ab4eaa41d483379416|https://raw.githubusercontent.com/Coder-Yu/QRec/a61b79db3fdc15c2c1d739fb3dd60430236ec3e0/dataset/lastfm-2k/user_artists.dat"
  "lastfm-hetrec2011/user_taggedartists.dat|c4a9ffae9ab47a9f9b2f0678ab1f7e5c1db4ca818837d8cddd1f5699c5bbf048|https://raw.githubusercontent.com/Coder-Yu/QRec/a61b79db3fdc15c2c1d739fb3dd60430236ec3e0/dataset/lastfm-2k/user_taggedartists.dat"
  "aset400/triplets.tsv|20cae5a96150871071194d393f943601082cdd9895ca18b5ec6c7856d4aa6f73|-"
  "aset400/artists.tsv|6742d12d450871c21b105a4b358850f7770a24a3565626bc2f5a05bbb3c39ab0|-"
  "aset400/genre_labels.tsv|0f108444a2df6041f515c888b22538d27dc534bd8fea32f186093edc4c1675cd|-"
  "aset400/genre_names.txt|863abb390b273ea9a7515355b8b70a99e27ca0002525bbe20060f711b9ff5fd5|-"
  "aset400/SOURCE.txt|be66168a7e851c0f854368eb183585d4b533cc947ac8b80f89f619a192bdcd4d|doc"
  "lastfm-hetrec2011/aset400_to_hetrec_artistID.tsv|bf667ef765c013e8e27025e50190c7e8261c4bb4efa1f44c6eec0016edc1e274|-"
  "lastfm-hetrec2011/SOURCE.txt|2b33242fdeda03421d99945443665cd8698454d8b8c4c4c883f0bbb6d9a65d0b|doc"
)
PREPARE=(aset400 lastfm)

# ---- shared code: download or mirror, verify, place ----------------------------
# shellcheck source=lib/fetch_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/fetch_common.sh"
