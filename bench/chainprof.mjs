// A steady eager loop to run under `node --cpu-prof` (bench/KERNELS.md, "Host path"); summarise
// the profile with `node bench/lib/profsum.mjs <dir>`.
//   R=40 node --cpu-prof --cpu-prof-dir=prof bench/chainprof.mjs [adds|mlp] [--pkg pkg/dist/index.js]
import path from "node:path";
import { pathToFileURL } from "node:url";
import { workloads } from "./lib/workloads.mjs";
import { webtorchLib } from "./lib/libs.mjs";

const args = process.argv.slice(2);
const pkg = args.includes("--pkg") ? args[args.indexOf("--pkg") + 1] : "pkg/dist/index.js";
const what = args.find((a) => !a.startsWith("--") && a !== pkg) ?? "adds";
const torch = await import(pathToFileURL(path.resolve(pkg)).href);
const R = Number(process.env.R ?? 40);
if (what === "adds") {
  // 1,000 chained adds on 64 elements (one dispatch each), R times.
  const v = torch.randn([64]);
  for (let r = 0; r < R; r++) {
    let x = v;
    for (let i = 0; i < 1000; i++) {
      const y = x.add(0.001);
      if (x !== v) x.dispose();
      x = y;
    }
    await torch.webgpu.sync_device();
    x.dispose();
  }
} else {
  // bench/run.mjs's MLP Adam step, 10·R steps with a wait after each ten.
  const core = await import(pathToFileURL(path.resolve(path.dirname(pkg), "wasm/webtorch_core.js")).href);
  const w = workloads({ quick: false }).find((x) => x.kind === "mlp_step");
  const h = webtorchLib(torch, core).prepare(w);
  for (let r = 0; r < R; r++) {
    const outs = [];
    for (let i = 0; i < 10; i++) outs.push(h.step());
    await h.wait(outs);
  }
}
