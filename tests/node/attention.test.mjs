// Attention in one kernel on WebGPU (Dawn): F.scaled_dot_product_attention and
// MultiheadAttention without a mask run one dispatch for the forward (the register-tiled kernel
// where E is a multiple of 16 and Ev is 64 or 128, else one query row per invocation) and agree
// with the CPU's products and softmax, forward and backward (which recomputes the probabilities
// from the forward's row log-sum-exps).
import test from "node:test";
import assert from "node:assert/strict";
import { PKG_ENTRY } from "./harness.mjs";

const torch = await import(PKG_ENTRY.href);
const F = torch.nn.functional;
const w = torch.webgpu;

async function close(a, b, tol, what) {
  const [x, y] = [await a.toArray(), await b.toArray()];
  assert.deepEqual(a.shape, b.shape, `${what}: shape`);
  for (let i = 0; i < x.length; i++)
    assert.ok(
      Math.abs(x[i] - y[i]) <= tol * (1 + Math.abs(y[i])),
      `${what}[${i}]: ${x[i]} vs ${y[i]}`,
    );
}

/** Dispatches `f` records (after what is pending ran). */
async function dispatches(f) {
  await w.sync_device();
  const d0 = w.runtime_stats().dispatches;
  const r = f();
  await w.sync_device();
  return [r, w.runtime_stats().dispatches - d0];
}

/** A CPU copy of a (64, 4, batch_first) MultiheadAttention. */
async function onCpu(mha) {
  const cpu = new torch.nn.MultiheadAttention(64, 4, {
    batch_first: true,
    device: "cpu",
  });
  const sd = {};
  for (const [name, t] of Object.entries(mha.state_dict()))
    sd[name] = await t.to_async("cpu");
  cpu.load_state_dict(sd);
  return cpu;
}

// [B, H, L, S, E, Ev, causal]
const cases = [
  [2, 3, 70, 70, 64, 64, true],
  [1, 2, 33, 90, 32, 128, false],
  [2, 2, 40, 24, 16, 8, false],
  [1, 4, 65, 65, 8, 8, true],
];

for (const [B, H, L, S, E, Ev, causal] of cases) {
  test(`SDPA ${B}×${H}×${L}×${S}, E ${E}, Ev ${Ev}${causal ? ", causal" : ""}: one kernel, the CPU's values and gradients`, async () => {
    await torch.init({ device: "webgpu" });
    torch.manual_seed(B * 100 + L);
    // Queries as a head-split projection: (B, L, H, E) viewed as (B, H, L, E).
    const q = torch.randn([B, L, H, E]).transpose(1, 2);
    const k = torch.randn([B, H, S, E]);
    const v = torch.randn([B, H, S, Ev]);
    const opts = { is_causal: causal };
    const [y, n] = await dispatches(() =>
      F.scaled_dot_product_attention(q, k, v, opts),
    );
    assert.equal(n, 1, "the forward is one dispatch");
    const [qc, kc, vc] = await Promise.all(
      [q, k, v].map((t) => t.to_async("cpu")),
    );
    const want = F.scaled_dot_product_attention(qc, kc, vc, opts);
    await close(y, want, 1e-4, "output");
    // Gradients: the forward is the same kernel, the backward recomputes P.
    const g = torch.randn([B, H, L, Ev]);
    const grads = (inputs, gy) => {
      const [a, b, c] = inputs.map((t) => t.detach().requires_grad_());
      F.scaled_dot_product_attention(a, b, c, opts).mul(gy).sum().backward();
      return [a.grad, b.grad, c.grad];
    };
    const gw = grads([q, k, v], g);
    const gc = grads([qc, kc, vc], await g.to_async("cpu"));
    for (let i = 0; i < 3; i++)
      await close(gw[i], gc[i], 2e-4, `grad ${"qkv"[i]}`);
  });
}

test("MultiheadAttention without a mask takes the kernel, as the CPU computes it", async () => {
  await torch.init({ device: "webgpu" });
  torch.manual_seed(5);
  const mha = new torch.nn.MultiheadAttention(64, 4, { batch_first: true });
  const x = torch.randn([2, 30, 64]);
  const [out] = mha.call(x, x, x, { need_weights: false });
  const cpu = await onCpu(mha);
  const xc = await x.to_async("cpu");
  const [want] = cpu.call(xc, xc, xc, { need_weights: false });
  await close(out, want, 1e-4, "MultiheadAttention");
});

