#!/usr/bin/env bash
# Compiles the local speech engine's helper (api/src/speech/native/pocketsphinx-stream.c, over
# Debian's libpocketsphinx; docs/adr/0036) into
# ${XDG_CACHE_HOME:-~/.cache}/aiplane/bin/stt-pocketsphinx-<source hash>/aiplane-stt-pocketsphinx,
# or into the directory given as the first argument (the image's build stage). A second run
# finds it there and does nothing. Prints nothing but progress on stderr.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=versions.sh
source "$here/hack/lib/versions.sh"

src="$here/api/src/speech/native/pocketsphinx-stream.c"
hash=$(sha256sum "$src" | cut -c1-12)
out_dir=${1:-"$AIPLANE_CACHE/bin/stt-pocketsphinx-$hash"}
out="$out_dir/aiplane-stt-pocketsphinx"
stamp="$out_dir/.aiplane-source"
install_once "$stamp" "$hash" stt-helper
echo "compiling the PocketSphinx helper (first run only; cached in $out_dir)" >&2
mkdir -p "$out_dir"
# shellcheck disable=SC2046 # pkg-config's flags are words
cc -O2 -Wall -Wextra -Werror -o "$out.tmp.$$" "$src" $(pkg-config --cflags --libs pocketsphinx)
mv "$out.tmp.$$" "$out"
printf '%s\n' "$hash" >"$stamp"
