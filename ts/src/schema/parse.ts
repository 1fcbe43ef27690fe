/**
 * The argument parser every schema-backed wrapper calls: a call's JS arguments (positional values,
 * then optionally one options object holding keyword arguments) checked against the op's schema
 * entry (`schema/*.yaml`, compiled by scripts/gen-schema.mjs into `generated.ts`) and returned
 * as one object of named values, defaults filled in. Every way a call can be wrong — too many
 * positional arguments, an unknown or repeated keyword, a missing argument, a value of the wrong
 * type, a value outside the allowed set, a dim out of range — is a `TorchError` subclass with
 * PyTorch's wording, raised before any work is done.
 *
 * JS has no keyword arguments; PyTorch's become the keys of a trailing plain object, and any
 * argument may be given there by name, as in Python: `torch.div(a, b, { rounding_mode: "floor" })`,
 * `x.sum({ dim: 1, keepdim: true })`. A key whose value is `undefined` counts as not given.
 *
 * @module
 */

import {
  ArgumentError,
  DTypeError,
  IndexError,
  TorchError,
} from "../errors.js";
import { pyTypeName } from "../args.js";
import { Tensor } from "../tensor/tensor.js";
import { canonicalDevice, isDeviceName } from "../defaults.js";

/** The value kinds a parameter may take (a union lists several). */
export type Kind =
  | "Tensor"
  | "Scalar"
  | "int"
  | "float"
  | "bool"
  | "str"
  | "Dim"
  | "ScalarType"
  | "Device"
  | "Generator"
  | "Callable"
  | "object"
  | "any";

/** One parameter of a schema entry. */
export interface Param {
  /** Its name, as PyTorch spells it. */
  readonly name: string;
  /** The kinds of one value it takes (more than one: a union such as `Tensor|Scalar`). */
  readonly kinds: readonly Kind[];
  /** The kinds a list's elements may have (`int[2]`: `["int"]`); empty when it takes no list. */
  readonly items: readonly Kind[];
  /**
   * The list's length: -1 any, n > 0 exactly n (where one value of an item kind is repeated n
   * times, as `stride=2` is `[2, 2]`); 0 when it takes no list.
   */
  readonly list: number;
  /** Takes every remaining positional argument, each one value of it (`int[]... shapes`). */
  readonly varargs: boolean;
  /** Whether `None` (JS `null` or `undefined`) is a value (`int?`). */
  readonly nullable: boolean;
  /** Keyword-only (after `*` in the signature). */
  readonly kwOnly: boolean;
  /** Whether the call must give it (no default). */
  readonly required: boolean;
  /** The value when not given. */
  readonly default?: unknown;
  /** The allowed values of a `str` or `int` parameter. */
  readonly values?: readonly (string | number)[];
  /** PyTorch's message for a value outside `values`: `{value}`, `{name}`, `{allowed}` filled in. */
  readonly message?: string;
}

/** One op's entry: what the parser needs of the schema. */
export interface OpSchema {
  /** The name in messages: `div`, `cross_entropy`. */
  readonly name: string;
  /** The parameters in order, the tensor a method is called on first. */
  readonly params: readonly Param[];
  /**
   * A function written in Python in PyTorch (`torch.nn.functional`): arity errors in Python's
   * wording (`missing 1 required positional argument: 'target'`) rather than the binding's.
   */
  readonly python: boolean;
  /** Union parameters reported as PyTorch's "invalid combination of arguments" (overloads). */
  readonly overloaded: boolean;
  /**
   * PyTorch's overloads of one name (`arange(end)`, `arange(start, end, step)`): each a
   * parameter list, tried in order; `params` is the last.
   */
  readonly overloads?: readonly (readonly Param[])[];
}

// The name PyTorch's messages give each kind.
const KIND_NAMES: Record<Kind, string> = {
  Tensor: "Tensor",
  Scalar: "Number",
  int: "int",
  float: "float",
  bool: "bool",
  str: "str",
  Dim: "int",
  ScalarType: "torch.dtype",
  Device: "torch.device",
  Generator: "torch.Generator",
  Callable: "Callable",
  object: "object",
  any: "object",
};
const LIST_NAMES: Partial<Record<Kind, string>> = {
  Tensor: "tuple of Tensors",
  int: "tuple of ints",
  Dim: "tuple of ints",
  float: "tuple of floats",
  bool: "tuple of bools",
  Scalar: "tuple of Numbers",
};

const DTYPES = new Set([
  "float32",
  "int32",
  "int64",
  "uint8",
  "bool",
  "float16",
  "bfloat16",
  "float64",
]);
const INT32_MAX = 2 ** 31 - 1;

