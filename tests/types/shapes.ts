// Shape-level types: literal shapes flow through creation and ops (each `assert`/`expectType` is
// one assertion; tests/types/shapes_bad.ts holds the code that must not compile).
import * as torch from "webtorch";
import type {
  Broadcast,
  Cat,
  DataShape,
  Einsum,
  Expand,
  Flatten,
  MT,
  Matmul,
  Numel,
  Permute,
  Reduce,
  Reshape,
  ShapeMismatch,
  Squeeze,
  Stack,
  Tensor,
  Transpose,
  Unflatten,
  Unsqueeze,
} from "webtorch";
import { type Equal, assert, expectType } from "./expect.js";

type F32<S extends number[]> = Tensor<S, "float32">;

// ---- creation ----
const a = torch.zeros(2, 3);
expectType<F32<[2, 3]>>()(a);
expectType<F32<[2, 3]>>()(torch.zeros([2, 3] as const));
expectType<F32<[2, 3]>>()(torch.zeros([2, 3]));
expectType<F32<[4]>>()(torch.ones(4));
expectType<F32<[]>>()(torch.ones([]));
expectType<Tensor<[2, 3], "int32">>()(torch.ones(2, 3, { dtype: "int32" }));
expectType<Tensor<[5], "int64">>()(torch.zeros([5], { dtype: torch.int64 }));
expectType<F32<[3, 4, 5]>>()(torch.randn(3, 4, 5));
expectType<F32<[3, 4]>>()(torch.rand([3, 4]));
expectType<F32<[7, 1]>>()(torch.empty(7, 1));
expectType<Tensor<[2, 2], "int64">>()(torch.full([2, 2], 7));
expectType<Tensor<[2, 2], "float32">>()(torch.full([2, 2], 0.5));
expectType<Tensor<[3], "bool">>()(torch.full([3], true));
expectType<Tensor<[2], "uint8">>()(torch.full([2], 1, { dtype: "uint8" }));
expectType<Tensor<[3, 2], "int64">>()(
  torch.tensor([
    [1, 2],
    [3, 4],
    [5, 6],
  ]),
);
expectType<Tensor<[3], "float32">>()(torch.tensor([1.5, 2, 3]));
expectType<Tensor<[2], "bool">>()(torch.tensor([true, false]));
expectType<Tensor<[], "int64">>()(torch.tensor(3));
expectType<Tensor<[2, 2], "float32">>()(
  torch.tensor(
    [
      [1, 2],
      [3, 4],
    ],
    { dtype: "float32" },
  ),
);
expectType<Tensor<[number], "float32">>()(torch.tensor(new Float32Array(4)));
assert<Equal<DataShape<[[[1], [2]], [[3], [4]]]>, [2, 2, 1]>>();
const n: number = 5;
expectType<F32<[number, 3]>>()(torch.zeros(n, 3));
expectType<F32<number[]>>()(torch.zeros(new Array<number>(3).fill(1)));

// ---- shape, ndim, numel ----
expectType<readonly [2, 3]>()(a.shape);
expectType<2>()(a.ndim);
expectType<"float32">()(a.dtype);
assert<Equal<Numel<[2, 3, 4]>, 24>>();
assert<Equal<Numel<[512, 512, 3]>, 786432>>();
assert<Equal<Numel<[50257, 768]>, 38597376>>();
assert<Equal<Numel<[]>, 1>>();
assert<Equal<Numel<[2, number]>, number>>();

