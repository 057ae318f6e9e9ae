#!/usr/bin/env bash
# Collects what the API runs for speech-to-text (docs/adr/0036) into a root directory for the
# container image's runtime stage (distroless Node.js, Debian 12): Debian's ffmpeg at
# /usr/bin/ffmpeg, the local engine's helper at /usr/local/bin/aiplane-stt-pocketsphinx, the
# PocketSphinx US English model at /usr/share/pocketsphinx/model/en-us, and every shared
# library the two load, under its soname in the loader's search path, except glibc's and the
# C/C++ runtime's, which the base image carries (and Node.js with it).
#
# usage: collect-speech-runtime.sh <root> <helper binary>
# With AIPLANE_COLLECT_LINK=1 files are hard links, not copies (a test on the same file system).
set -euo pipefail
root=${1:?root directory}
helper=${2:?helper binary}

# The base image's own: never overwritten.
base='^(ld-linux.*|libc|libm|libdl|libpthread|librt|libresolv|libutil|libgcc_s|libstdc\+\+)\.so'

copy=(cp -L)
[ "${AIPLANE_COLLECT_LINK:-}" = 1 ] && copy=(cp -L --link)
place() { # source file, destination path (under root)
  mkdir -p "$root$(dirname "$2")"
  "${copy[@]}" "$1" "$root$2"
}

place /usr/bin/ffmpeg /usr/bin/ffmpeg
place "$helper" /usr/local/bin/aiplane-stt-pocketsphinx
# ldd lists each closure: "libfoo.so.1 => /lib/x86_64-linux-gnu/libfoo.so.1 (0x…)".
sonames=()
paths=()
while read -r soname path; do
  [[ $soname =~ $base ]] && continue
  sonames+=("$soname")
  paths+=("$path")
done < <(ldd /usr/bin/ffmpeg "$helper" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | sort -u)
# The file's content, at its directory's real path (/lib is /usr/lib) under the soname the
# loader looks for (libblas.so.3 is an alternatives link into blas/: placed beside the others).
dirs=()
for p in "${paths[@]}"; do dirs+=("${p%/*}"); done
mapfile -t real_dirs < <(readlink -f "${dirs[@]}")
for i in "${!paths[@]}"; do
  place "${paths[$i]}" "${real_dirs[$i]}/${sonames[$i]}"
done
mkdir -p "$root/usr/share/pocketsphinx/model"
"${copy[@]}" -r /usr/share/pocketsphinx/model/en-us "$root/usr/share/pocketsphinx/model/"