/** A plain object: the options bag, as opposed to a tensor, an array or a class instance. */
function isOptions(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== "object") return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

const plural = (n: number, word: string): string =>
  `${n} ${word}${n === 1 ? "" : "s"}`;

/** Positional counts of an entry, called as a function (`[0]`) or as a method (`[1]`). */
interface Layout {
  /** Parameters that may be given by position. */
  readonly positional: number;
  /** The positional parameters up to the last required one. */
  readonly minimum: number;
  /** The index of the varargs parameter, or -1. */
  readonly varargs: number;
}
const layouts = new WeakMap<OpSchema, [Layout, Layout]>();

function layoutOf(op: OpSchema, first: number): Layout {
  let both = layouts.get(op);
  if (both === undefined) {
    const make = (from: number): Layout => {
      let positional = 0;
      let minimum = 0;
      let varargs = -1;
      for (let i = from; i < op.params.length; i++) {
        const p = op.params[i]!;
        if (p.kwOnly) break;
        if (p.varargs) varargs = i;
        positional++;
        if (p.required) minimum = positional;
      }
      return { positional, minimum, varargs };
    };
    both = [make(0), make(1)];
    layouts.set(op, both);
  }
  return both[first]!;
}

// The entries a varargs entry's other parameters are parsed by (not functions of their own).
const varargsRest = new WeakSet<OpSchema>();

// A parameter not given (distinct from every value, `undefined` and `null` included).
const UNSET: unique symbol = Symbol("unset");

/**
 * Parses `args` (a call's arguments; for a method, `self` is the tensor it was called on and
 * takes the first parameter; `name` replaces the op's name in messages) against `schema`.
 * Returns every parameter by name, in the schema's order: the value given, else its default
 * (`None` as `null`); a `Dim` comes back wrapped into `[0, ndim)`.
 */
export function parseArgs(
  schema: OpSchema,
  args: ArrayLike<unknown>,
  self?: Tensor,
  name?: string,
): Record<string, unknown> {
  if (schema.overloads !== undefined && self === undefined)
    return parseOverloads(schema, args, name);
  const op = name === undefined ? schema : { ...schema, name };
  const params = op.params;
  const first = self === undefined ? 0 : 1;
  let count = args.length;
  while (count > 0 && args[count - 1] === undefined) count--;
  const given = count;
  // A trailing plain object is the keyword arguments, unless the parameter at its position takes
  // objects itself.
  let kwargs: Record<string, unknown> | undefined;
  if (count > 0 && isOptions(args[count - 1])) {
    const at = params[first + count - 1];
    if (at === undefined || at.kwOnly || !at.kinds.includes("any")) {
      kwargs = args[count - 1] as Record<string, unknown>;
      count--;
    }
  }
  // A torch.* function of no arguments bound in C (METH_NOARGS): CPython's wording.
  if (
    self === undefined &&
    params.length === 0 &&
    !op.python &&
    !varargsRest.has(schema)
  ) {
    if (count > 0)
      throw new ArgumentError(
        `torch.${op.name}() takes no arguments (${count} given)`,
      );
    if (kwargs !== undefined && Object.keys(kwargs).length > 0)
      throw new ArgumentError(`torch.${op.name}() takes no keyword arguments`);
  }
  const { positional, minimum, varargs } = layoutOf(schema, first);
  if (varargs >= 0) {
    // The positional arguments before it parse as usual; it takes all the others.
    const p = params[varargs]!;
    const before = varargs - first;
    // Only explicit `undefined`s where its values go (`zeros(undefined)`): None, a type error.
    if (p.required && given <= before && args.length > before)
      throw typeError(op, p, undefined, before + 1);
    const rest: unknown[] = [];
    for (let i = before; i < count; i++)
      rest.push(check(op, p, args[i], i + 1, params, [], first === 1));
    const head = Array.from(
      { length: Math.min(before, count) },
      (_, i) => args[i],
    );
    if (kwargs !== undefined) head.push(kwargs);
    const others: OpSchema = { ...op, params: params.filter((q) => q !== p) };
    varargsRest.add(others);
    const parsed = parseArgs(others, head, self);
    parsed[p.name] = rest;
    return parsed;
  }
  if (count > positional) {
    if (self !== undefined && positional === 0 && !op.python)
      throw new ArgumentError(
        `${op.name}() takes no arguments (${count} given)`,
      );
    const takes =
      minimum === positional
        ? plural(positional, "positional argument")
        : `from ${minimum} to ${positional} positional arguments`;
    throw new ArgumentError(
      `${op.name}() takes ${takes} but ${count} ${count === 1 ? "was" : "were"} given`,
    );
  }
  const values = new Array<unknown>(params.length).fill(UNSET);
  if (self !== undefined) values[0] = self;
  for (let i = 0; i < count; i++) {
    const p = params[first + i]!;
    const v = args[i];
    if (v === undefined) {
      // An explicit `undefined` is None: the default, or a type error where none is allowed.
      if (p.required && p.nullable) values[first + i] = null;
      else if (p.required) throw typeError(op, p, v, i + 1, first === 1);
      continue;
    }
    values[first + i] = check(op, p, v, i + 1, params, values, first === 1);
  }
  if (kwargs !== undefined) {
    for (const key of Object.keys(kwargs)) {
      const v = kwargs[key];
      let index = -1;
      for (let i = first; i < params.length; i++)
        if (params[i]!.name === key) index = i;
      if (index < 0) {
        throw new ArgumentError(
          `${op.name}() got an unexpected keyword argument '${key}'`,
        );
      }
      if (v === undefined) continue;
      if (values[index] !== UNSET)
        throw new ArgumentError(
          `${op.name}() got multiple values for argument '${key}'`,
        );
      values[index] = check(
        op,
        params[index]!,
        v,
        0,
        params,
        values,
        first === 1,
      );
    }
  }
  const out: Record<string, unknown> = {};
  let missing: string[] | undefined;
  for (let i = 0; i < params.length; i++) {
    const p = params[i]!;
    const v = values[i];
    if (v !== UNSET) {
      out[p.name] = v;
      continue;
    }
    if (!p.required) {
      out[p.name] = p.default === undefined ? null : p.default;
      continue;
    }
    if (i - first < args.length) {
      // An explicit `undefined`: None, which a `T?` argument takes.
      if (p.nullable) {
        out[p.name] = null;
        continue;
      }
      throw typeError(op, p, undefined, i - first + 1, first === 1);
    }
    (missing ??= []).push(p.name);
  }
  if (missing !== undefined) {
    const names = op.python
      ? missing.map((m) => `'${m}'`).join(" and ")
      : missing.map((m) => `"${m}"`).join(", ");
    // Python says "argument" for one; PyTorch's binding has the plural backwards ("1 required
    // positional arguments", "2 required positional argument"), as its message does.
    const word =
      op.python === (missing.length === 1) ? "argument" : "arguments";
    throw new ArgumentError(
      `${op.name}() missing ${missing.length} required positional ${word}: ${names}`,
    );
  }
  return out;
}

