/**
 * einops for webtorch: `rearrange`, `reduce`, `repeat`, `pack` and `unpack` with the einops
 * package's pattern grammar (named axes, `(h w)` groups, `1`/`()`, anonymous lengths `(h 2)`,
 * `...`), its axis-length options (`{ h: 2 }`) and its error messages.
 *
 * Each call is the einops recipe spelled with webtorch's own ops: one `reshape` to the elementary
 * axes, a reduction over the axes the output drops, a `permute`, an `expand` for new axes
 * (`repeat`), one final `reshape`. Those are views where the layout allows, so the result stays
 * lazy, fuses and differentiates like any other op. Patterns with a literal input shape are also
 * checked and typed by the compiler (types.ts).
 *
 * @module
 */

import { args } from "../schema/index.js";
import type { DType } from "../dtype.js";
import type { CheckOf, Dims, ShapeOf } from "../shapes.js";
import type { DTypeT, ShapeT, ShapesOf } from "../tensor/tensor.js";
import type {
  CheckUnpack,
  EinopsLengths,
  PackShape,
  PackedShapes,
  UnpackShapes,
  RearrangeShape,
  ReduceShape,
  RepeatShape,
} from "./types.js";
import { EinopsError, TorchError } from "../errors.js";
import { scope } from "../lifetime.js";
import { stack, cat } from "../ops/indexing.js";
import { Tensor, checkTensor, wrap } from "../tensor/tensor.js";
import {
  AnonymousAxis,
  ELLIPSIS,
  axisNameProblem,
  parseSide,
  pyRepr,
  wrapError,
  type Axis,
} from "./parse.js";

/** A reduction of {@link reduce}: a name, or a function of the tensor and the dims to reduce. */
export type Reduction =
  | "min"
  | "max"
  | "sum"
  | "mean"
  | "prod"
  | "any"
  | "all"
  | ((tensor: Tensor, dims: number[]) => Tensor);

/** The dtype of a reduction's result: `any`/`all` give bool, float32 stays float32. */
export type ReducedDType<R, D extends DType> = R extends "any" | "all"
  ? "bool"
  : R extends string
    ? D extends "float32"
      ? "float32"
      : DType
    : DType;

const REDUCTIONS = ["min", "max", "sum", "mean", "prod", "any", "all"];

type Op = "rearrange" | "repeat" | Reduction;

/** What a pattern means for a tensor of a given rank, before its sizes are known. */
interface Recipe {
  /** Left side, ellipsis expanded: one group of elementary axes per input dim. */
  left: Axis[][];
  /** Right side, ellipsis expanded: one group per output dim. */
  right: Axis[][];
  /** Axes the right side keeps. */
  rightIds: Set<Axis>;
  /** Axes of the right side not on the left (repeat): their lengths must be known. */
  added: Axis[];
}

const opName = (op: Op): string =>
  typeof op === "function" ? `<function ${op.name || "reduction"}>` : op;

function setDiff(a: Set<Axis>, b: Set<Axis>): Axis[] {
  return [...a].filter((x) => !b.has(x));
}

