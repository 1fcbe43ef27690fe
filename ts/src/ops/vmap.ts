/**
 * `torch.vmap(func, in_dims=0, out_dims=0, randomness='error', *, chunk_size=None)` (PyTorch's
 * `torch.func.vmap`): `func` mapped over a dimension of its inputs.
 *
 * webtorch maps by calling `func` once per index of the mapped dimension — on each input's slice
 * (`select(in_dim, i)`, a view, so gradients flow back to the input) — and stacking each output's
 * per-sample results at its `out_dim`. For the functions PyTorch's vmap accepts, the values,
 * shapes and gradients are PyTorch's: `in_dims` as an int, `None` (`null`) or a nested array /
 * object matching the inputs' structure, `out_dims` likewise for the outputs (tuple and nested
 * outputs), negative dims, outputs that do not depend on the mapped inputs (stacked, as PyTorch
 * expands them), nested `vmap`. Argument errors carry PyTorch's words. Where the loop differs:
 *
 * - `func` runs once per sample, so the mapped dimension's size must be at least 1 (a size-0
 *   dimension raises) and `func` may do what PyTorch's batched tensors refuse (read values,
 *   branch on them) — it then sees one sample's values;
 * - `out_dims=None` (`null`) for an output is taken only when every call returned the same value
 *   (the same tensor object, e.g. one closed over); an output made anew on each call counts as
 *   batched and raises PyTorch's "can not return a BatchedTensor when out_dim is None", even
 *   where PyTorch would have seen it did not depend on the mapped inputs;
 * - `randomness`: `'error'` raises PyTorch's error when `func` drew random numbers (after the
 *   call, with the generator put back where it was), `'different'` lets each sample draw its own,
 *   `'same'` restarts the generator from the same state for each sample, so every sample draws
 *   the same numbers; `chunk_size` is checked as PyTorch checks it and changes nothing else (the
 *   samples already run one at a time).
 *
 * Inputs are positional; a trailing plain object is an input (a dict), not keyword arguments:
 * pass options to `func` through a closure.
 *
 * @example
 * const batchedDot = torch.vmap((a, b) => torch.dot(a, b));
 * batchedDot(torch.randn(4, 3), torch.randn(4, 3)); // shape [4]
 *
 * @module
 */

import { core } from "../runtime.js";
import { TorchError } from "../errors.js";
import { args } from "../schema/index.js";
import { pyTypeName } from "../args.js";
import { Tensor } from "../tensor/tensor.js";
import { stack } from "./indexing.js";

/** `in_dims` / `out_dims`: an int, `null` (not mapped), or a nested array / object of those. */
export type VmapDims =
  number | null | readonly VmapDims[] | { readonly [key: string]: VmapDims };

/** vmap's keyword-only option. */
export interface VmapOptions {
  /** Checked as PyTorch checks it (`null` or > 0); the samples run one at a time anyway. */
  chunk_size?: number | null;
}

type AnyFn = (...args: never[]) => unknown;

/** `func` mapped over dimension `in_dims` of its inputs (see the module's notes). */
export function vmap<F extends AnyFn>(
  func: F,
  in_dims?: VmapDims,
  out_dims?: VmapDims,
  randomness?: "error" | "different" | "same",
  options?: VmapOptions,
): (...inputs: Parameters<F> | unknown[]) => ReturnType<F> {
  const a = args("vmap", arguments);
  const chunk = a.chunk_size;
  if (chunk !== null && !(chunk > 0))
    throw new TorchError(
      `vmap: chunk_size should be None or greater than 0. (got ${chunk})`,
    );
  const fn = a.func as (...args: unknown[]) => unknown;
  const inDims = a.in_dims as VmapDims;
  const outDims = a.out_dims as VmapDims;
  const mode = a.randomness;
  const vmapped = (...inputs: unknown[]): unknown =>
    vmapCall(fn, inDims, outDims, mode, inputs);
  return vmapped as (...inputs: Parameters<F> | unknown[]) => ReturnType<F>;
}

