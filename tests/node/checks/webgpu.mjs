// Checks of the torch.webgpu namespace beyond sync/stats: batching switches and batch(fn), fusion
// (one kernel per elementwise chain, its knobs and statistics), memory and capabilities.
// Part of the shared API checks: see ./index.mjs.
import { eq, ok, throws, tensorIs, show } from "./assert.mjs";

/** Runs `fn` and returns how many dispatches and submits it caused on the default device. */
async function counted(torch, fn) {
  const before = torch.webgpu.runtime_stats();
  const result = await fn();
  const after = torch.webgpu.runtime_stats();
  return {
    result,
    dispatches: after.dispatches - before.dispatches,
    submits: after.submits - before.submits,
  };
}

/** A 24-step matmul+relu chain on ready inputs, read once. */
async function matmulChain(torch) {
  const w0 = torch.rand(16, 16).div(8);
  let h = torch.rand(4, 16);
  await Promise.all([w0.toArray(), h.toArray()]);
  return counted(torch, () => {
    for (let i = 0; i < 24; i++) h = h.matmul(w0).relu();
    return h.toArray();
  });
}

/** @type {import("./index.mjs").Check[]} */
export const checks = [
  {
    name: "torch.webgpu: disable/enable_batching and batch(fn)",
    async run(torch, { device }) {
      const w = torch.webgpu;
      ok(w.is_batching_enabled(), "batching is on by default");
      w.disable_batching();
      ok(!w.is_batching_enabled(), "disable_batching()");
      try {
        if (device === "webgpu") {
          const { submits, dispatches } = await matmulChain(torch);
          ok(
            submits >= 24,
            `without batching each dispatch is submitted: ${submits} submits, ${dispatches} dispatches`,
          );
        }
      } finally {
        w.enable_batching();
      }
      ok(w.is_batching_enabled(), "enable_batching()");
      eq(
        w.batch(() => 42),
        42,
        "batch(fn) returns fn's value",
      );
      throws(
        () => w.batch(() => torch.ones(2).matmul(torch.ones(3))),
        torch.TorchError,
        "",
        "errors propagate out of batch()",
      );
      await tensorIs(
        torch.ones(2).add(1),
        { values: [2, 2] },
        "ops work after a failed batch",
      );
      eq(
        await w.batch(async () => 7),
        7,
        "batch(async fn) resolves fn's value",
      );
      throws(
        () => w.set_batch_threshold(0),
        torch.TorchError,
        "positive integer",
        "threshold 0",
      );
      if (device !== "webgpu") return;
      // A low threshold submits every 4 dispatches, except inside batch().
      w.set_batch_threshold(4);
      try {
        const loose = await matmulChain(torch);
        ok(
          loose.submits >= 6,
          `threshold 4: 24+ dispatches take 6+ submits, got ${loose.submits}`,
        );
        const held = await counted(torch, () =>
          w.batch(() => matmulChain(torch)),
        );
        ok(
          held.submits <= 3,
          `inside batch(): at most a few submits, got ${held.submits} for ${held.dispatches} dispatches`,
        );
      } finally {
        w.set_batch_threshold(64);
      }
    },
  },
  {
    name: "torch.webgpu: an elementwise chain is one fused kernel; fusion knobs and statistics",
    async run(torch, { device }) {
      const w = torch.webgpu;
      ok(w.is_fusion_enabled(), "fusion is on by default");
      const names = w.get_fusion_patterns().map((p) => p.name);
      for (const n of ["add_relu", "scale_shift", "squared_diff"])
        ok(names.includes(n), `built-in pattern ${n}: ${names}`);
      w.add_fusion_pattern({
        ops: ["mul", "tanh"],
        name: "mul_tanh",
        description: "scaled tanh",
      });
      const mine = w.get_fusion_patterns().find((p) => p.name === "mul_tanh");
      eq(mine?.ops, ["mul", "tanh"], "add_fusion_pattern() is listed");
      throws(
        () => w.add_fusion_pattern({ ops: ["frobnicate"], name: "bad" }),
        torch.TorchError,
        "frobnicate",
        "unknown op in a pattern",
      );
      if (device !== "webgpu") return;
      const x = torch.arange(4096, { dtype: "float32" }).div(4096);
      await x.toArray();
      const expected = Array.from(await x.toArray(), (v) =>
        Math.fround(Math.fround(Math.max(Math.fround(v + 1), 0) * 2) + 3),
      );
      w.reset_fusion_stats();
      // Written the way JS code is written: the intermediates are never disposed.
      const fused = await counted(torch, () =>
        x.add(1).relu().mul(2).add(3).toArray(),
      );
      eq(fused.result, expected, "fused chain values");
      const stats = w.get_fusion_stats();
      eq(
        fused.dispatches,
        1,
        `x.add(1).relu().mul(2).add(3) is one kernel (fusion stats: ${show(stats)})`,
      );
      eq([stats.fusions, stats.fused_ops], [1, 4], "one fusion of four ops");
      ok(
        !(stats.patterns instanceof Map) &&
          stats.patterns.add_relu === 1 &&
          stats.patterns.scale_shift === 1,
        `pattern counts as a plain object: ${show(stats.patterns)}`,
      );
      w.disable_fusion();
      try {
        const unfused = await counted(torch, () =>
          x.add(1).relu().mul(2).add(3).toArray(),
        );
        eq(unfused.result, expected, "unfused chain values (bit for bit)");
        eq(unfused.dispatches, 4, "without fusion each op is a kernel");
      } finally {
        w.enable_fusion();
      }
      w.set_fusion_min_size(1 << 20);
      try {
        w.reset_fusion_stats();
        await x.add(1).relu().toArray();
        ok(
          w.get_fusion_stats().bypasses >= 1,
          `below the minimum size ops bypass the fuser: ${show(w.get_fusion_stats())}`,
        );
      } finally {
        w.set_fusion_min_size(1024);
      }
    },
  },
  {
    name: "torch.webgpu: memory_stats, memory_summary, empty_cache, getCapabilities",
    async run(torch, { device }) {
      const w = torch.webgpu;
      const m = w.memory_stats();
      for (const k of [
        "active_bytes",
        "pooled_bytes",
        "peak_bytes",
        "allocations",
        "reuses",
      ]) {
        ok(
          typeof m[k] === "number" && m[k] >= 0,
          `memory_stats().${k}: ${show(m)}`,
        );
      }
      ok(
        /active: .* MiB/.test(w.memory_summary()),
        `memory_summary(): ${w.memory_summary()}`,
      );
      if (device === "webgpu") {
        const caps = w.getCapabilities();
        ok(
          caps !== null && Array.isArray(caps.features),
          "getCapabilities() on WebGPU",
        );
        ok(
          typeof caps.limits.maxBufferSize === "number" &&
            caps.limits.maxBufferSize > 0,
          `getCapabilities().limits.maxBufferSize: ${show(caps.limits)}`,
        );
        await w.sync_device();
        const base = w.memory_stats().active_bytes;
        const t = torch.zeros(1 << 16);
        await t.toArray();
        // Not `>= base + 256 KiB`: the garbage collector may free an earlier check's tensors
        // while `toArray` awaits, lowering the figure by more than `t` adds (a flake seen in
        // CI). That `t` was counted shows in the drop when it is disposed, below.
        const held = w.memory_stats().active_bytes;
        ok(held >= 4 * (1 << 16), `a 256 KiB tensor is active (${held} bytes)`);
        t.dispose();
        await w.sync_device();
        // Not `=== base`: the FinalizationRegistry backstop may free an earlier check's garbage
        // tensor in between (GC timing), which only lowers the figure.
        const after = w.memory_stats().active_bytes;
        ok(
          after <= base && held - after >= 4 * (1 << 16),
          `active bytes return to the baseline after dispose (base ${base}, held ${held}, after ${after})`,
        );
        ok(
          w.memory_stats().pooled_bytes > 0,
          "the pool keeps the freed buffer",
        );
      }
      w.empty_cache();
      eq(w.memory_stats().pooled_bytes, 0, "empty_cache() empties the pool");
    },
  },
  {
    name: "torch.webgpu: a repeated training step gets the same pooled buffers, so it makes no new bind groups",
    async run(torch, { device }) {
      if (device !== "webgpu") return;
      const w = torch.webgpu;
      const layer = new torch.nn.TransformerEncoderLayer(32, 2, {
        dim_feedforward: 64,
        dropout: 0,
        batch_first: true,
        norm_first: true,
      });
      const x = torch.randn([2, 16, 32]);
      const made = [];
      for (let s = 0; s < 8; s++) {
        const b0 = w.runtime_stats().bind_groups;
        const loss = torch.scope(() => {
          layer.zero_grad();
          const l = layer.call(x).square().mean();
          l.backward();
          return l.detach();
        });
        await loss.toArray();
        loss.dispose();
        made.push(w.runtime_stats().bind_groups - b0);
      }
      // The pool hands out its lowest free buffer of a size, so the same requests get the same
      // buffers each step (a last-in-first-out pool permuted them: 50-100 new bind groups a
      // step). A tensor the GC frees meanwhile can change one step's buffers, hence "most".
      ok(
        made[0] > 0 && made.slice(2).filter((n) => n === 0).length >= 4,
        `bind groups made per step: ${made}`,
      );
      for (const p of layer.parameters()) p.dispose();
      x.dispose();
    },
  },
];
