// conv2d variants on ResNet-style 3×3 layers (stride 1, padding 1, NCHW, no bias): the im2col
// route against the implicit-GEMM kernel (`src/backend/webgpu/conv.rs`) with its shape rule
// (`auto`) and each tile forced, rounds alternated so that the host's two speeds and the GPU's
// clocks fall on every variant alike. Figures for bench/KERNELS.md, never asserted.
//
//   node bench/convprobe.mjs [--out dir] [--pkg pkg/dist/index.js] [--quick] [--variants a,b]

import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { warmGpu, median } from "./lib/timing.mjs";

const args = process.argv.slice(2);
const opt = (k, d) => (args.includes(k) ? args[args.indexOf(k) + 1] : d);
const quick = args.includes("--quick");
const pkg = opt("--pkg", "pkg/dist/index.js");
const outDir = opt("--out", null);
const torch = await import(pathToFileURL(path.resolve(pkg)).href);
const core = await import(
  pathToFileURL(path.resolve(path.dirname(pkg), "wasm/webtorch_core.js")).href
);
const variants = opt(
  "--variants",
  "im2col,auto,t64p,t64x128p,t128x64p,t128k16p",
).split(",");
// [N, C, H, W, O]: the bench's conv2d row first, then ResNet-34's later stages at batch 32.
const shapes = quick
  ? [[2, 16, 28, 28, 16]]
  : [
      [32, 64, 56, 56, 64],
      [32, 128, 28, 28, 128],
      [32, 256, 14, 14, 256],
      [8, 64, 56, 56, 64],
      [32, 3, 224, 224, 64],
    ];
await warmGpu(torch, quick ? 200 : 2000, quick);
const rows = [];
for (const [N, C, H, W, O] of shapes) {
  const x = torch.randn([N, C, H, W]);
  const w = torch.randn([O, C, 3, 3]).mul(1 / Math.sqrt(9 * C));
  const f = () => torch.nn.functional.conv2d(x, w, null, 1, 1);
  const flop = 2 * N * O * H * W * C * 9;
  const set = (v) => {
    core.set_conv_direct(v !== "im2col");
    core.set_matmul_variant(v === "im2col" ? "auto" : v);
  };
  // Every variant once (compiled, checked against im2col) before any is timed.
  set("im2col");
  const want = await f().toArray();
  for (const v of variants) {
    set(v);
    const got = await f().toArray();
    let err = 0;
    for (let i = 0; i < got.length; i += 97)
      err = Math.max(err, Math.abs(got[i] - want[i]));
    if (err > 1e-3) throw new Error(`${v}: max error ${err} against im2col`);
  }
  const batch = async (n) => {
    const held = [];
    const t0 = performance.now();
    for (let i = 0; i < n; i++) held.push(f());
    await torch.webgpu.sync_device();
    const ms = (performance.now() - t0) / n;
    for (const h of held) h.dispose();
    return ms;
  };
  let n = 2;
  set("im2col");
  while ((await batch(n)) * n < 20 && n < 64) n *= 2;
  const ts = Object.fromEntries(variants.map((v) => [v, []]));
  for (let r = 0; r < (quick ? 2 : 7); r++) {
    for (const v of variants) {
      set(v);
      ts[v].push(await batch(n));
    }
  }
  const name = `${N}×${C}×${H}×${W} 3×3→${O}`;
  const row = { name, dims: { N, C, H, W, O }, ms: {}, tflops: {} };
  for (const v of variants) {
    row.ms[v] = median(ts[v]);
    row.tflops[v] = flop / (row.ms[v] * 1e-3) / 1e12;
  }
  rows.push(row);
  console.log(
    `${name.padEnd(24)} ` +
      variants.map((v) => `${v} ${row.tflops[v].toFixed(2)}`).join("  ") +
      "  TFLOP/s",
  );
  x.dispose();
  w.dispose();
}
set0();
function set0() {
  core.set_conv_direct(true);
  core.set_matmul_variant("auto");
}
if (outDir) {
  mkdirSync(outDir, { recursive: true });
  const adapter = torch._C?.adapter_info?.()?.name;
  writeFileSync(
    path.join(outDir, "convprobe.json"),
    JSON.stringify({ adapter, rows }, null, 1),
  );
}
