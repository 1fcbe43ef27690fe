// In-place writes and autograd, as PyTorch does them: a write through a view rebases its base's
// history (CopySlices), so gradients reach the base's inputs and the written values' own; other
// views of the base take its new history; writes to a leaf that requires grad (or a view of one)
// are refused; a saved tensor written in place fails backward; and PyTorch's memory-overlap
// checks refuse writes whose result would depend on the kernel's order. Expected values are
// PyTorch's (tests/parity/inplace_views_gen.py).
import { describe, test, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { PKG_ENTRY } from "./harness.mjs";

const torch = await import(PKG_ENTRY.href);
const FIXTURE = JSON.parse(
  readFileSync(
    new URL("../parity/fixtures/inplace_views.json", import.meta.url),
  ),
).cases;
const W4 = [1, 2, 3, 4];
const f32 = (values, shape) => {
  const t = torch.tensor(values, { dtype: "float32" });
  return shape ? t.view(shape) : t;
};
const leaf = (values, shape) => f32(values, shape).requires_grad_();

// The programs of inplace_views_gen.py, by the same names; each returns what it compares.
const CASES = {
  slice_mul_() {
    const a = leaf(W4);
    const y = a.mul(1);
    y.index("0:2").mul_(5);
    y.mul(f32(W4)).sum().backward();
    return { y, "a.grad": a.grad };
  },
  copy_into_slice() {
    const [a, s] = [leaf(W4), leaf([7, 8])];
    const y = a.mul(1);
    y.index("1:3").copy_(s.mul(2));
    y.mul(f32(W4)).sum().backward();
    return { y, "a.grad": a.grad, "s.grad": s.grad };
  },
  copy_into_zeros() {
    const s = leaf([7, 8]);
    const y = torch.zeros(4);
    y.index("1:3").copy_(s);
    assert.equal(
      y.requires_grad,
      true,
      "the base requires grad after the write",
    );
    assert.equal(y.grad_fn.name, "CopySlices");
    y.mul(f32(W4)).sum().backward();
    return { y, "s.grad": s.grad };
  },
  transposed_row() {
    const a = leaf(W4, [2, 2]);
    const y = a.mul(1);
    y.t().select(0, 0).mul_(10);
    y.mul(f32(W4, [2, 2]))
      .sum()
      .backward();
    return { y, "a.grad": a.grad };
  },
  view_of_view() {
    const a = leaf(W4);
    const y = a.mul(1);
    const v = y.index("1:");
    v.index("1:").mul_(3);
    v.mul(f32([1, 2, 3]))
      .sum()
      .backward();
    return { y, "a.grad": a.grad };
  },
  reshaped_column() {
    const a = leaf(W4);
    const y = a.mul(1);
    y.view(2, 2).select(1, 0).mul_(2);
    y.mul(f32(W4)).sum().backward();
    return { y, "a.grad": a.grad };
  },
  narrow_times_input() {
    const a = leaf(W4);
    const y = a.mul(1);
    y.narrow(0, 1, 2).mul_(a.index("1:3"));
    y.mul(f32(W4)).sum().backward();
    return { y, "a.grad": a.grad };
  },
  rows_of_zeros() {
    const h = leaf([1, 2, 3]);
    const out = torch.zeros(3, 3);
    for (let t = 0; t < 3; t++) out.select(0, t).copy_(h.mul(t + 1));
    out.mul(torch.arange(9).view(3, 3)).sum().backward();
    return { out, "h.grad": h.grad };
  },
  sibling_view() {
    const a = leaf(W4);
    const y = a.mul(1);
    const [u, v] = [y.index("0:2"), y.index("1:3")];
    v.mul_(10);
    u.mul(f32([1, 2]))
      .sum()
      .backward();
    return { u, "a.grad": a.grad };
  },
  base_then_view() {
    const a = leaf(W4);
    const y = a.mul(1);
    const u = y.index("0:2");
    y.mul_(3);
    u.mul(f32([1, 2]))
      .sum()
      .backward();
    return { u, "a.grad": a.grad };
  },
  diagonal_add_() {
    const a = leaf([0, 1, 2, 3, 4, 5, 6, 7, 8], [3, 3]);
    const b = leaf([1, -1, 2]);
    const m = a.mul(2);
    m.diagonal().add_(b.exp());
    m.mul(torch.arange(9).view(3, 3)).sum().backward();
    return { m, "a.grad": a.grad, "b.grad": b.grad };
  },
  double_backward() {
    const a = leaf([0.5, -1, 2, 3]);
    const y = a.mul(a);
    y.index("0:2").mul_(a.index("0:2"));
    const [g] = torch.autograd.grad([y.sum()], [a], { create_graph: true });
    g.mul(f32(W4)).sum().backward();
    return { g, "a.grad": a.grad };
  },
  detached_transpose_base() {
    const d = f32([1, 2, 3, 4, 5, 6], [2, 3]).t().detach();
    assert.equal(d.is_contiguous(), false, "the base is not contiguous");
    const v = d.index("0:2, 1");
    const s = leaf([1, 2, 3, 4, 5, 6], [3, 2]);
    d.mul_(s);
    v.mul(f32([1, 2]))
      .sum()
      .backward();
    return { v, "s.grad": s.grad };
  },
  write_into_transposed_base() {
    const a = leaf([1, 2, 3, 4, 5, 6], [2, 3]);
    const d = f32([1, 2, 3, 4, 5, 6], [2, 3]).t().detach();
    const u = d.index(":, 1");
    const s = leaf([7, 8]);
    d.index(1).copy_(s.mul(3));
    d.mul_(a.t());
    const loss = d
      .mul(torch.arange(6, { dtype: "float32" }).view(3, 2))
      .sum()
      .add(u.mul(f32([1, 2, 3])).sum());
    loss.backward();
    return { d, u, "s.grad": s.grad, "a.grad": a.grad };
  },
};

const PARTIAL =
  "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.";
const INTERNAL =
  "unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.";
const raises = (f, message) =>
  assert.throws(
    f,
    (e) => e instanceof torch.TorchError && e.message === message,
  );

const devices = torch.webgpu.is_available() ? ["webgpu", "cpu"] : ["cpu"];
for (const device of devices) {
  describe(`[${device}] in-place writes and autograd`, () => {
    before(async () => {
      await torch.init({ device });
    });

    test("every program gives PyTorch's values and gradients", async () => {
      assert.deepEqual(Object.keys(CASES).sort(), Object.keys(FIXTURE).sort());
      for (const [name, program] of Object.entries(CASES)) {
        const got = program();
        for (const [key, want] of Object.entries(FIXTURE[name])) {
          assert.ok(got[key], `${name}: ${key} is missing`);
          const values = Array.from(await got[key].toArray()).map(Number);
          assert.equal(values.length, want.length, `${name}: ${key} size`);
          values.forEach((v, i) =>
            assert.ok(
              Math.abs(v - want[i]) <= 1e-5 * (1 + Math.abs(want[i])),
              `${name}: ${key}[${i}] = ${v}, PyTorch ${want[i]}`,
            ),
          );
        }
      }
    });

    test("writes that autograd cannot follow raise PyTorch's errors", () => {
      const x = leaf([1, 2]);
      raises(
        () => x.mul_(2),
        "a leaf Variable that requires grad is being used in an in-place operation.",
      );
      raises(
        () => x.index("0:1").mul_(2),
        "a view of a leaf Variable that requires grad is being used in an in-place operation.",
      );
      torch.no_grad(() => x.mul_(2)); // allowed without grad mode, as in PyTorch
      const made = torch.no_grad(() => x.mul(1).index("0:1"));
      assert.equal(made.requires_grad, false);
      const w = x.mul(1);
      const quiet = torch.no_grad(() => w.index("0:1"));
      raises(
        () => quiet.mul_(2),
        "A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the view and the inplace either both inside the no_grad block (if you don't want the inplace to be tracked) or both outside (if you want the inplace to be tracked).",
      );
      // A saved tensor written before backward.
      const y = x.mul(1);
      const z = y.mul(y);
      y.index("0:1").add_(1);
      assert.throws(
        () => z.sum().backward(),
        (e) =>
          e instanceof torch.TorchError &&
          /^one of the variables needed for gradient computation has been modified by an inplace operation: \[torch\.FloatTensor \[2\]\], which is output 0 of \w+, is at version 1; expected version 0 instead\./.test(
            e.message,
          ),
      );
    });

    test("pieces of split/chunk/unbind refuse in-place writes autograd would see", async () => {
      const MULTI =
        "This view is the output of a function that returns multiple views. Such functions do not allow the output views to be modified inplace. You should replace the inplace operation by an out-of-place one.";
      const VIEW = "is a view and is being modified inplace.";
      const y = () => leaf([1, 2, 3, 4, 5, 6, 7, 8], [4, 2]).mul(1);
      raises(
        () => y().split(2)[0].mul_(2),
        `Output 0 of Split ${VIEW} ${MULTI}`,
      );
      raises(
        () => y().split([1, 3])[1].mul_(2),
        `Output 1 of SplitWithSizes ${VIEW} ${MULTI}`,
      );
      raises(
        () => y().chunk(2)[1].mul_(2),
        `Output 1 of Split ${VIEW} ${MULTI}`,
      );
      raises(
        () => y().unbind()[3].add_(1),
        `Output 3 of Unbind ${VIEW} ${MULTI}`,
      );
      // A view of a piece is one too (PyTorch names the latest view there).
      assert.throws(
        () => y().split(2)[1].index(0).mul_(2),
        (e) => e instanceof torch.TorchError && e.message.endsWith(MULTI),
      );
      // A base that needs no grad, written with a value that does.
      raises(
        () =>
          torch
            .zeros(4, 2)
            .split(2)[0]
            .add_(leaf([1, 1, 1, 1], [2, 2])),
        `A view was created in no_grad mode and is being modified inplace with grad mode enabled. ${MULTI}`,
      );
      // Allowed as in PyTorch: no grad anywhere, grad mode off, and tensor_split's slices.
      const plain = torch.zeros(4, 2);
      plain.split(2)[1].add_(1);
      plain.unbind(1)[0].add_(2);
      assert.deepEqual(
        Array.from(await plain.toArray()),
        [2, 0, 2, 0, 3, 1, 3, 1],
      );
      const g = y();
      torch.no_grad(() => g.split(2)[0].mul_(2));
      const t = y();
      t.tensor_split(2)[1].mul_(2);
      t.sum().backward();
      assert.deepEqual(Array.from(await g.toArray()), [2, 4, 6, 8, 5, 6, 7, 8]);
    });

    test("memory overlap: PyTorch's refusals, and the writes it allows", async () => {
      const a = torch.arange(4, { dtype: "float32" });
      raises(() => a.index("1:").add_(a.index(":-1")), PARTIAL);
      const m = torch.arange(9, { dtype: "float32" }).view(3, 3);
      raises(() => m.copy_(m.t()), PARTIAL);
      const c = torch.arange(6, { dtype: "float32" });
      raises(() => c.index(":4").copy_(c.index("2:")), PARTIAL);
      raises(() => a.add_(a.view(1, 4)), PARTIAL);
      raises(() => torch.zeros(1).expand(3).add_(1), INTERNAL);
      raises(() => torch.zeros(1).expand(3).copy_(torch.arange(3)), INTERNAL);
      assert.deepEqual(
        Array.from(await a.toArray()),
        [0, 1, 2, 3],
        "nothing written",
      );
      // The same elements in the same order, disjoint ranges, and strided (unchecked) views.
      const b = torch.arange(3, { dtype: "float32" });
      b.mul_(b);
      assert.deepEqual(Array.from(await b.toArray()), [0, 1, 4]);
      b.copy_(b);
      assert.deepEqual(Array.from(await b.toArray()), [0, 1, 4]);
      c.index(":3").copy_(c.index("3:"));
      c.index("::2").add_(c.index("1::2"));
      assert.deepEqual(Array.from(await c.toArray()), [7, 4, 8, 3, 9, 5]);
      const e = torch.zeros(1).expand(3);
      e.fill_(2);
      assert.deepEqual(Array.from(await e.toArray()), [2, 2, 2]);
    });
  });
}
