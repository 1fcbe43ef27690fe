// Bundles bench/run.mjs with its npm dependencies (tfjs, jax-js) into bench/dist/run.mjs, so that
// a machine without node_modules (the GPU machine) runs it with Node alone. webtorch itself is
// loaded at run time from pkg/ and `webgpu` from node_modules (.gpu/env.sh links it there).
//   node bench/build.mjs
import { build } from "esbuild";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
await build({
  entryPoints: [path.join(here, "run.mjs")],
  outfile: path.join(here, "dist/run.mjs"),
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  minify: true,
  external: ["webgpu"],
  // Some CommonJS dependencies call require(); give the ESM bundle one.
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  logLevel: "warning",
});
console.log("wrote bench/dist/run.mjs");
