// Merges <dir>/webgpu.json (run.mjs) and <dir>/torch.json (torch_bench.py) into <dir>/results.md.
// Ratios are "webtorch speed ÷ theirs": above 1 means webtorch is faster, for every unit.
//   node bench/lib/report.mjs <dir>

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const lowerIsBetter = (unit) => unit.startsWith("µs") || unit === "ms";
const fmt = (v) => (v == null ? "–" : v >= 100 ? v.toFixed(0) : v.toPrecision(3));

export function writeReport(dir) {
  const load = (f) => (existsSync(path.join(dir, f)) ? JSON.parse(readFileSync(path.join(dir, f), "utf8")) : null);
  const web = load("webgpu.json");
  const torch = load("torch.json");
  if (!web && !torch) return;
  const rows = [...(web?.results ?? []), ...(torch?.results ?? [])];
  const names = [...new Set(rows.map((r) => r.workload))];
  const get = (lib, name) => rows.find((r) => r.lib === lib && r.workload === name && r.value != null);
  const libs = [...new Set(rows.map((r) => r.lib))];
  const variants = libs.filter((l) => l.startsWith("webtorch:"));
  const peak = torch?.meta?.peak ?? {};
  const speed = (unit, ours, theirs) =>
    ours && theirs ? (lowerIsBetter(unit) ? theirs.value / ours.value : ours.value / theirs.value) : null;
  const lines = [];
  const m = web?.meta ?? {};
  lines.push(`# Benchmark results: ${path.basename(dir)}`, "");
  lines.push(`- Date: ${m.date ?? torch?.meta?.date ?? "?"}`);
  if (m.adapter) lines.push(`- WebGPU adapter (Dawn via the \`webgpu\` npm package, Node ${m.node}): ${m.adapter.name} — ${m.adapter.description ?? ""}`);
  if (torch?.meta) lines.push(`- PyTorch ${torch.meta.torch} on ${torch.meta.device}; fp32 with TF32 off (TF32-on figures in torch.json)`);
  if (m.webtorch_cold_ms != null) lines.push(`- webtorch import + init (cold start to a ready device): ${m.webtorch_cold_ms.toFixed(0)} ms${m.webtorch_first_result_ms != null ? `; to a first result read back (\`tensor([1, 2, 3, 4]).mul(2).add(1).toArray()\`, its kernel compiled then): ${m.webtorch_first_result_ms.toFixed(0)} ms` : ""}`);
  lines.push(`- Median of ${m.opts?.reps ?? "?"} timed batches after warm-up; every result checked against a host reference first (✗ = check failed).`);
  lines.push(`- Ratios: webtorch speed ÷ the other's (> 1: webtorch faster). % peak: of the chip's fp32 FLOP/s or memory bandwidth.`, "");
  const head = ["workload", "unit", "webtorch", ...variants.map((v) => v.slice(9)), "tfjs", "jax-js", "PyTorch", "% peak", "÷ PyTorch", "÷ tfjs", "÷ jax-js"];
  lines.push(`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`);
  for (const name of names) {
    const any = rows.find((r) => r.workload === name);
    const unit = any.unit;
    const cell = (lib) => {
      const r = get(lib, name);
      if (!r) {
        const e = rows.find((x) => x.lib === lib && x.workload === name && x.error);
        return e ? "err" : "–";
      }
      return fmt(r.value) + (r.ok === false ? " ✗" : "");
    };
    const wt = get("webtorch", name);
    const pk = unit === "TFLOP/s" ? peak.tflops : unit === "GB/s" ? peak.gbs : null;
    lines.push(
      `| ${[
        name,
        unit,
        cell("webtorch"),
        ...variants.map(cell),
        cell("tfjs"),
        cell("jax-js"),
        cell("pytorch"),
        wt && pk ? `${((100 * wt.value) / pk).toFixed(0)} %` : "–",
        fmt(speed(unit, wt, get("pytorch", name))),
        fmt(speed(unit, wt, get("tfjs", name))),
        fmt(speed(unit, wt, get("jax-js", name))),
      ].join(" | ")} |`,
    );
  }
  const errors = rows.filter((r) => r.error);
  if (errors.length) {
    lines.push("", "Errors:", "");
    for (const e of errors) lines.push(`- ${e.lib}, ${e.workload}: ${e.error}`);
  }
  const notes = [...new Map(rows.filter((r) => r.note).map((r) => [`${r.workload} (${r.lib})`, r.note]))].filter(
    ([k, n], i, all) => all.findIndex(([k2, n2]) => n2 === n && k2.split(" (")[0] === k.split(" (")[0]) === i,
  );
  if (notes.length) {
    lines.push("", "Notes:", "");
    for (const [w, n] of notes) lines.push(`- ${w}: ${n}`);
  }
  if (torch?.results?.some((r) => r.tf32 != null)) {
    lines.push("", "PyTorch matmul with TF32 on (for reference, not compared):", "");
    for (const r of torch.results.filter((r) => r.tf32 != null)) lines.push(`- ${r.workload}: ${fmt(r.tf32)} TFLOP/s`);
  }
  writeFileSync(path.join(dir, "results.md"), lines.join("\n") + "\n");
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  writeReport(process.argv[2] ?? ".");
}
