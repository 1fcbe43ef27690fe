// A user's first hour in Node, from the packed tarball installed in a fresh directory (no
// `webgpu` package there): `import` and `require` both work; the one line that says it runs on
// the CPU and how to get the GPU, and WEBTORCH_WARNINGS silencing it; the published types
// compile under strict TypeScript with the `lib`s of Vite's and Node's default tsconfigs (with
// skipLibCheck off, so that the package's own .d.ts are checked too).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { packedApp, ROOT } from "../packed/app.mjs";
import { PKG_ENTRY } from "./harness.mjs";

let app;
let ok = true;
before(async () => {
  app = await packedApp("first-hour");
});
after(async () => {
  if (ok) await app.remove();
  else console.log(`first_hour: left ${app.dir} for inspection`);
});
const check = (fn) => async () => {
  try {
    await fn();
  } catch (e) {
    ok = false;
    throw e;
  }
};

const COMPUTE = `
const x = torch.tensor([[1, 2], [3, 4]], { dtype: torch.float32 });
const y = x.matmul(x).relu().sum(); // [[7, 10], [15, 22]] → 54
`;
const NO_GPU =
  /^webtorch: running on the CPU backend: Node has WebGPU only through the optional `webgpu` package; `npm install webgpu` to run on the GPU$/;

test(
  "import: runs on the CPU and says, in one line on stderr, how to get the GPU",
  check(async () => {
    await writeFile(
      path.join(app.dir, "esm.mjs"),
      `import * as torch from "webtorch";${COMPUTE}
console.log(JSON.stringify({ device: torch.get_default_device(), result: await y.item() }));
await torch.init(); // a second init says nothing more
`,
    );
    const { stdout, stderr } = await app.sh("node", ["esm.mjs"]);
    assert.deepEqual(JSON.parse(stdout), { device: "cpu", result: 54 });
    const lines = stderr.trim().split("\n");
    assert.equal(lines.length, 1, stderr);
    assert.match(lines[0], NO_GPU);
    const quiet = await app.sh("node", ["esm.mjs"], {
      WEBTORCH_WARNINGS: "ignore:device.",
    });
    assert.equal(quiet.stderr, "");
    assert.equal(quiet.stdout.trim(), stdout.trim());
  }),
);

test(
  "require: the same API from a CommonJS file, on the CPU until await torch.init()",
  check(async () => {
    await writeFile(
      path.join(app.dir, "cjs.cjs"),
      `const torch = require("webtorch");${COMPUTE}
const before = torch.get_default_device();
y.item().then(async (result) => {
  const device = await torch.init();
  const z = await torch.ones(3).sum().item();
  console.log(JSON.stringify({ before, result, device, z, Tensor: typeof torch.Tensor }));
});
`,
    );
    const { stdout, stderr } = await app.sh("node", ["cjs.cjs"]);
    assert.deepEqual(JSON.parse(stdout), {
      before: "cpu",
      result: 54,
      device: "cpu",
      z: 3,
      Tensor: "function",
    });
    const lines = stderr.trim().split("\n");
    assert.equal(lines.length, 2, stderr);
    assert.equal(
      lines[0],
      "webtorch: loaded by require(): running on the CPU backend until `await torch.init()` picks WebGPU",
    );
    assert.match(lines[1], NO_GPU);
  }),
);

test(
  "the webgpu package without a GPU driver: Dawn's driver messages, then one line saying what they mean",
  { skip: process.platform !== "linux" && "Vulkan's loader is Linux's" },
  async () => {
    // The workspace has the `webgpu` package; no Vulkan driver file means no adapter.
    const { stdout, stderr } = await promisify(execFile)(
      "node",
      [
        "--input-type=module",
        "-e",
        `const torch = await import(${JSON.stringify(PKG_ENTRY.href)});
console.log(torch.get_default_device());`,
      ],
      { env: { ...process.env, VK_ICD_FILENAMES: "/nonexistent/icd.json" } },
    );
    assert.equal(stdout.trim(), "cpu");
    assert.equal(
      stderr.trim().split("\n").pop(),
      "webtorch: running on the CPU backend: the `webgpu` package (Dawn) found no usable GPU adapter: it needs a Vulkan, Metal or D3D12 driver (Dawn's driver messages above, if any, are from that probe)",
    );
  },
);

/** The consumer file both tsconfigs check: the API's types, `using` not needed. */
const CHECK_TS = `import * as torch from "webtorch";
const x: torch.Tensor = torch.tensor([[1, 2], [3, 4]], { dtype: torch.float32 });
const shape: readonly number[] = x.matmul(x).relu().sum(0, true).shape;
export const value: Promise<number | boolean> = x.sum().item();
export const info = { shape, device: torch.get_default_device() satisfies torch.Device };
export const saved: Promise<Uint8Array> = torch.save({ x });
export const loaded: Promise<torch.TensorDict> = torch.load(new Uint8Array(8));
torch.warnings.filterwarnings("ignore", { key: "device." });
// @ts-expect-error: dtypes are checked names
torch.zeros(2, { dtype: "float128" });
`;

/** Strict tsc over CHECK_TS with `compilerOptions`; rejects with tsc's errors. */
async function tscWith(name, file, compilerOptions, source = CHECK_TS) {
  await writeFile(path.join(app.dir, file), source);
  await writeFile(
    path.join(app.dir, `tsconfig.${name}.json`),
    JSON.stringify({ compilerOptions, files: [file] }, null, 2),
  );
  await app.sh(path.join(ROOT, "node_modules/.bin/tsc"), [
    "-p",
    `tsconfig.${name}.json`,
  ]);
}

test(
  "types: strict tsc with Vite's default tsconfig (lib ES2022, DOM, DOM.Iterable)",
  check(async () => {
    // create-vite's vanilla-ts tsconfig, with skipLibCheck off.
    await tscWith("vite", "check.ts", {
      target: "ES2022",
      useDefineForClassFields: true,
      module: "ESNext",
      lib: ["ES2022", "DOM", "DOM.Iterable"],
      types: [],
      skipLibCheck: false,
      moduleResolution: "bundler",
      allowImportingTsExtensions: true,
      verbatimModuleSyntax: true,
      moduleDetection: "force",
      noEmit: true,
      strict: true,
      noUnusedLocals: true,
      noUnusedParameters: true,
      noFallthroughCasesInSwitch: true,
    });
  }),
);

test(
  "types: strict tsc with Node's default tsconfig (@tsconfig/node20: lib es2023, node16, @types/node)",
  check(async () => {
    await tscWith("node", "check.mts", {
      lib: ["es2023"],
      module: "node16",
      target: "es2022",
      moduleResolution: "node16",
      strict: true,
      esModuleInterop: true,
      skipLibCheck: false,
      noEmit: true,
      types: ["node"],
      typeRoots: [path.join(ROOT, "node_modules/@types")],
    });
  }),
);

test(
  "types: a CommonJS TypeScript file requires the package (module nodenext, Node's lib)",
  check(async () => {
    await tscWith(
      "cjs",
      "check.cts",
      {
        lib: ["es2023"],
        module: "nodenext",
        target: "es2022",
        strict: true,
        skipLibCheck: false,
        noEmit: true,
        types: ["node"],
        typeRoots: [path.join(ROOT, "node_modules/@types")],
      },
      `import torch = require("webtorch");
export const x: torch.Tensor = torch.ones(2).add(1);
export const device: Promise<torch.Device> = torch.init();
`,
    );
  }),
);
