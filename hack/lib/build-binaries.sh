#!/usr/bin/env bash
# Builds etcd, kube-apiserver, kube-controller-manager, kubectl and helm from the Go module
# proxy into ${XDG_CACHE_HOME:-~/.cache}/aiplane/bin/<name>-<version>-<modhash>/.
# A second run finds them there and does nothing. Prints nothing but progress on stderr.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=versions.sh
source "$here/lib/versions.sh"
export GOTOOLCHAIN=local GOFLAGS=-mod=mod

# The key includes the module files, so a changed go.mod/go.sum never reuses a stale build.
modhash() { cat "$1/go.mod" "$1/go.sum" | sha256sum | cut -c1-12; }

build() { # dir outdir pkg...
  local dir=$1 out=$2; shift 2
  local missing=0 p
  for p in "$@"; do [ -x "$out/$(basename "$p")" ] || missing=1; done
  [ "$missing" = 0 ] && return 0
  echo "building $(basename "$out") (first run only; cached in $out)" >&2
  local tmp="$out.tmp.$$"
  rm -rf "$tmp"; mkdir -p "$tmp"
  (cd "$dir" && go build -trimpath -ldflags "${LDFLAGS:-} -s -w" -o "$tmp/" "$@")
  rm -rf "$out"; mv "$tmp" "$out"
}

kube_dir="$AIPLANE_CACHE/bin/kube-$KUBE_VERSION-$(modhash "$here/tools/kube")"
etcd_dir="$AIPLANE_CACHE/bin/etcd-$ETCD_VERSION-$(modhash "$here/tools/etcd")"
helm_dir="$AIPLANE_CACHE/bin/helm-$HELM_VERSION-$(modhash "$here/tools/helm")"

build_etcd() {
  [ -x "$etcd_dir/etcd" ] && return 0
  echo "building etcd (first run only; cached in $etcd_dir)" >&2
  local tmp="$etcd_dir.tmp.$$"
  rm -rf "$tmp"; mkdir -p "$tmp"
  (cd "$here/tools/etcd" && go build -trimpath -ldflags "-s -w" -o "$tmp/etcd" go.etcd.io/etcd/server/v3)
  rm -rf "$etcd_dir"; mv "$tmp" "$etcd_dir"
}

case "${1:-all}" in
  paths) echo "KUBE_BIN_DIR=$kube_dir"; echo "ETCD_BIN_DIR=$etcd_dir"; echo "HELM_BIN_DIR=$helm_dir"; exit 0 ;;
esac

build_etcd
minor=${KUBE_VERSION#v1.}; minor=${minor%%.*}
LDFLAGS="-X k8s.io/component-base/version.gitVersion=$KUBE_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean" \
  build "$here/tools/kube" "$kube_dir" \
  k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kubectl
LDFLAGS="-X helm.sh/helm/v3/internal/version.version=$HELM_VERSION" \
  build "$here/tools/helm" "$helm_dir" helm.sh/helm/v3/cmd/helm
