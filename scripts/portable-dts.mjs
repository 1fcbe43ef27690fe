#!/usr/bin/env node
// Makes the published .d.ts of the wasm glue compile in any consumer's TypeScript setup (run by
// `make pkg`):
//
//   node scripts/portable-dts.mjs pkg
//
// wasm-bindgen's webtorch_core.d.ts ends with the loader's declarations (InitInput, InitOutput,
// SyncInitInput, initSync, the default export), written with DOM types (RequestInfo,
// BufferSource, WebAssembly.*): a Node project's tsconfig has no DOM lib, so they fail to
// compile there. Only runtime.ts calls the loader, so the published file leaves them out.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const LOADER_START = "export type InitInput = ";
const LOADER_END = "export default function __wbg_init";

/** The glue's declarations without the loader's (throws when wasm-bindgen's layout changed). */
export function withoutLoader(dts) {
  const start = dts.indexOf(LOADER_START);
  const end = dts.indexOf(LOADER_END);
  if (start < 0 || end < start || dts.indexOf("\n", end) !== dts.length - 1)
    throw new Error(
      "webtorch_core.d.ts: the loader's declarations are not where wasm-bindgen used to put them (at the end, from InitInput to the default export); update scripts/portable-dts.mjs",
    );
  return dts.slice(0, start).trimEnd() + "\n";
}

if (
  process.argv[1] &&
  fileURLToPath(import.meta.url) === path.resolve(process.argv[1])
) {
  const file = path.join(
    process.argv[2] ?? "pkg",
    "dist/wasm/webtorch_core.d.ts",
  );
  writeFileSync(file, withoutLoader(readFileSync(file, "utf8")));
}