// ---- elementwise: broadcasting ----
const b = torch.ones(3);
expectType<F32<[2, 3]>>()(a.add(b));
expectType<F32<[2, 3]>>()(a.sub(b, { alpha: 2 }));
expectType<F32<[2, 3]>>()(a.mul(2));
expectType<F32<[2, 3]>>()(a.div(torch.ones(2, 1)));
expectType<F32<[4, 2, 3]>>()(a.mul(torch.ones(4, 1, 1)));
expectType<F32<[5, 2, 3]>>()(torch.ones(5, 1, 3).maximum(a));
expectType<Tensor<[2, 3], "bool">>()(a.gt(0));
expectType<Tensor<[2, 3], "bool">>()(a.eq(b));
expectType<Tensor<[2, 3], "bool">>()(a.isnan());
expectType<F32<[2, 3]>>()(a.relu().exp().neg().sigmoid());
expectType<F32<[2, 3]>>()(a.pow(2).sqrt());
expectType<Tensor<[2, 3], "float32">>()(
  torch.ones(2, 3, { dtype: "int32" }).add(a),
);
expectType<Tensor<[2, 3], "int32">>()(
  torch.ones(2, 3, { dtype: "int32" }).abs(),
);
expectType<F32<[2, 3]>>()(a.add(torch.zeros(1, n)));
expectType<F32<[2, number]>>()(torch.zeros(2, 1).add(torch.zeros(1, n)));
expectType<F32<[2, 3]>>()(a.add(torch.zeros(n, 3).sum(0)));
assert<Equal<Broadcast<[8, 1, 6, 1], [7, 1, 5]>, [8, 7, 6, 5]>>();
assert<Equal<Broadcast<[], [2, 3]>, [2, 3]>>();
assert<Equal<Broadcast<[1], []>, [1]>>();
assert<Equal<Broadcast<[number, 3], [4, 1]>, [4, 3]>>();
assert<Equal<Broadcast<number[], [4, 1]>, number[]>>();
assert<
  Equal<
    Broadcast<[2, 3], [4]>,
    ShapeMismatch<"broadcast: shapes [2, 3] and [4]: the size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1">
  >
>();

// ---- matmul, mm, bmm ----
const w = torch.randn(3, 4);
expectType<F32<[2, 4]>>()(a.matmul(w));
expectType<F32<[2, 4]>>()(torch.matmul(a, w));
expectType<F32<[2, 4]>>()(a.mm(w));
expectType<F32<[2]>>()(a.matmul(b));
expectType<F32<[4]>>()(b.matmul(w));
expectType<F32<[]>>()(b.matmul(b));
expectType<F32<[10, 2, 4]>>()(torch.randn(10, 2, 3).matmul(w));
expectType<F32<[10, 2, 4]>>()(torch.randn(10, 2, 3).bmm(torch.randn(10, 3, 4)));
expectType<F32<[7, 5, 2, 4]>>()(
  torch.randn(7, 1, 2, 3).matmul(torch.randn(5, 3, 4)),
);
expectType<F32<[2, number]>>()(a.matmul(torch.randn(3, n)));
expectType<F32<[2, 4]>>()(torch.randn(2, n).matmul(torch.randn(3, 4)));
assert<Equal<Matmul<[2, 3], [3]>, [2]>>();
assert<Equal<Matmul<[3], [2, 3, 4]>, [2, 4]>>();
assert<Equal<Matmul<number[], [3, 4]>, number[]>>();
assert<
  Equal<
    Matmul<[2, 3], [4, 5]>,
    ShapeMismatch<"matmul: inner dimensions do not match: 3 vs 4 (shapes [2, 3] and [4, 5])">
  >
>();

// ---- reductions ----
expectType<Tensor<[], "float32">>()(a.sum());
expectType<Tensor<[2], "float32">>()(a.sum(1));
expectType<Tensor<[2], "float32">>()(a.sum(-1));
expectType<Tensor<[2, 1], "float32">>()(a.sum(-1, true));
expectType<Tensor<[1, 1], "float32">>()(a.sum([0, 1], true));
expectType<Tensor<[], "float32">>()(a.sum([0, 1]));
expectType<Tensor<[3], "float32">>()(a.sum({ dim: 0 }));
expectType<Tensor<[1, 3], "float32">>()(a.sum({ dim: 0, keepdim: true }));
expectType<Tensor<[], "float32">>()(a.mean());
expectType<Tensor<[2], "float32">>()(a.mean(1));
expectType<Tensor<[2, 1], "float32">>()(a.mean({ dim: -1, keepdim: true }));
expectType<Tensor<number[], "float32">>()(a.sum(n));
const keep: boolean = Math.random() > 0.5;
expectType<Tensor<number[], "float32">>()(a.sum(0, keep));
assert<Equal<Reduce<[2, 3, 4], [0, 2], false>, [3]>>();
assert<Equal<Reduce<[2, 3, 4], -2, true>, [2, 1, 4]>>();
assert<Equal<Reduce<[2, 3, 4], undefined, true>, [1, 1, 1]>>();
assert<
  Equal<
    Reduce<[2, 3], 2, false, "sum">,
    ShapeMismatch<"sum: Dimension out of range (expected to be in range of [-2, 1], but got 2)">
  >
