// The transformer block workload's backward against PyTorch, at the bench's size (GPT-2 small's
// block, batch 8 × 1,024 tokens), on the device that times it. Figures, not a test.
//
//   node bench/block_check.mjs <dir> [--pkg pkg/dist/index.js] [--quick]
//   python3 bench/block_check.py <dir>
//
// This script writes the workload's seeded input and weights (<dir>/block_inputs.bin, float32
// in the order of <dir>/block_check.json) and webtorch's loss, output and every parameter's
// gradient at spread indices; block_check.py loads the same tensors into PyTorch's
// nn.TransformerEncoderLayer (float32, TF32 off), runs forward and backward and compares.

import { mkdirSync, writeFileSync, createWriteStream } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { workloads } from "./lib/workloads.mjs";
import { sampleIdx } from "./lib/timing.mjs";

const args = process.argv.slice(2);
const dir = args[0];
const quick = args.includes("--quick");
const pkg = args.includes("--pkg") ? args[args.indexOf("--pkg") + 1] : "pkg/dist/index.js";
const torch = await import(pathToFileURL(path.resolve(pkg)).href);
const { nn } = torch;
const w = workloads({ quick }).find((x) => x.kind === "block_step");
const { L, D, H, F } = w.dims;
mkdirSync(dir, { recursive: true });

const T = (inp) => torch.tensor(inp.data).reshape(inp.shape);
const model = new nn.TransformerEncoderLayer(D, H, { dim_feedforward: F, dropout: 0, activation: "gelu", batch_first: true, norm_first: true });
model.load_state_dict(Object.fromEntries(Object.entries(w.params).map(([k, v]) => [k, T(v)])));
model.train();
const X = T(w.inputs[0]);
const mask = torch.triu(torch.full([L, L], -Infinity), 1);
// The is_causal hint as the bench and block_check.py pass it: the causal attention node.
const out = model.call(X, { src_mask: mask, is_causal: true });
const loss = out.square().mean();
loss.backward();

const file = createWriteStream(path.join(dir, "block_inputs.bin"));
const order = [["input", w.inputs[0]], ...Object.entries(w.params)];
for (const [, v] of order) file.write(Buffer.from(Float32Array.from(v.data).buffer));
await new Promise((r) => file.end(r));

const outVals = await out.toArray();
const outIdx = sampleIdx(outVals.length, 512);
const grads = {};
for (const [name, p] of model.named_parameters()) {
  const g = await p.grad.toArray();
  const idx = sampleIdx(g.length, 512);
  grads[name] = { idx, got: idx.map((i) => g[i]) };
}
const report = {
  adapter: torch._C.adapter_info?.()?.name,
  dims: w.dims,
  order: order.map(([k, v]) => [k, v.shape]),
  loss: (await loss.toArray())[0],
  out: { idx: outIdx, got: outIdx.map((i) => outVals[i]) },
  grads,
};
writeFileSync(path.join(dir, "block_check.json"), JSON.stringify(report));
console.log(`webtorch: loss ${report.loss}; ${Object.keys(grads).length} gradients sampled into ${dir}`);
process.exit(0);
