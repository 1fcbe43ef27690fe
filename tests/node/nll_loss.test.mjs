// F.cross_entropy / F.nll_loss with class-index targets on WebGPU (Dawn): the fused nll_loss
// kernels keep an MLP step's loss at a handful of dispatches (the one-hot composition took ~9
// forward and ~8 backward), with the composition's loss and gradient.
import test from "node:test";
import assert from "node:assert/strict";
import { PKG_ENTRY } from "./harness.mjs";

const torch = await import(PKG_ENTRY.href);
const F = torch.nn.functional;
const w = torch.webgpu;

function close(a, b, tol, what) {
  assert.equal(a.length, b.length, what);
  for (let i = 0; i < a.length; i++)
    assert.ok(
      Math.abs(a[i] - b[i]) <= tol,
      `${what}[${i}]: ${a[i]} vs ${b[i]}`,
    );
}

/** The loss and the gradient of `loss(x)` for a fresh leaf holding `logits`' values. */
async function lossAndGrad(logits, loss) {
  const x = logits.detach().clone().requires_grad_();
  const l = loss(x);
  l.backward();
  return [await l.toArray(), await x.grad.toArray()];
}

/** The one-hot composition `nll_loss` replaced: -Σ w[t]·logp[i, t] / Σ w[t] (`mean`). */
function composite(x, t, weight) {
  const C = x.shape[1];
  const logp = F.log_softmax(x, 1);
  const classes = torch.arange(C, { device: x.device }).reshape([1, C]);
  let select = t.reshape([-1, 1]).eq(classes).to("float32");
  if (weight) select = select.mul(weight.reshape([1, C]));
  return logp.mul(select).sum().neg().div(select.sum());
}

test("cross_entropy on (1000, 10) logits: 3 kernels forward, 3 backward", async () => {
  await torch.init({ device: "webgpu" });
  torch.manual_seed(7);
  const logits = torch.randn([1000, 10], { device: "webgpu" });
  const t = torch.randint(0, 10, [1000], {
    device: "webgpu",
    dtype: "int64",
  });
  const x = logits.detach().clone().requires_grad_();
  await w.sync_device();
  const d0 = w.runtime_stats().dispatches;
  const loss = F.cross_entropy(x, t);
  await w.sync_device();
  const d1 = w.runtime_stats().dispatches;
  loss.backward();
  await w.sync_device();
  const d2 = w.runtime_stats().dispatches;
  // log_softmax, the target check, nll_loss (the composition: 10).
  assert.ok(d1 - d0 <= 3, `cross_entropy forward: ${d1 - d0} kernels`);
  // The ones that seed backward(), nll_loss backward, log_softmax backward (the composition: 12).
  assert.ok(d2 - d1 <= 3, `cross_entropy backward: ${d2 - d1} kernels`);
  const [want, wantGrad] = await lossAndGrad(logits, (y) => composite(y, t));
  close(await loss.toArray(), want, 1e-6, "loss");
  close(await x.grad.toArray(), wantGrad, 1e-6, "grad");
});

test("nll_loss with a class weight and ignored rows equals the composition", async () => {
  await torch.init({ device: "webgpu" });
  torch.manual_seed(8);
  const logits = torch.randn([37, 6], { device: "webgpu" });
  const raw = Array.from({ length: 37 }, (_, i) =>
    i % 5 === 0 ? -100 : i % 6,
  );
  const t = torch.tensor(raw, { device: "webgpu", dtype: "int64" });
  const valid = torch.tensor(
    raw.map((v) => Math.max(v, 0)),
    { device: "webgpu", dtype: "int64" },
  );
  const weight = torch.tensor([0.5, 1, 2, 0.25, 3, 1.5], { device: "webgpu" });
  const [got, gotGrad] = await lossAndGrad(logits, (y) =>
    F.cross_entropy(y, t, { weight }),
  );
  // Ignored rows: a zero weight per row, so select them out of the composition's weight.
  const keep = t.ne(-100).to("float32");
  const [want, wantGrad] = await lossAndGrad(logits, (y) => {
    const C = 6;
    const logp = F.log_softmax(y, 1);
    const classes = torch.arange(C, { device: "webgpu" }).reshape([1, C]);
    const select = valid
      .reshape([-1, 1])
      .eq(classes)
      .to("float32")
      .mul(weight.reshape([1, C]))
      .mul(keep.reshape([-1, 1]));
    return logp.mul(select).sum().neg().div(select.sum());
  });
  close(got, want, 1e-6, "loss");
  close(gotGrad, wantGrad, 1e-6, "grad");
  const none = F.nll_loss(F.log_softmax(logits, 1), t, { reduction: "none" });
  assert.deepEqual(none.shape, [37]);
  const vals = await none.toArray();
  for (let i = 0; i < 37; i += 5) assert.equal(vals[i], 0, `ignored row ${i}`);
});

test("nll_loss's gradient is differentiable in the loss gradient (create_graph)", async () => {
  await torch.init({ device: "webgpu" });
  torch.manual_seed(3);
  const tv = [0, 3, -100, 1, 2, 2];
  const wv = [1, 2, 0.5, 3];
  const x = torch.randn([6, 4]).requires_grad_();
  const t = torch.tensor(tv, { dtype: "int64" });
  const weight = torch.tensor(wv);
  const v = torch.randn([6]).requires_grad_();
  const loss = F.nll_loss(x, t, { reduction: "none", weight });
  const [g] = torch.autograd.grad(loss, x, {
    grad_outputs: v,
    create_graph: true,
  });
  const c = torch.randn([6, 4]);
  g.mul(c).sum().backward();
  // d/dv Σ c·g = -w[t_i]·c[i, t_i], 0 for the ignored row.
  const cv = await c.toArray();
  const want = tv.map((k, i) => (k < 0 ? 0 : -wv[k] * cv[i * 4 + k]));
  close(await v.grad.toArray(), want, 1e-6, "v.grad");
});

test("a Byte (uint8) target gives the int64 target's loss and gradient; out of range it raises PyTorch's IndexError", async () => {
  const logits = torch.randn([6, 5]);
  const classes = [4, 0, 3, 3, 1, 2];
  const [l64, g64] = await lossAndGrad(logits, (x) =>
    F.cross_entropy(x, torch.tensor(classes)),
  );
  const [l8, g8] = await lossAndGrad(logits, (x) =>
    F.cross_entropy(x, torch.tensor(classes, { dtype: "uint8" })),
  );
  close(l8, l64, 0, "loss");
  close(g8, g64, 0, "grad");
  const bad = torch.tensor([0, 200, 1, 2, 3, 4], { dtype: "uint8" });
  await assert.rejects(
    async () => F.nll_loss(logits, bad).toArray(),
    (e) =>
      e instanceof torch.IndexError &&
      e.message === "Target 200 is out of bounds.",
  );
});
