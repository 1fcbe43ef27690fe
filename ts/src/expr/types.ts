/**
 * Tensor expressions (`torch.$("relu(x @ w + b)", { x, w, b })`) parsed by the type checker: a
 * tokenizer and a recursive-descent parser over template literals, with Python's precedence,
 * whose values are shapes. `@` follows `matmul`'s rules, the arithmetic and comparison operators
 * broadcasting, function calls their op's rule; an unknown name, an unknown function, a syntax
 * error or a shape mismatch is a compile error. Types only: nothing here exists at run time.
 *
 * Where the types stop (the run-time checks always apply): an expression typed `string` and
 * functions whose result depends on more than their arguments' shapes (keyword arguments,
 * `reshape`, `flatten`, …) give `number[]`.
 *
 * @module
 */

import type { DType } from "../dtype.js";
import type { BinaryOp, UnaryOp } from "../ops/opnames.js";
import type {
  Broadcast,
  Dims,
  Matmul,
  MT,
  Mutable,
  Reduce,
  ShapeMismatch,
  T2,
  Transpose,
  Unsqueeze,
} from "../shapes.js";
import type { Tensor } from "../tensor/tensor.js";

/** The named values of an expression: tensors and numbers. */
export type ExprEnv = Readonly<
  Record<string, Tensor<Dims, DType> | number | boolean>
>;

// ---- tokens: names as themselves, numbers as `#<text>`, operators as themselves ----

type Lower =
  | "a" | "b" | "c" | "d" | "e" | "f" | "g" | "h" | "i" | "j" | "k" | "l" | "m"
  | "n" | "o" | "p" | "q" | "r" | "s" | "t" | "u" | "v" | "w" | "x" | "y" | "z"; // prettier-ignore
type Letter = Lower | Uppercase<Lower> | "_";
type Digit = "0" | "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9";
type Op2At<S extends string> = S extends `**${infer R}`
  ? ["**", R]
  : S extends `//${infer R}`
    ? ["//", R]
    : S extends `<=${infer R}`
      ? ["<=", R]
      : S extends `>=${infer R}`
        ? [">=", R]
        : S extends `==${infer R}`
          ? ["==", R]
          : S extends `!=${infer R}`
            ? ["!=", R]
            : false;
type Op1 =
  "+" | "-" | "*" | "/" | "%" | "@" | "<" | ">" | "(" | ")" | "," | "=" | ".";

type ReadName<
  S extends string,
  Acc extends string,
> = S extends `${infer C}${infer R}`
  ? C extends Letter | Digit
    ? ReadName<R, `${Acc}${C}`>
    : [Acc, S]
  : [Acc, S];
type ReadNum<
  S extends string,
  Acc extends string,
> = S extends `${infer C}${infer R}`
  ? C extends Digit | "."
    ? ReadNum<R, `${Acc}${C}`>
    : C extends "e" | "E"
      ? R extends `${infer Sg extends "+" | "-"}${infer R2}`
        ? ReadNum<R2, `${Acc}e${Sg}`>
        : ReadNum<R, `${Acc}e`>
      : [Acc, S]
  : [Acc, S];
type Tokens<S extends string, Acc extends string[] = []> = S extends ""
  ? Acc
  : S extends `${infer C}${infer R}`
    ? C extends " " | "\n" | "\t"
      ? Tokens<R, Acc>
      : C extends Digit
        ? ReadNum<R, C> extends [
            infer N extends string,
            infer R2 extends string,
          ]
          ? Tokens<R2, [...Acc, `#${N}`]>
          : never
        : C extends "."
          ? R extends `${Digit}${string}`
            ? ReadNum<R, "0."> extends [
                infer N extends string,
                infer R2 extends string,
              ]
              ? Tokens<R2, [...Acc, `#${N}`]>
              : never
            : Tokens<R, [...Acc, "."]>
          : C extends Letter
            ? ReadName<R, C> extends [
                infer N extends string,
                infer R2 extends string,
              ]
              ? Tokens<R2, [...Acc, N]>
              : never
            : Op2At<S> extends [infer O extends string, infer R2 extends string]
              ? Tokens<R2, [...Acc, O]>
              : C extends Op1
                ? Tokens<R, [...Acc, C]>
                : ShapeMismatch<`$: unexpected character '${C}'`>
    : Acc;

// ---- values: a shape, or a number `#<value>` ----

type Err = ShapeMismatch<string>;
type Fail<M extends string> = ShapeMismatch<`$: ${M}`>;
type Num<V> = V extends `#${string}` ? true : false;

type Elementwise<A, B> =
  Num<A> extends true
    ? B
    : Num<B> extends true
      ? A
      : [A, B] extends [infer X extends Dims, infer Y extends Dims]
        ? Broadcast<X, Y>
        : never;
type MatmulV<A, B> = [A, B] extends [infer X extends Dims, infer Y extends Dims]
  ? Matmul<X, Y>
  : Fail<"'@' needs two tensors">;