function prepare(
  pattern: string,
  op: Op,
  names: string[],
  ndim: number,
): Recipe {
  const sides = pattern.split("->");
  if (sides.length !== 2)
    throw new EinopsError(
      `Pattern must contain exactly one '->' (got ${sides.length - 1})`,
    );
  const left = parseSide(sides[0]!);
  const right = parseSide(sides[1]!);
  if (!left.hasEllipsis && right.hasEllipsis)
    throw new EinopsError(
      `Ellipsis found in right side, but not left side of a pattern ${pattern}`,
    );
  if (left.hasEllipsis && left.ellipsisParenthesized)
    throw new EinopsError(
      `Ellipsis inside parenthesis in the left side is not allowed: ${pattern}`,
    );
  if (op === "rearrange") {
    if (left.hasNonUnitaryAnonymous || right.hasNonUnitaryAnonymous)
      throw new EinopsError(
        "Non-unitary anonymous axes are not supported in rearrange (exception is length 1)",
      );
    const diff = [
      ...setDiff(left.identifiers, right.identifiers),
      ...setDiff(right.identifiers, left.identifiers),
    ];
    if (diff.length > 0)
      throw new EinopsError(
        `Identifiers only on one side of expression (should be on both): ${pyRepr(diff)}`,
      );
  } else if (op === "repeat") {
    const diff = setDiff(left.identifiers, right.identifiers);
    if (diff.length > 0)
      throw new EinopsError(
        `Unexpected identifiers on the left side of repeat: ${pyRepr(diff)}`,
      );
    const known = new Set<Axis>([...left.identifiers, ...names]);
    const noSize = [...right.identifiers].filter(
      (x) => !(x instanceof AnonymousAxis) && !known.has(x),
    );
    if (noSize.length > 0)
      throw new EinopsError(
        `Specify sizes for new axes in repeat: ${pyRepr(noSize)}`,
      );
  } else if (typeof op === "function" || REDUCTIONS.includes(op)) {
    const diff = setDiff(right.identifiers, left.identifiers);
    if (diff.length > 0)
      throw new EinopsError(
        `Unexpected identifiers on the right side of reduce ${opName(op)}: ${pyRepr(diff)}`,
      );
  } else {
    throw new EinopsError(
      `Unknown reduction ${String(op)}. Expect one of ('min', 'max', 'sum', 'mean', 'prod', 'any', 'all').`,
    );
  }

  let leftComp: Axis[][];
  let rightComp: Axis[][];
  const rightIds = new Set(right.identifiers);
  if (left.hasEllipsis) {
    const others = left.composition.length - 1;
    if (ndim < others)
      throw new EinopsError(
        `Wrong shape: expected >=${others} dims. Received ${ndim}-dim tensor.`,
      );
    const ell = Array.from({ length: ndim - others }, (_, i) => ELLIPSIS + i);
    leftComp = left.composition.flatMap((g) =>
      g === ELLIPSIS ? ell.map((a) => [a]) : [g],
    );
    rightComp = right.composition.flatMap((g) =>
      g === ELLIPSIS
        ? ell.map((a) => [a])
        : [g.flatMap((a) => (a === ELLIPSIS ? ell : [a]))],
    );
    if (right.hasEllipsis) {
      rightIds.delete(ELLIPSIS);
      ell.forEach((a) => rightIds.add(a));
    }
  } else {
    if (ndim !== left.composition.length)
      throw new EinopsError(
        `Wrong shape: expected ${left.composition.length} dims. Received ${ndim}-dim tensor.`,
      );
    leftComp = left.composition as Axis[][];
    rightComp = right.composition as Axis[][];
  }

  const leftAxes = new Set(leftComp.flat());
  const added = [...rightIds].filter((a) => !leftAxes.has(a));
  const all = new Set([...leftAxes, ...added]);
  for (const name of names) {
    if (axisNameProblem(name) !== "")
      throw new EinopsError(`('Invalid name for an axis', '${name}')`);
    if (!all.has(name))
      throw new EinopsError(`Axis ${name} is not used in transform`);
  }
  for (const group of leftComp) {
    const unknown = group.filter(
      (a) => typeof a === "string" && !names.includes(a),
    );
    if (unknown.length > 1)
      throw new EinopsError(`Could not infer sizes for ${pyRepr(unknown)}`);
  }
  return { left: leftComp, right: rightComp, rightIds, added };
}

/** The length of every elementary axis, from the input's shape and the given lengths. */
function axisLengths(
  recipe: Recipe,
  shape: readonly number[],
  lengths: Readonly<Record<string, number>>,
): Map<Axis, number> {
  const out = new Map<Axis, number>();
  const given = (a: Axis): number | undefined =>
    a instanceof AnonymousAxis
      ? a.value
      : Object.hasOwn(lengths, a)
        ? lengths[a]
        : undefined;
  recipe.left.forEach((group, i) => {
    const length = shape[i]!;
    let known = 1;
    let unknown: Axis | undefined;
    for (const a of group) {
      const v = given(a);
      if (v === undefined) unknown = a;
      else {
        known *= v;
        out.set(a, v);
      }
    }
    if (unknown === undefined) {
      if (length !== known)
        throw new EinopsError(`Shape mismatch, ${length} != ${known}`);
    } else {
      if (length % known !== 0)
        throw new EinopsError(
          `Shape mismatch, can't divide axis of length ${length} in chunks of ${known}`,
        );
      out.set(unknown, Math.floor(length / known));
    }
  });
  for (const a of recipe.added) out.set(a, given(a)!);
  return out;
}

