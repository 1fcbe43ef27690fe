// einops patterns parsed by the type checker (each `assert`/`expectType` is one assertion;
// tests/types/einops_bad.ts holds the calls that must not compile).
import * as torch from "webtorch";
import type {
  PackShape,
  RearrangeShape,
  ReduceShape,
  RepeatShape,
  ShapeMismatch,
  Tensor,
} from "webtorch";
import { type Equal, assert, expectType } from "./expect.js";

const { rearrange, reduce, repeat, pack, unpack } = torch.einops;
type F32<S extends number[]> = Tensor<S, "float32">;

const img = torch.randn(8, 3, 32, 32);
const seq = torch.randn(4, 16, 64);
const n: number = 5;
const dyn = torch.zeros(n, 6);
const any: Tensor = torch.zeros(2, 3);

// ---- rearrange ----
expectType<F32<[8, 1024, 3]>>()(rearrange(img, "b c h w -> b (h w) c"));
expectType<F32<[32, 32, 8, 3]>>()(rearrange(img, "b c h w -> h w b c"));
expectType<F32<[8, 3, 32, 32]>>()(rearrange(img, "b c h w -> b c h w"));
expectType<F32<[24576]>>()(rearrange(img, "b c h w -> (b c h w)"));
expectType<F32<[4, 16, 8, 8]>>()(
  rearrange(seq, "b t (h d) -> b t h d", { h: 8 }),
);
expectType<F32<[4, 8, 16, 8]>>()(
  rearrange(seq, "b t (h d) -> b h t d", { d: 8 }),
);
expectType<F32<[8, 16, 16, 12]>>()(
  rearrange(img, "b c (h p1) (w p2) -> b h w (p1 p2 c)", { p1: 2, p2: 2 }),
);
expectType<F32<[4, 1, 16, 64]>>()(rearrange(seq, "b t c -> b 1 t c"));
expectType<F32<[4, 1, 16, 64]>>()(rearrange(seq, "b t c -> b () t c"));
expectType<F32<[64, 4, 16]>>()(rearrange(seq, "... c -> c ..."));
expectType<F32<[4, 64, 16]>>()(rearrange(seq, "b ... c -> b c ..."));
expectType<F32<[4, 1024]>>()(rearrange(seq, "b ... -> b (...)"));
expectType<F32<[8, 3, 1024]>>()(rearrange(img, "... h w -> ... (h w)"));
expectType<F32<[3, 2]>>()(rearrange(torch.zeros(2, 3), "  h   w->w h "));
expectType<Tensor<[3, 2], "int64">>()(
  rearrange(
    torch.tensor([
      [1, 2, 3],
      [4, 5, 6],
    ]),
    "a b -> b a",
  ),
);
// unknown sizes stay `number`; unknown ranks give one `number` per output group
expectType<F32<[6, number]>>()(rearrange(dyn, "a b -> b a"));
expectType<F32<[number, 2, 3]>>()(rearrange(dyn, "a (b c) -> a b c", { b: 2 }));
expectType<Tensor<[number, number]>>()(rearrange(any, "a b -> b a"));
expectType<Tensor<number[]>>()(rearrange(any, "a ... -> ... a"));
const pattern: string = "a b -> b a";
expectType<F32<number[]>>()(rearrange(img, pattern));
// a list of tensors is stacked first (untyped)
expectType<Tensor>()(rearrange([img, img], "n b c h w -> (n b) c h w"));

// ---- reduce ----
expectType<F32<[8, 3]>>()(reduce(img, "b c h w -> b c", "mean"));
expectType<F32<[8, 3, 16, 16]>>()(
  reduce(img, "b c (h 2) (w 2) -> b c h w", "max"),
);
expectType<F32<[8, 3, 1, 1]>>()(reduce(img, "b c h w -> b c 1 1", "mean"));
expectType<F32<[4]>>()(reduce(seq, "b ... -> b", "sum"));
expectType<F32<[16, 4]>>()(reduce(seq, "b t c -> t b", "min"));
expectType<F32<[]>>()(reduce(seq, "b t c -> ", "prod"));
expectType<Tensor<[4, 16]>>()(
  reduce(seq, "b t c -> b t", (t, dims) => t.sum(dims)),
);
expectType<F32<[4, 2]>>()(reduce(seq, "b (t k) c -> b k", "sum", { k: 2 }));

// ---- repeat ----
expectType<F32<[4, 16, 64, 3]>>()(repeat(seq, "b t c -> b t c r", { r: 3 }));
expectType<F32<[8, 16]>>()(repeat(torch.zeros(4, 8), "h w -> (h 2) (w 2)"));
expectType<F32<[12, 8]>>()(
  repeat(torch.zeros(4, 8), "h w -> (r h) w", { r: 3 }),
);
expectType<F32<[2, 4, 8]>>()(
  repeat(torch.zeros(4, 8), "h w -> b h w", { b: 2 }),
);
expectType<F32<[4, 8, 5]>>()(repeat(torch.zeros(4, 8), "h w -> h w 5"));
expectType<F32<[number, 6, 2]>>()(repeat(dyn, "a b -> a b k", { k: 2 }));