/** Checks one value against its parameter; `position` 0 for a keyword argument. */
function check(
  op: OpSchema,
  p: Param,
  v: unknown,
  position: number,
  params: readonly Param[],
  values: readonly unknown[],
  self: boolean,
): unknown {
  if (v === null) {
    if (p.nullable || p.kinds.includes("any")) return null;
    throw typeError(op, p, v, position, self);
  }
  if (p.items.length > 0 && (Array.isArray(v) || ArrayBuffer.isView(v))) {
    const items = Array.from(v as ArrayLike<unknown>);
    // A list of another length than `int[2]`'s is left to the op, whose message names the dims
    // it expected ("a list of 2 values to match the convolution dimensions").
    const list = items.map((item, i) => {
      if (!accepts(p.items, item)) {
        if (p.items.includes("Tensor"))
          throw new ArgumentError(
            op.python
              ? `${op.name}(): expected Tensor as element ${i} in argument '${p.name}', but got ${pyTypeName(item)}`
              : // The native bindings' wording: the argument by its place in the signature
                // (a method's self not counted), given by position or by keyword alike.
                `expected Tensor as element ${i} in argument ${params.indexOf(p) - (self ? 1 : 0)}, but got ${pyTypeName(item)}`,
          );
        throw new ArgumentError(
          `${op.name}(): argument '${p.name}' must be ${listName(p)}, but found element of type ${pyTypeName(item)} at pos ${i}`,
        );
      }
      return refine(op, p, item, params, values);
    });
    if (p.items.includes("Dim")) checkDistinct(list as number[]);
    return list;
  }
  if (accepts(p.kinds, v)) return refine(op, p, v, params, values);
  if (p.list > 0 && accepts(p.items, v))
    return new Array<unknown>(p.list).fill(refine(op, p, v, params, values));
  throw typeError(op, p, v, position, self);
}

function checkDistinct(dims: number[]): void {
  const seen = new Set<number>();
  for (const d of dims) {
    if (seen.has(d))
      throw new TorchError(
        `dim ${d} appears multiple times in the list of dims`,
      );
    seen.add(d);
  }
}

