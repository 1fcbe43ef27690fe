// Raw GPU time of webtorch's generated kernels without its host path, and the host path alone.
// Figures for bench/KERNELS.md, never asserted.
//
//   node bench/kernels.mjs [--out dir] [--quick] [--pkg pkg/dist/index.js]
//
// Part 1 captures the WGSL that webtorch compiles (its print_shaders debug flag), then dispatches
// each kernel `n` times in one compute pass on a device of its own (fixed inputs, meta words
// written here) and divides the wall time of submit + completion: GPU time per kernel, new
// row kernels beside the general ones they replace, and a vec4 copy as the bandwidth reference.
// Part 2 times webtorch's eager calls: recording only (host cost per op), and recording plus
// completion with each result freed at once or held to the end (as bench/run.mjs holds them).
// Part 3 times the pieces of conv2d and attention (matmuls, softmax, the im2col bytes).

import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const outDir = args.includes("--out") ? args[args.indexOf("--out") + 1] : null;
const pkg = args.includes("--pkg")
  ? args[args.indexOf("--pkg") + 1]
  : "pkg/dist/index.js";
const torch = await import(pathToFileURL(path.resolve(pkg)).href);
const log = console.log;
const shaders = new Map();
console.log = (s, ...rest) => {
  if (typeof s === "string" && s.startsWith("// webtorch:")) {
    const nl = s.indexOf("\n");
    shaders.set(s.slice(3, nl), s.slice(nl + 1));
  } else log(s, ...rest);
};
const results = {
  adapter: torch._C.adapter_info?.()?.name,
  kernels: [],
  host: [],
};

// ---- the shapes, and webtorch running each once to compile (and so print) its kernels ----
const [R, C] = quick ? [256, 1024] : [4096, 4096];
const [LR, LC] = quick ? [256, 768] : [8192, 768];
const S = R * C;
torch.webgpu.set_debug_print_shaders(true);
const x = torch.randn([R, C]);
const lx = torch.randn([LR, LC]);
const lw = torch.ones([LC]);
const lb = torch.zeros([LC]);
const run = async (t) => {
  await t.toArray();
  t.dispose();
};
// The wasm core's bench knobs (set_row_vectors: the row plans' vectors per invocation).
const core = await import(
  pathToFileURL(path.resolve(path.dirname(pkg), "wasm/webtorch_core.js")).href
);
for (const k of [8, 4]) {
  core.set_row_vectors?.(k);
  await run(torch.softmax(x, -1));
  await run(torch.nn.functional.layer_norm(lx, [LC], lw, lb));
}
core.set_row_vectors?.(8);
await run(torch.softmax(x.t(), 0)); // not dense along the row: the general kernel
await run(
  torch.nn.functional.layer_norm(lx.t().contiguous().t(), [LC], lw, lb),
);
await run(x.reshape([S]).sum());
await run(x.t().sum(1)); // general reduction kernel (strided rows)
// Elementwise add, gelu and the 6-op chain of torch_bench.py, in the general kernel (one element
// per invocation) and the contiguous vec4 variant (labels `…:x4:float32`).
const y = torch.randn([R, C]);
for (const x4 of [false, true]) {
  core.set_elementwise_x4?.(x4);
  await run(x.add(y));
  await run(x.gelu());
  await run(x.mul(y).add(x).tanh().mul(0.5).sub(0.25).relu());
}
core.set_elementwise_x4?.(true);
torch.webgpu.set_debug_print_shaders(false);
console.log = log;
log(`captured ${shaders.size} kernels: ${[...shaders.keys()].join(", ")}`);

