// The assembled package (pkg/): package.json's entry points exist, and every compiled module with
// a top-level side effect (installing Tensor methods, the top-level init, polyfills) is listed in
// `sideEffects` — else a bundler drops it when none of its exports is used (tests/vite-app caught
// exactly that once: `x.relu is not a function` after `vite build`).
import test from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const pkgDir = fileURLToPath(new URL("../../pkg/", import.meta.url));
const manifest = JSON.parse(
  readFileSync(path.join(pkgDir, "package.json"), "utf8"),
);

test("package.json: name, module type, entry points that exist", () => {
  assert.equal(manifest.name, "webtorch");
  assert.equal(manifest.type, "module");
  const entry = manifest.exports["."];
  for (const f of [entry.types, entry.import, manifest.types, manifest.main]) {
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

test("sideEffects lists every module with a top-level side effect", () => {
  const listed = manifest.sideEffects;
  assert.ok(Array.isArray(listed), "sideEffects is a list");
  const matches = (rel) =>
    listed.some((pattern) => {
      const re = new RegExp(
        `^${pattern.replace(/^\.\//, "").replace(/[.]/g, "\\.").replace(/\*/g, "[^/]*")}$`,
      );
      return re.test(rel);
    });
  const dist = path.join(pkgDir, "dist");
  const modules = readdirSync(dist, { recursive: true }).filter((f) =>
    f.endsWith(".js"),
  );
  // A top-level statement that is not a declaration (tsc indents everything nested): a prototype
  // install, a loop, an await, a polyfill, a call.
  const sideEffect =
    /^(?!import\b|export\b|const\b|let\b|var\b|function\b|async function\b|class\b|\/\/|\/\*|\*|\s|[})\]]|$)/m;
  const effectful = modules.filter((rel) =>
    sideEffect.test(readFileSync(path.join(dist, rel), "utf8")),
  );
  assert.ok(
    effectful.includes("index.js") && effectful.includes("elementwise.js"),
    `detected: ${effectful}`,
  );
  const missing = effectful
    .map((rel) => `dist/${rel}`)
    .filter((rel) => !matches(rel));
  assert.deepEqual(
    missing,
    [],
    "modules with side effects missing from sideEffects",
  );
});