type Neg<V> = V extends `#-${infer N}`
  ? `#${N}`
  : V extends `#${infer N}`
    ? `#-${N}`
    : V;
type ValueOf<X> = X extends { readonly shape: infer S extends Dims }
  ? Mutable<S>
  : X extends number | boolean
    ? "#?"
    : never;

/** Continues a left-associative chain `L op ...` at `Level` after checking the combined value. */
type Chain<V, Rest extends string[], E, Level extends "cmp" | "add" | "mul"> = [
  V,
] extends [Err]
  ? V
  : Level extends "cmp"
    ? CmpLoop<V, Rest, E>
    : Level extends "add"
      ? AddLoop<V, Rest, E>
      : MulLoop<V, Rest, E>;

type Comparison<T extends string[], E> =
  Additive<T, E> extends infer P
    ? P extends [infer V, infer R extends string[]]
      ? CmpLoop<V, R, E>
      : P
    : never;
type CmpLoop<L, T extends string[], E> = T extends [
  "<" | "<=" | ">" | ">=" | "==" | "!=",
  ...infer R extends string[],
]
  ? Additive<R, E> extends infer P
    ? P extends [infer V, infer R2 extends string[]]
      ? Chain<Elementwise<L, V>, R2, E, "cmp">
      : P
    : never
  : [L, T];

type Additive<T extends string[], E> =
  Multiplicative<T, E> extends infer P
    ? P extends [infer V, infer R extends string[]]
      ? AddLoop<V, R, E>
      : P
    : never;
type AddLoop<L, T extends string[], E> = T extends [
  "+" | "-",
  ...infer R extends string[],
]
  ? Multiplicative<R, E> extends infer P
    ? P extends [infer V, infer R2 extends string[]]
      ? Chain<Elementwise<L, V>, R2, E, "add">
      : P
    : never
  : [L, T];

type Multiplicative<T extends string[], E> =
  Unary<T, E> extends infer P
    ? P extends [infer V, infer R extends string[]]
      ? MulLoop<V, R, E>
      : P
    : never;
type MulLoop<L, T extends string[], E> = T extends [
  infer O extends "*" | "/" | "//" | "%" | "@",
  ...infer R extends string[],
]
  ? Unary<R, E> extends infer P
    ? P extends [infer V, infer R2 extends string[]]
      ? Chain<O extends "@" ? MatmulV<L, V> : Elementwise<L, V>, R2, E, "mul">
      : P
    : never
  : [L, T];

type Unary<T extends string[], E> = T extends ["-", ...infer R extends string[]]
  ? Unary<R, E> extends infer P
    ? P extends [infer V, infer R2]
      ? [Neg<V>, R2]
      : P
    : never
  : T extends ["+", ...infer R extends string[]]
    ? Unary<R, E>
    : Power<T, E>;
type Power<T extends string[], E> =
  Postfix<T, E> extends infer P
    ? P extends [infer B, ["**", ...infer R extends string[]]]
      ? Unary<R, E> extends infer Q
        ? Q extends [infer X, infer R2]
          ? Elementwise<B, X> extends infer V
            ? [V] extends [Err]
              ? V
              : [V, R2]
            : never
          : Q
        : never
      : P
    : never;
type Postfix<T extends string[], E> =
  Primary<T, E> extends infer P
    ? P extends [infer V, infer R extends string[]]
      ? AttrLoop<V, R>
      : P
    : never;
type AttrLoop<V, T extends string[]> = T extends [
  ".",
  infer A,
  ...infer R extends string[],
]
  ? V extends Dims
    ? A extends "T"
      ? AttrLoop<T2<V>, R>
      : A extends "mT"
        ? AttrLoop<MT<V>, R>
        : Fail<`expected 'T' or 'mT' after '.', got '${A & string}'`>
    : Fail<`'.${A & string}' of a number`>
  : [V, T];

type Primary<T extends string[], E> = T extends [
  `#${infer N}`,
  ...infer R extends string[],
]
  ? [`#${N}`, R]
  : T extends ["(", ...infer R extends string[]]
    ? Comparison<R, E> extends infer P
      ? P extends [infer V, [")", ...infer R2 extends string[]]]
        ? [V, R2]
        : P extends [unknown, [infer X extends string, ...string[]]]
          ? Fail<`expected ')', got '${X}'`>
          : P extends [unknown, []]
            ? Fail<"expected ')', got the end">
            : P
      : never
    : T extends [infer N extends string, "(", ...infer R extends string[]]
      ? Args<R, E> extends infer A
        ? A extends [infer Vs extends unknown[], infer R2 extends string[]]
          ? Call<N, Vs> extends infer C
            ? [C] extends [Err]
              ? C
              : [C, R2]
            : never
          : A
        : never
      : T extends [infer N extends string, ...infer R extends string[]]
        ? N extends `${Letter}${string}`
          ? N extends keyof E
            ? [ValueOf<E[N]>, R]
            : N extends "true" | "false" | "True" | "False" | "inf" | "nan"
              ? ["#?", R]
              : Fail<`name '${N}' is not defined`>
          : Fail<`expected a number, a name or '(', got '${N}'`>
        : Fail<"expected a number, a name or '(', got the end">;
