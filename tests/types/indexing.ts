// `x.index(...)` shapes computed by the type checker (each `assert`/`expectType` is one
// assertion; tests/types/indexing_bad.ts holds the calls that must not compile).
import * as torch from "webtorch";
import type { IndexShape, ShapeMismatch, Tensor } from "webtorch";
import { type Equal, assert, expectType } from "./expect.js";

type F32<S extends number[]> = Tensor<S, "float32">;
const x = torch.randn(4, 5, 6);
const big = torch.zeros(50257, 768);
const idx = torch.tensor([0, 2, 1]); // Tensor<[3], "int64">
const idx2 = torch.tensor([
  [0, 1],
  [1, 0],
]);
const i: number = 2;
const s: string = "1:";
const any: Tensor = torch.zeros(2, 3);

expectType<F32<[5, 6]>>()(x.index(0));
expectType<F32<[5, 6]>>()(x.index(-1));
expectType<F32<[6]>>()(x.index(0, 1));
expectType<F32<[]>>()(x.index(0, 1, 2));
expectType<F32<[5, 6]>>()(x.index(i));
expectType<F32<[4, 5, 6]>>()(x.index(":"));
expectType<F32<[3, 5, 6]>>()(x.index("1:"));
expectType<F32<[3, 5, 6]>>()(x.index(":-1"));
expectType<F32<[4, 3, 6]>>()(x.index(":", "1:-1"));
expectType<F32<[4, 2, 6]>>()(x.index(":", "1:-1:2"));
expectType<F32<[4, 5, 2]>>()(x.index(":", ":", "::3"));
expectType<F32<[4, 5, 3]>>()(x.index("...", "-3:"));
expectType<F32<[2, 5, 6]>>()(x.index("2:10"));
expectType<F32<[0, 5, 6]>>()(x.index("3:1"));
expectType<F32<[4, 5]>>()(x.index("...", 0));
expectType<F32<[5]>>()(x.index(1, "...", 0));
expectType<F32<[1, 4, 5, 6]>>()(x.index(null));
expectType<F32<[4, 1, 5, 6]>>()(x.index(":", null));
expectType<F32<[4, 5, 6, 1]>>()(x.index("...", null));
expectType<F32<[4, 5, 6, 1]>>()(x.index("...", "None"));
expectType<F32<[1, 2, 1, 3]>>()(x.index(null, "1:3", -1, null, "::2"));
expectType<F32<[5, 2]>>()(x.index("0, :, 1:3"));
expectType<F32<[6]>>()(x.index("0, 1"));
expectType<F32<[4, 6]>>()(x.index("..., 2, :"));
expectType<F32<[3, 5, 6]>>()(x.index(idx));
expectType<F32<[4, 3, 6]>>()(x.index(":", idx));
expectType<F32<[2, 2, 5, 6]>>()(x.index(idx2));
expectType<F32<[4, 2, 6]>>()(x.index(":", [0, 4]));
expectType<F32<[10, 768]>>()(big.index("0:10"));
expectType<F32<[50257, 384]>>()(big.index(":", "::2"));
expectType<F32<[number, 768]>>()(big.index("-1000:"));
expectType<Tensor<[3], "int64">>()(idx.index(":"));
// several index tensors: broadcast, in place when together, first when apart
const col = torch.tensor([[0], [1]]); // [2, 1]
expectType<F32<[3, 6]>>()(x.index(idx, idx));
expectType<F32<[2, 3, 6]>>()(x.index(col, idx));
expectType<F32<[4, 2, 3]>>()(x.index(":", col, idx));
expectType<F32<[3, 5]>>()(x.index(idx, ":", idx));
expectType<F32<[3, 1, 6]>>()(x.index(idx, null, [0, 1, 2]));
expectType<F32<[4, 3]>>()(x.index(":", idx, idx));
expectType<F32<[3]>>()(x.index(idx, 0, idx).index(":", "..."));
expectType<F32<[2, 3, 5]>>()(x.index(col, ":", idx));
// where the types stop
expectType<F32<number[]>>()(x.index(s));
expectType<Tensor<number[]>>()(any.index(0));
expectType<F32<number[]>>()(x.index(any));

assert<Equal<IndexShape<[2, 3], [1]>, [3]>>();
assert<Equal<IndexShape<[2, 3], [":", null, 0]>, [2, 1]>>();
assert<Equal<IndexShape<[9], ["1:-1:3"]>, [3]>>();
assert<Equal<IndexShape<[9], ["-2:"]>, [2]>>();
assert<
  Equal<
    IndexShape<[2, 3], [0, 0, 0]>,
    ShapeMismatch<"index: too many indices for tensor of dimension 2 (shape [2, 3])">
  >
>();
assert<
  Equal<
    IndexShape<[2, 3], [":", 3]>,
    ShapeMismatch<"index 3 is out of bounds for dimension 1 with size 3">
  >
>();
assert<
  Equal<
    IndexShape<[2, 3], [-3]>,
    ShapeMismatch<"index -3 is out of bounds for dimension 0 with size 2">
  >
>();

assert<
  Equal<
    IndexShape<[4, 5], [Tensor<[2], "int64">, Tensor<[3], "int64">]>,
    ShapeMismatch<"index: shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]">
  >
>();

// assignment keeps the receiver's type; the value must broadcast to the indexed shape
const y = torch.zeros(3, 4);
expectType<F32<[3, 4]>>()(y.set([1, "1:"], 5));
expectType<F32<[3, 4]>>()(y.set([1, "1:"], torch.ones(3)));
expectType<F32<[3, 4]>>()(y.set([1, "1:"], torch.ones(1)));
expectType<F32<[3, 4]>>()(y.set(":", torch.ones(4)));
expectType<F32<[3, 4]>>()(y.set([idx, 0], torch.ones(3)));
expectType<F32<[3, 4]>>()(y.set(y.gt(0), torch.ones(4)));
expectType<F32<[3, 4]>>()(y.set([[0, 2]], torch.ones(2, 4)));
expectType<Tensor>()(any.set(0, any));
expectType<Promise<Tensor>>()(y.index_async(y.gt(0)));
