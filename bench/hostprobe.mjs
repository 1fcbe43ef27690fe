// Where a tiny eager op's time goes: Dawn's own floor per dispatch for the binding patterns a
// library can use, beside webtorch's chained tiny ops split into recording and waiting.
// Figures for bench/KERNELS.md ("Host path"), never asserted.
//
//   node bench/hostprobe.mjs [--out dir] [--pkg pkg/dist/index.js] [--quick]
//
// Part 1 (raw WebGPU, no webtorch): 1,000 dependent dispatches of a 64-element add (y = x + u.s,
// ping-pong between two buffers) recorded into passes and submitted, for each pattern:
//   same-bg     one bind group for every dispatch (what a floor measurement usually shows)
//   pingpong    two bind groups alternating (a chain's real pattern), no dynamic offsets
//   dyn-array   pingpong, uniform slot chosen by a dynamic offset passed as a JS array
//   dyn-u32     the same with the (Uint32Array, start, length) overload, as wasm glue calls it
//   slots       one bind group per (buffers, uniform slot): no dynamic offsets, 128 slots
//   submit64    `slots` with a submit every 64 dispatches (webtorch's batch size)
// "record" is the host time to record and submit; "+wait" adds the wait for completion.
// Part 2: webtorch's chains of 1,000 tiny adds and 8×8 matmuls, recording and +wait.

import { writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { chainCost, medianUs } from "./lib/timing.mjs";

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const outDir = args.includes("--out") ? args[args.indexOf("--out") + 1] : null;
const pkg = args.includes("--pkg") ? args[args.indexOf("--pkg") + 1] : "pkg/dist/index.js";
const reps = quick ? 3 : 15;
const N = quick ? 200 : 1000;
const out = { raw: [], webtorch: [] };
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];

// ---- part 1: raw Dawn ----
const webgpu = await import("webgpu");
Object.assign(globalThis, webgpu.globals);
const gpu = webgpu.create([]);
const adapter = await gpu.requestAdapter();
const device = await adapter.requestDevice();
const SLOT = 256;
const SLOTS = 128;
const code = `
struct U { s: f32 }
@group(0) @binding(0) var<uniform> u: U;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x < arrayLength(&y)) { y[g.x] = x[g.x] + u.s; }
}`;
const module = device.createShaderModule({ code });
const layout = (dyn) =>
  device.createBindGroupLayout({
    entries: [
      { binding: 0, visibility: GPUShaderStage.COMPUTE, buffer: { type: "uniform", hasDynamicOffset: dyn } },
      { binding: 1, visibility: GPUShaderStage.COMPUTE, buffer: { type: "read-only-storage" } },
      { binding: 2, visibility: GPUShaderStage.COMPUTE, buffer: { type: "storage" } },
    ],
  });
const pipe = (bgl) =>
  device.createComputePipeline({
    layout: device.createPipelineLayout({ bindGroupLayouts: [bgl] }),
    compute: { module, entryPoint: "main" },
  });
