// Tensor expressions (`torch.$`) parsed by the type checker (each `assert`/`expectType` is one
// assertion; tests/types/expr_bad.ts holds the expressions that must not compile).
import * as torch from "webtorch";
import type { ExprShape, ShapeMismatch, Tensor } from "webtorch";
import { type Equal, assert, expectType } from "./expect.js";

type F32<S extends number[]> = Tensor<S, "float32">;

const x = torch.randn(8, 3);
const w = torch.randn(3, 4);
const b = torch.randn(4);
const q = torch.randn(2, 5, 16);
const k = torch.randn(2, 7, 16);
const v = torch.randn(2, 7, 32);
const n: number = 4;
const dyn = torch.zeros(n, 3);
const any: Tensor = torch.zeros(2, 3);

expectType<F32<[8, 4]>>()(torch.$("x @ w + b", { x, w, b }));
expectType<F32<[8, 4]>>()(torch.$("relu(x @ w + b)", { x, w, b }));
expectType<F32<[8, 4]>>()(torch.$("  relu( x@w+b )  ", { x, w, b }));
expectType<F32<[8, 3]>>()(torch.$("-x**2 + 2**x * 3", { x }));
expectType<F32<[8, 3]>>()(torch.$("x / (1 + exp(-x))", { x }));
expectType<Tensor<[8, 3]>>()(torch.$("where(x > 0, x, 0.1 * x)", { x }));
expectType<Tensor<[8, 3]>>()(torch.$("x >= 0.5", { x }));
expectType<F32<[3, 8]>>()(torch.$("x.T", { x }));
expectType<F32<[3, 3]>>()(torch.$("x.T @ x", { x }));
expectType<F32<[2, 5, 7]>>()(torch.$("q @ k.mT", { q, k }));
expectType<F32<[2, 5, 32]>>()(
  torch.$("softmax(q @ k.mT / 4, -1) @ v", { q, k, v }),
);
expectType<F32<[8, 3]>>()(torch.$("a * x + c", { a: 2, x, c: 1.5 }));
expectType<F32<[8, 3]>>()(torch.$("1 - x", { x }));
expectType<F32<[]>>()(torch.$("mean((x - 1) ** 2)", { x }));
expectType<F32<[8]>>()(torch.$("sum(x, -1)", { x }));
expectType<F32<[3]>>()(torch.$("sum(x, 0)", { x }));
expectType<F32<[8, 3]>>()(torch.$("maximum(x, b2)", { x, b2: torch.zeros(3) }));
expectType<F32<[3, 8]>>()(torch.$("transpose(x, 0, 1)", { x }));
expectType<F32<[8, 1, 3]>>()(torch.$("unsqueeze(x, 1)", { x }));
expectType<F32<[8, 3]>>()(torch.$("gelu(x) + silu(x) * tanh(x)", { x }));
expectType<F32<[8, 3]>>()(torch.$("clamp(x, 0, 1)", { x }));
expectType<F32<[8, 3]>>()(torch.$("x * true", { x }));
// where the types stop: unknown sizes, keyword arguments, an expression typed `string`
expectType<F32<[number, 4]>>()(torch.$("dyn @ w", { dyn, w }));
expectType<Tensor<number[]>>()(torch.$("any * 2", { any }));
expectType<F32<number[]>>()(torch.$("sum(x, dim=-1)", { x }));
const e: string = "x + 1";
expectType<F32<number[]>>()(torch.$(e, { x }));

assert<
  Equal<ExprShape<"a + b", { a: Tensor<[2, 1]>; b: Tensor<[3]> }>, [2, 3]>
>();
assert<Equal<ExprShape<"a @ b", { a: Tensor<[2, 3]>; b: Tensor<[3]> }>, [2]>>();
assert<
  Equal<
    ExprShape<"a + z", { a: Tensor<[2]> }>,
    ShapeMismatch<"$: name 'z' is not defined">
  >
>();
assert<
  Equal<
    ExprShape<"foo(a)", { a: Tensor<[2]> }>,
    ShapeMismatch<"$: unknown function 'foo'">
  >
>();
assert<
  Equal<
    ExprShape<"a @ b", { a: Tensor<[2, 3]>; b: Tensor<[4, 5]> }>,
    ShapeMismatch<"matmul: inner dimensions do not match: 3 vs 4 (shapes [2, 3] and [4, 5])">
  >
>();
assert<
  Equal<
    ExprShape<"(a + 1", { a: Tensor<[2]> }>,
    ShapeMismatch<"$: expected ')', got the end">
  >
>();
assert<
  Equal<
    ExprShape<"a b", { a: Tensor<[2]>; b: Tensor<[2]> }>,
    ShapeMismatch<`$: expected an operator, got 'b' in "a b"`>
  >
>();
assert<
  Equal<ExprShape<"2 + 3", {}>, ShapeMismatch<`$: "2 + 3" has no tensor in it`>>
>();

// ---- result dtypes: float32 in, float32 out; comparisons and other dtypes: any dtype ----
expectType<Tensor<[8, 3]>>()(torch.$("x > 0", { x }));
expectType<Tensor<[8, 3]>>()(torch.$("where(x > 0, x, 0)", { x }));
expectType<Tensor<[2]>>()(torch.$("i * 2", { i: torch.tensor([1, 2]) }));
expectType<F32<[8, 3]>>()(torch.$("x * s", { x, s: 0.5 }));
