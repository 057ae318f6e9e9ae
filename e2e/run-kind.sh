#!/usr/bin/env bash
# The e2e suite on a kind cluster (`make e2e-kind`; e2e/README.md): builds the platform image
# and the e2e MCP server image, creates the kind cluster aiplane-e2e (unless it exists), loads
# both images into it, and runs the mocha suite (.mocharc.e2e.json) against it.
#
# Knobs:
#   E2E_SKIP_BUILD=1     the images are already built (the workflow builds them first)
#   E2E_KEEP_CLUSTER=1   keep the cluster afterwards (otherwise it is deleted on exit)
#   E2E_KIND_NODE_IMAGE  node image for a new cluster (default: the one of this kind release)
#   KIND, HELM, KUBECTL  use these binaries instead of the pinned ones
#   E2E_ARTIFACTS_DIR    where diagnostics go when the suite fails (default: a temp dir)
set -euo pipefail
# Keep -e inside $(…) too: a failed build in find_kind/find_helm must stop the run there.
shopt -s inherit_errexit
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# shellcheck source=../hack/lib/versions.sh
source hack/lib/versions.sh

# kind from the Go module proxy (a release tag listed by `go list -m -versions sigs.k8s.io/kind`).
KIND_VERSION=v0.32.0
CLUSTER=aiplane-e2e
PLATFORM_IMAGE=ghcr.io/aiplane/aiplane:e2e
MCP_IMAGE=registry.e2e.local/aiplane/e2e-mcp:1
SYSTEM_NAMESPACE=aiplane-system

say() { echo "e2e-kind: $*" >&2; }
die() {
  say "$*"
  exit 1
}

if ! command -v docker >/dev/null 2>&1; then
  die "make e2e-kind needs Docker, and there is no docker command here. Without Docker, make test still typechecks the suite and runs the unit tests of its non-cluster parts (e2e/README.md)."
fi
if ! docker info >/dev/null 2>&1; then
  die "make e2e-kind needs Docker, and the Docker daemon does not answer (docker info failed). Start it, or run on a machine with Docker."
fi

# Fails unless Go is there to build a missing tool: tool name, its override variable.
need_go() {
  command -v go >/dev/null 2>&1 || die "$1 is not built yet and there is no go to build it: install Go (or set ${2}=/path/to/${1})"
}

find_kind() {
  if [ -n "${KIND:-}" ]; then
    echo "$KIND"
    return
  fi
  local dir="$AIPLANE_CACHE/bin/kind-$KIND_VERSION"
  if [ -x "$dir/kind" ]; then
    echo "$dir/kind"
    return
  fi
  # A kind on PATH is used only when it is the pinned release.
  if command -v kind >/dev/null 2>&1 && [ "$(kind version 2>/dev/null | awk '{print $2}')" = "$KIND_VERSION" ]; then
    command -v kind
    return
  fi
  need_go kind KIND
  say "building kind $KIND_VERSION from the Go module proxy (first run only; cached in $dir)"
  local tmp="$dir.tmp.$$"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  GOTOOLCHAIN=local GOBIN="$tmp" go install "sigs.k8s.io/kind@$KIND_VERSION" >&2
  rm -rf "$dir"
  mv "$tmp" "$dir"
  echo "$dir/kind"
}

# helm as `make setup` builds it (hack/lib/build-binaries.sh), but only helm: the workflow
# needs neither etcd nor the kube binaries.
find_helm() {
  if [ -n "${HELM:-}" ]; then
    echo "$HELM"
    return
  fi
  local dir
  dir=$(hack/lib/build-binaries.sh paths | sed -n 's/^HELM_BIN_DIR=//p')
  if [ -x "$dir/helm" ]; then
    echo "$dir/helm"
    return
  fi
  need_go helm HELM
  say "building helm $HELM_VERSION from the Go module proxy (first run only; cached in $dir)"
  local tmp="$dir.tmp.$$"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  (cd hack/tools/helm && GOTOOLCHAIN=local GOFLAGS=-mod=mod go build -trimpath \
    -ldflags "-X helm.sh/helm/v3/internal/version.version=$HELM_VERSION -s -w" \
    -o "$tmp/" helm.sh/helm/v3/cmd/helm) >&2
  rm -rf "$dir"
  mv "$tmp" "$dir"
  echo "$dir/helm"
}

