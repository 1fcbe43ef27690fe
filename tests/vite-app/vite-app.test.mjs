// The packed package in a fresh app: `npm pack` pkg/ → a tarball; a new Vite app in a temp dir
// installs it (plus vite), `vite build`s, and the built page runs in headless Chromium on WebGPU.
// The same install is also imported from Node (no `webgpu` package → CPU fallback; then with it →
// WebGPU) and type-checked with tsc through the package's `exports`.
import test from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { serve } from "../../scripts/serve.mjs";
import { launchChromium, newPage } from "../browser/chromium.mjs";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../../", import.meta.url));
const versionOf = async (name) =>
  JSON.parse(
    await readFile(
      path.join(root, "node_modules", name, "package.json"),
      "utf8",
    ),
  ).version;

const app = await mkdtemp(path.join(tmpdir(), "webtorch-vite-"));
let passed = false;
test.after(async () => {
  if (passed) await rm(app, { recursive: true, force: true });
  else console.log(`vite-app: left ${app} for inspection`);
});

const sh = (cmd, args, env = {}) =>
  run(cmd, args, {
    cwd: app,
    env: { ...process.env, ...env },
    maxBuffer: 64 << 20,
  }).catch((e) => {
    throw new Error(
      `${cmd} ${args.join(" ")} failed:\n${e.stdout}\n${e.stderr}`,
    );
  });
const npm = (...args) =>
  sh("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"]);

let tarball;

test("npm pack pkg/ gives a tarball with the built files only", async () => {
  const { stdout } = await sh("npm", [
    "pack",
    path.join(root, "pkg"),
    "--pack-destination",
    app,
    "--json",
  ]);
  const [info] = JSON.parse(stdout);
  tarball = path.join(app, info.filename);
  const files = info.files.map((f) => f.path).sort();
  for (const f of [
    "package.json",
    "README.md",
    "dist/index.js",
    "dist/index.d.ts",
    "dist/tensor/tensor.js",
    "dist/wasm/webtorch_core.js",
    "dist/wasm/webtorch_core_bg.wasm",
  ]) {
    assert.ok(files.includes(f), `${f} in the tarball (${files.join(", ")})`);
  }
  assert.ok(
    !files.some((f) => f.endsWith(".ts") && !f.endsWith(".d.ts")),
    "no TS sources",
  );
  assert.equal(info.name, "webtorch");
});

test("a fresh Vite app installs the tarball and builds", async () => {
  await cp(path.join(root, "tests/vite-app/app"), app, { recursive: true });
  await writeFile(
    path.join(app, "package.json"),
    JSON.stringify(
      { name: "webtorch-vite-smoke", private: true, type: "module" },
      null,
      2,
    ),
  );
  await npm("install", tarball, `vite@${await versionOf("vite")}`);
  const { stdout } = await sh(path.join(app, "node_modules/.bin/vite"), [
    "build",
  ]);
  assert.match(stdout, /built in/);
});

test("the built app runs in Chromium on WebGPU and shows the result", async () => {
  const server = await serve({ mounts: { "/": path.join(app, "dist") } });
  const browser = await launchChromium();
  try {
    const page = await newPage(browser);
    await page.goto(server.url);
    await page.waitForFunction(
      () => document.getElementById("out").dataset.done,
      null,
      { timeout: 60_000 },
    );
    const text = await page.textContent("#out");
    assert.equal(text, "device=webgpu result=54");
    assert.deepEqual(page.problems, []);
  } finally {
    await browser.close();
    await server.close();
  }
});

test("the Vite dev server serves the app too (optimizeDeps.exclude, as the README says)", async () => {
  const dev = spawn(
    path.join(app, "node_modules/.bin/vite"),
    ["--host", "127.0.0.1", "--port", "0"],
    {
      cwd: app,
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, NO_COLOR: "1" },
    },
  );
  const browser = await launchChromium();
  try {
    const url = await new Promise((resolve, reject) => {
      let out = "";
      dev.stdout.on("data", (chunk) => {
        out += chunk;
        const m = out.match(/Local:\s+(http:\/\/\S+)/);
        if (m) resolve(m[1]);
      });
      dev.once("exit", (code) =>
        reject(new Error(`vite dev exited (${code}): ${out}`)),
      );
    });
    const page = await newPage(browser);
    await page.goto(url);
    await page.waitForFunction(
      () => document.getElementById("out").dataset.done,
      null,
      { timeout: 60_000 },
    );
    assert.equal(await page.textContent("#out"), "device=webgpu result=54");
    assert.deepEqual(page.problems, []);
  } finally {
    await browser.close();
    dev.kill();
  }
});

test("Node without the webgpu package falls back to the CPU and says so", async () => {
  const { stdout, stderr } = await sh("node", ["node-check.mjs"]);
  assert.deepEqual(JSON.parse(stdout.trim().split("\n").pop()), {
    device: "cpu",
    result: 54,
  });
  assert.match(
    stderr,
    /running on the CPU backend: Node has WebGPU only through the optional `webgpu` package; `npm install webgpu` to run on the GPU/,
  );
});

test("Node with the webgpu package runs on WebGPU", async () => {
  await npm("install", `webgpu@${await versionOf("webgpu")}`);
  const { stdout, stderr } = await sh("node", ["node-check.mjs"]);
  assert.deepEqual(JSON.parse(stdout.trim().split("\n").pop()), {
    device: "webgpu",
    result: 54,
  });
  assert.match(stderr, /running on WebGPU/);
});

test("the published types check in a consumer (tsc through exports.types)", async () => {
  await npm("install", `typescript@${await versionOf("typescript")}`);
  await sh(path.join(app, "node_modules/.bin/tsc"), ["-p", "."]);
  passed = true;
});
