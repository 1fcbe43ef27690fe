# webtorch: build and test.
#
#   make playground   set up, build the package, serve www/ on localhost (the main job)
#   make test         set up, build, run every test (what .ci/run does)
#   make pkg          build the npm package into pkg/
#   make help         the other targets (each test step can be run on its own)

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-builtin-rules --no-print-directory
.DELETE_ON_ERROR:

export PATH := $(HOME)/.cargo/bin:$(CURDIR)/node_modules/.bin:$(PATH)
# Dawn (the `webgpu` npm package) finds an adapter here only through Chromium's SwiftShader ICD.
# Set only for the Node steps: `cargo test` runs wgpu on Mesa lavapipe, found by the loader.
SWIFTSHADER_ICD ?= /usr/lib/chromium/vk_swiftshader_icd.json
NODE_GPU_ENV := VK_ICD_FILENAMES=$(SWIFTSHADER_ICD)
CHROMEDRIVER ?= /usr/bin/chromedriver
# Mesa and SwiftShader complain on every device creation when this is unset (no desktop session).
export XDG_RUNTIME_DIR ?= /tmp/webtorch-xdg-$(shell id -u)
$(shell mkdir -p -m 700 $(XDG_RUNTIME_DIR))
export WASM_BINDGEN_TEST_TIMEOUT ?= 180

RUST_SRC := Cargo.toml $(wildcard Cargo.lock) $(shell find src shaders -type f 2>/dev/null)
TS_SRC := ts/tsconfig.json $(shell find ts/src -name '*.ts' -not -path 'ts/src/wasm/*' 2>/dev/null)
TEMPLATE := $(shell find pkg-template -type f 2>/dev/null) scripts/side-effects.mjs
WASM := build/wasm/webtorch_core_bg.wasm
WASM_FILES := webtorch_core.js webtorch_core.d.ts webtorch_core_bg.wasm
PKG_STAMP := build/pkg.stamp

# The steps of `make test`, in order (cheap and fundamental first).
TEST_STEPS := lint-rust lint-ts test-cargo test-wasm test-types test-node test-browser test-vite test-playground

.PHONY: help setup pkg wasm www-dist playground test fmt $(TEST_STEPS) clean-pkg

help:
	@echo "make playground   set up, build pkg/, serve www/ on localhost (PORT=8080)"
	@echo "make test         set up, build pkg/, then: $(TEST_STEPS)"
	@echo "make pkg          build the npm package into pkg/ (wasm-pack + tsc + pkg-template/)"
	@echo "make setup        install what is missing (scripts/setup.sh; idempotent)"
	@echo "make fmt          format Rust (cargo fmt) and TS/JS (prettier) in place"
	@echo "make <step>       one test step: $(TEST_STEPS)"

setup:
	@scripts/setup.sh

# ---- the package ----

wasm: $(WASM)
$(WASM): $(RUST_SRC)
	wasm-pack build --release --target web --out-dir build/wasm --out-name webtorch_core --no-pack
	@touch $@

pkg: $(PKG_STAMP)
$(PKG_STAMP): $(WASM) $(TS_SRC) $(TEMPLATE)
	rm -rf pkg ts/src/wasm
	mkdir -p ts/src/wasm pkg/dist/wasm
	cp $(addprefix build/wasm/,$(WASM_FILES)) ts/src/wasm/
	tsc -p ts
	cp $(addprefix build/wasm/,$(WASM_FILES)) pkg/dist/wasm/
	cp -r pkg-template/. pkg/
	node scripts/side-effects.mjs pkg
	@touch $@
	@echo "pkg/ built: $$(du -sh pkg | cut -f1), wasm $$(du -h pkg/dist/wasm/webtorch_core_bg.wasm | cut -f1)"

clean-pkg:
	rm -rf build/wasm $(PKG_STAMP) pkg ts/src/wasm

# ---- the two commands ----

playground: setup
	@$(MAKE) pkg www-dist
	node scripts/serve.mjs --port $${PORT:-8080}

# The playground's bundles (CodeMirror + TypeScript, uPlot, the workers) and the .d.ts its editor
# loads, into www/dist/ (esbuild, a few seconds).
WWW_DIST := www/dist/main.js
www-dist: $(WWW_DIST)
$(WWW_DIST): $(PKG_STAMP) $(shell find www/src -type f 2>/dev/null) scripts/build-playground.mjs \
  examples/digits.mjs package-lock.json
	node scripts/build-playground.mjs

test: setup
	@$(MAKE) pkg
	@start=$$SECONDS; \
	for step in $(TEST_STEPS); do \
	  t=$$SECONDS; printf '\n\033[1m== make %s\033[0m\n' $$step; \
	  $(MAKE) $$step; \
	  printf '\033[1m== %s passed (%ds)\033[0m\n' $$step $$((SECONDS - t)); \
	done; \
	printf '\n\033[1mmake test: all %d steps passed in %dm%02ds\033[0m\n' \
	  $(words $(TEST_STEPS)) $$(((SECONDS - start) / 60)) $$(((SECONDS - start) % 60))

# ---- test steps ----

# Formatting and lints, natively and for wasm32 (src/api and the webgpu backend are wasm-only code).
lint-rust:
	cargo fmt --all -- --check
	cargo clippy --all-targets -- -D warnings
	cargo clippy --lib --target wasm32-unknown-unknown -- -D warnings

# Prettier (defaults) over the hand-written TS/JS; tests/parity/ has its own owner and style.
PRETTIER_PATHS := ts/src ts/tsconfig.json tests/node tests/browser tests/vite-app tests/types www \
  scripts/serve.mjs scripts/side-effects.mjs scripts/build-playground.mjs pkg-template package.json
lint-ts:
	prettier --check $(PRETTIER_PATHS)

fmt:
	cargo fmt --all
	prettier --write --log-level warn $(PRETTIER_PATHS)

# Rust tests: the CPU backend and wgpu natively on Mesa lavapipe.
test-cargo:
	cargo test

# The wasm build in headless Chromium with WebGPU (SwiftShader); webdriver.json passes the flags.
test-wasm:
	wasm-pack test --headless --chrome --chromedriver $(CHROMEDRIVER) -- --test web

# Type checks of the published .d.ts: good code compiles, misuse does not.
test-types: $(PKG_STAMP)
	tsc -p tests/types

# The public API in Node: on WebGPU (Dawn) and forced to the CPU backend, plus parity fixtures.
test-node: $(PKG_STAMP)
	$(NODE_GPU_ENV) node --test --test-reporter=spec tests/node/*.test.mjs

# The same checks and parity fixtures in headless Chromium (Playwright) on WebGPU.
test-browser: $(PKG_STAMP)
	node --test --test-reporter=spec tests/browser/api.test.mjs

# `npm pack` of pkg/ installed into a fresh Vite app: built, served, run in Chromium (and in Node).
test-vite: $(PKG_STAMP)
	$(NODE_GPU_ENV) node --test --test-reporter=spec tests/vite-app/vite-app.test.mjs

# `make playground`'s page in Chromium: every example runs, the editor underlines a type error,
# the tests page runs the parity fixtures, the CPU fallback; screenshots in test-artifacts/playground/.
test-playground: $(WWW_DIST)
	node --test --test-reporter=spec tests/browser/playground.test.mjs
