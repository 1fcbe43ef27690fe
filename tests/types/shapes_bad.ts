// Shape errors that must NOT compile: each `@ts-expect-error` line has to be a type error (an
// unused directive fails `make test-types`). The messages are checked in shapes.ts.
import * as torch from "webtorch";
import type { Tensor } from "webtorch";

const a = torch.zeros(2, 3);
const b = torch.ones(4);
const c = torch.zeros(2, 3, 4, 5);
const x = torch.randn(8, 2, 3);

// ---- broadcasting ----
// @ts-expect-error — [2, 3] and [4] do not broadcast
a.add(b);
// @ts-expect-error — sub with alpha still broadcasts
a.sub(b, { alpha: 2 });
// @ts-expect-error — mul
a.mul(torch.ones(3, 3));
// @ts-expect-error — div
a.div(torch.ones(5, 1, 2));
// @ts-expect-error — comparisons broadcast too
a.lt(torch.ones(2, 2));
// @ts-expect-error — maximum
a.maximum(torch.ones(3, 2));
// @ts-expect-error — pow
a.pow(torch.ones(1, 4));
// @ts-expect-error — eq
a.eq(b);
// @ts-expect-error — chained results keep their shapes
a.relu().exp().add(b);
// @ts-expect-error — a reduction's result is checked as well
a.add(c.sum(0));

// ---- matmul, mm, bmm ----
// @ts-expect-error — inner dimensions 3 vs 4
a.matmul(torch.randn(4, 5));
// @ts-expect-error — torch.matmul checks too
torch.matmul(a, torch.randn(4, 5));
// @ts-expect-error — vector @ matrix: 4 vs 3
b.matmul(torch.randn(3, 2));
// @ts-expect-error — vector @ vector lengths
b.matmul(torch.ones(3));
// @ts-expect-error — batched: 3 vs 2
x.matmul(torch.randn(8, 2, 3));
// @ts-expect-error — batch dims do not broadcast
x.matmul(torch.randn(7, 3, 4));
// @ts-expect-error — 0-D operands are refused
torch.zeros([]).matmul(a);
// @ts-expect-error — mm needs 2-D
x.mm(torch.randn(3, 4));
// @ts-expect-error — mm inner dims
a.mm(a);
// @ts-expect-error — bmm batch sizes
x.bmm(torch.randn(7, 3, 4));
// @ts-expect-error — bmm inner dims
x.bmm(x);
// @ts-expect-error — bmm needs 3-D
a.bmm(x);

// ---- reductions ----
// @ts-expect-error — dim 2 of a 2-D tensor
a.sum(2);
// @ts-expect-error — dim -3 of a 2-D tensor
a.sum(-3);
// @ts-expect-error — a list with an out-of-range dim
a.sum([0, 5]);
// @ts-expect-error — options object
a.sum({ dim: 3 });
// @ts-expect-error — mean
a.mean(2, true);
// @ts-expect-error — a reduced tensor has fewer dims
a.sum(0).sum(1);

// ---- reshape, view, flatten, unflatten ----
// @ts-expect-error — 6 elements into 4 x 4
a.reshape(4, 4);
// @ts-expect-error — as an array
a.reshape([5]);
// @ts-expect-error — -1 cannot be inferred (6 / 4)
a.reshape(-1, 4);
// @ts-expect-error — two -1
a.reshape(-1, -1);
// @ts-expect-error — view
a.view(7);
// @ts-expect-error — view of a large shape
torch.zeros(28, 28).view(-1, 27);
// @ts-expect-error — flatten dims out of range
c.flatten(0, 4);
// @ts-expect-error — start after end
c.flatten(2, 1);
// @ts-expect-error — unflatten sizes must multiply to the dim's size
c.unflatten(1, [2, 2]);
// @ts-expect-error — view_as needs the same numel
a.view_as(c);

// ---- permutes and transposes ----
// @ts-expect-error — wrong number of dims
c.permute(0, 1, 2);
// @ts-expect-error — repeated dim
c.permute(0, 0, 1, 2);
// @ts-expect-error — out of range
c.permute([0, 1, 2, 4]);
// @ts-expect-error — transpose dim out of range
a.transpose(0, 2);
// @ts-expect-error — swapaxes too
a.swapaxes(-3, 0);
// @ts-expect-error — t() of a 4-D tensor
c.t();
// @ts-expect-error — mT of a 1-D tensor
const m1: Tensor<[4]> = b.mT;

// ---- squeeze, unsqueeze, expand ----
// @ts-expect-error — squeeze dim out of range
a.squeeze(2);
// @ts-expect-error — unsqueeze allows [-3, 2] for 2-D
a.unsqueeze(3);
// @ts-expect-error — expand a non-singleton dim
a.expand(2, 4);
// @ts-expect-error — expand to fewer dims
c.expand(3, 4, 5);
// @ts-expect-error — expand_as a shape that does not fit
a.expand_as(torch.zeros(2, 4));

// ---- select, cat, stack ----
// @ts-expect-error — select dim out of range
a.select(2, 0);
// @ts-expect-error — cat sizes differ outside dim 0
torch.cat([a, torch.zeros(2, 4)]);
// @ts-expect-error — cat ranks differ
torch.cat([a, b]);
// @ts-expect-error — cat dim out of range
torch.cat([a, a], 2);
// @ts-expect-error — stack shapes differ
torch.stack([a, torch.zeros(3, 2)]);
// @ts-expect-error — stack dim out of range (3-D result allows [-3, 2])
torch.stack([a, a], 3);

// ---- einsum ----
// @ts-expect-error — subscript j is 3 in one operand and 4 in the other
torch.einsum("ij,jk->ik", a, torch.randn(4, 5));
// @ts-expect-error — three subscripts for a 2-D operand
torch.einsum("ijk->k", a);
// @ts-expect-error — output subscript not among the inputs
torch.einsum("ij->iz", a);
// @ts-expect-error — fewer operands than the equation names
torch.einsum("ij,jk->ik", a);
// @ts-expect-error — more operands than the equation names
torch.einsum("ij->ji", a, a);

// ---- results have their shapes ----
// @ts-expect-error — [2, 3] @ [3, 4] is [2, 4]
const r1: Tensor<[2, 3]> = a.matmul(torch.randn(3, 4));
// @ts-expect-error — sum(1) of [2, 3] is [2]
const r2: Tensor<[3]> = a.sum(1);
// @ts-expect-error — zeros(2, 3) is not [3, 2]
const r3: Tensor<[3, 2]> = torch.zeros(2, 3);
// @ts-expect-error — dtypes are tracked
const r4: Tensor<[2, 3], "int32"> = torch.zeros(2, 3);
// @ts-expect-error — comparisons give bool
const r5: Tensor<[2, 3], "float32"> = a.gt(0);
// @ts-expect-error — tensor() of nested lists: [2, 2], not [4]
const r6: Tensor<[4]> = torch.tensor([
  [1, 2],
  [3, 4],
]);
// @ts-expect-error — a general Tensor is not a Tensor<[2, 3]>
const r7: Tensor<[2, 3]> = a as Tensor;

// ---- nn.Linear ----
const fc = new torch.nn.Linear(3, 10);
// @ts-expect-error — the last dim must be in_features (4 vs 3)
fc.forward(torch.zeros(2, 4));
// @ts-expect-error — the output's last dim is out_features
const r8: Tensor<[2, 3]> = fc.forward(a);

void [m1, r1, r2, r3, r4, r5, r6, r7, r8];