/** Whether `v` is of one of `kinds` (before range and value checks). */
function accepts(kinds: readonly Kind[], v: unknown): boolean {
  for (const kind of kinds) {
    switch (kind) {
      case "Tensor":
        if (v instanceof Tensor) return true;
        break;
      case "Scalar":
        if (typeof v === "number" || typeof v === "boolean") return true;
        break;
      case "int":
      case "Dim":
        if (typeof v === "number" && Number.isInteger(v)) return true;
        break;
      case "float":
        if (typeof v === "number") return true;
        break;
      case "bool":
        if (typeof v === "boolean") return true;
        break;
      case "str":
      case "ScalarType":
      case "Device":
        if (typeof v === "string") return true;
        break;
      case "Generator":
        if (typeof v === "object") return true;
        break;
      case "Callable":
        if (typeof v === "function") return true;
        break;
      case "object":
        if (typeof v === "object" && v !== null && !isOptions(v)) return true;
        break;
      case "any":
        return true;
    }
  }
  return false;
}

/** Range, value and liveness checks of a value of the right kind; wraps dims. */
function refine(
  op: OpSchema,
  p: Param,
  v: unknown,
  params: readonly Param[],
  values: readonly unknown[],
): unknown {
  if (v instanceof Tensor) {
    void v._raw; // throws "Tensor has been disposed"
    return v;
  }
  const has = (kind: Kind): boolean =>
    p.kinds.includes(kind) || p.items.includes(kind);
  if (typeof v === "number" && Number.isInteger(v)) {
    // A positive size past 32 bits goes on to the op: its allocation check makes it the
    // OutOfMemoryError PyTorch's allocator would raise.
    if (
      Math.abs(v) > INT32_MAX &&
      (has("int") || has("Dim")) &&
      !has("float") &&
      !(p.name === "size" && v > 0)
    )
      throw new ArgumentError(
        `${op.name}(): argument '${p.name}' value ${v} is out of range (32-bit integers only)`,
      );
    if (has("Dim")) return wrapDim(v, reference(params, values));
  }
  // PyTorch's device spellings ("cuda", "cuda:0", "cpu:0") as webtorch's device names.
  if (typeof v === "string" && has("Device") && isDeviceName(v))
    return canonicalDevice(v);
  if (typeof v === "string" && has("ScalarType") && !DTYPES.has(v))
    throw new DTypeError(
      `${op.name}(): argument '${p.name}' must be torch.dtype, not str ('${v}' is not a dtype)`,
    );
  if (
    p.values !== undefined &&
    typeof v === typeof p.values[0] &&
    !p.values.includes(v as string | number)
  ) {
    const template =
      p.message ??
      `${op.name}(): argument '{name}' must be one of {allowed}, but got {value}`;
    throw new TorchError(
      template
        .replaceAll("{name}", p.name)
        .replaceAll("{value}", String(v))
        .replaceAll(
          "{allowed}",
          p.values
            .map((a) => (typeof a === "string" ? `'${a}'` : a))
            .join(", "),
        ),
    );
  }
  return v;
}

/** The rank dims are counted against: the op's first tensor argument, once parsed. */
function reference(
  params: readonly Param[],
  values: readonly unknown[],
): number | undefined {
  for (let i = 0; i < params.length; i++) {
    const v = values[i];
    if (v instanceof Tensor) return v.shape.length;
  }
  return undefined;
}

function wrapDim(dim: number, ndim: number | undefined): number {
  if (ndim === undefined) return dim;
  // A 0-d tensor takes dims -1 and 0, as PyTorch's wrap_dim does with scalars.
  const n = Math.max(ndim, 1);
  if (dim < -n || dim >= n)
    throw new IndexError(
      `Dimension out of range (expected to be in range of [${-n}, ${n - 1}], but got ${dim})`,
    );
  return dim < 0 ? dim + n : dim;
}

function listName(p: Param): string {
  const kind = p.items[0]!;
  return LIST_NAMES[kind] ?? `tuple of ${KIND_NAMES[kind]}`;
}