>();

// ---- reshape, view, flatten, unflatten ----
expectType<F32<[3, 2]>>()(a.reshape(3, 2));
expectType<F32<[6]>>()(a.reshape(-1));
expectType<F32<[6]>>()(a.view([6]));
expectType<F32<[1, 6]>>()(a.view(1, -1));
expectType<F32<[3, 2]>>()(a.reshape([-1, 2]));
expectType<F32<[2, 3, 1]>>()(a.reshape(2, 3, 1));
expectType<F32<[n: number, 2]>>()(torch.zeros(n, 4).reshape(-1, 2));
expectType<F32<[784, 64]>>()(torch.zeros(28, 28, 64).reshape(-1, 64));
expectType<F32<[number, number]>>()(torch.zeros(6).reshape(n, n));
expectType<F32<number[]>>()(a.reshape(...([6] as number[])));
assert<Equal<Reshape<[4, 512, 512], [4, -1]>, [4, 262144]>>();
assert<Equal<Reshape<[2, 3], [3, 2]>, [3, 2]>>();
assert<
  Equal<
    Reshape<[2, 3], [4, 2]>,
    ShapeMismatch<"reshape: shape '[4, 2]' is invalid for input of size 6">
  >
>();
assert<
  Equal<
    Reshape<[2, 3], [-1, 4]>,
    ShapeMismatch<"reshape: shape '[-1, 4]' is invalid for input of size 6">
  >
>();
const c = torch.zeros(2, 3, 4, 5);
expectType<F32<[120]>>()(c.flatten());
expectType<F32<[2, 60]>>()(c.flatten(1));
expectType<F32<[2, 12, 5]>>()(c.flatten(1, 2));
expectType<F32<[2, 3, 20]>>()(c.flatten(-2));
expectType<F32<[2, 3, 2, 2, 5]>>()(c.unflatten(2, [2, 2]));
expectType<F32<[2, 3, 2, 2, 5]>>()(c.unflatten(-2, [2, -1]));
expectType<F32<[120]>>()(c.ravel());
assert<Equal<Flatten<[], 0, -1>, [1]>>();
assert<Equal<Unflatten<[6], 0, [2, 3]>, [2, 3]>>();

// ---- permute, transpose, t, T, mT ----
expectType<F32<[5, 2, 3, 4]>>()(c.permute(3, 0, 1, 2));
expectType<F32<[5, 2, 3, 4]>>()(c.permute([-1, 0, 1, 2]));
expectType<F32<[2, 5, 4, 3]>>()(c.transpose(1, -1));
expectType<F32<[3, 2]>>()(a.t());
expectType<F32<[3]>>()(b.t());
expectType<F32<[5, 4, 3, 2]>>()(c.T);
expectType<F32<[2, 3, 5, 4]>>()(c.mT);
expectType<F32<[2, 5, 4, 3]>>()(c.swapaxes(1, 3));
assert<Equal<Permute<[2, 3, 4], [2, 0, 1]>, [4, 2, 3]>>();
assert<Equal<Transpose<[2, 3], -1, -2>, [3, 2]>>();
assert<Equal<MT<[7, 2, 3]>, [7, 3, 2]>>();

// ---- squeeze, unsqueeze, expand ----
const s = torch.zeros(1, 3, 1);
expectType<F32<[3]>>()(s.squeeze());
expectType<F32<[3, 1]>>()(s.squeeze(0));
expectType<F32<[1, 3]>>()(s.squeeze(-1));
expectType<F32<[3]>>()(s.squeeze([0, 2]));
expectType<F32<[1, 3, 1]>>()(s.squeeze(1));
expectType<F32<[1, 2, 3]>>()(a.unsqueeze(0));
expectType<F32<[2, 3, 1]>>()(a.unsqueeze(-1));
expectType<F32<[2, 1, 3]>>()(a.unsqueeze(1));
expectType<F32<[4, 3, 3]>>()(torch.ones(3, 1).expand(4, 3, 3));
expectType<F32<[2, 3]>>()(torch.ones(1, 3).expand(2, -1));
expectType<F32<[2, 3]>>()(b.expand_as(a));
assert<Equal<Squeeze<[1, number, 1], undefined>, number[]>>();
assert<Equal<Unsqueeze<[], 0>, [1]>>();
assert<Equal<Expand<[3, 1], [2, -1, 4]>, [2, 3, 4]>>();