// ---- part 1: raw dispatches on a device of our own ----
const adapter = await navigator.gpu.requestAdapter();
const device = await adapter.requestDevice({
  requiredLimits: {
    maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
    maxBufferSize: adapter.limits.maxBufferSize,
  },
});
const U = GPUBufferUsage;
const buf = (bytes, fill) => {
  const b = device.createBuffer({
    size: bytes,
    usage: U.STORAGE | U.COPY_DST | U.COPY_SRC,
  });
  if (fill) {
    const a = new Float32Array(bytes / 4);
    for (let i = 0; i < a.length; i++) a[i] = fill(i);
    device.queue.writeBuffer(b, 0, a);
  }
  return b;
};
const meta = (words) => {
  const b = device.createBuffer({ size: 512, usage: U.UNIFORM | U.COPY_DST });
  const a = new Uint32Array(128);
  for (const [i, v] of Object.entries(words)) a[i] = v;
  device.queue.writeBuffer(b, 0, a);
  return b;
};
const f32bits = (v) => new Uint32Array(new Float32Array([v]).buffer)[0];
const rowsPerWg = (label) => {
  const m = /rows(\d+)x/.exec(label);
  return m ? Math.max(1, 64 / Number(m[1])) : 1;
};
const grid = (n) =>
  n <= 65535
    ? [n, 1]
    : [Math.ceil(n / Math.ceil(n / 65535)), Math.ceil(n / 65535)];

async function timeKernel(
  name,
  code,
  bindings,
  groups,
  bytes,
  n = quick ? 5 : 100,
) {
  const module = device.createShaderModule({ code });
  const pipeline = await device.createComputePipelineAsync({
    layout: "auto",
    compute: { module, entryPoint: "main" },
  });
  const bg = device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: bindings.map((b, i) => ({ binding: i, resource: { buffer: b } })),
  });
  const once = async (k) => {
    const enc = device.createCommandEncoder();
    const pass = enc.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, bg);
    for (let i = 0; i < k; i++) pass.dispatchWorkgroups(groups[0], groups[1]);
    pass.end();
    const t0 = performance.now();
    device.queue.submit([enc.finish()]);
    await device.queue.onSubmittedWorkDone();
    return performance.now() - t0;
  };
  await once(2);
  const per = [];
  for (let r = 0; r < 5; r++) per.push((await once(n)) / n);
  per.sort((a, b) => a - b);
  const ms = per[2];
  const gbs = bytes / ms / 1e6;
  results.kernels.push({ name, ms, gbs });
  log(
    `${name.padEnd(52)} ${(ms * 1000).toFixed(1).padStart(8)} µs  ${gbs.toFixed(0).padStart(6)} GB/s`,
  );
}

const find = (re) => [...shaders.keys()].find((k) => re.test(k));
// Row-kernel meta: rows, outer rank 1, inner rank 1, n, offset 0, grid width, eps, w offset,
// outer shape, outer stride, inner shape, inner stride, out strides, bias offset.
const rowMeta = (rows, n, gx) => ({
  0: rows,
  1: 1,
  2: 1,
  3: n,
  4: 0,
  5: gx,
  6: f32bits(1e-5),
  7: 0,
  8: rows,
  16: n,
  24: n,
  32: 1,
  40: n,
  48: 1,
  56: 0,
});
const xs = buf(S * 4, (i) => Math.sin(i) * 3);
const ys = buf(S * 4);
const lxs = buf(LR * LC * 4, (i) => Math.cos(i) * 2);
const lys = buf(LR * LC * 4);
const lws = buf(LC * 4, () => 1);
const lbs = buf(LC * 4, () => 0);

