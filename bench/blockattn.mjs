// The transformer block step (bench workload block_step: fwd+bwd, causal attention) with the
// one-kernel attention on (`fused`: its backward by two kernels; `recompute`: by products
// recomputing the probabilities) and off (products and softmax, P held for the backward), alternated round by round in one process, with the peak
// GPU memory of a step. Figures for bench/KERNELS.md, never asserted.
// `--layers n`: a stack of n such layers instead (nn.TransformerEncoder, causal), where the
// unfused route holds every layer's probabilities from its forward until its backward.
// `--budget N`: also the recomputing backward in pieces of N MiB of scores (`bN`).
//   node bench/blockattn.mjs [--pkg pkg/dist/index.js] [--layers n] [--budget N] [--quick]
import path from "node:path";
import { pathToFileURL } from "node:url";
import { workloads } from "./lib/workloads.mjs";
import { webtorchLib } from "./lib/libs.mjs";
import { heldBatch, median } from "./lib/timing.mjs";

const args = process.argv.slice(2);
const opt = (k, d) => (args.includes(k) ? args[args.indexOf(k) + 1] : d);
const pkg = opt("--pkg", "pkg/dist/index.js");
const torch = await import(pathToFileURL(path.resolve(pkg)).href);
const core = await import(
  pathToFileURL(path.resolve(path.dirname(pkg), "wasm/webtorch_core.js")).href
);
const w = workloads({ quick: args.includes("--quick") }).find(
  (x) => x.kind === "block_step",
);
const layers = Number(opt("--layers", "0"));
const h = layers ? stack(layers) : webtorchLib(torch, core).prepare(w);

// n pre-norm causal layers of the block's sizes, loss mean(out²), gradients held to the wait.
function stack(n) {
  const { nn } = torch;
  const { B, L, D, H, F } = w.dims;
  const layer = new nn.TransformerEncoderLayer(D, H, {
    dim_feedforward: F,
    dropout: 0,
    activation: "gelu",
    batch_first: true,
    norm_first: true,
  });
  const model = new nn.TransformerEncoder(layer, n);
  const X = torch.randn([B, L, D]);
  return {
    step: () => {
      const loss = torch.scope(() => {
        model.zero_grad();
        const l = model
          .call(X, { is_causal: true, mask: null })
          .square()
          .mean();
        l.backward();
        return l.detach();
      });
      return [loss, ...model.parameters().map((p) => p.grad)];
    },
    wait: async (hs) => {
      await torch.webgpu.sync_device();
      for (const k of hs) for (const t of k) t?.dispose();
    },
  };
}
const batch = (n) =>
  heldBatch(
    n,
    () => h.step(),
    (hs) => h.wait(hs),
  );
const budget = Number(opt("--budget", "0"));
// [one-kernel forward, backward kernels, backward budget in bytes (0: the default)];
// `recompute`: the backward by products (the probabilities recomputed) instead of its kernels.
const variants = {
  fused: [true, true, 0],
  recompute: [true, false, 0],
  unfused: [false, false, 0],
  ...(budget ? { [`b${budget}`]: [true, false, budget * 2 ** 20] } : {}),
};
const set = ([on, kernels, bytes]) => {
  core.set_attention_fused(on);
  core.set_attention_backward_kernels_from(kernels ? 1 : 2 ** 64);
  core.set_attention_backward_budget(bytes);
};
const ts = Object.fromEntries(Object.keys(variants).map((v) => [v, []]));
const peak = {};
for (const [v, on] of Object.entries(variants)) {
  set(on);
  for (let i = 0; i < 3; i++) await batch(1);
  await torch.webgpu.sync_device();
  torch.webgpu.reset_peak_memory_stats();
  await batch(1);
  peak[v] = torch.webgpu.memory_stats().peak_bytes;
}
for (let r = 0; r < 7; r++)
  for (const [v, on] of Object.entries(variants)) {
    set(on);
    ts[v].push(await batch(4));
  }
set(variants.fused);
for (const v of Object.keys(variants))
  console.log(
    `${layers ? `${layers}-layer stack` : "block"} step attention ${v.padEnd(8)} ${median(ts[v]).toFixed(2)} ms/step (4 per wait; rounds ${ts[v].map((t) => t.toFixed(2)).join(" ")}), peak ${(peak[v] / 2 ** 20).toFixed(0)} MiB`,
  );
