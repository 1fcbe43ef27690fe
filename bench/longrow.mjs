// Wall time of reductions and row ops over one long row (10^7 float32 values by default): sum,
// mean, var, std, norm, logsumexp, layer_norm and softmax, each call's result read back. Figures
// for bench/KERNELS.md ("Long rows split across workgroups"), never asserted.
//
//   node bench/longrow.mjs [--n 10000000] [--reps 10] [--device webgpu] [--pkg pkg/dist/index.js]

import path from "node:path";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const opt = (name, dflt) =>
  args.includes(name) ? args[args.indexOf(name) + 1] : dflt;
const n = Number(opt("--n", 10_000_000));
const reps = Number(opt("--reps", 10));
const device = opt("--device", "webgpu");
const pkg = opt("--pkg", "pkg/dist/index.js");
const torch = await import(pathToFileURL(path.resolve(pkg)).href);
await torch.init({ device });
const F = torch.nn.functional;

torch.manual_seed(0);
const x = torch.randn([n]);
const row = x.reshape(1, n);
const cases = [
  ["sum", () => x.sum()],
  ["mean", () => x.mean()],
  ["var", () => x.var()],
  ["std", () => x.std()],
  ["norm", () => x.norm()],
  ["logsumexp", () => torch.logsumexp(x, 0)],
  ["var 4 rows", () => x.reshape(4, -1).var(1)],
  ["layer_norm", () => F.layer_norm(row, [n])],
  ["softmax", () => F.softmax(row, 1)],
];

console.log(`${device}, ${n} float32 values, median of ${reps}`);
for (const [name, f] of cases) {
  const once = async () => {
    const t0 = performance.now();
    const y = f();
    await y.reshape(-1).narrow(0, 0, 1).toArray();
    y.dispose();
    return performance.now() - t0;
  };
  await once(); // compiles the kernels
  const times = [];
  for (let i = 0; i < reps; i++) times.push(await once());
  times.sort((a, b) => a - b);
  console.log(`${name.padEnd(12)} ${times[times.length >> 1].toFixed(2)} ms`);
}
