// GPT-2 124M (seeded PyTorch init, `make bench-gpt2` writes it) on webtorch: checks the last
// logits of the prompt against PyTorch (≤ 1e-3 relative) and the greedy tokens against
// `model.generate`, then times generation (figures, never asserted).
//
//   node bench/gpt2.mjs [--devices cpu,webgpu] [--tokens 32] [--random] [--out bench/results/<dir>]
//                       [--pkg pkg/dist/index.js] [--unfused-attention]
//
// tokens/s counts the new tokens of one greedy run (KV cache, one token a step, each step read
// back before the next, as an app streaming text would), excluding the prompt's forward pass,
// which is reported apart with the load time.
import { readFileSync, mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { GPT2, gpt2Modules } from "../examples/models/gpt2.mjs";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
// --pkg: another build of the package (an A/B of two builds on one machine start).
const torch = await import(
  arg("pkg")
    ? pathToFileURL(path.resolve(arg("pkg"))).href
    : new URL("../pkg/dist/index.js", import.meta.url)
);
// --unfused-attention: attention by products and softmax instead of one kernel (an A/B in one build).
if (process.argv.includes("--unfused-attention")) {
  const core = await import(
    new URL(
      "wasm/webtorch_core.js",
      arg("pkg")
        ? pathToFileURL(path.resolve(arg("pkg")))
        : new URL("../pkg/dist/index.js", import.meta.url),
    )
  );
  core.set_attention_fused(false);
}
const DIR = new URL("../models/gpt2-124m-random/", import.meta.url);
// --random: webtorch's own random init of the same architecture (no PyTorch parity; for machines
// that the 500 MB checkpoint cannot be carried to). Timing does not depend on the weights' values.
const RANDOM = process.argv.includes("--random");
const CONFIG_124M = {
  vocab_size: 50257,
  n_positions: 1024,
  n_embd: 768,
  n_layer: 12,
  n_head: 12,
  layer_norm_epsilon: 1e-5,
  activation_function: "gelu_new",
};
const REF = RANDOM
  ? {
      prompt: Array.from({ length: 16 }, (_, i) => (i * 7919) % 50257),
      generated: Array(32).fill(null),
    }
  : JSON.parse(readFileSync(new URL("reference.json", DIR)));
const tokens = Number(arg("tokens", REF.generated.length));
const devices = arg(
  "devices",
  torch.webgpu.is_available() ? "cpu,webgpu" : "cpu",
).split(",");

async function load() {
  if (!RANDOM) return GPT2.from_pretrained(torch, DIR);
  torch.manual_seed(0);
  const { GPT2LMHeadModel } = gpt2Modules(torch);
  return new GPT2(torch, new GPT2LMHeadModel(CONFIG_124M));
}

const results = [];
for (const device of devices) {
  const name = await torch.init({ device });
  let t0 = performance.now();
  const model = await load();
  const loadS = (performance.now() - t0) / 1000;

  t0 = performance.now();
  const logits = model.logits(REF.prompt);
  const last = await logits.select(1, -1).toArray();
  logits.dispose();
  const promptS = (performance.now() - t0) / 1000;
  let num = 0;
  let den = 0;
  REF.logits?.[0].forEach((x, i) => {
    num = Math.max(num, Math.abs(last[i] - x));
    den = Math.max(den, Math.abs(x));
  });

  const stamps = [];
  t0 = performance.now();
  const out = await model.generate(REF.prompt, {
    max_new_tokens: tokens,
    onToken: () => stamps.push(performance.now()),
  });
  // The first token comes from the prompt's pass; the rest are cached single-token steps.
  const decodeS = (stamps.at(-1) - stamps[0]) / 1000;
  const same = out.every((t, i) => t === REF.generated[i]);
  model.dispose();
  const r = {
    device: name,
    adapter: device === "webgpu" ? torch._C.adapter_info()?.name : "wasm",
    load_s: +loadS.toFixed(2),
    prompt_tokens: REF.prompt.length,
    prompt_s: +promptS.toFixed(3),
    new_tokens: tokens,
    tokens_per_s: +((tokens - 1) / decodeS).toFixed(2),
    logits_rel_error: RANDOM ? null : num / den,
    greedy_matches_pytorch: RANDOM ? null : same,
    weights: RANDOM ? "webtorch random init" : "PyTorch seeded init",
  };
  results.push(r);
  console.log(JSON.stringify(r));
}

const out = arg("out");
if (out) {
  mkdirSync(out, { recursive: true });
  const machine = `${os.cpus()[0]?.model} × ${os.cpus().length}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, load ${os.loadavg()[0].toFixed(1)}, Node ${process.versions.node}`;
  writeFileSync(
    new URL("gpt2-124m.json", new URL(`${out}/`, `file://${process.cwd()}/`)),
    JSON.stringify(
      { machine, date: new Date().toISOString(), results },
      null,
      1,
    ) + "\n",
  );
}