function reduceDims(t: Tensor, op: Reduction, dims: number[]): Tensor {
  if (typeof op === "function") return op(t, dims);
  switch (op) {
    case "min":
      return t.amin(dims);
    case "max":
      return t.amax(dims);
    case "sum":
      return t.sum(dims);
    case "mean":
      return t.mean(dims);
    case "prod":
      // torch.prod takes one dim; the core's kernel reduces several at once.
      return wrap(t._raw.prod(Int32Array.from(dims), false));
    case "any":
      return t.any(dims);
    default:
      return t.all(dims);
  }
}

function checkLengths(
  fn: string,
  lengths: unknown,
): Readonly<Record<string, number>> {
  if (lengths === undefined) return {};
  if (lengths === null || typeof lengths !== "object" || Array.isArray(lengths))
    throw new TorchError(
      `${fn}(): axis lengths must be an object such as { h: 2 }`,
    );
  for (const [k, v] of Object.entries(lengths))
    if (!Number.isInteger(v))
      throw new TorchError(
        `${fn}(): the length of axis ${k} must be an integer, not ${String(v)}`,
      );
  return lengths as Record<string, number>;
}

function transform(
  fn: string,
  input: Tensor | readonly Tensor[],
  pattern: string,
  op: Op,
  lengthsArg: unknown,
): Tensor {
  if (typeof pattern !== "string")
    throw new TorchError(
      `${fn}(): argument 'pattern' must be str, not ${typeof pattern}`,
    );
  const lengths = checkLengths(fn, lengthsArg);
  let shape: readonly number[] | null = null;
  return scope(() => {
    let t: Tensor;
    if (Array.isArray(input)) {
      if (input.length === 0)
        throw new TorchError(
          "Rearrange/Reduce/Repeat can't be applied to an empty list",
        );
      t = stack(input as Tensor[]);
    } else {
      t = checkTensor(fn, "tensor", input as Tensor, 1);
      shape = t.shape;
    }
    try {
      const recipe = prepare(pattern, op, Object.keys(lengths), t.ndim);
      const len = axisLengths(recipe, t.shape, lengths);
      const elementary = recipe.left.flat();
      if (recipe.left.some((g) => g.length !== 1))
        t = t.reshape(elementary.map((a) => len.get(a)!));
      const reduced = elementary.flatMap((a, i) =>
        recipe.rightIds.has(a) ? [] : [i],
      );
      if (reduced.length > 0) t = reduceDims(t, op as Reduction, reduced);
      const kept = elementary.filter((a) => recipe.rightIds.has(a));
      const order = recipe.right.flat();
      const perm = order
        .filter((a) => kept.includes(a))
        .map((a) => kept.indexOf(a));
      if (perm.some((p, i) => p !== i)) t = t.permute(perm);
      if (recipe.added.length > 0) {
        // New axes as size-1 dims in their places, then stretched (a view until the reshape).
        t = t.reshape(order.map((a) => (kept.includes(a) ? len.get(a)! : 1)));
        t = t.expand(order.map((a) => len.get(a)!));
      }
      if (recipe.right.some((g) => g.length !== 1))
        t = t.reshape(
          recipe.right.map((g) => g.reduce((p, a) => p * len.get(a)!, 1)),
        );
      return t;
    } catch (e) {
      throw wrapError(e, opName(op), pattern, shape, lengths);
    }
  });
}

/**
 * Reorders, splits and merges axes: `rearrange(x, "b c h w -> b (h w) c")`,
 * `rearrange(x, "b (h p1) (w p2) c -> b h w (p1 p2 c)", { p1: 2, p2: 2 })`,
 * `rearrange(x, "... h d -> ... d h")`. A list of tensors is stacked along a new first axis first.
 * With a literal input shape the output shape is typed and a wrong rank or size is a compile error.
 */
export function rearrange<
  T extends Tensor<Dims>,
  const P extends string,
  const L extends EinopsLengths = Record<never, number>,
>(
  tensor: T,
  pattern: P & CheckOf<RearrangeShape<P, ShapeT<T>, L>>,
  lengths?: L,
): Tensor<ShapeOf<RearrangeShape<P, ShapeT<T>, L>>, DTypeT<T>>;
export function rearrange(
  tensor: readonly Tensor[],
  pattern: string,
  lengths?: EinopsLengths,
): Tensor;
export function rearrange(
  tensor: Tensor | readonly Tensor[],
  pattern: string,
  lengths?: EinopsLengths,
): Tensor {
  args("einops.rearrange", arguments);
  return transform("rearrange", tensor, pattern, "rearrange", lengths);
}

