#!/usr/bin/env bash
# Installs the Keycloak server distribution (org.keycloak:keycloak-quarkus-dist from Maven
# Central) into ${XDG_CACHE_HOME:-~/.cache}/aiplane/keycloak-<version>/: download, check the
# SHA-256 that Maven Central publishes beside it, unpack, then run Keycloak's build
# (augmentation) step once for the options hack/src/keycloak.ts starts it with, so that
# every start is a fast `kc.sh start --optimized`. Records the JDK it picked in
# aiplane-java-home. A second run does nothing. Prints nothing but progress on stderr.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=versions.sh
source "$here/lib/versions.sh"
# shellcheck source=java.sh
source "$here/lib/java.sh"

dest="$AIPLANE_CACHE/keycloak-$KEYCLOAK_VERSION"
# Build-time options. PostgreSQL is the store; health answers on the main HTTP port, so the
# management interface (port 9000 on every address by default) is never opened.
build_opts="--db=postgres --health-enabled=true --http-management-health-enabled=false"

java_home=$(pick_java_home)
if [ -z "$java_home" ]; then
  echo "no JDK 17 or later under /usr/lib/jvm; run hack/lib/install-deps.sh" >&2
  exit 1
fi

if [ -f "$dest/aiplane-build" ] && [ "$(cat "$dest/aiplane-build")" = "$build_opts" ]; then
  [ "$(cat "$dest/aiplane-java-home" 2>/dev/null)" = "$java_home" ] ||
    printf '%s\n' "$java_home" >"$dest/aiplane-java-home"
  exit 0
fi

mkdir -p "$AIPLANE_CACHE"
exec 9>"$AIPLANE_CACHE/.keycloak.lock"
flock 9 # one installer at a time; the loser finds the work done below

if [ ! -x "$dest/bin/kc.sh" ]; then
  name="keycloak-quarkus-dist-$KEYCLOAK_VERSION.tar.gz"
  url="https://repo.maven.apache.org/maven2/org/keycloak/keycloak-quarkus-dist/$KEYCLOAK_VERSION/$name"
  echo "downloading Keycloak $KEYCLOAK_VERSION (first run only; cached in $dest)" >&2
  tmp=$(mktemp -d "$AIPLANE_CACHE/keycloak-download.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  curl -fsSL --retry 3 -o "$tmp/$name" "$url"
  want=$(curl -fsSL --retry 3 "$url.sha256" | tr -d '[:space:]')
  got=$(sha256sum "$tmp/$name" | cut -d' ' -f1)
  if [ "${#want}" != 64 ] || [ "$want" != "$got" ]; then
    echo "checksum mismatch for $name: expected '$want', got '$got'" >&2
    exit 1
  fi
  mkdir "$tmp/x"
  tar -xzf "$tmp/$name" -C "$tmp/x" --strip-components=1
  rm -rf "$dest"
  mv "$tmp/x" "$dest"
fi

if [ ! -f "$dest/aiplane-build" ] || [ "$(cat "$dest/aiplane-build")" != "$build_opts" ]; then
  echo "building Keycloak for PostgreSQL (first run only, about a minute)" >&2
  rm -f "$dest/aiplane-build"
  # shellcheck disable=SC2086 # build_opts is a list of plain words
  JAVA_HOME=$java_home "$dest/bin/kc.sh" build $build_opts >"$dest/aiplane-build.log" 2>&1 || {
    tail -n 30 "$dest/aiplane-build.log" >&2
    exit 1
  }
  printf '%s\n' "$build_opts" >"$dest/aiplane-build"
fi
printf '%s\n' "$java_home" >"$dest/aiplane-java-home"
