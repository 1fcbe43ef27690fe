// The packed package in a browser app built by each of esbuild, Rollup and webpack (Vite has its
// own suite, tests/vite-app): the tarball installed in a fresh directory, tests/vite-app's page
// bundled once per bundler with no configuration for webtorch beyond what the README says (for
// esbuild and Rollup, which do not emit `new URL(…, import.meta.url)` assets: copy
// `webtorch/wasm` next to the bundle), each bundle checked for static `node:` imports, and run in
// headless Chromium on WebGPU.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  copyFile,
  mkdir,
  readFile,
  readdir,
  writeFile,
} from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import * as esbuild from "esbuild";
import { rollup } from "rollup";
import { nodeResolve } from "@rollup/plugin-node-resolve";
import webpack from "webpack";
import { serve } from "../../scripts/serve.mjs";
import { launchChromium, newPage } from "../browser/chromium.mjs";
import { packedApp, ROOT } from "../packed/app.mjs";

let app;
let browser;
let ok = true;
before(async () => {
  app = await packedApp("bundlers");
  await mkdir(path.join(app.dir, "src"));
  await copyFile(
    path.join(ROOT, "tests/vite-app/app/main.js"),
    path.join(app.dir, "src/main.js"),
  );
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  if (ok) await app.remove();
  else console.log(`bundlers: left ${app.dir} for inspection`);
});

/** The page around a bundle: `module` for an ES module bundle, else a classic script. */
const page = (module) => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <link rel="icon" href="data:," />
    <script ${module ? 'type="module"' : "defer"} src="./main.js"></script>
  </head>
  <body><p id="out">running…</p></body>
</html>
`;

/** Copies the core's .wasm where the bundle's `new URL("./wasm/…", import.meta.url)` points. */
async function copyWasm(out) {
  const wasm = createRequire(path.join(app.dir, "package.json")).resolve(
    "webtorch/wasm",
  );
  await mkdir(path.join(out, "wasm"), { recursive: true });
  await copyFile(wasm, path.join(out, "wasm/webtorch_core_bg.wasm"));
}

const BUNDLERS = {
  async esbuild(out) {
    await esbuild.build({
      entryPoints: [path.join(app.dir, "src/main.js")],
      bundle: true,
      format: "esm",
      platform: "browser",
      target: "es2022",
      outfile: path.join(out, "main.js"),
      logLevel: "error",
    });
    await copyWasm(out);
    return page(true);
  },
  async rollup(out) {
    const bundle = await rollup({
      input: path.join(app.dir, "src/main.js"),
      plugins: [nodeResolve({ browser: true })],
      onwarn: (w, warn) => {
        if (w.code !== "CIRCULAR_DEPENDENCY") warn(w);
      },
    });
    await bundle.write({ dir: out, format: "es", entryFileNames: "main.js" });
    await bundle.close();
    await copyWasm(out);
    return page(true);
  },
  async webpack(out) {
    const stats = await new Promise((resolve, reject) =>
      webpack(
        {
          mode: "production",
          context: app.dir,
          entry: "./src/main.js",
          target: "web",
          output: { path: out, filename: "main.js" },
          optimization: { minimize: false },
          performance: { hints: false },
        },
        (err, s) => (err ? reject(err) : resolve(s)),
      ),
    );
    const info = stats.toJson({ all: false, errors: true, warnings: true });
    assert.deepEqual(info.errors, [], "webpack errors");
    assert.deepEqual(info.warnings, [], "webpack warnings");
    return page(false);
  },
};

for (const [name, build] of Object.entries(BUNDLERS)) {
  describe(name, () => {
    const out = () => path.join(app.dir, `dist-${name}`);

    test(`${name} bundles the app for the browser, with no static node: import`, async () => {
      try {
        const html = await build(out());
        await writeFile(path.join(out(), "index.html"), html);
        for (const f of await readdir(out(), { recursive: true })) {
          if (!f.endsWith(".js")) continue;
          const js = await readFile(path.join(out(), f), "utf8");
          assert.doesNotMatch(
            js,
            /\bfrom\s*["']node:|\bimport\s*\(\s*["']node:|\brequire\(\s*["']node:/,
            `${f} imports a node: module`,
          );
        }
      } catch (e) {
        ok = false;
        throw e;
      }
    });

    test(`the ${name} bundle runs in Chromium on WebGPU`, async () => {
      const server = await serve({ mounts: { "/": out() } });
      try {
        const p = await newPage(browser);
        await p.goto(server.url);
        await p.waitForFunction(
          () => document.getElementById("out").dataset.done,
          null,
          { timeout: 60_000 },
        );
        assert.equal(await p.textContent("#out"), "device=webgpu result=54");
        assert.deepEqual(p.problems, []);
        await p.close();
      } catch (e) {
        ok = false;
        throw e;
      } finally {
        await server.close();
      }
    });
  });
}