/**
 * Reduces the axes the output drops: `reduce(x, "b c h w -> b c", "mean")`, 2×2 max pooling
 * `reduce(x, "b c (h 2) (w 2) -> b c h w", "max")`. `reduction` is `"min"`, `"max"`, `"sum"`,
 * `"mean"`, `"prod"`, `"any"`, `"all"` or a function `(tensor, dims) => tensor`.
 */
export function reduce<
  T extends Tensor<Dims>,
  const P extends string,
  const R extends Reduction,
  const L extends EinopsLengths = Record<never, number>,
>(
  tensor: T,
  pattern: P & CheckOf<ReduceShape<P, ShapeT<T>, L>>,
  reduction: R,
  lengths?: L,
): Tensor<ShapeOf<ReduceShape<P, ShapeT<T>, L>>, ReducedDType<R, DTypeT<T>>>;
export function reduce(
  tensor: readonly Tensor[],
  pattern: string,
  reduction: Reduction,
  lengths?: EinopsLengths,
): Tensor;
export function reduce(
  tensor: Tensor | readonly Tensor[],
  pattern: string,
  reduction: Reduction,
  lengths?: EinopsLengths,
): Tensor {
  args("einops.reduce", arguments);
  return transform("reduce", tensor, pattern, reduction, lengths);
}

/**
 * Adds or tiles axes: `repeat(x, "h w -> h w c", { c: 3 })`, `repeat(x, "h w -> (h 2) (w 2)")`
 * (nearest upsampling), `repeat(x, "h w -> (r h) w", { r: 2 })`.
 */
export function repeat<
  T extends Tensor<Dims>,
  const P extends string,
  const L extends EinopsLengths = Record<never, number>,
>(
  tensor: T,
  pattern: P & CheckOf<RepeatShape<P, ShapeT<T>, L>>,
  lengths?: L,
): Tensor<ShapeOf<RepeatShape<P, ShapeT<T>, L>>, DTypeT<T>>;
export function repeat(
  tensor: readonly Tensor[],
  pattern: string,
  lengths?: EinopsLengths,
): Tensor;
export function repeat(
  tensor: Tensor | readonly Tensor[],
  pattern: string,
  lengths?: EinopsLengths,
): Tensor {
  args("einops.repeat", arguments);
  return transform("repeat", tensor, pattern, "repeat", lengths);
}

/** `[before, after]`: how many named axes stand before and after `*` in a pack pattern. */
function analyzePack(pattern: string, fn: string): [number, number] {
  if (typeof pattern !== "string")
    throw new TorchError(
      `${fn}(): argument 'pattern' must be str, not ${typeof pattern}`,
    );
  const axes = pattern.split(/\s+/).filter((a) => a !== "");
  if (new Set(axes).size !== axes.length)
    throw new EinopsError(
      `Duplicates in axes names in ${fn}(..., "${pattern}")`,
    );
  if (!axes.includes("*"))
    throw new EinopsError(`No *-axis in ${fn}(..., "${pattern}")`);
  for (const a of axes)
    if (a !== "*" && axisNameProblem(a) !== "")
      throw new EinopsError(
        `Invalid axis name ${a} in ${fn}(..., "${pattern}")`,
      );
  const before = axes.indexOf("*");
  return [before, axes.length - before - 1];
}

const torchSize = (s: readonly number[]) => `torch.Size([${s.join(", ")}])`;

/**
 * Packs tensors that agree on the named axes into one, flattening and joining what `*` stands
 * for: `pack([a, b], "b * c")` with `a: [2, 5, 3]`, `b: [2, 3]` gives a `[2, 6, 3]` tensor and the
 * packed shapes `[[5], []]` that {@link unpack} takes to split it again. With literal shapes the
 * packed shape is typed (a tensor with too few dims is a compile error).
 */
export function pack<
  const Ts extends readonly Tensor<Dims>[],
  const P extends string,
