// Command-line pieces the bench's probe scripts share: flags, `--name value` options, and the
// package under test (`--pkg`, default pkg/dist/index.js) with its wasm core module.

import path from "node:path";
import { pathToFileURL } from "node:url";

const argv = process.argv.slice(2);

/** Whether `--name` was given. */
export const flag = (name) => argv.includes(`--${name}`);

/** The value after `--name`, or `dflt`. */
export function option(name, dflt = null) {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : dflt;
}

/** The package `--pkg` names (its public module and its wasm core module). */
export async function loadPkg() {
  const pkg = option("pkg", "pkg/dist/index.js");
  const torch = await import(pathToFileURL(path.resolve(pkg)).href);
  const core = await import(
    pathToFileURL(path.resolve(path.dirname(pkg), "wasm/webtorch_core.js")).href
  );
  return { torch, core };
}
