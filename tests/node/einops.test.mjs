// einops beyond the PyTorch fixtures (tests/parity/cases/einops.py): a very long pattern, the
// errors einops raises outside its own class, and that rearrange/unpack return views. The pattern
// fuzz is in checks/fuzz_parsers.mjs (Node and Chromium, every device).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { PKG_ENTRY } from "./harness.mjs";

const torch = await import(PKG_ENTRY.href);
const { rearrange, repeat, pack, unpack } = torch.einops;

describe("einops", () => {
  test("a very long pattern parses in linear time", () => {
    const names = Array.from({ length: 2000 }, (_, i) => `a${i}`);
    const x = torch.ones([1]);
    const p = `(${names.join(" ")}) -> ${names.join(" ")}`;
    assert.throws(() => rearrange(x, p), torch.EinopsError); // 2000 unknowns in one group
    const out = rearrange(x, `(a0) -> ${"1 ".repeat(5000)}a0`);
    assert.equal(out.ndim, 5001);
  });

  test("errors einops raises outside EinopsError", () => {
    const x = torch.zeros(2, 3);
    assert.throws(() => rearrange(x, "a b"), {
      name: "EinopsError",
      message: /Pattern must contain exactly one '->' \(got 0\)/,
    });
    assert.throws(() => rearrange(x, "a -> b -> c"), torch.EinopsError);
    assert.throws(
      () => rearrange([], "a -> a"),
      (e) =>
        e instanceof torch.TorchError &&
        e.message ===
          "Rearrange/Reduce/Repeat can't be applied to an empty list",
    );
    assert.throws(() => rearrange(x, 7), torch.TorchError);
    assert.throws(
      () => rearrange(x, "a b -> b a", { a: 2.5 }),
      torch.TorchError,
    );
    assert.throws(() => rearrange("x", "a b -> b a"), torch.TorchError);
    assert.throws(() => pack([], "a *"), torch.TorchError);
    // Two unknowns in one group: einops prints the set in hash order, webtorch in pattern order.
    assert.throws(() => rearrange(torch.zeros(6), "(h w) -> h w"), {
      message: /Could not infer sizes for \{'h', 'w'\}$/,
    });
  });

  test("rearrange and unpack return views; repeat is differentiable", async () => {
    const x = torch.arange(24, { dtype: "float32" }).reshape(2, 3, 4);
    const t = rearrange(x, "b c h -> h b c");
    assert.equal(t.is_contiguous(), false, "a permuted view, not a copy");
    const [a, b] = unpack(x, [[1], [2]], "b * h");
    assert.deepEqual(
      [a.shape, b.shape],
      [
        [2, 1, 4],
        [2, 2, 4],
      ],
    );
    assert.equal(b.storage_offset(), 4, "a view into the packed tensor");
    const w = torch.ones([2, 3], { requires_grad: true });
    repeat(w, "a b -> a b k", { k: 4 }).sum().backward();
    assert.deepEqual(await w.grad.tolist(), [
      [4, 4, 4],
      [4, 4, 4],
    ]);
  });
});
