/**
 * Printing tensors as PyTorch does: `await t.format()` is the text `repr(t)` gives in Python
 * (`tensor([[1., 2.],\n        [3., 4.]])`), and `await t.print()` writes it to the console.
 *
 * The rules follow PyTorch's printing: one formatter per tensor picks integer mode
 * (floats that are all whole print as `1.`), scientific notation (when the largest and smallest
 * nonzero finite magnitudes differ by more than 1000×, or one is above 1e8 or below 1e-4) and a
 * common width; rows wrap at `linewidth`; tensors of more than `threshold` elements are summarised
 * with `...`, keeping `edgeitems` at each end of every dim; suffixes (`device=`, `size=`,
 * `dtype=`, `grad_fn=<…>` / `requires_grad=True`) follow, on a new line when they would pass
 * `linewidth`. Every {@link set_printoptions} option is honoured. Numbers are rounded exactly as
 * Python's `format` rounds them (the exact binary value, ties to even), not as JS's `toFixed`.
 *
 * Without a read: `toString()`, `${t}`, `console.log(t)` in Node (`util.inspect`) and DevTools
 * (with custom formatters enabled) print the same text when the values are on the host — a CPU
 * tensor, or a tensor read before (`await t.tolist()`, `item()`, `toArray()`, `print()`) whose
 * storage has not been written since — and otherwise the size, dtype and device with how to see
 * the values (`await t.print()`).
 *
 * Differences from PyTorch: the device suffix names webtorch's devices (`device='cpu'` on a
 * tensor off the default device, which is WebGPU when there is an adapter), and only the edges
 * of a summarised tensor are read back from the device.
 *
 * @module
 */

import { Tensor, type TypedArray, _setPrinter, hostValues } from "./tensor.js";
import { no_grad } from "../autograd/grad_mode.js";
import { tensor } from "../ops/creation.js";
import { get_default_device } from "../runtime.js";
import { defaultFloat } from "../defaults.js";
import { get_printoptions, type PrintOptions } from "../state.js";
import { Parameter } from "../nn/module.js";
import "../ops/indexing.js"; // installs index_select, which summarising uses

declare module "./tensor.js" {
  interface Tensor {
    /**
     * The tensor as PyTorch's `repr()` prints it (reads the values back from the device):
     * `tensor([[1., 2.],\n        [3., 4.]])`, summarised past `threshold` elements, with the
     * dtype, `grad_fn`/`requires_grad` suffixes. Honours {@link set_printoptions}.
     */
    format(): Promise<string>;
    /** Writes {@link Tensor.format}'s text to the console (`console.log`). */
    print(): Promise<void>;
  }
}

/** Whether `dtype` prints without a `dtype=` suffix (PyTorch: the default float dtype, int64, bool). */
const implied = (dtype: string): boolean =>
  dtype === defaultFloat() || dtype === "int64" || dtype === "bool";
const FLOAT_DTYPES = new Set(["float32", "float16", "bfloat16", "float64"]);

/**
 * PyTorch's `repr(t)` for `t`: the function behind {@link Tensor.format}. A `Parameter` prints
 * as `Parameter containing:\ntensor(…)`, as in PyTorch.
 */
export async function format(t: Tensor): Promise<string> {
  const opts = get_printoptions();
  const cut = cutDims(t, opts);
  const values =
    t.numel() === 0 ? new Float32Array(0) : await readShown(t, cut, opts);
  const text = compose(t, values, cut, opts);
  return t instanceof Parameter ? `Parameter containing:\n${text}` : text;
}

/**
 * {@link format}'s text now (without the `Parameter containing:` line, which
 * `Parameter.toString()` adds), when the values are on the host without a wait (a CPU tensor, or
 * one read before and not written since: `hostValues`); else the shape, dtype and device, and
 * how to see the values. What `toString()`, `${t}`, `console.log(t)` (Node's `util.inspect`)
 * and DevTools' custom formatters show.
 */
export function formatNow(t: Tensor): string {
  if (t.isDisposed) return "tensor(<disposed>)";
  const opts = get_printoptions();
  const cut = cutDims(t, opts);
  let values: TypedArray | null;
  if (t.numel() === 0) values = new Float32Array(0);
  else if (t.device === "cpu") values = readShownCpu(t, cut, opts.edgeitems);
  else {
    const all = hostValues(t);
    values = all && pickShown(all, t.shape, cut, opts);
  }
  if (values === null) return notRead(t);
  return compose(t, values, cut, opts);
}

