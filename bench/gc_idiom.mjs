// A big elementwise loop in three lifetime idioms: `torch.scope` per step, explicit `dispose()`,
// and leaving every result to the garbage collector (no dispose: the natural JS habit). Figures
// for docs/webgpu.md ("Tensors left to the garbage collector"), never asserted.
//
//   node bench/gc_idiom.mjs [--device cpu|webgpu] [--sizes 1048576,4194304] [--steps 200]
//                           [--out dir] [--pkg pkg/dist/index.js]
//
// A step is `x = x.add(b).mul(0.5)` on `n` float32 elements, then `flush_batch()`, so that each
// step's result is computed on the GPU as it would be when a step's result is read or consumed
// (without it the fuser would inline the whole loop into a few kernels in every idiom; on the CPU
// backend the flush does nothing). The steps run back to back with no await between them, as a
// synchronous loop does, and one read at the end waits for the device. Each (idiom, size) runs
// in a child process of its own, so garbage one idiom left behind cannot slow the next, and the
// memory-pressure warning runs with its default settings: the table says whether it fired.

import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const opt = (name, dflt) =>
  args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt;
const device = opt("device", "cpu");
const pkg = opt("pkg", "pkg/dist/index.js");
const steps = Number(opt("steps", "200"));
const sizes = opt("sizes", "1048576").split(",").map(Number);
const outDir = opt("out", null);
const IDIOMS = ["scope", "dispose", "gc"];

if (args.includes("--child")) {
  await child(opt("idiom"), Number(opt("n")));
} else {
  parent();
}

/** One idiom at one size: prints a JSON line. */
async function child(idiom, n) {
  const torch = await import(pathToFileURL(path.resolve(pkg)).href);
  await torch.init({ device });
  const w = torch.webgpu;
  let warned = false;
  const warn = console.warn;
  console.warn = (...a) => {
    if (String(a[0]).startsWith("webtorch: live tensor memory")) warned = true;
    else warn(...a);
  };
  const b = torch.randn(n);
  let x = torch.randn(n);
  const step = {
    scope: () => {
      const old = x;
      x = torch.scope(() => old.add(b).mul(0.5));
      old.dispose();
    },
    dispose: () => {
      const t = x.add(b);
      const y = t.mul(0.5);
      t.dispose();
      x.dispose();
      x = y;
    },
    gc: () => {
      x = x.add(b).mul(0.5);
    },
  }[idiom];
  // Warm-up in the disciplined idiom (kernels compiled, pool primed), not counted.
  for (let i = 0; i < 5; i++) {
    const old = x;
    x = torch.scope(() => old.add(b).mul(0.5));
    old.dispose();
    w.flush_batch();
  }
  await x.sum().item();
  const before = w.runtime_stats();
  w.reset_peak_memory_stats();
  const t0 = performance.now();
  for (let i = 0; i < steps; i++) {
    step();
    w.flush_batch();
  }
  const s = await x.sum().item();
  const ms = performance.now() - t0;
  const after = w.runtime_stats();
  console.log(
    JSON.stringify({
      idiom,
      n,
      steps,
      ms_per_step: ms / steps,
      finite: Number.isFinite(s),
      peak_mb: after.peak_bytes / 2 ** 20,
      active_mb_end: after.active_bytes / 2 ** 20,
      allocations: after.allocations - before.allocations,
      reuses: after.reuses - before.reuses,
      warned,
      adapter:
        device === "cpu"
          ? "CPU backend (wasm)"
          : (w.getCapabilities()?.name ?? "none"),
    }),
  );
}

function parent() {
  const self = fileURLToPath(import.meta.url);
  const rows = [];
  for (const n of sizes) {
    for (const idiom of IDIOMS) {
      const r = spawnSync(
        process.execPath,
        [
          self,
          "--child",
          "--idiom",
          idiom,
          "--n",
          String(n),
          "--device",
          device,
          "--steps",
          String(steps),
          "--pkg",
          pkg,
        ],
        { encoding: "utf8", maxBuffer: 1 << 24 },
      );
      const line = r.stdout.split("\n").find((l) => l.startsWith("{"));
      if (!line) {
        rows.push({
          idiom,
          n,
          steps,
          error: (r.stderr || r.stdout).trim().split("\n").slice(-3).join(" "),
        });
      } else {
        rows.push(JSON.parse(line));
      }
      const last = rows.at(-1);
      console.log(
        last.error
          ? `${idiom.padEnd(8)} n=${n}: ${last.error}`
          : `${idiom.padEnd(8)} n=${n}: ${last.ms_per_step.toFixed(2)} ms/step, peak ${last.peak_mb.toFixed(0)} MB, ` +
              `${last.allocations} allocations, ${last.reuses} reuses, warning ${last.warned ? "fired" : "silent"}`,
      );
    }
  }
  if (outDir) {
    mkdirSync(outDir, { recursive: true });
    const meta = {
      date: new Date().toISOString(),
      device,
      adapter: rows.find((r) => r.adapter)?.adapter ?? null,
      node: process.version,
      cpu: os.cpus()[0]?.model ?? "unknown",
      cores: os.cpus().length,
      steps,
    };
    writeFileSync(
      path.join(outDir, `gc_idiom-${device}.json`),
      JSON.stringify({ meta, rows }, null, 2) + "\n",
    );
    const md = [
      `| n | idiom | ms/step | ÷ scope | peak MB | allocations | warning |`,
      `|---:|---|---:|---:|---:|---:|---|`,
      ...rows.map((r) => {
        if (r.error)
          return `| ${r.n} | ${r.idiom} | error: ${r.error} | | | | |`;
        const base = rows.find((q) => q.n === r.n && q.idiom === "scope");
        const ratio =
          base && !base.error
            ? (r.ms_per_step / base.ms_per_step).toFixed(2)
            : "–";
        return `| ${r.n} | ${r.idiom} | ${r.ms_per_step.toFixed(2)} | ${ratio} | ${r.peak_mb.toFixed(0)} | ${r.allocations} | ${r.warned ? "fired" : "silent"} |`;
      }),
    ].join("\n");
    writeFileSync(
      path.join(outDir, `gc_idiom-${device}.md`),
      `# bench/gc_idiom.mjs, ${device} (${meta.adapter}), ${meta.date}\n\n${meta.cpu} (${meta.cores} cores), Node ${meta.node}, ${steps} steps per idiom\n\n${md}\n`,
    );
  }
}
