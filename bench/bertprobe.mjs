// BERT encoders at inference (examples/models/bert.mjs, random weights of the named shapes) on
// padded batches: sentences of random lengths, a key-padding mask, no gradients. Attention runs
// as one kernel that reads the mask (`fused`) or as products, mask add and softmax (`unfused`),
// rounds alternated in one process. Figures for bench/KERNELS.md, never asserted.
//
//   node bench/bertprobe.mjs [--pkg pkg/dist/index.js] [--quick] [--batch 32] [--seq 128]
import path from "node:path";
import { pathToFileURL } from "node:url";
import { bertModules } from "../examples/models/bert.mjs";
import { heldBatch, median, warmGpu } from "./lib/timing.mjs";

const args = process.argv.slice(2);
const opt = (k, d) => (args.includes(k) ? args[args.indexOf(k) + 1] : d);
const quick = args.includes("--quick");
const pkg = opt("--pkg", "pkg/dist/index.js");
const torch = await import(pathToFileURL(path.resolve(pkg)).href);
const core = await import(
  pathToFileURL(path.resolve(path.dirname(pkg), "wasm/webtorch_core.js")).href
);
const B = Number(opt("--batch", quick ? "2" : "32"));
const T = Number(opt("--seq", quick ? "16" : "128"));
const base = {
  vocab_size: 30522,
  max_position_embeddings: 512,
  type_vocab_size: 2,
  layer_norm_eps: 1e-12,
  hidden_act: "gelu",
  hidden_dropout_prob: 0.1,
  attention_probs_dropout_prob: 0.1,
};
// all-MiniLM-L6-v2's shape (heads of 32: the one-row kernel) and BERT-base's (64: tiled).
const configs = {
  "MiniLM-L6 (384, 12×32)": {
    hidden_size: 384,
    num_attention_heads: 12,
    num_hidden_layers: quick ? 1 : 6,
    intermediate_size: 1536,
  },
  "BERT-base (768, 12×64)": {
    hidden_size: 768,
    num_attention_heads: 12,
    num_hidden_layers: quick ? 1 : 12,
    intermediate_size: 3072,
  },
};
await warmGpu(torch, quick ? 200 : 2000, quick);
const { BertModel } = bertModules(torch);
torch.manual_seed(0);
const ids = torch.randint(1000, 30000, [B, T]);
// Lengths from T/4 to T: each row's tail is padding.
const lens = Array.from(
  { length: B },
  (_, i) => T - Math.floor((((3 * T) / 4) * ((i * 7919) % B)) / B),
);
const mask = torch
  .arange(T)
  .view(1, T)
  .lt(torch.tensor(lens).view(B, 1))
  .to("int64");
for (const [name, c] of Object.entries(configs)) {
  const model = new BertModel({ ...base, ...c }).eval();
  // Every intermediate freed at the scope's end (only the output is kept).
  const run = () =>
    torch.scope(() => torch.no_grad(() => model.call(ids, mask, null)[0]));
  const set = (v) => core.set_attention_fused(v === "fused");
  // Both routes agree before they are timed.
  const out = {};
  for (const v of ["fused", "unfused"]) {
    set(v);
    const y = run();
    out[v] = await y.toArray();
    y.dispose();
  }
  let err = 0;
  for (let i = 0; i < out.fused.length; i += 31)
    err = Math.max(err, Math.abs(out.fused[i] - out.unfused[i]));
  if (!(err <= 1e-3)) throw new Error(`${name}: fused vs unfused ${err}`);
  const batch = (n) =>
    heldBatch(
      n,
      run,
      () => torch.webgpu.sync_device(),
      (hs) => hs.forEach((h) => h.dispose()),
    );
  const ts = { fused: [], unfused: [] };
  const peak = {};
  for (const v of ["fused", "unfused"]) {
    set(v);
    await batch(2);
    await torch.webgpu.sync_device();
    torch.webgpu.reset_peak_memory_stats();
    await batch(1);
    peak[v] = torch.webgpu.memory_stats().peak_bytes;
  }
  for (let r = 0; r < (quick ? 2 : 7); r++)
    for (const v of ["fused", "unfused"]) {
      set(v);
      ts[v].push(await batch(4));
    }
  console.log(
    `${name} batch ${B}×${T}: ` +
      ["fused", "unfused"]
        .map(
          (v) =>
            `${v} ${median(ts[v]).toFixed(2)} ms (${((B * 1000) / median(ts[v])).toFixed(0)} sentences/s, peak ${(peak[v] / 2 ** 20).toFixed(0)} MiB)`,
        )
        .join("  "),
  );
  set("fused");
  for (const p of model.parameters()) p.dispose();
}