>(
  tensors: Ts,
  pattern: P & CheckOf<PackShape<P, ShapesOf<Ts>>>,
): [
  Tensor<ShapeOf<PackShape<P, ShapesOf<Ts>>>, DTypeT<Ts[number]>>,
  PackedShapes<P, ShapesOf<Ts>>,
];
export function pack(
  tensors: readonly Tensor[],
  pattern: string,
): [Tensor, number[][]] {
  args("einops.pack", arguments);
  const [before, after] = analyzePack(pattern, "pack");
  if (!Array.isArray(tensors) || tensors.length === 0)
    throw new TorchError("pack(): expected a non-empty list of tensors");
  const shapes: number[][] = [];
  const packed = scope(() => {
    const parts = tensors.map((x, i) => {
      const t = checkTensor("pack", `tensors[${i}]`, x);
      if (t.ndim < before + after)
        throw new EinopsError(
          `packed tensor #${i} (enumeration starts with 0) has shape ${torchSize(t.shape)}, while pattern ${pattern} assumes at least ${before + after} axes`,
        );
      const end = t.ndim - after;
      const middle = t.shape.slice(before, end);
      shapes.push(middle);
      return t.reshape([
        ...t.shape.slice(0, before),
        middle.reduce((p, n) => p * n, 1),
        ...t.shape.slice(end),
      ]);
    });
    return cat(parts, before);
  });
  return [packed, shapes];
}

// Packed shapes as einops prints them: a list of Python tuples, `[(), (2,), (2, 3)]`.
const pyList = (ps: readonly (readonly number[])[]) =>
  `[${ps.map((p) => `(${p.join(", ")}${p.length === 1 ? "," : ""})`).join(", ")}]`;

/**
 * Splits a packed tensor back: `unpack(packed, ps, "b * c")` returns one tensor per shape in
 * `ps` (one shape may hold a `-1`, inferred). The results are views of `packed`. With a literal
 * input shape and literal packed shapes the results are typed (`[2, 6, 3]` with `[[5], []]`
 * gives `[2, 5, 3]` and `[2, 3]`); a wrong rank, two -1s or lengths that do not add up to the
 * packed axis are compile errors.
 */
export function unpack<
  S extends Dims,
  D extends DType,
  const Ps extends readonly (readonly number[])[],
  const P extends string,
>(
  tensor: Tensor<S, D>,
  packedShapes: Ps,
  pattern: P & CheckUnpack<UnpackShapes<P, S, Ps>>,
): UnpackShapes<P, S, Ps> extends infer R extends readonly Dims[]
  ? { -readonly [K in keyof R]: Tensor<R[K], D> }
  : Tensor<number[], D>[];
export function unpack(
  tensor: Tensor,
  packedShapes: readonly (readonly number[])[],
  pattern: string,
): Tensor[] {
  args("einops.unpack", arguments);
  const [before, after] = analyzePack(pattern, "unpack");
  const t = checkTensor("unpack", "tensor", tensor, 1);
  if (t.ndim !== before + 1 + after)
    throw new EinopsError(
      `unpack(..., ${pattern}) received input of wrong dim with shape ${torchSize(t.shape)}`,
    );
  const sizes = packedShapes.map((p) =>
    p.includes(-1) ? -1 : p.reduce((a, n) => a * n, 1),
  );
  const unknown = sizes.filter((s) => s === -1).length;
  if (unknown > 1)
    throw new EinopsError(
      `unpack(..., ${pattern}) received more than one -1 in ${pyList(packedShapes)} and can't infer dimensions`,
    );
  const n = t.shape[before]!;
  const cuts = [...sizes.map(() => 0), n];
  const u = sizes.indexOf(-1);
  const head = u < 0 ? sizes.length - 1 : u;
  for (let i = 0; i < head; i++) cuts[i + 1] = cuts[i]! + sizes[i]!;
  for (let j = sizes.length - 1; j > u && u >= 0; j--)
    cuts[j] = cuts[j + 1]! - sizes[j]!;
  const rest = t.shape.slice(before + 1);
  const lead = t.shape.slice(0, before);
  try {
    return scope(() =>
      packedShapes.map((p, i) =>
        t
          .slice(before, cuts[i]!, cuts[i + 1]!)
          .reshape([...lead, ...p, ...rest]),
      ),
    );
  } catch (e) {
    if (!(e instanceof TorchError)) throw e;
    throw new EinopsError(
      `Error during unpack(..., "${pattern}"): could not split axis of size ${n} into requested ${pyList(packedShapes)}`,
    );
  }
}
