// Draws <dir>/chart.png from <dir>/webgpu.json and torch.json: every library's speed relative to
// PyTorch CUDA per workload (log scale; 1 = PyTorch's speed, > 1 faster). Vega-Lite compiles the
// spec, Vega renders SVG, resvg rasterises it (no canvas or browser needed).
//   node bench/lib/chart.mjs <dir>
// bench-time only (devDependencies of bench/package.json): no test imports it.

import { readFileSync, writeFileSync, existsSync } from "node:fs";
import path from "node:path";
import * as vega from "vega";
import * as vl from "vega-lite";
import { Resvg } from "@resvg/resvg-js";

const dir = process.argv[2] ?? ".";
const load = (f) => (existsSync(path.join(dir, f)) ? JSON.parse(readFileSync(path.join(dir, f), "utf8")).results : []);
const rows = [...load("webgpu.json"), ...load("torch.json")].filter((r) => r.value != null);
const lowerIsBetter = (unit) => unit.startsWith("µs") || unit === "ms";
const libs = ["webtorch", "webtorch:compiled", "tfjs", "jax-js"];
const data = [];
for (const r of rows.filter((r) => libs.includes(r.lib))) {
  const t = rows.find((x) => x.lib === "pytorch" && x.workload === r.workload);
  if (!t) continue;
  const ratio = lowerIsBetter(r.unit) ? t.value / r.value : r.value / t.value;
  data.push({ workload: r.workload, lib: r.lib, ratio });
}
const lo = 10 ** Math.floor(Math.log10(Math.min(...data.map((d) => d.ratio))));
const hi = 10 ** Math.ceil(Math.log10(Math.max(...data.map((d) => d.ratio))));
const order = [...new Set(data.map((d) => d.workload))];
const spec = {
  $schema: "https://vega.github.io/schema/vega-lite/v5.json",
  title: { text: `Speed relative to PyTorch CUDA eager (fp32, TF32 off): ${path.basename(dir)}`, subtitle: "bars from 1 (= PyTorch): right is faster, left is slower; log scale" },
  width: 900,
  height: { step: 11 },
  background: "white",
  data: { values: data },
  mark: { type: "bar" },
  encoding: {
    y: { field: "workload", type: "nominal", sort: order, title: null, axis: { labelLimit: 320 } },
    yOffset: { field: "lib", sort: libs },
    // Bars grow from 1 (parity): right of it faster than PyTorch, left of it slower.
    x: { field: "ratio", type: "quantitative", scale: { type: "log", domain: [lo, hi] }, title: "speed ÷ PyTorch's" },
    x2: { datum: 1 },
    color: { field: "lib", type: "nominal", sort: libs, title: "library" },
  },
};
const view = new vega.View(vega.parse(vl.compile(spec).spec), { renderer: "none" });
await view.runAsync();
const svg = await view.toSVG();
const png = new Resvg(svg, { fitTo: { mode: "zoom", value: 1.5 }, font: { loadSystemFonts: true } }).render().asPng();
writeFileSync(path.join(dir, "chart.png"), png);
console.log(`wrote ${dir}/chart.png (${data.length} bars)`);