/** The arguments of a call up to its `)`; a keyword argument adds `"kw"`. */
type Args<T extends string[], E, Acc extends unknown[] = []> = T extends [
  ")",
  ...infer R extends string[],
]
  ? [Acc, R]
  : (
        T extends [string, "=", ...infer R extends string[]]
          ? [R, "kw"]
          : [T, "pos"]
      ) extends [infer Body extends string[], infer K]
    ? Comparison<Body, E> extends infer P
      ? P extends [infer V, infer R extends string[]]
        ? [...Acc, K extends "kw" ? "kw" : V] extends infer Acc2 extends
            unknown[]
          ? R extends [",", ...infer R2 extends string[]]
            ? Args<R2, E, Acc2>
            : R extends [")", ...infer R3 extends string[]]
              ? [Acc2, R3]
              : Fail<"expected ',' or ')' in a call">
          : never
        : P
      : never
    : never;

type ShapeFns =
  | UnaryOp
  | "softmax" | "log_softmax" | "gelu" | "silu" | "mish" | "softplus" | "elu" | "leaky_relu"
  | "clamp" | "clamp_min" | "clamp_max" | "cumsum" | "tril" | "triu" | "rsqrt" | "reciprocal"
  | "erf" | "expm1" | "log1p"; // prettier-ignore
type ReduceFns = "sum" | "mean" | "prod" | "amax" | "amin" | "logsumexp";
type OtherFns =
  "std" | "var" | "reshape" | "flatten" | "squeeze" | "mm" | "bmm";
type DimOf<V> = V extends `#${infer D extends number}` ? D : number;

/** The value of `N(...Vs)`. */
type Call<N extends string, Vs extends unknown[]> = "kw" extends Vs[number]
  ? N extends
      | ShapeFns
      | BinaryOp
      | ReduceFns
      | OtherFns
      | "matmul"
      | "transpose"
      | "unsqueeze"
      | "t"
      | "where"
    ? number[]
    : Fail<`unknown function '${N}'`>
  : N extends "where"
    ? Vs extends [infer C, infer A, infer B]
      ? Elementwise<C, A> extends infer X
        ? [X] extends [Err]
          ? X
          : Elementwise<X, B>
        : never
      : Fail<"where() takes a condition tensor and two values">
    : Vs extends [infer A extends Dims, ...infer Rest]
      ? N extends ShapeFns
        ? A
        : N extends BinaryOp
          ? Rest extends [infer B, ...unknown[]]
            ? Elementwise<A, B>
            : Fail<`${N}() takes two arguments`>
          : N extends "matmul"
            ? Rest extends [infer B, ...unknown[]]
              ? MatmulV<A, B>
              : Fail<"matmul() takes two arguments">
            : N extends ReduceFns
              ? Rest extends []
                ? []
                : Reduce<A, DimOf<Rest[0]>, false>
              : N extends "transpose"
                ? Rest extends [infer D0, infer D1]
                  ? Transpose<A, DimOf<D0>, DimOf<D1>>
                  : number[]
                : N extends "unsqueeze"
                  ? Unsqueeze<A, DimOf<Rest[0]>>
                  : N extends "t"
                    ? T2<A>
                    : N extends OtherFns
                      ? number[]
                      : Fail<`unknown function '${N}'`>
      : N extends
            | ShapeFns
            | BinaryOp
            | ReduceFns
            | OtherFns
            | "matmul"
            | "transpose"
            | "unsqueeze"
            | "t"
        ? Fail<`${N}() needs a tensor as its first argument`>
        : Fail<`unknown function '${N}'`>;

/**
 * The result shape of `$(E, values)` for values of type `V`, or the mismatch (an unknown name or
 * function, a syntax error, shapes that do not broadcast or multiply).
 */
export type ExprShape<E extends string, V> = string extends E
  ? number[]
  : Tokens<E> extends infer T
    ? T extends string[]
      ? Comparison<T, V> extends infer P
        ? P extends [infer R, infer Rest extends string[]]
          ? Rest extends []
            ? R extends Dims
              ? R
              : Fail<`"${E}" has no tensor in it`>
            : Fail<`expected an operator, got '${Rest[0]}' in "${E}"`>
          : P
        : never
      : T
    : never;

/**
 * The dtype of `$(E, values)`: float32 when every tensor given is float32 and `E` has no
 * comparison (arithmetic and the listed functions keep float32; numbers do not promote it), else
 * any dtype.
 */
export type ExprDType<
  E extends string,
  V,
> = E extends `${string}${"<" | ">" | "==" | "!="}${string}`
  ? DType
  : [
        {
          [K in keyof V]: V[K] extends { readonly dtype: infer D }
            ? D
            : "float32";
        }[keyof V],
      ] extends ["float32"]
    ? "float32"
    : DType;
