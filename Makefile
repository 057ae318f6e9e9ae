# aiplane: the two commands are `make dev` and `make test`; both install what is missing.
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help
RUN_DIR ?= $(CURDIR)/.run
TSX := node --import tsx

.PHONY: help setup dev test lint typecheck unit integration crds crds-check cluster-up cluster-down bench clean image-bundle image e2e-kind

help: ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'

setup: ## install Debian/npm packages and build the control-plane binaries (cached)
	@hack/lib/install-deps.sh

dev: setup ## start the control plane, PostgreSQL, Keycloak, the API and the operator; print where to go
	@$(TSX) hack/src/cli.ts dev --dir $(RUN_DIR)

test: setup ## lint, typecheck, CRD drift check, unit and integration tests
	@$(MAKE) --no-print-directory lint typecheck crds-check unit integration

# Both keep a cache of the files they passed (by content) in ~/.cache/aiplane, so a warm run
# reads only what changed; a clean checkout (CI) lints everything.
LINT_CACHE ?= $(HOME)/.cache/aiplane/lint
lint: ## eslint and prettier
	@mkdir -p $(LINT_CACHE)
	@npx eslint --max-warnings=0 --cache --cache-strategy content --cache-location $(LINT_CACHE)/eslint .
	@npx prettier --check --cache --cache-strategy content --cache-location $(LINT_CACHE)/prettier . >/dev/null \
		|| (npx prettier --check . ; exit 1)

typecheck: ## tsc on every workspace
	@npx tsc -b

# FILES=… runs only those test files (the configs hold no spec list, so mocha runs what it is given).
UNIT_FILES ?= 'lib/src/**/*.test.ts' 'crds/src/**/*.test.ts' 'operator/src/**/*.test.ts' 'api/src/**/*.test.ts' 'gateway/src/**/*.test.ts' 'hack/src/**/*.test.ts' 'e2e/src/**/*.test.ts' 'portal/src/**/*.test.ts'
INTEGRATION_FILES ?= 'test/integration/**/*.test.ts'

unit: ## unit tests (no services); FILES=… for some only
	@npx mocha --config .mocharc.unit.json $(or $(FILES),$(UNIT_FILES))

integration: ## integration tests against a real control plane and services started for the run; FILES=… for some only
	@npx mocha --config .mocharc.integration.json $(or $(FILES),$(INTEGRATION_FILES))

crds: ## regenerate CRD YAML (crds/generated and the chart) and the chart's ClusterRoles from their sources
	@$(TSX) crds/src/generate.ts
	@$(TSX) hack/src/generate-rbac.ts

crds-check: ## fail when the committed CRD YAML or ClusterRoles differ from their generators
	@$(TSX) crds/src/generate.ts --check
	@$(TSX) hack/src/generate-rbac.ts --check

cluster-up: setup ## start the local control plane and services in the background
	@$(TSX) hack/src/cli.ts up --dir $(RUN_DIR)

cluster-down: ## stop what cluster-up started
	@$(TSX) hack/src/cli.ts down --dir $(RUN_DIR)

bench: setup ## benchmarks; results in bench/results/
	@$(TSX) bench/run.ts

image-bundle: ## bundle api, gateway and operator into dist/image (what the container image runs)
	@$(TSX) hack/src/image/bundle.ts

image: ## build the container image (needs Docker): IMAGE=ghcr.io/aiplane/aiplane:dev
	docker build -t $${IMAGE:-ghcr.io/aiplane/aiplane:dev} .

e2e-kind: setup ## the e2e suite on a kind cluster (needs Docker; see e2e/README.md)
	@e2e/run-kind.sh

clean: cluster-down ## remove build output and the run directory
	rm -rf $(RUN_DIR) dist */dist
