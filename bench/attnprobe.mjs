// Attention without gradients (inference): the one-kernel route (`src/ops/attention/forward.rs`)
// against the products and softmax (`unfused`), with its tile rule (`fused`: the register-tiled
// kernel where the head dims allow) and the one-row-per-invocation kernel's tiles forced
// (`r128c8`: 128 query rows per workgroup, 8-key chunks), rounds alternated so that the host's two speeds
// and the GPU's clocks fall on every variant alike. FLOPs: 4·B·H·L·S·E (causal: half).
// Also the peak GPU memory one call holds. Figures for bench/KERNELS.md, never asserted.
//
//   node bench/attnprobe.mjs [--out dir] [--pkg pkg/dist/index.js] [--quick] [--variants a,b]
//     [--mask] [--train] [--gqa G]
//
// --train: a training step instead (forward, then backward from a random output gradient; all
// three gradients), FLOPs 3.5× the forward's (the backward's five products against the forward's
// two); `fused` runs the backward's two kernels (`attention_backward.wgsl`), `recompute` the
// products recomputing the probabilities at the default budget, `bN` those in pieces of N MiB of
// scores (`set_attention_backward_budget`).

import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { heldBatch, median, warmGpu } from "./lib/timing.mjs";

const args = process.argv.slice(2);
const opt = (k, d) => (args.includes(k) ? args[args.indexOf(k) + 1] : d);
const quick = args.includes("--quick");
const pkg = opt("--pkg", "pkg/dist/index.js");
const outDir = opt("--out", null);
const torch = await import(pathToFileURL(path.resolve(pkg)).href);
const core = await import(
  pathToFileURL(path.resolve(path.dirname(pkg), "wasm/webtorch_core.js")).href
);
const variants = opt(
  "--variants",
  args.includes("--train") ? "unfused,recompute,fused" : "unfused,fused,r128c8",
).split(",");
// [B, H, L, S, E, causal] (B = 0: 3-D inputs [H, L, E]): the bench's attention row (as run.mjs
// passes it, and as 4-D), GPT-2's causal block at batch 8, long
// causal sequences (at 8,192 the unfused scores need 3.2 GB: past the binding limit), and a
// 128-wide head.
// --mask: BERT-like rows instead: no causality, a float key-padding mask (B, 1, 1, S) hiding
// each sequence's last eighth (the causal flag of a shape is ignored).
const masked = args.includes("--mask");
const shapes = quick
  ? [[1, 2, 80, 80, 64, false]]
  : masked
    ? [
        [32, 12, 128, 128, 64, false],
        [8, 12, 512, 512, 64, false],
        [1, 12, 1024, 1024, 64, false],
      ]
    : [
        [0, 12, 1024, 1024, 64, false],
        [1, 12, 1024, 1024, 64, false],
        [8, 12, 1024, 1024, 64, true],
        [1, 12, 4096, 4096, 64, true],
        [1, 12, 8192, 8192, 64, true],
        [1, 32, 2048, 2048, 128, true],
      ];
