# Shared code of scripts/fetch_aset400.sh and scripts/fetch_aloi.sh, sourced
# after each script has defined its MANIFEST table ("REL|SHA256|URL" rows:
# URL is an original's download address, "-" a derived file, "doc" its
# SOURCE.txt) and PREPARE, the data sets "mkpoe data prepare" derives.
# shellcheck shell=bash

usage() {
  sed -n '/^# Usage:/,/^# Every file/p' "$0" | sed 's/^# \{0,1\}//' | sed '$d' >&2
  exit 2
}

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  else
    shasum -a 256 "$1" | cut -d' ' -f1
  fi
}

me="$(basename "$0")"
REPO="$(cd "$(dirname "$0")/.." && pwd)"
DEST=""
MIRROR=""
ORIGINALS=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --dest) [[ $# -ge 2 ]] || usage; DEST="$2"; shift 2 ;;
    --mirror) [[ $# -ge 2 ]] || usage; MIRROR="$2"; shift 2 ;;
    --originals) [[ $# -ge 2 ]] || usage; ORIGINALS="$2"; shift 2 ;;
    -h|--help) usage ;;
    *) echo "$me: unknown argument: $1" >&2; usage ;;
  esac
done
if [[ -n "$MIRROR" && -n "$ORIGINALS" ]]; then
  echo "$me: --mirror and --originals exclude each other (a mirror holds the derived files too)" >&2
  exit 2
fi
for opt in "--mirror:$MIRROR" "--originals:$ORIGINALS"; do
  dir="${opt#*:}"
  if [[ -n "$dir" && ! -d "$dir" ]]; then
    echo "$me: ${opt%%:*} $dir: not a directory" >&2
    exit 2
  fi
done
[[ -n "$MIRROR" ]] && MIRROR="$(cd "$MIRROR" && pwd)"
[[ -n "$ORIGINALS" ]] && ORIGINALS="$(cd "$ORIGINALS" && pwd)"
DEST="${DEST:-$REPO/data}"
mkdir -p "$DEST"
DEST="$(cd "$DEST" && pwd)"
TMPDIR_FETCH="$(mktemp -d "$DEST/.fetch.XXXXXX")"
trap 'rm -rf "$TMPDIR_FETCH"' EXIT

# obtain REL URL OUT: copy an original from --mirror or --originals, or
# download it, into OUT.
obtain() {
  local rel="$1" url="$2" out="$3" src
  if [[ -n "$MIRROR" ]]; then
    src="$MIRROR/$rel"
  elif [[ -n "$ORIGINALS" ]]; then
    # The originals folder may be laid out like data/ or hold the files flat.
    src="$ORIGINALS/$rel"
    [[ -f "$src" ]] || src="$ORIGINALS/$(basename "$rel")"
  else
    echo "downloading $url" >&2
    curl -fsSL --retry 3 --connect-timeout 30 -o "$out" "$url"
    return
  fi
  if [[ ! -f "$src" ]]; then
    echo "error: $rel: missing in ${MIRROR:-$ORIGINALS}" >&2
    return 1
  fi
  cp "$src" "$out"
}

# place REL WANT FILE: verify FILE against WANT (no check when WANT is
# empty) and move it to DEST/REL; exit 1 on a mismatch.
place() {
  local rel="$1" want="$2" file="$3" got
  if [[ -n "$want" ]]; then
    got="$(sha256 "$file")"
    if [[ "$got" != "$want" ]]; then
      echo "error: $rel: checksum mismatch: sha256 $got, want $want; not placed" >&2
      exit 1
    fi
  fi
  mkdir -p "$(dirname "$DEST/$rel")"
  mv -f "$file" "$DEST/$rel"
  chmod 0644 "$DEST/$rel"
  echo "ok $rel"
}

# in_place REL WANT: the file is in place with the pinned checksum.
in_place() {
  [[ -f "$DEST/$1" && "$(sha256 "$DEST/$1")" == "$2" ]]
}

# 1. The originals (with --mirror: every file).
derive=no
for entry in "${MANIFEST[@]}"; do
  IFS='|' read -r rel want url <<<"$entry"
  if [[ -z "$MIRROR" && ( "$url" == "-" || "$url" == "doc" ) ]]; then
    if [[ "$url" == "-" ]]; then
      if in_place "$rel" "$want"; then echo "ok (already in place) $rel"; else derive=yes; fi
    fi
    if [[ "$url" == "doc" && ! -f "$DEST/$rel" ]]; then derive=yes; fi
    continue
  fi
  if in_place "$rel" "$want"; then
    echo "ok (already in place) $rel"
    continue
  fi
  tmp="$TMPDIR_FETCH/file"
  rm -f "$tmp"
  if ! obtain "$rel" "$url" "$tmp"; then
    echo "error: $rel: could not obtain it" >&2
    exit 1
  fi
  place "$rel" "$want" "$tmp"
done

# 2. The derived files, made from the originals by "mkpoe data prepare" and
# checked against the same pins as a mirror's copies. SOURCE.txt, which
# names the originals and the mkpoe version, is not pinned.
if [[ "$derive" == yes ]]; then
  if ! command -v go >/dev/null 2>&1; then
    {
      echo "The originals are in place under $DEST, but the derived files are not:"
      echo "they are made by 'go run ./cmd/mkpoe data prepare', and Go is not on PATH."
      echo "Install Go (https://go.dev/dl/) and rerun, or copy them with --mirror DIR."
    } >&2
    exit 3
  fi
  for set in "${PREPARE[@]}"; do
    echo "deriving $set: go run ./cmd/mkpoe data prepare $set --out <tmp> $DEST" >&2
    if ! (cd "$REPO" && go run ./cmd/mkpoe data prepare "$set" --out "$TMPDIR_FETCH/derived" "$DEST" >/dev/null); then
      echo "error: mkpoe data prepare $set failed (its message is above); nothing derived was placed" >&2
      exit 1
    fi
  done
  for entry in "${MANIFEST[@]}"; do
    IFS='|' read -r rel want url <<<"$entry"
    case "$url" in
      -) place "$rel" "$want" "$TMPDIR_FETCH/derived/$rel" ;;
      doc) place "$rel" "" "$TMPDIR_FETCH/derived/$rel" ;;
    esac
  done
fi
echo "all files in place under $DEST"
