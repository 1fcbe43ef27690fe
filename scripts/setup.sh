#!/usr/bin/env bash
# Installs what a fresh Debian machine with Rust and Node lacks for building and testing webtorch.
# Idempotent: each step checks first, so a second run takes a second or two.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '\033[1msetup:\033[0m %s\n' "$*"; }
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"

# Debian packages: Chromium + its driver (browser tests), Mesa's Vulkan drivers (lavapipe, for
# native wgpu tests), the Vulkan loader.
need_apt=()
for p in chromium chromium-driver mesa-vulkan-drivers libvulkan1; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need_apt+=("$p")
done
if [ ${#need_apt[@]} -gt 0 ]; then
  say "apt-get install ${need_apt[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

# Rust: the wasm target and the two CLIs at the versions the crate pins.
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi
if ! (command -v wasm-bindgen >/dev/null && wasm-bindgen --version | grep -q ' 0.2.130'); then
  say "cargo install wasm-bindgen-cli 0.2.130"
  # Not --locked: its lock file pins crates that no longer build on current Rust.
  cargo install -q wasm-bindgen-cli --version 0.2.130
fi
if ! (command -v wasm-pack >/dev/null && wasm-pack --version | grep -q ' 0.15.1'); then
  say "cargo install wasm-pack 0.15.1"
  cargo install -q wasm-pack --version 0.15.1 --locked
fi

# Node ≥ 20 (the package's floor; the tests use node:test and Node 20's ESM loader).
node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 20 ]; then
  echo "setup: Node >= 20 is needed (found: $(node --version 2>/dev/null || echo none))" >&2
  exit 1
fi

# npm packages (TypeScript, Prettier, Playwright's driver, Dawn for Node, Vite).
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ] ||
  [ package.json -nt node_modules/.package-lock.json ]; then
  say "npm ci"
  # NOTE: a registry that lacks some platform builds of an optional dependency (a mirror missing
  # @rollup/rollup-android-* at rollup's version, as here) yields a lock file without them, which
  # `npm ci` then refuses as out of sync; `npm install` installs the same versions from the lock.
  if ! npm ci --no-audit --no-fund --loglevel=error 2>/tmp/webtorch-npm-ci.log; then
    grep -q EUSAGE /tmp/webtorch-npm-ci.log || { cat /tmp/webtorch-npm-ci.log >&2; exit 1; }
    say "npm ci refused the lock file (optional packages the registry lacks); npm install"
    npm install --no-audit --no-fund --loglevel=error
  fi
fi
