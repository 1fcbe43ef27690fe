// webtorch benchmarks against TensorFlow.js (WebGPU) and jax-js on the same WebGPU adapter (Dawn
// through the `webgpu` npm package). Figures, never asserted timings.
//
//   node bench/run.mjs --out bench/results/<machine> [--quick] [--libs webtorch,tfjs,jax-js]
//                      [--variants t64,t128,...] [--only matmul,add,...] [--reps 7]
//                      [--batched on|off]
//
// Run from the repository root after `make pkg`. `--quick` uses the sizes a CPU renderer
// (SwiftShader) finishes in minutes. Results: <out>/webgpu.json; `report.mjs` merges it with
// torch.json (bench/torch_bench.py) into <out>/results.md. `node bench/build.mjs` bundles this
// file with its npm dependencies into bench/dist/run.mjs for machines without node_modules.

import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { workloads } from "./lib/workloads.mjs";
import { timeit, maxRelErr, sampleIdx, warmGpu } from "./lib/timing.mjs";
import { webtorchLib, tfjsLib, jaxLib } from "./lib/libs.mjs";
import { writeReport } from "./lib/report.mjs";

const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => {
    if (a.startsWith("--")) acc.push([a.slice(2), all[i + 1]?.startsWith("--") || all[i + 1] === undefined ? "1" : all[i + 1]]);
    return acc;
  }, []),
);
const out = args.out ?? "bench/results/local";
const quick = args.quick === "1";
const list = (s) => (s ? s.split(",") : null);
const wantLibs = list(args.libs) ?? ["webtorch", "tfjs", "jax-js"];
const only = list(args.only);
const variants = list(args.variants) ?? (quick ? ["tuned", "simple", "t64", "t128"] : ["tuned", "simple", "t64", "t128k16", "t128k16p", "t128x64", "t128x64p"]);
const tunedWanted = variants.includes("tuned");
const opts = { reps: Number(args.reps ?? (quick ? 3 : 7)), warmup: quick ? 1 : 2, minBatchMs: quick ? 50 : 25 };
const log = (...a) => console.log(...a);

mkdirSync(out, { recursive: true });
const t0 = performance.now();
const torch = await import(pathToFileURL(path.resolve(args.pkg ?? "pkg/dist/index.js")).href);
const coldMs = performance.now() - t0;
// Cold start to a first result: one op on fresh data (its kernel compiled now) read back.
const first = await torch.tensor([1, 2, 3, 4]).mul(2).add(1).toArray();
const firstMs = performance.now() - t0;
if (first[3] !== 9) throw new Error(`first result wrong: ${first}`);
let core = null;
try {
  core = await import(pathToFileURL(path.resolve(path.dirname(args.pkg ?? "pkg/dist/index.js"), "wasm/webtorch_core.js")).href);
} catch {}
// `--batched on|off`: force batched launches of tiny ops (default: the adapter's default).
if (args.batched && core?.set_batched_launches) core.set_batched_launches(args.batched === "on");
const adapter = torch._C.adapter_info();
log(`adapter: ${adapter?.name} (${adapter?.backend}); webtorch import + init ${coldMs.toFixed(0)} ms, first result ${firstMs.toFixed(0)} ms`);

// The peers find WebGPU through navigator.gpu, which importing webtorch installed; tfjs also wants
// a `window`.
// a `window`; jax-js reads navigator.userAgent (Node 20 has no navigator of its own).
globalThis.window ??= globalThis;
if (globalThis.navigator && globalThis.navigator.userAgent === undefined) {
  try {
    Object.defineProperty(globalThis.navigator, "userAgent", { value: `Node.js/${process.version}` });
  } catch {}
}
const libs = [];
const versions = {};
if (wantLibs.includes("webtorch")) {
  libs.push(webtorchLib(torch, core));
  if (torch.compile) libs.push(webtorchLib(torch, core, undefined, { compiled: true }));
  libs.push(webtorchLib(torch, core, undefined, { freed: true }));
  if (core?.set_matmul_variant) for (const v of variants) libs.push(webtorchLib(torch, core, v, { tuned: () => autotune?.cache }));
}
if (wantLibs.includes("tfjs")) {
  try {
    const tf = await import("@tensorflow/tfjs-core");
    // tfjs-core alone registers no gradients; the training-step workloads need them. Its ESM
    // files import without extensions, which only the bundle (bench/dist/run.mjs) resolves.
    let grads = true;
    try {
      await import("@tensorflow/tfjs-core/dist/register_all_gradients.js");
    } catch {
      grads = false;
      log("tfjs: no gradients outside the bundle (node bench/build.mjs); its training steps are skipped");
    }
    await import("@tensorflow/tfjs-backend-webgpu");
    if (!(await tf.setBackend("webgpu"))) throw new Error("tf.setBackend('webgpu') failed");
    await tf.ready();
    tf.env().set("WEBGPU_CPU_FORWARD", false);
    versions.tfjs = tf.version_core;
    libs.push(tfjsLib(tf, { grads }));
  } catch (e) {
    log(`tfjs unavailable: ${e.message}`);
  }
}
if (wantLibs.includes("jax-js")) {
  try {
    const jax = await import("@jax-js/jax");
    const devs = (await jax.init("webgpu")) ?? [];
    if (!devs.includes("webgpu")) throw new Error(`jax-js devices: ${devs}`);
    jax.defaultDevice("webgpu");
    libs.push(jaxLib(jax));
  } catch (e) {
    log(`jax-js unavailable: ${e.message}`);
  }
}