function vmapCall(
  func: (...args: unknown[]) => unknown,
  inDims: VmapDims,
  outDims: VmapDims,
  randomness: string,
  inputs: unknown[],
): unknown {
  const name = funcName(func);
  checkOutDims(name, outDims);
  const prefix = `vmap(${name}, in_dims=${py(inDims)}, ...)(<inputs>)`;
  if (
    !(typeof inDims === "number" && Number.isInteger(inDims)) &&
    !Array.isArray(inDims)
  )
    throw new TorchError(
      `${prefix}: expected \`in_dims\` to be int or a (potentially nested) tuple matching the structure of inputs, got: <class '${pyTypeName(inDims)}'>.`,
    );
  if (inputs.length === 0)
    throw new TorchError(
      `vmap(${name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are trying to vmap over a function with no inputs. The latter is unsupported.`,
    );
  const flatArgs = flatten(inputs);
  const flatDims = broadcastTo(inDims, inputs);
  if (flatDims === null)
    throw new TorchError(
      `${prefix}: in_dims is not compatible with the structure of \`inputs\`. in_dims has structure ${structure(inDims)} but inputs has structure ${structure(inputs)}.`,
    );
  const dims: (number | null)[] = [];
  for (let i = 0; i < flatArgs.length; i++) {
    const arg = flatArgs[i];
    const d = flatDims[i];
    if (d !== null && !(typeof d === "number" && Number.isInteger(d)))
      throw new TorchError(
        `${prefix}: Got in_dim=${py(d as VmapDims)} for an input but in_dim must be either an integer dimension or None.`,
      );
    if (d !== null && !(arg instanceof Tensor))
      throw new TorchError(
        `${prefix}: Got in_dim=${d} for an input but the input is of type <class '${pyTypeName(arg)}'>. We cannot vmap over non-Tensor arguments, please use None as the respective in_dim`,
      );
    if (d !== null) {
      const nd = (arg as Tensor).ndim;
      if (d < -nd || d >= nd)
        throw new TorchError(
          `${prefix}: Got in_dim=${d} for some input, but that input is a Tensor of dimensionality ${nd} so expected in_dim to satisfy -${nd} <= in_dim < ${nd}.`,
        );
      dims.push(d < 0 ? d + nd : d);
    } else dims.push(null);
  }
  const sizes = dims.flatMap((d, i) =>
    d === null ? [] : [(flatArgs[i] as Tensor).shape[d]!],
  );
  if (sizes.length === 0)
    throw new TorchError("vmap: Expected at least one Tensor to vmap over");
  if (sizes.some((s) => s !== sizes[0]))
    throw new TorchError(
      `vmap: Expected all tensors to have the same size in the mapped dimension, got sizes [${sizes.join(", ")}] for the mapped dimension`,
    );
  const batch = sizes[0]!;
  if (batch === 0)
    throw new TorchError(
      `vmap(${name}): webtorch's vmap calls the function once per sample, so it cannot map over a dimension of size 0`,
    );

  const start = core.rng_position() as BigUint64Array;
  const samples: unknown[] = [];
  for (let i = 0; i < batch; i++) {
    if (randomness === "same" && i > 0)
      core.set_rng_position(start[0]!, start[1]!);
    const flat = flatArgs.map((arg, k) =>
      dims[k] === null ? arg : (arg as Tensor).select(dims[k]!, i),
    );
    samples.push(func(...(unflatten(inputs, flat) as unknown[])));
    if (randomness === "error") {
      const now = core.rng_position() as BigUint64Array;
      if (now[0] !== start[0] || now[1] !== start[1]) {
        core.set_rng_position(start[0]!, start[1]!);
        throw new TorchError(
          "vmap: called random operation while in randomness error mode. Please either use the 'same' or 'different' randomness flags on vmap or perform the randomness operation out of vmap",
        );
      }
    }
  }
  return unwrapOutputs(name, outDims, samples);
}

/** The per-sample outputs stacked at their out_dims, in the outputs' structure. */
function unwrapOutputs(
  name: string,
  outDims: VmapDims,
  samples: unknown[],
): unknown {
  const first = samples[0];
  let flatDims: (VmapDims | undefined)[] | null;
  if (first instanceof Tensor) {
    // PyTorch's edge case: one tensor takes an int, None or a 1-tuple.
    if (Array.isArray(outDims) && outDims.length === 1) flatDims = [outDims[0]];
    else flatDims = Array.isArray(outDims) ? null : [outDims];
  } else flatDims = broadcastTo(outDims, first);
  if (flatDims === null)
    throw new TorchError(
      `vmap(${name}, ..., out_dims=${py(outDims)})(<inputs>): out_dims is not compatible with the structure of \`outputs\`. out_dims has structure ${structure(outDims)} but outputs has structure ${structure(first)}.`,
    );
  const flatSamples = samples.map((s) => flatten(s));
  const leaves = flatSamples[0]!.map((leaf, k) => {
    const d = flatDims![k] as number | null;
    const all = flatSamples.map((f) => f[k]);
    if (d === null) {
      if (all.every((v) => v === leaf)) return leaf;
      throw new TorchError(
        `vmap(${name}, ...): \`${name}\` can not return a BatchedTensor when out_dim is None (webtorch's vmap calls \`${name}\` once per sample: an output that is not the same value on every call counts as batched)`,
      );
    }
    if (!(leaf instanceof Tensor))
      throw new TorchError(
        `vmap(${name}, ...): \`${name}\` must only return Tensors, got type <class '${pyTypeName(leaf)}'>. Did you mean to set out_dims= to None for output?`,
      );
    for (const v of all)
      if (!(v instanceof Tensor))
        throw new TorchError(
          `vmap(${name}, ...): \`${name}\` must only return Tensors, got type <class '${pyTypeName(v)}'>. Did you mean to set out_dims= to None for output?`,
        );
    return stack(all as Tensor[], d);
  });
  return unflatten(first, leaves);
}

