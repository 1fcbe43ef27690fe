#!/usr/bin/env node
// Lists the modules of a built package that have top-level side effects, and writes that list
// into its package.json as `sideEffects` (run by `make pkg`):
//
//   node scripts/side-effects.mjs pkg
//
// Most of the TS layer installs Tensor methods on the prototype at load (tensor/elementwise.ts,
// reductions.ts, …) and the entry awaits init(): a bundler must keep those modules even when none
// of their exports is used, while pure modules may be dropped. Scanning the compiled output keeps
// the list right as modules are added, instead of a hand-kept list in pkg-template/.
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

// A top-level statement that is not a declaration (tsc indents everything nested): a prototype
// install, a loop, an await, a polyfill, a call — or an import for its side effects only
// (`import "./x.js"`), which evaluating this module is what runs.
const SIDE_EFFECT =
  /^(?!import\b(?!\s*["'])|export\b|const\b|let\b|var\b|function\b|async function\b|class\b|\/\/|\/\*|\*|\s|[})\]]|$)/m;

/** The `./dist/…` paths of the modules under `pkgDir` with top-level side effects, sorted. */
export function modulesWithSideEffects(pkgDir) {
  const dist = path.join(pkgDir, "dist");
  return readdirSync(dist, { recursive: true })
    .filter((rel) => rel.endsWith(".js"))
    .filter((rel) =>
      SIDE_EFFECT.test(readFileSync(path.join(dist, rel), "utf8")),
    )
    .map((rel) => `./dist/${rel.split(path.sep).join("/")}`)
    .sort();
}

if (
  process.argv[1] &&
  fileURLToPath(import.meta.url) === path.resolve(process.argv[1])
) {
  const pkgDir = process.argv[2] ?? "pkg";
  const file = path.join(pkgDir, "package.json");
  const manifest = JSON.parse(readFileSync(file, "utf8"));
  manifest.sideEffects = modulesWithSideEffects(pkgDir);
  writeFileSync(file, JSON.stringify(manifest, null, 2) + "\n");
  console.log(`sideEffects: ${manifest.sideEffects.length} modules`);
}