find_kubectl() {
  if [ -n "${KUBECTL:-}" ]; then
    echo "$KUBECTL"
    return
  fi
  local dir
  dir=$(hack/lib/build-binaries.sh paths | sed -n 's/^KUBE_BIN_DIR=//p')
  [ -x "$dir/kubectl" ] || die "no kubectl in $dir: run make setup (it builds kubectl $KUBE_VERSION), or set KUBECTL=/path/to/kubectl"
  echo "$dir/kubectl"
}

KIND=$(find_kind)
HELM=$(find_helm)
KUBECTL=$(find_kubectl)
export HELM KUBECTL
say "kind: $KIND ($("$KIND" version | awk '{print $2}')); helm: $HELM; kubectl: $KUBECTL"

if [ "${E2E_SKIP_BUILD:-0}" = 1 ]; then
  say "E2E_SKIP_BUILD=1: using the images already built"
else
  say "building $PLATFORM_IMAGE"
  docker build -t "$PLATFORM_IMAGE" .
  say "building $MCP_IMAGE"
  docker build -t "$MCP_IMAGE" e2e/mcp-server
fi
for image in "$PLATFORM_IMAGE" "$MCP_IMAGE"; do
  docker image inspect "$image" >/dev/null 2>&1 ||
    die "image $image does not exist (E2E_SKIP_BUILD=1 expects it built: docker build -t $image …)"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/aiplane-e2e.XXXXXX")
# Everything below (kind create included) writes this kubeconfig, never ~/.kube/config.
export KUBECONFIG="$work/kubeconfig"

cleanup() {
  local status=$?
  if [ "${E2E_KEEP_CLUSTER:-0}" = 1 ]; then
    say "keeping kind cluster $CLUSTER (E2E_KEEP_CLUSTER=1): $KIND get kubeconfig --name $CLUSTER > kubeconfig; delete it with $KIND delete cluster --name $CLUSTER"
  else
    say "deleting kind cluster $CLUSTER"
    "$KIND" delete cluster --name "$CLUSTER" >&2 || true
  fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT

create_cluster() {
  say "creating kind cluster $CLUSTER"
  local args=(create cluster --name "$CLUSTER" --wait 5m)
  if [ -n "${E2E_KIND_NODE_IMAGE:-}" ]; then args+=(--image "$E2E_KIND_NODE_IMAGE"); fi
  "$KIND" "${args[@]}" >&2
}

if "$KIND" get clusters 2>/dev/null | grep -qx "$CLUSTER"; then
  "$KIND" get kubeconfig --name "$CLUSTER" >"$KUBECONFIG"
  # A kept cluster still holds the last run (its secrets, its release): start afresh.
  if "$KUBECTL" get namespace "$SYSTEM_NAMESPACE" >/dev/null 2>&1; then
    say "kind cluster $CLUSTER holds an earlier run (namespace $SYSTEM_NAMESPACE); recreating it"
    "$KIND" delete cluster --name "$CLUSTER" >&2
    create_cluster
  else
    say "using the existing kind cluster $CLUSTER"
  fi
else
  create_cluster
fi
"$KIND" get kubeconfig --name "$CLUSTER" >"$KUBECONFIG"

# `kind load docker-image` fails with "content digest … not found" when Docker uses the
# containerd image store (kind issue #3795); saving only the node's platform and loading the
# archive works with both stores.
load_image() {
  local image=$1
  if "$KIND" load docker-image --name "$CLUSTER" "$image" >&2; then return 0; fi
  say "kind load docker-image $image failed; loading a single-platform archive instead"
  local arch archive="$work/image.tar"
  arch=$(docker version --format '{{.Server.Arch}}')
  docker image save --platform "linux/$arch" -o "$archive" "$image"
  "$KIND" load image-archive --name "$CLUSTER" "$archive" >&2
  rm -f "$archive"
}
for image in "$PLATFORM_IMAGE" "$MCP_IMAGE"; do
  say "loading $image into $CLUSTER"
  load_image "$image"
done

say "running the suite (.mocharc.e2e.json)"
npx mocha --config .mocharc.e2e.json