const all = workloads({ quick });
// A GPU idle at the start of the process runs at lower clocks for a while: warm it first.
if (torch.webgpu.is_available()) await warmGpu(torch, quick ? 200 : 1500, quick);

// The "tuned" column: the autotuner (torch.webgpu.autotune_matmul) times every matmul variant on
// this adapter for the matmul workloads' shapes first; that column runs with its table loaded,
// the others without one (the shape rule).
let autotune = null;
if (tunedWanted && torch.webgpu?.autotune_matmul && torch.webgpu.is_available()) {
  const shapes = all.filter((w) => w.kind === "matmul" && (!only || only.includes("matmul"))).map((w) => [w.dims.M, w.dims.N, w.dims.K]);
  const t0 = performance.now();
  const measured = await torch.webgpu.autotune_matmul(shapes, { reps: quick ? 2 : 5 });
  autotune = { ms: performance.now() - t0, measured, cache: torch.webgpu.autotune_cache() };
  torch.webgpu.clear_autotune();
  log(`autotune (${autotune.ms.toFixed(0)} ms): ${measured.map((r) => `${r.shape_class} → ${r.variant}`).join(", ")}`);
}

const results = [];
for (const w of all) {
  if (only && !only.includes(w.kind)) continue;
  for (const lib of libs) {
    if (lib.only && !lib.only.includes(w.kind)) continue;
    const rec = { lib: lib.name, workload: w.name, kind: w.kind, unit: w.unit, dims: w.dims, note: w.note };
    let h = null;
    try {
      h = lib.prepare(w);
      if (!h) continue;
      // Check once against the host reference before timing.
      if (w.ref) {
        const got = await h.result();
        if (w.scalar) {
          rec.err = Math.abs(got - w.ref(0));
          rec.ok = rec.err <= w.tol;
        } else {
          const n = got.length;
          const idx = w.sample ?? sampleIdx(n, w.kind === "matmul" || w.kind === "conv2d" ? 48 : 256);
          const want = new Float64Array(n);
          for (const i of idx) want[i] = w.ref(i);
          rec.err = maxRelErr(got, want, idx);
          rec.ok = rec.err <= w.tol;
        }
      }
      const t = await timeit(h.step, h.wait, opts);
      Object.assign(rec, t, { value: w.figure(t.ms) });
      log(`${w.name.padEnd(28)} ${lib.name.padEnd(18)} ${fmt(rec.value)} ${w.unit}  (${t.ms.toFixed(3)} ms, ×${t.inner}${rec.ok === false ? `, CHECK FAILED err ${rec.err}` : ""})`);
    } catch (e) {
      rec.error = String(e?.message ?? e).slice(0, 300);
      log(`${w.name.padEnd(28)} ${lib.name.padEnd(18)} error: ${rec.error}`);
    } finally {
      try {
        h?.free();
      } catch {}
    }
    results.push(rec);
  }
}

function fmt(v) {
  return v >= 100 ? v.toFixed(0) : v.toPrecision(3);
}

const meta = {
  date: new Date().toISOString(),
  node: process.version,
  adapter,
  quick,
  versions: { ...versions, jaxjs: "0.1.25 (bench/package.json)" },
  webtorch_cold_ms: coldMs,
  webtorch_first_result_ms: firstMs,
  autotune,
  opts,
};
writeFileSync(path.join(out, "webgpu.json"), JSON.stringify({ meta, results }, null, 1));
writeReport(out);
log(`wrote ${out}/webgpu.json and results.md`);
process.exit(0);
