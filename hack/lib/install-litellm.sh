#!/usr/bin/env bash
# Installs LiteLLM's proxy (PyPI `litellm[proxy]`, pinned in versions.sh) into a Python
# virtualenv at ${XDG_CACHE_HOME:-~/.cache}/aiplane/venv-litellm-<version>/. The integration
# tests run it as a third-party OpenAI-compatible backend behind the messages API (ADR 0024).
# A marker file written after a good install makes a second run do nothing. Needs python3
# (3.9 or later) with the venv module. Prints nothing but progress on stderr.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=versions.sh
source "$here/lib/versions.sh"

dest="$AIPLANE_CACHE/venv-litellm-$LITELLM_VERSION"
marker="$dest/aiplane-installed"
want="litellm[proxy]==$LITELLM_VERSION"
install_once "$marker" "$want" litellm

python=${AIPLANE_PYTHON:-python3}
echo "installing LiteLLM proxy $LITELLM_VERSION into $dest (first run only; several minutes, about 750 MB)" >&2
rm -rf "$dest"
"$python" -m venv "$dest"
log="$AIPLANE_CACHE/venv-litellm-$LITELLM_VERSION.log"
"$dest/bin/pip" install --quiet --disable-pip-version-check --no-input "$want" >"$log" 2>&1 || {
  tail -n 30 "$log" >&2
  exit 1
}
"$dest/bin/litellm" --version >/dev/null 2>&1 || {
  echo "LiteLLM installed into $dest but 'litellm --version' fails" >&2
  exit 1
}
printf '%s\n' "$want" >"$marker"
