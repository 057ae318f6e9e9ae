#!/usr/bin/env bash
# Builds the portal (portal/, React + Vite) into portal/dist/app, which the API serves under
# /portal/ and the image bundle copies (docs/adr/0037). Cached: the build is stamped with a
# hash of its inputs (the portal's sources and configuration, and package-lock.json) and is
# not redone while they are unchanged. Prints nothing but progress on stderr.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=versions.sh
source "$here/hack/lib/versions.sh"
cd "$here"

out=portal/dist/app
stamp="$out/.build-inputs"
want=$(
  find portal -path portal/dist -prune -o -path portal/node_modules -prune -o -type f -print |
    LC_ALL=C sort | xargs sha256sum | cat - package-lock.json | sha256sum | cut -d' ' -f1
)
install_once "$stamp" "$want" "portal-build-$(printf '%s' "$here" | sha256sum | cut -c1-12)"

echo "building the portal (vite build)" >&2
rm -f "$stamp"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
(cd portal && npx vite build) >"$log" 2>&1 || {
  tail -n 40 "$log" >&2
  exit 1
}
printf '%s\n' "$want" >"$stamp"