/** The text of a tensor whose values are on the GPU, not read yet. */
function notRead(t: Tensor): string {
  const suffixes = [
    `size=${pyTuple(t.shape)}`,
    `dtype=torch.${t.dtype}`,
    `device='${t.device}'`,
  ];
  const gradFn = t.grad_fn;
  if (gradFn !== null) suffixes.push(`grad_fn=<${gradFn.name}>`);
  else if (t.requires_grad) suffixes.push("requires_grad=True");
  const text = `tensor(${suffixes.join(", ")})`;
  const hint = `[values on the GPU, not read yet: await t.print() or await t.tolist()]`;
  return `${text} ${hint}`;
}

/** Which dims are cut: PyTorch summarises a dim when it has more than 2 * edgeitems entries. */
function cutDims(t: Tensor, opts: PrintOptions): boolean[] {
  const summarize = t.numel() > opts.threshold;
  return t.shape.map((n) => summarize && n > 2 * opts.edgeitems);
}

/** The text, from the values shown (`cut` dims already cut to their edges). */
function compose(
  t: Tensor,
  values: TypedArray,
  cut: boolean[],
  opts: PrintOptions,
): string {
  const prefix = "tensor(";
  const indent = prefix.length;
  const shape: readonly number[] = t.shape;
  const suffixes: string[] = [];
  if (t.device !== get_default_device()) suffixes.push(`device='${t.device}'`);
  let body: string;
  if (t.numel() === 0) {
    // NumPy's rule: the shape is printed unless it is (0,); the dtype unless it is the default
    // float dtype (nothing in an empty tensor tells int64 apart).
    if (shape.length !== 1) suffixes.push(`size=${pyTuple(shape)}`);
    if (t.dtype !== defaultFloat()) suffixes.push(`dtype=torch.${t.dtype}`);
    body = "[]";
  } else {
    if (!opts.edgeitems) suffixes.push(`size=${pyTuple(shape)}`);
    if (!implied(t.dtype)) suffixes.push(`dtype=torch.${t.dtype}`);
    body = tensorBody(t, values, cut, indent, opts);
  }
  const gradFn = t.grad_fn;
  if (gradFn !== null) suffixes.push(`grad_fn=<${gradFn.name}>`);
  else if (t.requires_grad) suffixes.push("requires_grad=True");
  return addSuffixes(prefix + body, suffixes, indent, opts.linewidth);
}

