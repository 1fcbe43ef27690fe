// The transformer block's products (bench workload block_step: 8×1024 tokens, d 768, ff 3072) in
// the layouts its forward and backward run them — X·Wᵀ (`bt`), dY·W (`nn`), dYᵀ·X (`at`) — timed
// with the shape rule (`auto`, split-K included), each matmul variant forced (no split-K), and
// `sN` variants: the rule's kernel with K split in N slices.
// Figures for bench/KERNELS.md, never asserted.
//
//   node bench/blockmm.mjs [--out dir] [--pkg pkg/dist/index.js] [--quick] [--variants a,b] [--square]

import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { warmGpu } from "./lib/timing.mjs";

const args = process.argv.slice(2);
const opt = (k, d) => (args.includes(k) ? args[args.indexOf(k) + 1] : d);
const quick = args.includes("--quick");
const pkg = opt("--pkg", "pkg/dist/index.js");
const outDir = opt("--out", null);
const torch = await import(pathToFileURL(path.resolve(pkg)).href);
const core = await import(pathToFileURL(path.resolve(path.dirname(pkg), "wasm/webtorch_core.js")).href);
const variants = opt("--variants", "auto,t64p,t128x64p,t128k16p,t128k32p,t128x64pc,t128k16pc").split(",");
const T = quick ? 256 : 8192;
const [d, ff] = quick ? [64, 128] : [768, 3072];
// [name, rows of A, cols of A, rows of B, cols of B, layout]
const shapes = [];
// --square: the bench's square and transformer products in the three layouts instead.
// --conv: conv2d 32×64×56×56 3×3→64's product as webtorch takes it (im2col columnsᵀ · weightᵀ:
// [32, 3136, 576] read transposed, times the [64, 576] weight read transposed, shared by the batch).
if (args.includes("--conv")) {
  shapes.push({ name: "conv2d columnsᵀ·wᵀ 32×3136×576·576×64", m: 3136, n: 64, k: 576, batch: 32, layout: "conv" });
  // The same product with one operand or neither read transposed, and unbatched (M = 32·3136).
  if (args.includes("--layouts")) {
    for (const layout of ["conv-a", "conv-b", "conv-nn"]) shapes.push({ name: `same, ${layout}`, m: 3136, n: 64, k: 576, batch: 32, layout });
    shapes.push({ name: "unbatched at+bt 100352×64×576", m: 100352, n: 64, k: 576, layout: "atbt" });
    shapes.push({ name: "unbatched at 100352×64×576", m: 100352, n: 64, k: 576, layout: "at" });
  }
} else if (args.includes("--square")) {
  for (const [m, n, k] of quick ? [[256, 256, 256]] : [[4096, 4096, 4096], [2048, 2048, 2048], [8192, 3072, 768], [8192, 768, 3072]]) {
    for (const layout of ["nn", "bt", "at"]) shapes.push({ name: `${m}×${n}×${k}`, m, n, k, layout });
  }
} else for (const [o, i] of [[3 * d, d], [d, d], [ff, d], [d, ff]]) {
  if (args.includes("--dw")) {
    shapes.push({ name: `dW dYᵀ·X (${T}×${o})ᵀ·${T}×${i}`, m: o, n: i, k: T, layout: "at" });
    shapes.push({ name: `dWᵀ Xᵀ·dY (${T}×${i})ᵀ·${T}×${o}`, m: i, n: o, k: T, layout: "at" });
    continue;
  }
  shapes.push({ name: `fwd X·Wᵀ ${T}×${i}·(${o}×${i})ᵀ`, m: T, n: o, k: i, layout: "bt" });
  shapes.push({ name: `dX dY·W ${T}×${o}·${o}×${i}`, m: T, n: i, k: o, layout: "nn" });
  shapes.push({ name: `dW dYᵀ·X (${T}×${o})ᵀ·${T}×${i}`, m: o, n: i, k: T, layout: "at" });
}
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
await warmGpu(torch, quick ? 200 : 2000, quick);
const rows = [];
for (const s of shapes) {
  const aT = ["conv", "conv-a", "at", "atbt"].includes(s.layout);
  const bT = ["conv", "conv-b", "bt", "atbt"].includes(s.layout);
  const A = s.batch ? (aT ? torch.randn([s.batch, s.k, s.m]) : torch.randn([s.batch, s.m, s.k])) : aT ? torch.randn([s.k, s.m]) : torch.randn([s.m, s.k]);
  const B = bT ? torch.randn([s.n, s.k]) : torch.randn([s.k, s.n]);
  const f =
    s.batch || s.layout === "atbt"
      ? () => (aT ? A.transpose(-1, -2) : A).matmul(bT ? B.t() : B)
      : s.layout === "at"
        ? () => A.t().matmul(B)
        : s.layout === "bt"
          ? () => A.matmul(B.t())
          : () => A.matmul(B);
  const flop = 2 * s.m * s.n * s.k * (s.batch ?? 1);
  // Inputs computed (and a first product compiled) before any variant is timed: the first
  // variant timed had paid for them (conv shapes: 2.9 TFLOP/s, 16.4 when timed again).
  await A.sum().toArray();
  await B.sum().toArray();
  f().dispose();
  await torch.webgpu.sync_device();
  const row = { ...s, tflops: {} };
  for (const v of variants) {
    // `sN`: the shape rule's kernel with K split in N slices (s1: none), where it may split.
    const split = /^s(\d+)$/.exec(v);
    core.set_matmul_variant(split ? "auto" : v);
    core.set_split_k?.(split ? Number(split[1]) : 0);
    const batch = async (n) => {
      // Results are held to the wait: a product still pending (kept for an epilogue) is computed
      // there; one disposed before it is never computed.
      const held = [];
      const t0 = performance.now();
      for (let i = 0; i < n; i++) held.push(f());
      await torch.webgpu.sync_device();
      const ms = (performance.now() - t0) / n;
      for (const h of held) h.dispose();
      return ms;
    };
    await batch(2);
    let n = 2;
    while ((await batch(n)) * n < 20 && n < 64) n *= 2;
    const ts = [];
    for (let r = 0; r < (quick ? 2 : 5); r++) ts.push(await batch(n));
    row.tflops[v] = flop / (median(ts) * 1e-3) / 1e12;
  }
  core.set_matmul_variant("auto");
  core.set_split_k?.(0);
  A.dispose();
  B.dispose();
  rows.push(row);
  const best = Object.entries(row.tflops).sort((a, b) => b[1] - a[1])[0];
  console.log(
    `${s.name.padEnd(36)} ${s.layout} ` +
      variants.map((v) => `${v} ${row.tflops[v].toFixed(1)}`).join("  ") +
      `   best ${best[0]}`,
  );
}
if (outDir) {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(path.join(outDir, "blockmm.json"), JSON.stringify({ adapter: torch._C.adapter_info?.()?.name, rows }, null, 1));
}
