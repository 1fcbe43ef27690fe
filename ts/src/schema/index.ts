/**
 * The op schema at run time: `args(op, arguments)` parses a wrapper's arguments against its
 * schema entry (schema/*.yaml, generated into generated.ts) and returns them by name, typed.
 *
 * ```ts
 * export function div(input: Tensor, other: Tensor | Scalar, options?: DivOptions): Tensor {
 *   const a = args("div", arguments);
 *   // a.rounding_mode: "trunc" | "floor" | null
 * }
 * ```
 *
 * @module
 */

import type { Tensor } from "../tensor/tensor.js";
import { type Args, OPS } from "./generated.js";
import { parseArgs } from "./parse.js";

export type { Args } from "./generated.js";

/** A schema op's key: its public path (`div`, `nn.functional.relu`). */
export type OpKey = keyof Args;

/** Parses a function's arguments against its schema entry. */
export function args<K extends OpKey>(
  op: K,
  values: ArrayLike<unknown>,
): Args[K] {
  return parseArgs(OPS[op], values) as Args[K];
}

/**
 * Parses a method's arguments against its schema entry, `self` taking the first parameter;
 * `name` is the method's name in messages when it differs from the op's (`div_`).
 */
export function methodArgs<K extends OpKey>(
  op: K,
  self: Tensor,
  values: ArrayLike<unknown>,
  name?: string,
): Args[K] {
  return parseArgs(OPS[op], values, self, name) as Args[K];
}

/**
 * The parsed arguments less the named ones: a wrapper that takes `(input, target, options)`
 * hands its body the options part, keyword arguments and defaults included.
 */
export function omit<T extends object, K extends keyof T>(
  parsed: T,
  ...names: K[]
): Omit<T, K> {
  // Copied key by key: `delete` would turn the object into a slow dictionary.
  const rest: Record<string, unknown> = {};
  for (const key in parsed)
    if (!(names as readonly string[]).includes(key))
      rest[key] = (parsed as Record<string, unknown>)[key];
  return rest as Omit<T, K>;
}