function checkOutDims(name: string, outDims: VmapDims): void {
  if (typeof outDims === "number" && Number.isInteger(outDims)) return;
  for (const d of flatten(outDims))
    if (d !== null && !(typeof d === "number" && Number.isInteger(d)))
      throw new TorchError(
        `vmap(${name}, ..., out_dims=${py(outDims)}): \`out_dims\` must be an int, None or a python collection of ints representing where in the outputs the vmapped dimension should appear.`,
      );
}

function funcName(func: (...args: unknown[]) => unknown): string {
  return func.name !== "" ? func.name : "<lambda>";
}

/** A plain object (a dict in the pytree), not a tensor or another class's instance. */
function isDict(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** The leaves of a pytree (arrays and plain objects are nodes; everything else a leaf). */
function flatten(tree: unknown): unknown[] {
  if (Array.isArray(tree)) return tree.flatMap((t) => flatten(t));
  if (isDict(tree)) return Object.values(tree).flatMap((t) => flatten(t));
  return [tree];
}

/** `tree` with its leaves replaced, in order, by `leaves`. */
function unflatten(tree: unknown, leaves: unknown[]): unknown {
  let at = 0;
  const build = (t: unknown): unknown => {
    if (Array.isArray(t)) return t.map(build);
    if (isDict(t))
      return Object.fromEntries(
        Object.entries(t).map(([k, v]) => [k, build(v)]),
      );
    return leaves[at++];
  };
  return build(tree);
}

/**
 * `dims` broadcast over `tree`'s leaves (PyTorch's `_broadcast_to_and_flatten`): a leaf of
 * `dims` covers a whole subtree; `null` when the structures do not match.
 */
function broadcastTo(
  dims: VmapDims,
  tree: unknown,
): (VmapDims | undefined)[] | null {
  if (!Array.isArray(dims) && !isDict(dims))
    return flatten(tree).map(() => dims);
  if (Array.isArray(dims)) {
    if (!Array.isArray(tree) || tree.length !== dims.length) return null;
    const out: (VmapDims | undefined)[] = [];
    for (let i = 0; i < dims.length; i++) {
      const sub = broadcastTo(dims[i] as VmapDims, tree[i]);
      if (sub === null) return null;
      out.push(...sub);
    }
    return out;
  }
  if (!isDict(tree)) return null;
  const keys = Object.keys(tree);
  const d = dims as Record<string, VmapDims>;
  if (keys.length !== Object.keys(d).length || keys.some((k) => !(k in d)))
    return null;
  const out: (VmapDims | undefined)[] = [];
  for (const k of keys) {
    const sub = broadcastTo(d[k]!, tree[k]);
    if (sub === null) return null;
    out.push(...sub);
  }
  return out;
}

/** A value as Python prints it in vmap's messages (`(0, None)`). */
function py(v: VmapDims | undefined): string {
  if (v === null || v === undefined) return "None";
  if (Array.isArray(v))
    return v.length === 1 ? `(${py(v[0])},)` : `(${v.map(py).join(", ")})`;
  if (isDict(v))
    return `{${Object.entries(v)
      .map(([k, x]) => `'${k}': ${py(x as VmapDims)}`)
      .join(", ")}}`;
  return String(v);
}

/** A pytree's structure, for the "not compatible" messages: `*` for a leaf. */
function structure(tree: unknown): string {
  if (Array.isArray(tree)) return `(${tree.map(structure).join(", ")})`;
  if (isDict(tree))
    return `{${Object.entries(tree)
      .map(([k, x]) => `'${k}': ${structure(x)}`)
      .join(", ")}}`;
  return "*";
}