// ---- select, cat, stack ----
expectType<F32<[3]>>()(a.select(0, 1));
expectType<F32<[2]>>()(a.select(-1, 0));
expectType<Tensor<[4, 3]>>()(torch.cat([a, torch.zeros(2, 3)]));
expectType<Tensor<[2, 7]>>()(torch.cat([a, torch.zeros(2, 4)], 1));
expectType<Tensor<[2, 7]>>()(torch.cat([a, torch.zeros(2, 4)], -1));
expectType<Tensor<[3, 2, 3]>>()(torch.stack([a, a, a]));
expectType<Tensor<[2, 3, 2]>>()(torch.stack([a, a], -1));
expectType<Tensor<[2, 2, 3]>>()(torch.stack([a, a], 1));
const list: Tensor<[2, 3]>[] = [a, a];
expectType<Tensor<[number, 2, 3]>>()(torch.stack(list));
assert<Equal<Cat<[[2, 3], [2, 4], [2, 1]], 1>, [2, 8]>>();
assert<Equal<Stack<[[3], [3]], 0>, [2, 3]>>();

// ---- einsum ----
const x = torch.randn(8, 2, 3);
const y = torch.randn(8, 3, 4);
expectType<Tensor<[8, 2, 4]>>()(torch.einsum("bij,bjk->bik", x, y));
expectType<Tensor<[3, 2]>>()(torch.einsum("ij->ji", a));
expectType<Tensor<[]>>()(torch.einsum("ij,ij->", a, a));
expectType<Tensor<[2, 3]>>()(torch.einsum("i j , i j -> i j", a, a));
expectType<Tensor<number[]>>()(torch.einsum("...ij->...ji", a));
expectType<Tensor<number[]>>()(torch.einsum("ij,jk", a, w));
assert<Equal<Einsum<"ij,jk->ik", [[2, 3], [3, 4]]>, [2, 4]>>();
assert<
  Equal<Einsum<"bhqd,bhkd->bhqk", [[2, 4, 5, 8], [2, 4, 7, 8]]>, [2, 4, 5, 7]>
>();
assert<
  Equal<
    Einsum<"ij,jk->ik", [[2, 3], [4, 5]]>,
    ShapeMismatch<"einsum: subscript j has different sizes in 'ij,jk->ik' (shapes [2, 3], [4, 5])">
  >
>();

// ---- dtypes ----
expectType<Tensor<[2, 3], "int32">>()(a.int());
expectType<Tensor<[2, 3], "int64">>()(a.long());
expectType<Tensor<[2, 3], "bool">>()(a.bool());
expectType<Tensor<[2, 3], "uint8">>()(a.to("uint8"));
expectType<Tensor<[2, 3], "float32">>()(a.int().float());
expectType<Tensor<[2, 3], "float32">>()(a.clone().contiguous());

// ---- nn.Linear ----
const fc = new torch.nn.Linear(3, 10);
expectType<3>()(fc.in_features);
expectType<Tensor<[2, 10], "float32">>()(fc.forward(a));
expectType<Tensor<[8, 2, 10], "float32">>()(fc.forward(x));
expectType<Tensor<[number, 10], "float32">>()(fc.forward(torch.zeros(n, 3)));

// ---- typed tensors are tensors ----
const anyTensor: Tensor = a;
const list2: Tensor[] = [a, b, c, x.matmul(y)];
function takesTensor(t: Tensor): number {
  return t.ndim;
}
takesTensor(a.sum(1));
let v: Tensor = a;
v = v.reshape(3, 2);
expectType<Tensor<number[], "float32">>()(v.matmul(a));
void [anyTensor, list2];