// Reference: a vec4 copy (one read + one write).
{
  const code = `@group(0) @binding(0) var<storage, read_write> o: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> i: array<vec4<f32>>;
@compute @workgroup_size(256) fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
  let k = g.y * nw.x * 256u + g.x;
  if (k < arrayLength(&o)) { o[k] = i[k]; }
}`;
  await timeKernel(
    `copy ${S} (vec4)`,
    code,
    [ys, xs],
    grid(S / 4 / 256),
    8 * S,
  );
}
const all = (re) => [...shaders.keys()].filter((k) => re.test(k));
for (const [label, general] of [
  ...all(/^webtorch:softmax:rows/).map((l) => [l, false]),
  [find(/^webtorch:softmax:float32/), true],
]) {
  if (!label) continue;
  const g = grid(general ? R : Math.ceil(R / rowsPerWg(label)));
  await timeKernel(
    `softmax ${R}×${C} ${label.split(":")[2]}`,
    shaders.get(label),
    [meta(rowMeta(R, C, g[0])), ys, xs],
    g,
    8 * S,
  );
}
for (const [label, general] of [
  ...all(/^webtorch:layernorm:rows/).map((l) => [l, false]),
  [find(/^webtorch:layernorm:float32/), true],
]) {
  if (!label) continue;
  const g = grid(general ? LR : Math.ceil(LR / rowsPerWg(label)));
  await timeKernel(
    `layer_norm ${LR}×${LC} ${label.split(":")[2]}`,
    shaders.get(label),
    [meta(rowMeta(LR, LC, g[0])), lys, lxs, lws, lbs],
    g,
    8 * LR * LC,
  );
}
// Sum: first pass of the two-pass sum over everything, one output per chunk: chunks of 4,096
// (the split before 12:40 UTC) and of 16,384 (the split now for 16M).
for (const label of [
  find(/^webtorch:sum:rows/),
  find(/^webtorch:sum:float32/),
]) {
  if (!label) continue;
  for (const len of [4096, 16384]) {
    const chunks = S / len;
    const g = grid(chunks);
    const words = {
      0: chunks,
      1: 1,
      2: 1,
      3: len,
      4: 0,
      5: g[0],
      8: chunks,
      16: len,
      24: len,
      32: 1,
    };
    await timeKernel(
      `sum ${S}: first pass, ${chunks} × ${len} ${label.split(":")[2] ?? ""}`,
      shaders.get(label),
      [meta(words), ys, xs],
      g,
      4 * S,
    );
  }
}

// Elementwise kernels: meta [0] numel, [2] invocations per grid row, [8], [9] leaf offsets (0),
// [16], [17] the chain's scalars.
{
  const zs = buf(S * 4, (i) => Math.cos(i));
  for (const [what, re, inputs] of [
    ["add", /^webtorch:add:(x4:)?float32$/, [xs, zs]],
    ["gelu", /^webtorch:gelu:(x4:)?float32$/, [xs]],
    [
      "6-op chain",
      /^webtorch:mul\+add\+tanh\+mul\+sub\+relu:(x4:)?float32$/,
      [xs, zs],
    ],
  ]) {
    for (const label of all(re)) {
      const per = label.includes(":x4:") ? 4 : 1;
      const g = grid(Math.ceil(S / per / 256));
      const words = {
        0: S,
        2: g[0] * 256,
        16: f32bits(0.5),
        17: f32bits(0.25),
      };
      await timeKernel(
        `${what} ${S} ${per === 4 ? "x4" : "general"}`,
        shaders.get(label),
        [meta(words), ys, ...inputs],
        g,
        4 * S * (inputs.length + 1),
      );
    }
  }
}

