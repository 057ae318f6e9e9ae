#!/usr/bin/env bash
# Builds versitygw (an S3 server over a directory; the S3 blob store's tests run against it,
# docs/adr/0038) from the Go module proxy into
# ${XDG_CACHE_HOME:-~/.cache}/aiplane/bin/versitygw-<version>-<modhash>/versitygw.
# A second run finds it there and does nothing. Prints nothing but progress on stderr.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=versions.sh
source "$here/hack/lib/versions.sh"
export GOTOOLCHAIN=local GOFLAGS=-mod=mod

tools="$here/hack/tools/versitygw"
# The key includes the module files, so a changed go.mod/go.sum never reuses a stale build.
grep -q "github.com/versity/versitygw $VERSITYGW_VERSION\$" "$tools/go.mod" || {
  echo "hack/tools/versitygw/go.mod must require versitygw $VERSITYGW_VERSION (versions.sh)" >&2
  exit 1
}
modhash=$(cat "$tools/go.mod" "$tools/go.sum" | sha256sum | cut -c1-12)
out_dir="$AIPLANE_CACHE/bin/versitygw-$VERSITYGW_VERSION-$modhash"
stamp="$out_dir/.aiplane-built"
install_once "$stamp" "$VERSITYGW_VERSION" versitygw
echo "building versitygw $VERSITYGW_VERSION (first run only, a few minutes; cached in $out_dir)" >&2
tmp="$out_dir.tmp.$$"
rm -rf "$tmp"; mkdir -p "$tmp"
(cd "$tools" && go build -trimpath -ldflags "-s -w -X main.Version=$VERSITYGW_VERSION" -o "$tmp/" github.com/versity/versitygw/cmd/versitygw)
printf '%s\n' "$VERSITYGW_VERSION" >"$tmp/.aiplane-built"
rm -rf "$out_dir"; mv "$tmp" "$out_dir"
