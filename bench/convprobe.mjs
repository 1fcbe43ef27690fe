// conv2d variants on ResNet-style 3×3 layers (stride 1, padding 1, NCHW, no bias): the im2col
// route against the implicit-GEMM kernel (`src/backend/webgpu/conv.rs`) with its shape rule
// (`auto`) and each tile forced, rounds alternated so that the host's two speeds and the GPU's
// clocks fall on every variant alike. Figures for bench/KERNELS.md, never asserted.
//
//   node bench/convprobe.mjs [--out dir] [--pkg pkg/dist/index.js] [--quick] [--variants a,b]
//                            [--part fwd|dx|dw] [--profile] [--depthwise] [--window]
// `--window`: first layers (RGB 3×3, ResNet's 7×7 stride 2), short weight rows, depthwise
// layers and ResNet-50's strided 3×3 and 1×1 layers, the window kernel (`window`) against the
// implicit GEMM or depthwise kernel (`gemm`); `--part dx --variants zeros,auto`: strided input
// gradients by zero insertion against phases.
// `--part dx` / `dw` time the forward and the input's / weight's gradient together (FLOPs
// counted for both: twice the forward's).

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
const windowed = args.includes("--window");
const variants = opt(
  "--variants",
  windowed ? "gemm,window,auto" : "im2col,auto,t64p,t64x128p,t128x64p,t128k16p",
).split(",");
// [N, C, H, W, O, k, groups, stride]: the bench's conv2d row first, then ResNet-34's later
// stages at batch 32, a small batch, an RGB first layer; with --depthwise, MobileNetV2's 3×3
// and ConvNeXt's 7×7 depthwise layers (padding k/2 throughout, stride 1 unless given).
const shapes = quick
  ? [[2, 16, 28, 28, 16, 3, 1]]
  : windowed
    ? [
        [32, 3, 224, 224, 64, 3, 1],
        [8, 3, 224, 224, 64, 3, 1],
        [32, 3, 224, 224, 64, 7, 1, 2],
        [32, 4, 112, 112, 32, 3, 1],
        [32, 8, 112, 112, 32, 3, 1],
        [32, 16, 112, 112, 32, 3, 1],
        [32, 144, 56, 56, 144, 3, 144],
        [32, 144, 56, 56, 144, 3, 144, 2],
        [32, 96, 56, 56, 96, 7, 96],
        [32, 32, 112, 112, 64, 3, 32],
        [32, 128, 56, 56, 128, 3, 1, 2],
        [32, 256, 56, 56, 512, 1, 1, 2],
      ]
  : args.includes("--depthwise")
    ? [
        [32, 144, 56, 56, 144, 3, 144],
        [32, 96, 56, 56, 96, 7, 96],
      ]
    : [
        [32, 64, 56, 56, 64, 3, 1],
        [32, 128, 28, 28, 128, 3, 1],
        [32, 256, 14, 14, 256, 3, 1],
        [8, 64, 56, 56, 64, 3, 1],
        [32, 3, 224, 224, 64, 3, 1],
      ];
