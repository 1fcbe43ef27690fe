#!/usr/bin/env node
// Builds the playground's bundles into www/dist/ (gitignored) with esbuild: the page (CodeMirror,
// uPlot), the TypeScript language-service worker (typescript + @typescript/vfs), the run worker,
// and the tests page; plus types.json, the files the editor's TypeScript sees: the standard
// library's .d.ts (the lib files the compiler options name, followed through their references),
// pkg/'s .d.ts under node_modules/webtorch/, @huggingface/tokenizers' .d.ts, and the playground's
// own globals (www/src/playground.d.ts). Examples are TypeScript sources shown in the editor (as
// text), never bundled: what runs is what the editor holds.
//
//   node scripts/build-playground.mjs        (make playground and make test-playground run it)
import * as esbuild from "esbuild";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const www = path.join(root, "www");
const out = path.join(www, "dist");
const t0 = Date.now();

/** The `lib` compiler option of the editor (www/src/ts-worker.js uses the same list). */
export const LIBS = ["es2023", "esnext.disposable", "dom", "dom.iterable"];

if (!fs.existsSync(path.join(root, "pkg/dist/index.d.ts"))) {
  console.error("pkg/ is not built: run `make pkg` first");
  process.exit(1);
}
fs.rmSync(out, { recursive: true, force: true });

await esbuild.build({
  absWorkingDir: root,
  entryPoints: {
    main: "www/src/main.js",
    "ts-worker": "www/src/ts-worker.js",
    "run-worker": "www/src/run-worker.js",
    tests: "www/src/tests-page.js",
    // The one library besides webtorch that examples import (the run worker maps
    // "@huggingface/tokenizers" here): the semantic-search example's WordPiece tokenizer.
    "vendor/tokenizers":
      "node_modules/@huggingface/tokenizers/dist/tokenizers.mjs",
  },
  outdir: out,
  bundle: true,
  format: "esm",
  splitting: false,
  minify: true,
  sourcemap: "linked",
  target: "es2022",
  // Examples and the playground's .d.ts are shown in the editor as text.
  loader: { ".ts": "text" },
  // webtorch itself is not bundled: the run worker and the tests page import the built package
  // from /pkg/ at run time, so the page always runs what `make pkg` built.
  // Node built-ins: referenced only by code paths for Node (vfs from node_modules, digits from disk).
  external: ["/pkg/*", "/parity/*", "node:*", "path", "fs"],
  logLevel: "warning",
  legalComments: "linked",
});

// The files the editor's TypeScript sees.
const files = {};
const tsLib = path.join(root, "node_modules/typescript/lib");
const addLib = (name) => {
  const key = `/lib.${name}.d.ts`;
  if (files[key] !== undefined) return;
  const text = fs.readFileSync(path.join(tsLib, `lib.${name}.d.ts`), "utf8");
  files[key] = text;
  for (const m of text.matchAll(/\/\/\/\s*<reference lib="([^"]+)"/g))
    addLib(m[1].toLowerCase());
};
LIBS.forEach(addLib);
const pkg = path.join(root, "pkg");
files["/node_modules/webtorch/package.json"] = fs.readFileSync(
  path.join(pkg, "package.json"),
  "utf8",
);
/** Every .d.ts under `dir`, as `${prefix}/<its path relative to base>`. */
const addDts = (dir, base, prefix) => {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) addDts(p, base, prefix);
    else if (e.name.endsWith(".d.ts"))
      files[`${prefix}/${path.relative(base, p)}`] = fs.readFileSync(p, "utf8");
  }
};
addDts(path.join(pkg, "dist"), pkg, "/node_modules/webtorch");
// @huggingface/tokenizers' own types, so the examples that import it type-check.
const tok = path.join(root, "node_modules/@huggingface/tokenizers");
files["/node_modules/@huggingface/tokenizers/package.json"] = fs.readFileSync(
  path.join(tok, "package.json"),
  "utf8",
);
addDts(path.join(tok, "types"), tok, "/node_modules/@huggingface/tokenizers");
files["/playground.d.ts"] = fs.readFileSync(
  path.join(www, "src/playground.d.ts"),
  "utf8",
);
fs.writeFileSync(path.join(out, "types.json"), JSON.stringify(files));

const size = (f) => (fs.statSync(path.join(out, f)).size / 1024).toFixed(0);
console.log(
  `www/dist built in ${((Date.now() - t0) / 1000).toFixed(1)} s: main.js ${size("main.js")} KiB, ` +
    `ts-worker.js ${size("ts-worker.js")} KiB, types.json ${size("types.json")} KiB`,
);