/** `(2, 3)`, `(5,)`, `()`: a Python tuple's text. */
function pyTuple(shape: readonly number[]): string {
  return shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(", ")})`;
}

/** PyTorch's `_add_suffixes`: `, suffix` on the last line, or on a new line past `linewidth`. */
function addSuffixes(
  text: string,
  suffixes: string[],
  indent: number,
  linewidth: number,
): string {
  let out = text;
  // PyTorch counts two more than the last line's length (its `rfind` arithmetic); kept exactly.
  let lastLine = text.length - text.lastIndexOf("\n") + 1;
  for (const s of suffixes) {
    if (lastLine + s.length + 2 > linewidth) {
      out += ",\n" + " ".repeat(indent) + s;
      lastLine = indent + s.length;
    } else {
      out += ", " + s;
      lastLine += s.length + 2;
    }
  }
  return out + ")";
}

/** The bracketed values, from the values shown (see {@link compose}). */
function tensorBody(
  t: Tensor,
  values: TypedArray,
  cut: boolean[],
  indent: number,
  opts: PrintOptions,
): string {
  const shape: readonly number[] = t.shape;
  const summarize = t.numel() > opts.threshold;
  const edge = opts.edgeitems;
  const shown = shape.map((n, d) => (cut[d] ? 2 * edge : n));
  const fmt = new Formatter(t.dtype, values, opts);
  if (shape.length === 0) return fmt.format(values[0]!);

  const strides = shown.map((_, d) =>
    shown.slice(d + 1).reduce((a, b) => a * b, 1),
  );
  const render = (d: number, base: number, ind: number): string => {
    const n = shown[d]!;
    const pick = (i: number) => base + i * strides[d]!;
    if (d === shape.length - 1) {
      let items: string[];
      if (summarize && !edge) items = ["..."];
      else if (cut[d])
        items = [
          ...range(0, edge).map((i) => fmt.format(values[pick(i)]!)),
          " ...",
          ...range(edge, n).map((i) => fmt.format(values[pick(i)]!)),
        ];
      else items = range(0, n).map((i) => fmt.format(values[pick(i)]!));
      const perLine = Math.max(
        1,
        Math.floor((opts.linewidth - ind) / (fmt.width + 2)),
      );
      const lines: string[] = [];
      for (let i = 0; i < items.length; i += perLine)
        lines.push(items.slice(i, i + perLine).join(", "));
      return "[" + lines.join(",\n" + " ".repeat(ind + 1)) + "]";
    }
    const slices = cut[d]
      ? [
          ...range(0, edge).map((i) => render(d + 1, pick(i), ind + 1)),
          "...",
          ...range(edge, n).map((i) => render(d + 1, pick(i), ind + 1)),
        ]
      : range(0, n).map((i) => render(d + 1, pick(i), ind + 1));
    const rest = shape.length - d;
    return (
      "[" + slices.join("," + "\n".repeat(rest - 1) + " ".repeat(ind + 1)) + "]"
    );
  };
  return render(0, 0, indent);
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
}

/** The positions shown along a dim of `n`: all, or the first and last `edge` when cut. */
function shownIndices(n: number, cut: boolean, edge: number): number[] {
  return cut ? [...range(0, edge), ...range(n - edge, n)] : range(0, n);
}

/**
 * `t` cut on its device to the values shown (`edge` at each end of the cut dims); `made` collects
 * the tensors made, for the caller to dispose.
 */
function cutOnDevice(
  t: Tensor,
  cut: boolean[],
  edge: number,
  made: Tensor[],
): Tensor {
  let x = t;
  no_grad(() => {
    cut.forEach((c, d) => {
      if (!c) return;
      const idx = tensor(shownIndices(t.shape[d]!, true, edge), {
        dtype: "int64",
        device: t.device,
      });
      made.push(idx);
      x = x.index_select(d, idx);
      made.push(x);
    });
  });
  return x;
}

/** Reads the values shown: all of them, or (summarising) the first and last `edge` of cut dims. */
async function readShown(
  t: Tensor,
  cut: boolean[],
  opts: PrintOptions,
): Promise<TypedArray> {
  if (!cut.some(Boolean)) return t.toArray();
  if (opts.edgeitems === 0) return new Float32Array(0); // only "..." is printed
  const made: Tensor[] = [];
  try {
    return await cutOnDevice(t, cut, opts.edgeitems, made).toArray();
  } finally {
    for (const m of made) m.dispose();
  }
}

/** {@link readShown} for a CPU tensor, synchronously. */
function readShownCpu(t: Tensor, cut: boolean[], edge: number): TypedArray {
  if (!cut.some(Boolean)) return hostValues(t)!;
  if (edge === 0) return new Float32Array(0);
  const made: Tensor[] = [];
  try {
    return hostValues(cutOnDevice(t, cut, edge, made))!;
  } finally {
    for (const m of made) m.dispose();
  }
}

/** The values shown, picked from all the values (row-major) on the host. */
function pickShown(
  all: TypedArray,
  shape: readonly number[],
  cut: boolean[],
  opts: PrintOptions,
): TypedArray {
  if (!cut.some(Boolean)) return all;
  if (opts.edgeitems === 0) return new Float32Array(0);
  const picks = shape.map((n, d) => shownIndices(n, cut[d]!, opts.edgeitems));
  const strides = shape.map((_, d) =>
    shape.slice(d + 1).reduce((a, b) => a * b, 1),
  );
  const out: number[] = [];
  const walk = (d: number, base: number): void => {
    if (d === shape.length) {
      out.push(all[base]!);
      return;
    }
    for (const i of picks[d]!) walk(d + 1, base + i * strides[d]!);
  };
  walk(0, 0);
  // The same array type: an int32 value may not be exact in a float32.
  return (all.constructor as unknown as { from(a: number[]): TypedArray }).from(
    out,
  );
}

/**
 * PyTorch's `_Formatter`: one number style and width for every value printed. Integer and bool
 * tensors print their values as Python does (`True`/`False`); floating point ones pick integer
 * mode and scientific notation from the nonzero finite values shown.
 */
class Formatter {
  /** The width every value is right-aligned to. */
  width = 1;
  private readonly float: boolean;
  private readonly bool: boolean;
  private intMode = true;
  private sci = false;

  constructor(
    dtype: string,
    values: TypedArray,
    private readonly opts: PrintOptions,
  ) {
    this.float = FLOAT_DTYPES.has(dtype);
    this.bool = dtype === "bool";
    if (!this.float) {
      for (const v of values)
        this.width = Math.max(this.width, this.plain(v).length);
      return;
    }
    const finite = Array.from(values).filter(
      (v) => Number.isFinite(v) && v !== 0,
    );
    if (finite.length === 0) return;
    const abs = finite.map(Math.abs);
    const max = Math.max(...abs);
    const min = Math.min(...abs);
    this.intMode = finite.every((v) => v === Math.ceil(v));
    this.sci = opts.sci_mode ?? (max / min > 1000 || max > 1e8 || min < 1e-4);
    const p = opts.precision;
    for (const v of finite) {
      const s = this.sci
        ? pyExp(v, p)
        : this.intMode
          ? pyFixed(v, 0) + "."
          : pyFixed(v, p);
      this.width = Math.max(this.width, s.length);
    }
  }

  private plain(v: number): string {
    return this.bool ? (v ? "True" : "False") : String(v);
  }

  /** One value, right-aligned to {@link width}. */
  format(v: number): string {
    let s: string;
    if (!this.float) s = this.plain(v);
    else if (!Number.isFinite(v))
      s = Number.isNaN(v) ? "nan" : v > 0 ? "inf" : "-inf";
    else if (this.sci) s = pyExp(v, this.opts.precision);
    else if (this.intMode) s = pyFixed(v, 0) + ".";
    else s = pyFixed(v, this.opts.precision);
    return s.padStart(this.width);
  }
}

// ---- Python's number formatting ----
// Python's `format(x, ".4f")` rounds the exact binary value of `x` half to even; JS's `toFixed`
// rounds ties up and `toExponential` likewise. Both are done here on the exact decimal expansion
// of the double (BigInt arithmetic), so every digit matches Python's.

/** `|x| = digits / 10^scale` exactly, for finite `x`. */
function exactDecimal(x: number): { digits: bigint; scale: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const expBits = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & 0xfffffffffffffn;
  const mant = expBits === 0 ? frac : frac | (1n << 52n);
  const exp = (expBits === 0 ? 1 : expBits) - 1075; // |x| = mant * 2^exp
  if (exp >= 0) return { digits: mant << BigInt(exp), scale: 0 };
  return { digits: mant * 5n ** BigInt(-exp), scale: -exp };
}

/** `n / 10^k` rounded half to even. */
function roundDiv(n: bigint, k: number): bigint {
  if (k <= 0) return n * 10n ** BigInt(-k);
  const d = 10n ** BigInt(k);
  const q = n / d;
  const twice = (n % d) * 2n;
  return twice > d || (twice === d && q % 2n === 1n) ? q + 1n : q;
}

function sign(x: number): string {
  return x < 0 || Object.is(x, -0) ? "-" : "";
}

/** Python's `format(x, f".{p}f")` for finite `x`. */
export function pyFixed(x: number, p: number): string {
  const { digits, scale } = exactDecimal(x);
  const s = roundDiv(digits, scale - p)
    .toString()
    .padStart(p + 1, "0");
  const int = s.slice(0, s.length - p);
  return sign(x) + (p > 0 ? `${int}.${s.slice(s.length - p)}` : int);
}

/** Python's `format(x, f".{p}e")` for finite `x`: `1.2346e+08`, exponent at least two digits. */
export function pyExp(x: number, p: number): string {
  const { digits, scale } = exactDecimal(x);
  let mant: string;
  let e: number;
  if (digits === 0n) {
    mant = "0".repeat(p + 1);
    e = 0;
  } else {
    const len = digits.toString().length;
    e = len - 1 - scale;
    let q = roundDiv(digits, len - (p + 1));
    if (q.toString().length > p + 1) {
      q /= 10n; // rounding carried into a new digit (9.99995 → 1.0000e+01)
      e += 1;
    }
    mant = q.toString();
  }
  const m = p > 0 ? `${mant[0]}.${mant.slice(1)}` : mant;
  const ex = `${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  return `${sign(x)}${m}e${ex}`;
}

type Methods = Record<string, (this: Tensor, ...args: never[]) => unknown>;
const proto = Tensor.prototype as unknown as Methods;
proto.format = function (this: Tensor) {
  return format(this);
};
proto.print = async function (this: Tensor) {
  console.log(await format(this));
};

_setPrinter(formatNow);
// Node's `util.inspect` (so `console.log(t)` and the REPL) calls this symbol's method.
proto[Symbol.for("nodejs.util.inspect.custom") as unknown as string] =
  function (this: Tensor) {
    return this.toString();
  };

// DevTools' custom formatters (Settings → Console → "Enable custom formatters") show a tensor as
// its text instead of the object's fields.
const g = globalThis as { devtoolsFormatters?: unknown[]; document?: unknown };
if (g.document !== undefined) {
  g.devtoolsFormatters ??= [];
  g.devtoolsFormatters.push({
    header: (obj: unknown) =>
      obj instanceof Tensor
        ? ["div", { style: "white-space: pre" }, obj.toString()]
        : null,
    hasBody: () => false,
  });
}