// ---- pack / unpack ----
const [packed, ps] = pack([seq, torch.randn(4, 64)], "b * c");
expectType<F32<[4, 17, 64]>>()(packed);
expectType<[[16], []]>()(ps);
const [back0, back1] = unpack(packed, ps, "b * c");
expectType<F32<[4, 16, 64]>>()(back0);
expectType<F32<[4, 64]>>()(back1);
expectType<[F32<[4, 2, 8, 64]>, F32<[4, 1, 64]>]>()(
  unpack(packed, [[2, 8], [1]], "b * c"),
);
expectType<[F32<[4, number, 64]>, F32<[4, 64]>]>()(
  unpack(packed, [[-1], []], "b * c"),
);
expectType<[F32<[17, 3]>]>()(unpack(torch.zeros(17, 3), [[17]], "* c"));
expectType<[Tensor<[2, 5, 3], "int64">, Tensor<[2, 1, 3], "int64">]>()(
  unpack(torch.zeros(2, 6, 3, { dtype: "int64" }), [[5], [1]], "b * c"),
);
expectType<Tensor<number[], "float32">[]>()(
  unpack(packed, ps as number[][], "b * c"),
);
expectType<[[3, 5], [], [7]]>()(
  pack(
    [torch.zeros(2, 3, 5, 4), torch.zeros(2, 4), torch.zeros(2, 7, 4)],
    "b * c",
  )[1],
);
expectType<number[][]>()(pack(list0(), "b * c")[1]);
expectType<F32<[2, 3, 71, 5]>>()(
  pack(
    [torch.zeros(2, 3, 5), torch.zeros(2, 3, 7, 5), torch.zeros(2, 3, 7, 9, 5)],
    "i j * k",
  )[0],
);
expectType<F32<[2, 8]>>()(
  pack([torch.zeros(2, 3), torch.zeros(2, 5)], "b *")[0],
);
const list: Tensor[] = [seq];
function list0(): Tensor[] {
  return list;
}
expectType<Tensor<number[]>>()(pack(list, "b * c")[0]);
assert<
  Equal<
    PackShape<"a * b", [[2, 3], [2]]>,
    ShapeMismatch<"pack: packed tensor #1 (enumeration starts with 0) has shape [2], while pattern a * b assumes at least 2 axes">
  >
>();

// ---- the rules as types, with einops' messages ----
assert<Equal<RearrangeShape<"a b -> (a b)", [2, 3], {}>, [6]>>();
assert<Equal<ReduceShape<"a b c -> c", [2, 3, 4], {}>, [4]>>();
assert<Equal<RepeatShape<"a -> a b", [2], { b: 7 }>, [2, 7]>>();
assert<
  Equal<
    RearrangeShape<"b c h -> b c", [2, 3, 4], {}>,
    ShapeMismatch<`rearrange: Identifiers only on one side of expression (should be on both): h (pattern "b c h -> b c", input shape [2, 3, 4])`>
  >
>();
assert<
  Equal<
    RearrangeShape<"b c h w -> b (h w) c", [2, 3, 4], {}>,
    ShapeMismatch<`rearrange: Wrong shape: expected 4 dims. Received 3-dim tensor. (pattern "b c h w -> b (h w) c", input shape [2, 3, 4])`>
  >
>();
assert<
  Equal<
    RearrangeShape<"(h w) c -> h w c", [6, 3], { h: 4 }>,
    ShapeMismatch<`rearrange: Shape mismatch, can't divide axis of length 6 in chunks of 4 (pattern "(h w) c -> h w c", input shape [6, 3])`>
  >
>();
assert<
  Equal<
    RearrangeShape<"h c -> c h", [6, 3], { h: 4 }>,
    ShapeMismatch<`rearrange: Shape mismatch, 6 != 4 (pattern "h c -> c h", input shape [6, 3])`>
  >
>();
assert<
  Equal<
    RearrangeShape<"a b c ... -> ... a b c", [2, 3], {}>,
    ShapeMismatch<`rearrange: Wrong shape: expected >=3 dims. Received 2-dim tensor. (pattern "a b c ... -> ... a b c", input shape [2, 3])`>
  >
>();
assert<
  Equal<
    ReduceShape<"a b -> a z", [2, 3], {}>,
    ShapeMismatch<`reduce: Unexpected identifiers on the right side of reduce: z (pattern "a b -> a z", input shape [2, 3])`>
  >
>();
assert<
  Equal<
    RepeatShape<"a b -> a b c", [2, 3], {}>,
    ShapeMismatch<`repeat: Specify sizes for new axes in repeat: c (pattern "a b -> a b c", input shape [2, 3])`>
  >
>();
assert<
  Equal<
    RepeatShape<"a b -> a", [2, 3], {}>,
    ShapeMismatch<`repeat: Unexpected identifiers on the left side of repeat: b (pattern "a b -> a", input shape [2, 3])`>
  >
>();

// ---- result dtypes of reduce ----
const flags = torch.zeros(4, 6).gt(0);
expectType<Tensor<[4], "bool">>()(reduce(flags, "a b -> a", "any"));
expectType<Tensor<[6], "bool">>()(reduce(flags, "a b -> b", "all"));
expectType<Tensor<[2]>>()(
  reduce(
    torch.tensor([
      [1, 2],
      [3, 4],
    ]),
    "a b -> b",
    "sum",
  ),
);

// ---- torch.js's spelling: the same functions as torch.* ----
expectType<F32<[8, 1024, 3]>>()(torch.rearrange(img, "b c h w -> b (h w) c"));
expectType<F32<[8, 3]>>()(torch.reduce(img, "b c h w -> b c", "max"));