// ---- part 2: webtorch's eager host path ----
async function host(name, f, n = quick ? 20 : 400) {
  for (let i = 0; i < 5; i++) f().dispose();
  await torch.webgpu.sync_device();
  let t0 = performance.now();
  for (let i = 0; i < n; i++) f().dispose();
  const rec = (performance.now() - t0) / n;
  await torch.webgpu.sync_device();
  const freed = (performance.now() - t0) / n;
  t0 = performance.now();
  const held = [];
  for (let i = 0; i < n; i++) held.push(f());
  await torch.webgpu.sync_device();
  const heldMs = (performance.now() - t0) / n;
  held.forEach((t) => t.dispose());
  results.host.push({
    name,
    record_us: rec * 1000,
    freed_us: freed * 1000,
    held_us: heldMs * 1000,
  });
  log(
    `${name.padEnd(28)} record ${(rec * 1000).toFixed(1).padStart(7)} µs/op   +wait, freed ${(freed * 1000).toFixed(1).padStart(7)}   held ${(heldMs * 1000).toFixed(1).padStart(7)}`,
  );
}
const tiny = torch.randn([64]);
const flat = x.reshape([S]);
// A lone elementwise op is deferred for fusion; a huge min size dispatches it at once.
torch.webgpu.set_fusion_min_size(2 ** 31 - 1);
await host("tiny add (64)", () => tiny.add(1));
torch.webgpu.set_fusion_min_size(1024);
await host("tiny sum (64)", () => tiny.sum());
await host(`sum ${S}`, () => flat.sum());
await host(`softmax ${R}×${C}`, () => torch.softmax(x, -1));
await host(`layer_norm ${LR}×${LC}`, () =>
  torch.nn.functional.layer_norm(lx, [LC], lw, lb),
);
// ---- part 3: GPU-bound eager pieces of the model workloads (results held to the sync, which
// computes the pending ones: a matmul may stay pending for an epilogue) ----
async function piece(name, f, flop, n = quick ? 3 : 20) {
  const batch = async (k) => {
    const t0 = performance.now();
    const held = [];
    for (let i = 0; i < k; i++) held.push(f());
    await torch.webgpu.sync_device();
    held.forEach((t) => t.dispose());
    return (performance.now() - t0) / k;
  };
  await batch(3);
  const per = [];
  for (let r = 0; r < 3; r++) per.push(await batch(n));
  per.sort((a, b) => a - b);
  const ms = per[1];
  results.pieces = results.pieces ?? [];
  results.pieces.push({ name, ms, tflops: flop ? flop / ms / 1e9 : null });
  log(
    `${name.padEnd(52)} ${(ms * 1000).toFixed(1).padStart(8)} µs${flop ? `  ${(flop / ms / 1e9).toFixed(2)} TFLOP/s` : ""}`,
  );
}
{
  const [N, Ci, H, W, O] = quick ? [2, 16, 28, 28, 16] : [32, 64, 56, 56, 64];
  const cx = torch.randn([N, Ci, H, W]);
  const cw = torch.randn([O, Ci, 3, 3]);
  const F = torch.nn.functional;
  const flop = 2 * N * O * H * W * Ci * 9;
  await piece(
    `conv2d ${N}×${Ci}×${H}×${W}→${O}`,
    () => F.conv2d(cx, cw, null, 1, 1),
    flop,
  );
  const rows = torch.randn([N, H * W, Ci * 9]);
  const wt = torch.randn([Ci * 9, O]);
  await piece(
    `  matmul [${N},${H * W},${Ci * 9}]@[${Ci * 9},${O}]`,
    () => rows.matmul(wt),
    flop,
  );
  const wm = torch.randn([O, Ci * 9]);
  const cols = torch.randn([N, Ci * 9, H * W]);
  await piece(
    `  matmul [${O},${Ci * 9}]@[${N},${Ci * 9},${H * W}] (before)`,
    () => wm.matmul(cols),
    flop,
  );
  const big = torch.randn([N * H * W * 9 * Ci]);
  const now = (f) => () => {
    torch.webgpu.set_fusion_min_size(2 ** 31 - 1);
    const r = f();
    torch.webgpu.set_fusion_min_size(1024);
    return r;
  };
  await piece(
    `  x·1 over ${N * H * W * 9 * Ci} (im2col's bytes)`,
    now(() => big.mul(1)),
    null,
  );
  const [Hh, L, E] = quick ? [2, 128, 64] : [12, 1024, 64];
  const q = torch.randn([Hh, L, E]),
    k = torch.randn([Hh, L, E]),
    v = torch.randn([Hh, L, E]);
  await piece(
    `sdpa ${Hh}×${L}×${E}`,
    () => F.scaled_dot_product_attention(q, k, v),
    4 * Hh * L * L * E,
  );
  const kt = k.transpose(1, 2);
  await piece(`  q@kᵀ`, () => q.matmul(kt), 2 * Hh * L * L * E);
  const sc = torch.randn([Hh, L, L]);
  await piece(`  softmax [${Hh},${L},${L}]`, () => torch.softmax(sc, -1), null);
  await piece(`  p@v`, () => sc.matmul(v), 2 * Hh * L * L * E);
}
if (outDir) {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(
    path.join(outDir, "kernels.json"),
    JSON.stringify(results, null, 1),
  );
}
process.exit(0);
