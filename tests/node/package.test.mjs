// The assembled package (pkg/): package.json's entry points exist, and `sideEffects` (written by
// scripts/side-effects.mjs in `make pkg`) names exactly the compiled modules with top-level side
// effects — the ones a bundler must keep (tests/vite-app caught `x.relu is not a function` after
// `vite build` when elementwise.js was missing from a hand-kept list).
import test from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { modulesWithSideEffects } from "../../scripts/side-effects.mjs";

const pkgDir = fileURLToPath(new URL("../../pkg/", import.meta.url));
const manifest = JSON.parse(
  readFileSync(path.join(pkgDir, "package.json"), "utf8"),
);

test("package.json: name, module type, entry points that exist", () => {
  assert.equal(manifest.name, "webtorch");
  assert.equal(manifest.type, "module");
  const entry = manifest.exports["."];
  // Browsers and bundlers get the entry that awaits the core; Node's require the one that loads
  // it synchronously (no top-level await, which require() refuses).
  assert.equal(entry.browser, "./dist/index.js");
  assert.equal(entry.node.require, "./dist/require.js");
  assert.equal(entry.node.default, "./dist/index.js");
  assert.equal(entry.default, "./dist/index.js");
  const targets = [
    entry.types,
    entry.browser,
    entry.node.require,
    entry.node.default,
    entry.default,
    manifest.exports["./wasm"],
    manifest.types,
    manifest.main,
  ];
  for (const f of targets) {
    assert.ok(existsSync(path.join(pkgDir, f)), `${f} exists`);
  }
  assert.ok(
    existsSync(path.join(pkgDir, "dist/wasm/webtorch_core_bg.wasm")),
    "the wasm core is in dist/wasm/",
  );
  assert.equal(
    manifest.peerDependenciesMeta?.webgpu?.optional,
    true,
    "webgpu is an optional peer",
  );
});

test("sideEffects names the modules with top-level side effects, and only those", () => {
  const listed = manifest.sideEffects;
  assert.ok(Array.isArray(listed), "sideEffects is a list");
  for (const m of [
    "./dist/index.js",
    "./dist/require.js",
    "./dist/torch.js",
    "./dist/tensor/tensor.js",
    "./dist/tensor/elementwise.js",
    "./dist/wasm/webtorch_core.js",
  ]) {
    assert.ok(
      listed.includes(m),
      `${m} (init, side-effect imports, polyfill, method installs, wasm glue) is listed: ${listed}`,
    );
  }
  for (const m of ["./dist/errors.js", "./dist/dtype.js", "./dist/args.js"]) {
    assert.ok(!listed.includes(m), `${m} is pure and may be tree-shaken`);
  }
  assert.deepEqual(
    listed,
    modulesWithSideEffects(pkgDir),
    "pkg/package.json is current (make pkg)",
  );
});

test("README.md and the npm README have the same what-works-where table", () => {
  const table = (file) => {
    const text = readFileSync(file, "utf8");
    const start = text.indexOf("<!-- what-works-where");
    assert.ok(start >= 0, `${file} has the table`);
    return text.slice(start, text.indexOf("\n\n`torch.load`", start));
  };
  assert.equal(
    table(path.join(pkgDir, "README.md")),
    table(fileURLToPath(new URL("../../README.md", import.meta.url))),
  );
});