const train = args.includes("--train");
// --gqa G: key and value with H/G heads (`enable_gqa`); variant `repeat` repeats them to H
// heads first (`repeat_interleave`, PyTorch's definition) where `fused` reads them in place.
const gqa = Number(opt("--gqa", "1"));
let current = "";
const set = (v) => {
  current = v;
  core.set_attention_fused(v !== "unfused");
  const b = /^b(\d+)$/.exec(v);
  core.set_attention_backward_budget(b ? +b[1] * 2 ** 20 : 0);
  // The backward's kernels from 1 byte of scores (always) or never (2⁶⁴).
  core.set_attention_backward_kernels_from(
    v === "recompute" || b ? 2 ** 64 : 1,
  );
  // Heads wider than 64 take the kernel only past the binding limit unless forced.
  core.set_attention_wide(v !== "unfused");
  const t = /^r(\d+)c(\d+)$/.exec(v);
  core.set_attention_tile(t ? +t[1] : 0, t ? +t[2] : 0);
};
await warmGpu(torch, quick ? 200 : 2000, quick);
const rows = [];
for (const [B, H, L, S, E, causal] of shapes) {
  const dims = (n) => (B ? [B, H, n, E] : [H, n, E]);
  const q = torch.randn(dims(L));
  const kv = (n) => {
    const d = dims(n);
    d[d.length - 3] /= gqa;
    return d;
  };
  const k = torch.randn(kv(S));
  const v = torch.randn(kv(S));
  const pad = masked
    ? torch
        .where(torch.arange(S).ge((S * 7) / 8), -Infinity, 0)
        .reshape([1, 1, 1, S])
        .expand(Math.max(B, 1), 1, 1, S)
        .contiguous()
    : null;
  const rep = (t) =>
    gqa > 1 && current === "repeat" ? t.repeat_interleave(gqa, -3) : t;
  const sdpa = (a, b, c) =>
    torch.nn.functional.scaled_dot_product_attention(a, rep(b), rep(c), {
      is_causal: causal,
      enable_gqa: gqa > 1,
      ...(pad ? { attn_mask: pad } : {}),
    });
  const g = train ? torch.randn(dims(L)) : null;
  // Training: the three gradients (the query's first, for the check).
  const f = train
    ? () =>
        torch.scope(() => {
          const [a, b, c] = [q, k, v].map((t) => t.detach().requires_grad_());
          sdpa(a, b, c).backward(g);
          return [a.grad, b.grad, c.grad];
        })
    : () => torch.scope(() => sdpa(q, k, v));
  const first = (y) => (Array.isArray(y) ? y[0] : y);
  const drop = (y) => (Array.isArray(y) ? y : [y]).forEach((t) => t.dispose());
  const flop =
    ((train ? 3.5 : 1) * (4 * Math.max(B, 1) * H * L * S * E)) /
    (causal ? 2 : 1);
  let want = null;
  const runnable = [];
  const peak = {};
  for (const vr of variants) {
    set(vr);
    let got;
    try {
      await torch.webgpu.sync_device();
      torch.webgpu.reset_peak_memory_stats?.();
      const y = f();
      got = await first(y).toArray();
      peak[vr] = torch.webgpu.memory_stats?.().peak_bytes;
      drop(y);
    } catch (e) {
      console.log(`  ${vr}: ${String(e.message ?? e).slice(0, 120)}`);
      continue;
    }
    runnable.push(vr);
    want ??= got;
    let err = 0;
    for (let i = 0; i < got.length; i += 97)
      err = Math.max(err, Math.abs(got[i] - want[i]));
    if (!(err <= (train ? 1e-2 : 1e-3)))
      throw new Error(`${vr}: max error ${err}`);
  }
  const batch = (n) =>
    heldBatch(
      n,
      f,
      () => torch.webgpu.sync_device(),
      (hs) => hs.forEach(drop),
    );
  let n = 1;
  set(runnable[0]);
  while ((await batch(n)) * n < 20 && n < 32) n *= 2;
  const ts = Object.fromEntries(runnable.map((vr) => [vr, []]));
  for (let r = 0; r < (quick ? 2 : 7); r++)
    for (const vr of runnable) {
      set(vr);
      ts[vr].push(await batch(n));
    }
  const name = `${B ? `${B}×` : ""}${H}×${L}×${S}×${E}${causal ? " causal" : ""}${pad ? " padding mask" : ""}${train ? " train" : ""}${gqa > 1 ? ` gqa ${gqa}` : ""}`;
  const row = {
    name,
    dims: { B, H, L, S, E, causal },
    ms: {},
    tflops: {},
    peak_bytes: peak,
  };
  for (const vr of runnable) {
    row.ms[vr] = median(ts[vr]);
    row.tflops[vr] = flop / (row.ms[vr] * 1e-3) / 1e12;
  }
  rows.push(row);
  console.log(
    `${name.padEnd(28)} ` +
      runnable
        .map(
          (vr) =>
            `${vr} ${row.tflops[vr].toFixed(2)} (${((peak[vr] ?? 0) / 2 ** 20).toFixed(0)} MiB)`,
        )
        .join("  ") +
      "  TFLOP/s (peak memory)",
  );
  for (const t of [q, k, v, g]) t?.dispose();
}
set("fused");
if (outDir) {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(
    path.join(
      outDir,
      `attnprobe${masked ? "-mask" : ""}${train ? "-train" : ""}.json`,
    ),
    JSON.stringify({ rows }, null, 1),
  );
}