test("SDPA with a float mask is one kernel; a bool mask and MultiheadAttention's padding mask match the CPU", async () => {
  await torch.init({ device: "webgpu" });
  torch.manual_seed(11);
  const [B, H, L, S, E] = [2, 2, 40, 50, 64];
  const q = torch.randn([B, H, L, E]);
  const k = torch.randn([B, H, S, E]);
  const v = torch.randn([B, H, S, E]);
  const fm = torch.randn([L, S]);
  const [y, n] = await dispatches(() =>
    F.scaled_dot_product_attention(q, k, v, { attn_mask: fm }),
  );
  assert.equal(n, 1, "the forward is one dispatch");
  const [qc, kc, vc, fmc] = await Promise.all(
    [q, k, v, fm].map((t) => t.to_async("cpu")),
  );
  await close(
    y,
    F.scaled_dot_product_attention(qc, kc, vc, { attn_mask: fmc }),
    1e-4,
    "float mask",
  );
  // A bool mask (true: may attend) hiding each batch's last keys, with gradients.
  const allow = torch
    .arange(S)
    .lt(torch.tensor([[45], [30]]))
    .reshape([B, 1, 1, S]);
  const allowc = await allow.to_async("cpu");
  const g = torch.randn([B, H, L, E]);
  const gc = await g.to_async("cpu");
  const run = (inputs, mask, gy) => {
    const [a, b, c] = inputs.map((t) => t.detach().requires_grad_());
    const out = F.scaled_dot_product_attention(a, b, c, { attn_mask: mask });
    out.mul(gy).sum().backward();
    return [out, a.grad, b.grad, c.grad];
  };
  const gw = run([q, k, v], allow, g);
  const gcpu = run([qc, kc, vc], allowc, gc);
  for (let i = 0; i < 4; i++)
    await close(gw[i], gcpu[i], 2e-4, ["out", "dq", "dk", "dv"][i]);
  // MultiheadAttention with a key padding mask (true: padding) takes the same node.
  const mha = new torch.nn.MultiheadAttention(64, 4, { batch_first: true });
  const x = torch.randn([2, 30, 64]);
  const kpm = torch.arange(30).ge(torch.tensor([[30], [21]]));
  const [out] = mha.call(x, x, x, {
    key_padding_mask: kpm,
    need_weights: false,
  });
  const cpu = await onCpu(mha);
  const [xc, kpmc] = await Promise.all([x, kpm].map((t) => t.to_async("cpu")));
  const [want] = cpu.call(xc, xc, xc, {
    key_padding_mask: kpmc,
    need_weights: false,
  });
  await close(out, want, 1e-4, "MultiheadAttention with padding");
});

test("SDPA enable_gqa: shared key/value heads read in place, as repeat_interleave computes them", async () => {
  await torch.init({ device: "webgpu" });
  torch.manual_seed(17);
  // Every tensor made before the memory check below lives in a scope, so none is left for
  // the garbage collector to free while that check measures.
  await torch.scope(async () => {
    // (heads 6 over 2 or 3 key/value heads; a causal one; E 64 tiled, E 16 one-row)
    for (const [B, Hq, Hkv, L, S, E, causal] of [
      [2, 6, 2, 40, 40, 64, true],
      [1, 6, 3, 30, 50, 16, false],
    ]) {
      const q = torch.randn([B, Hq, L, E]);
      const k = torch.randn([B, Hkv, S, E]);
      const v = torch.randn([B, Hkv, S, E]);
      const g = torch.randn([B, Hq, L, E]);
      const opts = { is_causal: causal, enable_gqa: true };
      const [y, n] = await dispatches(() =>
        F.scaled_dot_product_attention(q, k, v, opts),
      );
      assert.equal(n, 1, "one dispatch: no repeated copies of key and value");
      const grads = (inputs, gy, o) => {
        const [a, b, c] = inputs.map((t) => t.detach().requires_grad_());
        const out = F.scaled_dot_product_attention(a, b, c, o);
        out.mul(gy).sum().backward();
        return [out, a.grad, b.grad, c.grad];
      };
      const got = grads([q, k, v], g, opts);
      await close(got[0], y, 1e-6, "forward with gradients");
      // The CPU's products on key and value repeated (PyTorch's definition).
      const [qc, kc, vc, gc] = await Promise.all(
        [q, k, v, g].map((t) => t.to_async("cpu")),
      );
      const rep = (t) => t.repeat_interleave(Hq / Hkv, -3);
      const [a, b, c] = [qc, kc, vc].map((t) => t.detach().requires_grad_());
      const want = F.scaled_dot_product_attention(a, rep(b), rep(c), {
        is_causal: causal,
      });
      want.mul(gc).sum().backward();
      await close(y, want, 1e-4, "output");
      for (const [i, t] of [a.grad, b.grad, c.grad].entries())
        await close(got[i + 1], t, 2e-4, `grad ${"qkv"[i]}`);
    }
  });
  // A key-padding mask broadcast over the heads; different key and value head counts.
  const { q, k, m } = await torch.scope(async () => {
    const q = torch.randn([2, 4, 10, 16]);
    const k = torch.randn([2, 2, 12, 16]);
    const v = torch.randn([2, 1, 12, 8]);
    const m = torch
      .arange(12)
      .lt(torch.tensor([[9], [12]]))
      .view(2, 1, 1, 12);
    const y = F.scaled_dot_product_attention(q, k, v, {
      attn_mask: m,
      enable_gqa: true,
    });
    const want = F.scaled_dot_product_attention(
      q,
      k.repeat_interleave(2, -3),
      v.repeat_interleave(4, -3),
      { attn_mask: m },
    );
    await close(y, want, 1e-5, "mask, key and value head counts apart");
    return { q, k, m };
  });
  // Nothing of a grouped call outlives its result (its views and inner result are scoped).
  await w.sync_device();
  const base = w.memory_stats().active_bytes;
  for (const o of [{}, { attn_mask: m }])
    F.scaled_dot_product_attention(q, k, k, {
      ...o,
      enable_gqa: true,
    }).dispose();
  await w.sync_device();
  assert.equal(w.memory_stats().active_bytes, base, "active bytes after");
  assert.throws(
    () =>
      F.scaled_dot_product_attention(q, torch.randn([2, 3, 12, 16]), k, {
        enable_gqa: true,
      }),
    (e) =>
      e instanceof torch.TorchError &&
      e.message ===
        "Number of heads in key and value must divide the number of heads in query",
  );
});

