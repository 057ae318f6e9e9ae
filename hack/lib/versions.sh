# Pinned versions of everything hack/ builds or downloads. One place; bump here.
# shellcheck shell=bash
KUBE_VERSION=v1.35.4
ETCD_VERSION=v3.6.5
HELM_VERSION=v3.19.2
KEYCLOAK_VERSION=26.7.3
AIPLANE_CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/aiplane"
export KUBE_VERSION ETCD_VERSION HELM_VERSION KEYCLOAK_VERSION AIPLANE_CACHE
