// What the last torch.* functions' schema entries (issue #30) let a call say as in PyTorch, beyond
// the error wording (checks/badinput_cases.mjs, SCHEMA_REST): set_printoptions' positional form,
// torch.compile's decorator form (no model) and its PyTorch options, torch.save's refusal of a
// value that is not a tensor.
import test from "node:test";
import assert from "node:assert/strict";
import { PKG_ENTRY } from "./harness.mjs";

const torch = await import(PKG_ENTRY.href);
await torch.init({ device: "cpu" });

test("set_printoptions takes PyTorch's options by position, as set_printoptions(2) does", () => {
  const saved = torch.get_printoptions();
  try {
    torch.set_printoptions(2, 5);
    const o = torch.get_printoptions();
    assert.equal(o.precision, 2);
    assert.equal(o.threshold, 5);
    assert.equal(o.edgeitems, saved.edgeitems);
  } finally {
    torch.set_printoptions(saved);
  }
});

test("compile() without a model is PyTorch's decorator form: a function that compiles its argument", async () => {
  const decorate = torch.compile(undefined, { fullgraph: true, warmup: 1 });
  assert.equal(typeof decorate, "function");
  const f = decorate((x) => x.mul(2).add(1));
  const x = torch.tensor([1, 2, 3], { dtype: "float32" });
  for (let i = 0; i < 3; i++) assert.deepEqual(await f(x).tolist(), [3, 5, 7]);
  assert.ok(
    f.stats.traces + f.stats.replays > 0,
    "the decorated function traces",
  );
});

test("compile(model, { disable: true }) runs the model eagerly; backend 'inductor' is the default compiler", async () => {
  const x = torch.tensor([1, 2], { dtype: "float32" });
  const off = torch.compile((t) => t.neg(), { disable: true });
  await off(x).tolist();
  assert.equal(off.stats.eager, 1);
  assert.equal(off.stats.traces, 0);
  const on = torch.compile((t) => t.neg(), { backend: "inductor", warmup: 1 });
  for (let i = 0; i < 3; i++) assert.deepEqual(await on(x).tolist(), [-1, -2]);
  assert.equal(on.stats.eager, 0, on.stats.reasons.join("; "));
  // PyTorch's hints are taken (those webtorch cannot honour warn once: compile.test.mjs); mode
  // and options only one at a time, as PyTorch takes them.
  torch.compile((t) => t, { dynamic: true, mode: "max-autotune" });
  torch.compile((t) => t, { dynamic: false, options: {} });
});