await warmGpu(torch, quick ? 200 : 2000, quick);
const rows = [];
for (const [N, C, H, W, O, K, G, S = 1] of shapes) {
  const x = torch.randn([N, C, H, W]);
  const w = torch.randn([O, C / G, K, K]).mul(1 / Math.sqrt((K * K * C) / G));
  const conv = () => torch.nn.functional.conv2d(x, w, null, S, K >> 1, 1, G);
  const [OH, OW] = [H, W].map((d) => Math.floor((d + 2 * (K >> 1) - K) / S) + 1);
  // --backward: the input's gradient (`dx`) or the weight's (`dw`) of the same call.
  const part = opt("--part", "fwd");
  x.requires_grad_(part === "dx");
  w.requires_grad_(part === "dw");
  const gy = torch.randn([N, O, OH, OW]);
  const f =
    part === "fwd"
      ? conv
      : () => {
          // The forward's output is freed at once (as PyTorch's refcount does): left to the
          // garbage collector, its buffers were re-created call after call.
          const y = conv();
          const g = torch.autograd.grad(y, [part === "dx" ? x : w], {
            grad_outputs: gy,
          })[0];
          y.dispose();
          return g;
        };
  const flop = ((2 * N * O * OH * OW * C * K * K) / G) * (part === "fwd" ? 1 : 2);
  const set = (v) => {
    core.set_conv_direct(v !== "im2col");
    // `window:N`: the window kernel with N output channels per invocation.
    const win = v.startsWith("window") ? "on" + v.slice(6) : v === "gemm" ? "off" : "auto";
    core.set_conv_window(win);
    // `splitsN`: the weight gradient in N slices of the output positions (1: none);
    // `zeros`: strided input gradients by zero insertion instead of phases.
    core.set_conv_splits(v.startsWith("splits") ? +v.slice(6) : 0);
    core.set_conv_grad_phases(v !== "zeros");
    const own = ["im2col", "gemm", "zeros"].includes(v) || /^(window|splits)/.test(v);
    core.set_matmul_variant(own ? "auto" : v);
  };
  // Every variant once (compiled, checked against im2col, relative to the largest value)
  // before any is timed. Where im2col's column buffer exceeds the adapter's binding size (the
  // first layer's gradients), the variants are checked against the first that runs.
  let want = null;
  const runnable = [];
  for (const v of variants) {
    set(v);
    let got;
    try {
      got = await f().toArray();
    } catch (e) {
      console.log(`  ${v}: ${String(e.message ?? e).slice(0, 100)}`);
      continue;
    }
    runnable.push(v);
    want ??= got;
    let err = 0;
    let scale = 1e-6;
    for (let i = 0; i < got.length; i += 97) {
      err = Math.max(err, Math.abs(got[i] - want[i]));
      scale = Math.max(scale, Math.abs(want[i]));
    }
    if (err > 1e-4 * scale + 1e-4)
      throw new Error(`${v}: max error ${err} (largest value ${scale})`);
  }
  // Results are held to the sync while they fit 2 GiB; past that each is freed at once (as
  // PyTorch's timed loop keeps none): 64 held outputs of an RGB first layer (411 MB each) made
  // the pool create 30 GB of buffers, whose first use cost 7 ms a call and skewed the variant
  // timed first (bench/KERNELS.md, "conv2d windows").
  const outBytes =
    4 *
    { fwd: N * O * OH * OW, dx: N * C * H * W, dw: (O * C * K * K) / G }[part];
  const batch = async (n) => {
    const held = [];
    const keep = n * outBytes <= 2 ** 31;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      const r = f();
      if (keep) held.push(r);
      else r.dispose();
    }
    recorded.push((performance.now() - t0) / n);
    await torch.webgpu.sync_device();
    const ms = (performance.now() - t0) / n;
    for (const h of held) h.dispose();
    return ms;
  };
  // Host time recording one call (the last variant's rounds).
  let recorded = [];
  let n = 2;
  // The pool's buffers for a batch are made once, before any variant is timed.
  for (const v of runnable) {
    set(v);
    await batch(64);
  }
  set(runnable[0]);
  while ((await batch(n)) * n < 20 && n < 64) n *= 2;
  const ts = Object.fromEntries(runnable.map((v) => [v, []]));
  for (let r = 0; r < (quick ? 2 : 7); r++) {
    for (const v of runnable) {
      set(v);
      recorded = [];
      ts[v].push(await batch(n));
    }
  }
  const name = `${part} ${N}×${C}×${H}×${W} ${K}×${K}→${O}${G > 1 ? ` g${G}` : ""}${S > 1 ? ` s${S}` : ""}`;
  const row = {
    name,
    dims: { N, C, H, W, O, K, G, S },
    ms: {},
    tflops: {},
    record_ms: median(recorded),
  };
  for (const v of runnable) {
    row.ms[v] = median(ts[v]);
    row.tflops[v] = flop / (row.ms[v] * 1e-3) / 1e12;
  }
  // --profile: the GPU time of each kernel of one call (the shape rule's choice).
  if (args.includes("--profile")) {
    set("auto");
    const prof = await torch.profiler.profile(async () => {
      const r = f();
      await torch.webgpu.sync_device();
      r.dispose();
    });
    row.kernels = (prof.gpu_events ?? []).map((e) => ({
      kernel: e.kernel,
      op: e.op,
      us: e.dur_ns / 1000,
    }));
    for (const e of row.kernels)
      console.log(
        `    ${e.us.toFixed(1).padStart(9)} µs  ${e.kernel}  (${e.op})`,
      );
  }
  rows.push(row);
  console.log(
    `${name.padEnd(24)} ` +
      runnable.map((v) => `${v} ${row.tflops[v].toFixed(2)}`).join("  ") +
      `  TFLOP/s; recording ${row.record_ms.toFixed(3)} ms/call`,
  );
  x.dispose();
  w.dispose();
  gy.dispose();
}
set0();
function set0() {
  core.set_conv_direct(true);
  core.set_conv_window("auto");
  core.set_conv_splits(0);
  core.set_conv_grad_phases(true);
  core.set_matmul_variant("auto");
}
if (outDir) {
  mkdirSync(outDir, { recursive: true });
  const adapter = torch._C?.adapter_info?.()?.name;
  writeFileSync(
    path.join(
      outDir,
      `convprobe-${windowed ? "window-" : ""}${opt("--part", "fwd")}.json`,
    ),
    JSON.stringify({ adapter, rows }, null, 1),
  );
}