const storage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
const a = device.createBuffer({ size: 256, usage: storage });
const b = device.createBuffer({ size: 256, usage: storage });
const uni = device.createBuffer({ size: SLOT * SLOTS, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
device.queue.writeBuffer(uni, 0, new Float32Array((SLOT * SLOTS) / 4).fill(0.001));
const bglS = layout(false);
const bglD = layout(true);
const pS = pipe(bglS);
const pD = pipe(bglD);
const bg = (bgl, slot, x, y) =>
  device.createBindGroup({
    layout: bgl,
    entries: [
      { binding: 0, resource: { buffer: uni, offset: slot * SLOT, size: SLOT } },
      { binding: 1, resource: { buffer: x } },
      { binding: 2, resource: { buffer: y } },
    ],
  });
const fixed = [bg(bglS, 0, a, b), bg(bglS, 0, b, a)];
const dyn = [bg(bglD, 0, a, b), bg(bglD, 0, b, a)];
const slotted = [];
for (let s = 0; s < SLOTS; s++) slotted.push([bg(bglS, s, a, b), bg(bglS, s, b, a)]);
const offs = new Uint32Array(SLOTS).map((_, i) => i * SLOT);

const patterns = {
  "same-bg": (p, i) => {
    p.setBindGroup(0, fixed[0]);
  },
  pingpong: (p, i) => {
    p.setBindGroup(0, fixed[i & 1]);
  },
  "dyn-array": (p, i) => {
    p.setBindGroup(0, dyn[i & 1], [offs[i % SLOTS]]);
  },
  "dyn-u32": (p, i) => {
    p.setBindGroup(0, dyn[i & 1], offs, i % SLOTS, 1);
  },
  slots: (p, i) => {
    p.setBindGroup(0, slotted[i % SLOTS][i & 1]);
  },
  submit64: (p, i) => {
    p.setBindGroup(0, slotted[i % SLOTS][i & 1]);
  },
};
async function rawRun(name) {
  const usesDyn = name.startsWith("dyn");
  const per = name === "submit64" ? 64 : N;
  const once = () => {
    let enc = device.createCommandEncoder();
    let pass = enc.beginComputePass();
    pass.setPipeline(usesDyn ? pD : pS);
    for (let i = 0; i < N; i++) {
      if (i > 0 && i % per === 0) {
        pass.end();
        device.queue.submit([enc.finish()]);
        enc = device.createCommandEncoder();
        pass = enc.beginComputePass();
        pass.setPipeline(usesDyn ? pD : pS);
      }
      patterns[name](pass, i);
      pass.dispatchWorkgroups(1);
    }
    pass.end();
    device.queue.submit([enc.finish()]);
  };
  once();
  await device.queue.onSubmittedWorkDone();
  const rec = [];
  const tot = [];
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    once();
    const t1 = performance.now();
    await device.queue.onSubmittedWorkDone();
    const t2 = performance.now();
    rec.push(((t1 - t0) * 1e3) / N);
    tot.push(((t2 - t0) * 1e3) / N);
  }
  const row = { name, record_us: median(rec), wait_us: median(tot) };
  out.raw.push(row);
  console.log(`raw ${name.padEnd(12)} record ${row.record_us.toFixed(2).padStart(6)} µs/dispatch  +wait ${row.wait_us.toFixed(2).padStart(6)}`);
}
for (const name of Object.keys(patterns)) await rawRun(name);

// Raw read-back of a small result: one dispatch, a copy into a mappable buffer, submit, map,
// read, unmap (what a library's `x + 1` then read does at the least).
const staging = device.createBuffer({ size: 256, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
async function rawRead() {
  const enc = device.createCommandEncoder();
  const pass = enc.beginComputePass();
  pass.setPipeline(pS);
  pass.setBindGroup(0, fixed[0]);
  pass.dispatchWorkgroups(1);
  pass.end();
  enc.copyBufferToBuffer(b, 0, staging, 0, 256);
  device.queue.submit([enc.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  const v = new Float32Array(staging.getMappedRange().slice(0));
  staging.unmap();
  return v;
}
{
  const us = await medianUs(rawRead, quick ? 20 : 200);
  out.raw.push({ name: "read-back", us });
  console.log(`raw read-back         ${us.toFixed(1).padStart(6)} µs (dispatch, copy, submit, map, read)`);
}
device.destroy();

// ---- part 2: webtorch ----
const torch = await import(pathToFileURL(path.resolve(pkg)).href);
async function chain(name, x0, f) {
  const row = { name, ...(await chainCost(torch, x0, f, { n: N, reps })) };
  out.webtorch.push(row);
  console.log(`webtorch ${name.padEnd(16)} record ${row.record_us.toFixed(2).padStart(6)} µs/op  +wait ${row.wait_us.toFixed(2).padStart(6)}`);
}
const v = torch.randn([64]);
const m = torch.randn([8, 8]);
const eye = torch.eye(8);
await chain("tiny adds", v, (x) => x.add(0.001));
await chain("tiny matmuls", m, (x) => x.matmul(eye));
{
  // x + 1 on 64 elements, then read (bench/run.mjs's read-back row), and its parts.
  torch.webgpu.set_fusion_min_size(2 ** 31 - 1);
  const once = async () => {
    const y = v.add(1);
    const a = await y.toArray();
    y.dispose();
    return a;
  };
  const readUs = await medianUs(once, quick ? 20 : 200);
  const sync = [];
  for (let r = 0; r < (quick ? 20 : 200); r++) {
    const y = v.add(1);
    const t0 = performance.now();
    await torch.webgpu.sync_device();
    sync.push((performance.now() - t0) * 1e3);
    y.dispose();
  }
  torch.webgpu.set_fusion_min_size(1024);
  out.webtorch.push({ name: "read-back", us: readUs, sync_us: median(sync) });
  console.log(`webtorch read-back    ${readUs.toFixed(1).padStart(6)} µs; an add then sync_device ${median(sync).toFixed(1)} µs`);
}
const st = torch.webgpu.runtime_stats?.() ?? null;
if (st) console.log("runtime stats:", JSON.stringify(st));
if (outDir) {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(path.join(outDir, "hostprobe.json"), JSON.stringify(out, null, 1));
}
