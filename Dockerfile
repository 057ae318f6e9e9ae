# syntax=docker/dockerfile:1
# One image for the api, the gateway and the operator; the argument picks one:
#   docker run ghcr.io/aiplane/aiplane:<tag> api|gateway|operator
# It carries an esbuild bundle of the three (make image-bundle), no node_modules, no npm and
# no shell (docs/adr/0013-container-image.md). Build: make image.

# --- build: install what bundling needs, bundle into /src/dist/image ----------------------
# The bundle is plain JavaScript: a multi-platform build bundles once, on the builder's platform.
FROM --platform=$BUILDPLATFORM node:22-bookworm-slim AS build
WORKDIR /src
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
RUN npm ci --no-audit --no-fund \
      --workspace=lib --workspace=crds --workspace=operator --workspace=api --workspace=gateway \
      --include-workspace-root
COPY tsconfig.base.json ./
COPY lib/ lib/
COPY crds/ crds/
COPY operator/ operator/
COPY api/ api/
COPY gateway/ gateway/
COPY hack/tsconfig.json hack/
COPY hack/src/ hack/src/
RUN node --import tsx hack/src/image/bundle.ts

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
    AIPLANE_API_HOST=0.0.0.0 \
    AIPLANE_GATEWAY_HOST=0.0.0.0 \
    AIPLANE_OPERATOR_HEALTH_HOST=0.0.0.0
WORKDIR /app
# Owned by root and read-only to the process (it writes nothing; readOnlyRootFilesystem works).
COPY --from=build /src/dist/image/ /app/
USER 65532:65532
# api (AIPLANE_API_PORT), gateway (AIPLANE_GATEWAY_PORT), operator health and metrics
# (AIPLANE_OPERATOR_HEALTH_PORT).
EXPOSE 8080 8090 8081
ENTRYPOINT ["/nodejs/bin/node", "/app/aiplane.mjs"]
CMD ["api"]