test("SDPA's backward kernels (forced from 1 byte of scores): grouped heads, a bool mask, the CPU's gradients, nothing left", async () => {
  await torch.init({ device: "webgpu" });
  const core = await import(new URL("wasm/webtorch_core.js", PKG_ENTRY).href);
  core.set_attention_backward_kernels_from(1);
  try {
    torch.manual_seed(23);
    // [B, Hq, Hkv, L, S, E, Ev, causal, masked]
    for (const [B, Hq, Hkv, L, S, E, Ev, causal, masked] of [
      [2, 6, 2, 70, 70, 64, 64, true, false],
      [2, 2, 2, 50, 90, 64, 128, false, true],
    ]) {
      const q = torch.randn([B, Hq, L, E]);
      const k = torch.randn([B, Hkv, S, E]);
      const v = torch.randn([B, Hkv, S, Ev]);
      const g = torch.randn([B, Hq, L, Ev]);
      const m = masked
        ? torch
            .arange(S)
            .lt(torch.tensor([[S - 20], [S]]))
            .view(B, 1, 1, S)
        : null;
      const opts = { is_causal: causal, attn_mask: m, enable_gqa: Hq !== Hkv };
      const grads = (inputs, gy, mask) => {
        const [a, b, c] = inputs.map((t) => t.detach().requires_grad_());
        F.scaled_dot_product_attention(a, b, c, { ...opts, attn_mask: mask })
          .mul(gy)
          .sum()
          .backward();
        return [a, b, c];
      };
      const got = grads([q, k, v], g, m);
      const cpu = await Promise.all(
        [q, k, v, g, ...(m ? [m] : [])].map((t) => t.to_async("cpu")),
      );
      const want = grads(cpu.slice(0, 3), cpu[3], m ? cpu[4] : null);
      for (let i = 0; i < 3; i++)
        await close(
          got[i].grad,
          want[i].grad,
          2e-4,
          `${B}×${Hq}×${L}×${S} grad ${"qkv"[i]}`,
        );
      for (const t of [q, k, v, g, m, ...got]) t?.dispose();
    }
    // The kernels ran: their backward is fewer dispatches than the products' (5 products and
    // their epilogues), and leaves nothing behind.
    const backward = async (from) => {
      core.set_attention_backward_kernels_from(from);
      await w.sync_device();
      const base = w.memory_stats().active_bytes;
      const [a, b, c] = [0, 1, 2].map(() =>
        torch.randn([1, 2, 64, 64]).requires_grad_(),
      );
      // The attention's output is freed with the scope, not left to the garbage collector
      // (whose timing made `after` exceed `base` under load).
      const y = torch.scope(() =>
        F.scaled_dot_product_attention(a, b, c, { is_causal: true }).sum(),
      );
      const [, n] = await dispatches(() => y.backward());
      for (const t of [a, b, c, y]) t.dispose();
      await w.sync_device();
      // At most `base`: the garbage collector may free earlier tests' tensors meanwhile.
      const after = w.memory_stats().active_bytes;
      assert.ok(
        after <= base,
        `the backward's buffers are freed: ${after} B, ${base} before`,
      );
      return n;
    };
    const [kernels, products] = [await backward(1), await backward(2 ** 64)];
    assert.ok(
      kernels < products,
      `${kernels} dispatches with the kernels, ${products} with products`,
    );
  } finally {
    core.set_attention_backward_kernels_from(0);
  }
});
