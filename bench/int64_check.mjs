// The cost of int64's range check (src/tensor/int64.rs): int64 add and mul (checked) beside the
// same ops on int32 (wrapping, unchecked) and float32, eager, each result read back. Figures for
// bench/KERNELS.md, never asserted.
//
//   node bench/int64_check.mjs [--pkg pkg/dist/index.js] [--out file.json]

import { writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const opt = (name, fallback) =>
  args.includes(name) ? args[args.indexOf(name) + 1] : fallback;
const torch = await import(
  pathToFileURL(path.resolve(opt("--pkg", "pkg/dist/index.js"))).href
);
await torch.init({ device: "webgpu" });
const rows = [];
for (const n of [4096, 1 << 20, 1 << 24]) {
  for (const dtype of ["float32", "int32", "int64"]) {
    const a = torch.arange(n, { dtype }).remainder(1000);
    const b = torch.arange(n, { dtype }).remainder(7);
    for (const op of ["add", "mul"]) {
      const once = async () => {
        const y = a[op](b);
        await torch.webgpu.sync_device();
        y.dispose();
      };
      for (let i = 0; i < 3; i++) await once();
      const reps = n >= 1 << 24 ? 20 : 100;
      const t0 = performance.now();
      for (let i = 0; i < reps; i++) await once();
      const us = ((performance.now() - t0) / reps) * 1000;
      rows.push({ n, dtype, op, us: +us.toFixed(1) });
      console.log(`${op} ${dtype} n=${n}: ${us.toFixed(1)} µs`);
    }
    a.dispose();
    b.dispose();
  }
}
const out = opt("--out", null);
if (out) writeFileSync(out, JSON.stringify(rows, null, 1) + "\n");
