// einops beyond the PyTorch fixtures (tests/parity/cases/einops.py): the parser fuzzed with
// mutated patterns (each must give a result or a TorchError, never another error or a hang),
// the errors einops raises outside its own class, and that rearrange/unpack return views.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { PKG_ENTRY } from "./harness.mjs";

const torch = await import(PKG_ENTRY.href);
const { rearrange, reduce, repeat, pack, unpack } = torch.einops;

/** A small seeded generator (mulberry32), so a failing pattern can be replayed by its number. */
function rng(seed) {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    below: (n) => Math.floor(next() * n),
    pick: (a) => a[Math.floor(next() * a.length)],
  };
}

const FUZZ_CASES = 600;
// Valid calls to start from: [op, pattern, shape, lengths].
const SEEDS = [
  ["rearrange", "b c h w -> b (h w) c", [2, 3, 2, 2]],
  ["rearrange", "b (h w) -> b h w", [2, 6], { h: 2 }],
  ["rearrange", "... c -> c ...", [2, 3]],
  ["rearrange", "a 1 b -> b () a", [2, 1, 3]],
  ["sum", "b c (h 2) -> b h", [1, 2, 4]],
  ["max", "b ... -> b", [2, 3, 2]],
  ["repeat", "h w -> (h 2) w k", [2, 3], { k: 2 }],
  ["pack", "b * c", [2, 3, 2]],
  ["unpack", "b * c", [2, 3, 2]],
];
const TOKENS = [
  "a",
  "b",
  "h",
  "w",
  "k",
  "_",
  "x_",
  "1",
  "2",
  "0",
  "12",
  " ",
  "(",
  ")",
  "()",
  "->",
  "-",
  ">",
  ".",
  "...",
  "\u2026",
  "*",
  ",",
  "$",
  "é",
  "\u0000",
];
const CALL = {
  rearrange: (x, p, l) => rearrange(x, p, l),
  sum: (x, p, l) => reduce(x, p, "sum", l),
  max: (x, p, l) => reduce(x, p, "max", l),
  repeat: (x, p, l) => repeat(x, p, l),
  pack: (x, p) => pack([x, x], p)[0],
  unpack: (x, p) => unpack(x, [[1], [-1]], p)[0],
};

/** A valid call with 0–3 random edits of its pattern's characters, rank or lengths. */
function mutant(r) {
  const [op, good, goodShape, goodLengths] = r.pick(SEEDS);
  let pattern = good;
  for (let k = r.below(4); k > 0; k--) {
    const at = r.below(pattern.length + 1);
    const edit = r.below(3); // 0: insert, 1: replace one char, 2: delete one char
    pattern =
      pattern.slice(0, at) +
      (edit === 2 ? "" : r.pick(TOKENS)) +
      pattern.slice(at + (edit > 0 ? 1 : 0));
  }
  const shape =
    r.below(4) === 0
      ? goodShape.slice(0, r.below(goodShape.length + 1))
      : goodShape;
  const lengths =
    r.below(4) === 0
      ? { [r.pick(["a", "h", "q", "_"])]: r.below(4) }
      : goodLengths;
  return [op, pattern, shape, lengths];
}

describe("einops", () => {
  test(`fuzz: ${FUZZ_CASES} mutated patterns give a result or a TorchError`, async () => {
    const problems = [];
    let accepted = 0;
    for (let i = 0; i < FUZZ_CASES; i++) {
      const [op, pattern, shape, lengths] = mutant(rng(50_000 + i));
      const x = torch.ones(shape);
      try {
        const out = CALL[op](x, pattern, lengths);
        const values = await out.toArray();
        if (values.length !== out.numel())
          problems.push(
            `#${i} ${JSON.stringify(pattern)}: ${values.length} values for ${out.numel()}`,
          );
        accepted++;
      } catch (e) {
        if (!(e instanceof torch.TorchError))
          problems.push(
            `#${i} ${op} ${JSON.stringify(pattern)} on [${shape}]: ${e?.name}: ${e?.message}`,
          );
      } finally {
        x.dispose();
      }
    }
    assert.deepEqual(problems.slice(0, 20), []);
    // Both outcomes must be common, or the generator tests nothing.
    assert.ok(
      accepted > 60 && accepted < FUZZ_CASES - 60,
      `${accepted} of ${FUZZ_CASES} mutated calls were valid`,
    );
  });

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