function typeError(
  op: OpSchema,
  p: Param,
  v: unknown,
  position: number,
  self = false,
): ArgumentError {
  const got = pyTypeName(v);
  // An overloaded binding reports any argument it cannot match as a wrong combination.
  if (op.overloaded) {
    const kinds = [...new Set([...p.kinds, ...p.items])];
    const signatures = kinds.map((k) => `(${describe(op, p, k)})`).join(", ");
    // A method's message leaves out the tensor it was called on, as PyTorch's does.
    const given = op.params
      .slice(self ? 1 : 0)
      .filter((q) => q === p || q.required);
    return new ArgumentError(
      `${op.name}() received an invalid combination of arguments - got (${given
        .map((q) => (q === p ? got : "Tensor"))
        .join(", ")}), but expected one of: ${signatures}`,
    );
  }
  const at = position > 0 ? ` (position ${position})` : "";
  // A union with Tensor is a Tensor argument that also takes numbers (PyTorch wraps them).
  // A value-or-list union of one kind (`int|int[]`: a size, which also takes one int) is named
  // by its list, as PyTorch names `int[]`.
  const names = p.kinds.includes("Tensor")
    ? ["Tensor"]
    : p.kinds.every((k) => p.items.includes(k))
      ? []
      : p.kinds.map((k) => KIND_NAMES[k]);
  if (p.items.length > 0) names.push(listName(p));
  const expected = [...new Set(names)].join(" or ");
  return new ArgumentError(
    `${op.name}(): argument '${p.name}'${at} must be ${expected}, not ${got}`,
  );
}

/** One overload of a union parameter, as PyTorch lists it: `Tensor input, Number other`. */
function describe(op: OpSchema, union: Param, kind: Kind): string {
  return op.params
    .filter((q) => q.required || q === union)
    .map(
      (q) =>
        `${q === union ? KIND_NAMES[kind] : KIND_NAMES[q.kinds[0]!]} ${q.name}`,
    )
    .join(", ");
}

/**
 * Overload resolution as PyTorch's argument parser does it: the first overload the arguments
 * parse against wins. When none does, the error is that of the one overload the call could have
 * meant (its positional count fits, its keywords are its own, its required arguments are given);
 * with none or several such, PyTorch's "invalid combination of arguments" listing them all.
 */
function parseOverloads(
  schema: OpSchema,
  args: ArrayLike<unknown>,
  name?: string,
): Record<string, unknown> {
  const overloads = schema.overloads!;
  const errors: unknown[] = [];
  for (const params of overloads) {
    try {
      return parseArgs(
        { ...schema, params, overloads: undefined },
        args,
        undefined,
        name,
      );
    } catch (e) {
      if (!(e instanceof TorchError)) throw e;
      errors.push(e);
    }
  }
  let count = args.length;
  while (count > 0 && args[count - 1] === undefined) count--;
  const last = count > 0 ? args[count - 1] : undefined;
  // PyTorch counts the arguments given, positional and keyword, against each overload's range.
  const plausible = overloads.flatMap((params, i) => {
    const at = params[count - 1];
    const isKw =
      isOptions(last) &&
      (at === undefined || at.kwOnly || !at.kinds.includes("any"));
    const given =
      count -
      (isKw ? 1 : 0) +
      (isKw ? Object.values(last).filter((v) => v !== undefined).length : 0);
    const required = params.filter((p) => p.required).length;
    const fits =
      given >= required &&
      (given <= params.length || params.some((p) => p.varargs));
    return fits ? [i] : [];
  });
  if (plausible.length === 1) throw errors[plausible[0]!];
  const got: string[] = [];
  for (let i = 0; i < count; i++) {
    const v = args[i];
    if (i === count - 1 && isOptions(v))
      for (const [k, x] of Object.entries(v)) {
        if (x !== undefined) got.push(`${k}=${pyTypeName(x)}`);
      }
    else got.push(pyTypeName(v));
  }
  const signature = (params: readonly Param[]): string => {
    const parts: string[] = [];
    params.forEach((p, i) => {
      if (p.kwOnly && (i === 0 || !params[i - 1]!.kwOnly)) parts.push("*");
      const type = p.kinds.includes("Tensor")
        ? "Tensor"
        : p.items.length > 0
          ? listName(p)
          : KIND_NAMES[p.kinds[0]!];
      parts.push(
        p.required
          ? `${type} ${p.name}`
          : `${type} ${p.name} = ${pyLiteral(p.default)}`,
      );
    });
    return parts.join(", ");
  };
  throw new ArgumentError(
    `${name ?? schema.name}() received an invalid combination of arguments - got (${got.join(", ")}), but expected one of:\n${overloads
      .map((params) => ` * (${signature(params)})\n`)
      .join("")}`,
  );
}

/** A default as Python prints it: None, True, 1, 'mean'. */
function pyLiteral(v: unknown): string {
  if (v === null || v === undefined) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  return Array.isArray(v) ? `[${v.map(pyLiteral).join(", ")}]` : String(v);
}
