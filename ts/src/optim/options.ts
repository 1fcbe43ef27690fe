/**
 * Argument handling shared by the optimizers: defaults merged with the caller's options, and
 * PyTorch's checks with PyTorch's wording (`torch/optim/*.py` constructors), named by option.
 *
 * @module
 */

import { TorchError } from "../errors.js";
import type { Optimizer } from "./optimizer.js";

/** A check of one option's value; throws PyTorch's error. */
type Check = (value: unknown) => void;

function number(name: string, value: unknown): number {
  if (typeof value !== "number")
    throw new TorchError(
      `optimizer option '${name}' must be a number, got ${typeof value}`,
    );
  return value;
}

/** `Invalid <what> value: v` unless `0 <= v` (NaN fails). */
function nonNegative(option: string, what = option): Check {
  return (v) => {
    if (!(number(option, v) >= 0))
      throw new TorchError(`Invalid ${what} value: ${String(v)}`);
  };
}

function pair(name: string, value: unknown): [number, number] {
  if (
    !Array.isArray(value) ||
    value.length !== 2 ||
    !value.every((x) => typeof x === "number")
  )
    throw new TorchError(
      `optimizer option '${name}' must be two numbers, got ${JSON.stringify(value)}`,
    );
  return value as [number, number];
}

/** PyTorch's constructor checks, by option name. */
const CHECKS = {
  lr: (v) => {
    if (!(number("lr", v) >= 0))
      throw new TorchError(`Invalid learning rate: ${String(v)}`);
  },
  eps: nonNegative("eps", "epsilon"),
  weight_decay: nonNegative("weight_decay"),
  momentum: nonNegative("momentum"),
  alpha: nonNegative("alpha"),
  lr_decay: nonNegative("lr_decay"),
  initial_accumulator_value: nonNegative("initial_accumulator_value"),
  momentum_decay: nonNegative("momentum_decay"),
  rho: (v) => {
    const rho = number("rho", v);
    if (!(rho >= 0 && rho <= 1))
      throw new TorchError(`Invalid rho value: ${rho}`);
  },
  betas: (v) => {
    pair("betas", v).forEach((b, i) => {
      if (!(b >= 0 && b < 1))
        throw new TorchError(`Invalid beta parameter at index ${i}: ${b}`);
    });
  },
  etas: (v) => {
    const [minus, plus] = pair("etas", v);
    if (!(0 < minus && minus < 1 && 1 < plus))
      throw new TorchError(`Invalid eta values: ${minus}, ${plus}`);
  },
  step_sizes: (v) => void pair("step_sizes", v),
} satisfies Record<string, Check>;

/** The option names {@link resolveOptions} can check. */
export type CheckedOption = keyof typeof CHECKS;

/**
 * The options an optimizer runs with: `defaults` overridden by `options`, then PyTorch's check of
 * each option named in `checked` (unknown option names are kept, as PyTorch keeps extra
 * param-group keys).
 */
export function resolveOptions<O extends { lr: number }>(
  defaults: O,
  options: Partial<O>,
  checked: readonly CheckedOption[],
): O {
  const o = { ...defaults, ...options };
  for (const name of checked) CHECKS[name](o[name as keyof O]);
  return o;
}

/** One value per param group (a scheduler option): a number for all, or a list. */
export function perGroup(
  name: string,
  optimizer: Optimizer,
  v: number | readonly number[],
): number[] {
  const n = optimizer.param_groups.length;
  if (typeof v === "number") return Array<number>(n).fill(v);
  if (v.length !== n)
    throw new TorchError(`expected ${n} values for ${name}, got ${v.length}`);
  return [...v];
}
