/**
 * `F.interpolate` (and `F.upsample`): resizing the spatial dims of `[N, C, ...spatial]` tensors
 * with `nearest`, `nearest-exact`, `linear` / `bilinear` / `trilinear` and `bicubic`.
 *
 * Every mode is separable, so one spatial dim is resized at a time: the source coordinate of each
 * output index follows PyTorch's rule (`align_corners`, an explicit `scale_factor` used as given),
 * the taps are `index_select`s and the weights are constants. Built from differentiable ops, it
 * carries gradients; bilinear is the product of two linear passes, bicubic of two cubic passes
 * (Keys' kernel, a = -0.75, taps clamped at the border), exactly as PyTorch computes them.
 *
 * `antialias` and uint8 input follow PyTorch's separable resampling kernels instead: each output
 * index reads a window of inputs with normalized filter weights (when downsampling with antialias
 * the filter is widened by the scale), the last spatial dim is resized first, and a dim whose size
 * is unchanged is not resampled. uint8 is computed as PyTorch's CPU kernels do, in fixed point:
 * int16 weights, each pass accumulating in int32, adding the rounding half, shifting and
 * saturating to 0..255 before the next pass.
 *
 * @module
 */

import { args, omit } from "../../schema/index.js";
import { DTypeError, TorchError } from "../../errors.js";
import { scalarTypeName } from "../../dtype.js";
import { checkHostAlloc, pyTypeName } from "../../args.js";
import { scope } from "../../lifetime.js";
import { tensor, zeros } from "../../ops/creation.js";
import { Function, type FunctionCtx } from "../../autograd/function.js";
import { Tensor, checkTensor } from "../../tensor/tensor.js";
import {
  adaptive_avg_pool1d,
  adaptive_avg_pool2d,
  adaptive_avg_pool3d,
} from "./pooling.js";

/** Options of {@link interpolate}. */
export interface InterpolateOptions {
  /** The output spatial size (one number for every spatial dim, or one per dim). */
  size?: number | readonly number[];
  /** The multiplier of each spatial size (one number or one per dim). */
  scale_factor?: number | readonly number[];
  /** Default `"nearest"`; `"area"` is adaptive average pooling to the output size. */
  mode?:
    | "nearest"
    | "nearest-exact"
    | "linear"
    | "bilinear"
    | "bicubic"
    | "trilinear"
    | "area";
  /** Linear/cubic modes: map corner pixels' centres onto each other. Default false. */
  align_corners?: boolean | null;
  /** Compute the source coordinates from the output size rather than the given scale. */
  recompute_scale_factor?: boolean | null;
  /** bilinear/bicubic of 4-D input: widen the filter by the scale when downsampling. Default false. */
  antialias?: boolean;
}

const SPATIAL: Record<string, number> = {
  linear: 1,
  bilinear: 2,
  bicubic: 2,
  trilinear: 3,
};

/** Per-dim values from one number or a list of the spatial rank (`what`: "output" or "scale_factor"). */
function perDim(
  what: string,
  v: number | readonly number[],
  inSizes: readonly number[],
): number[] {
  const rank = inSizes.length;
  if (typeof v === "number") return Array(rank).fill(v);
  if (!Array.isArray(v))
    throw new TorchError(
      `interpolate(): ${what === "output" ? "size" : what} must be a number or a list of numbers, not ${pyTypeName(v)}`,
    );
  if (v.length !== rank)
    throw new TorchError(
      `Input and ${what} must have the same number of spatial dimensions, but got input with spatial dimensions of [${inSizes.join(", ")}] and ${what} size of [${v.join(", ")}]. Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.`,
    );
  return [...v];
}

/** Source coordinate of output index `i` (PyTorch's area_pixel_compute_source_index). */
function source(
  i: number,
  inSize: number,
  outSize: number,
  scale: number | undefined,
  alignCorners: boolean,
  cubic: boolean,
): number {
  if (alignCorners) return outSize > 1 ? (i * (inSize - 1)) / (outSize - 1) : 0;
  const s = scale !== undefined ? 1 / scale : inSize / outSize;
  const x = s * (i + 0.5) - 0.5;
  return !cubic && x < 0 ? 0 : x;
}

/** Keys' cubic convolution weights for fractional offset t (a = -0.75). */
function cubicWeights(t: number): number[] {
  const a = -0.75;
  const near = (x: number) => ((a + 2) * x - (a + 3)) * x * x + 1;
  const far = (x: number) => ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return [far(t + 1), near(t), near(1 - t), far(2 - t)];
}

/** Keys' cubic convolution kernel with parameter `a` at offset `x`. */
function keys(a: number, x: number): number {
  x = Math.abs(x);
  if (x < 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0;
}

/** The triangle (linear interpolation) filter. */
function triangle(x: number): number {
  x = Math.abs(x);
  return x < 1 ? 1 - x : 0;
}

/**
 * Per output index of one dim, the window PyTorch's separable kernels read: its first input index
 * `start[i]`, its length `len[i]` (at most `taps`) and its float weights `w[i * taps + k]` (0 past
 * the window). With antialias (or uint8 bilinear) the weights are the filter around the source
 * centre, widened by the scale when downsampling with antialias, normalized to sum 1 over the
 * window cut at the borders (triangle for bilinear; Keys a = -0.5 for antialiased bicubic, a = -0.75
 * otherwise). uint8 bicubic without antialias has the float kernel's four taps clamped at the
 * border, the weights of taps clamped onto the same index summed.
 */
interface Windows {
  start: Int32Array;
  len: Int32Array;
  w: Float64Array;
  taps: number;
}

/** The {@link Windows} of one dim resized from `inSize` to `outSize`, as PyTorch computes them. */
function windows(
  inSize: number,
  outSize: number,
  scaleFactor: number | undefined,
  alignCorners: boolean,
  cubic: boolean,
  antialias: boolean,
): Windows {
  // PyTorch's area_pixel_compute_scale (in double for these kernels).
  const scale = alignCorners
    ? outSize > 1
      ? (inSize - 1) / (outSize - 1)
      : 0
    : scaleFactor !== undefined && scaleFactor > 0
      ? 1 / scaleFactor
      : inSize / outSize;
  const interp = cubic ? 4 : 2;
  const support = antialias && scale >= 1 ? interp * 0.5 * scale : interp * 0.5;
  const taps = antialias ? Math.ceil(support) * 2 + 1 : interp;
  checkHostAlloc("interpolate", outSize, 2 * 4 + taps * 8);
  const start = new Int32Array(outSize);
  const len = new Int32Array(outSize);
  const w = new Float64Array(outSize * taps);
  if (cubic && !antialias) {
    for (let i = 0; i < outSize; i++) {
      const s = alignCorners ? scale * i : scale * (i + 0.5) - 0.5;
      const f = Math.floor(s);
      const t = s - f;
      const lo = Math.min(Math.max(f - 1, 0), inSize - 1);
      const hi = Math.min(Math.max(f + 2, 0), inSize - 1);
      start[i] = lo;
      len[i] = hi - lo + 1;
      for (let k = 0; k < 4; k++) {
        const at = Math.min(Math.max(f - 1 + k, 0), inSize - 1);
        w[i * taps + at - lo] = w[i * taps + at - lo]! + keys(-0.75, t + 1 - k);
      }
    }
    return { start, len, w, taps };
  }
  const filter = cubic
    ? (x: number) => keys(antialias ? -0.5 : -0.75, x)
    : triangle;
  // uint8 with align_corners (and no antialias) centres the window on `scale * i`.
  const delta = alignCorners && !antialias ? 0.5 : 0;
  const inv = antialias && scale >= 1 ? 1 / scale : 1;
  for (let i = 0; i < outSize; i++) {
    const centre = scale * (i + 0.5 - delta);
    const lo = Math.max(Math.trunc(centre - support + 0.5 + delta), 0);
    const n = Math.min(
      Math.max(
        Math.min(Math.trunc(centre + support + 0.5 + delta), inSize) - lo,
        0,
      ),
      taps,
    );
    start[i] = lo;
    len[i] = n;
    let total = 0;
    for (let k = 0; k < n; k++) {
      const v = filter((k + lo - centre + 0.5 - delta) * inv);
      w[i * taps + k] = v;
      total += v;
    }
    if (total !== 0) for (let k = 0; k < n; k++) w[i * taps + k]! /= total;
  }
  return { start, len, w, taps };
}

/**
 * The weights as PyTorch's uint8 kernels use them: scaled by 2^precision and rounded half away from
 * zero to integers, the precision the largest (below 22) that keeps the largest weight under 2^15.
 */
function fixedPoint(win: Windows): { w: Int32Array; precision: number } {
  let max = 0;
  for (const v of win.w) max = Math.max(max, v);
  let precision = 0;
  while (
    precision < 22 &&
    Math.trunc(0.5 + max * 2 ** (precision + 1)) < 1 << 15
  )
    precision++;
  const w = new Int32Array(win.w.length);
  win.w.forEach((v, j) => {
    const x = v * 2 ** precision;
    w[j] = x < 0 ? Math.trunc(x - 0.5) : Math.trunc(x + 0.5);
  });
  return { w, precision };
}

/**
 * `x` resampled along `dim` to `outSize` through PyTorch's windows: float weights for float `x`,
 * PyTorch's fixed-point arithmetic for uint8 `x` (held as int32, values 0..255).
 */
function resampleDim(
  x: Tensor,
  dim: number,
  win: Windows,
  integer: boolean,
): Tensor {
  const outSize = win.start.length;
  const device = x.device;
  const { taps } = win;
  const fixed = integer ? fixedPoint(win) : undefined;
  const wshape = x.shape.map((_, d) => (d === dim ? outSize : 1));
  let y: Tensor | undefined;
  for (let k = 0; k < taps; k++) {
    const at = new Int32Array(outSize);
    const pad = new Uint8Array(outSize);
    let padded = false;
    for (let i = 0; i < outSize; i++) {
      // A tap past the window reads the window's first input with weight 0.
      at[i] = k < win.len[i]! ? win.start[i]! + k : win.start[i]!;
      pad[i] = k < win.len[i]! ? 0 : 1;
      padded ||= pad[i] === 1;
    }
    let term = x.index_select(dim, tensor(at, { dtype: "int64", device }));
    if (fixed) {
      const wk = Int32Array.from(
        { length: outSize },
        (_, i) => fixed.w[i * taps + k]!,
      );
      term = term.mul(tensor(wk, { dtype: "int32", device }).reshape(wshape));
    } else {
      const wk = Float64Array.from(
        { length: outSize },
        (_, i) => win.w[i * taps + k]!,
      );
      term = term.mul(tensor(wk, { dtype: x.dtype, device }).reshape(wshape));
      // PyTorch reads only the window: a tap past it contributes 0 even where the input is inf or NaN.
      if (padded)
        term = term.masked_fill(
          tensor(pad, { dtype: "bool", device }).reshape(wshape),
          0,
        );
    }
    y = y === undefined ? term : y.add(term);
  }
  if (!fixed) return y!;
  return y!
    .add(2 ** (fixed.precision - 1))
    .bitwise_right_shift(fixed.precision)
    .clamp(0, 255);
}

/** Whether every output index reads exactly its own input index with weight 1. */
function isIdentity(win: Windows): boolean {
  for (let i = 0; i < win.start.length; i++)
    if (win.len[i] !== 1 || win.start[i] !== i || win.w[i * win.taps] !== 1)
      return false;
  return true;
}

/**
 * The transpose of {@link resampleDim}'s float pass: `g` (one entry per output index along `dim`)
 * spread back onto `inSize` input indices through the windows' weights.
 */
function resampleDimTransposed(
  g: Tensor,
  dim: number,
  inSize: number,
  win: Windows,
): Tensor {
  const outSize = g.shape[dim]!;
  const device = g.device;
  const wshape = g.shape.map((_, d) => (d === dim ? outSize : 1));
  let gx = zeros(
    g.shape.map((n, d) => (d === dim ? inSize : n)),
    { dtype: g.dtype, device },
  );
  for (let k = 0; k < win.taps; k++) {
    const at = new Int32Array(outSize);
    const wk = new Float64Array(outSize);
    for (let i = 0; i < outSize; i++) {
      const inside = k < win.len[i]!;
      at[i] = win.start[i]! + (inside ? k : 0);
      wk[i] = inside ? win.w[i * win.taps + k]! : 0;
    }
    gx = gx.index_add(
      dim,
      tensor(at, { dtype: "int64", device }),
      g.mul(tensor(wk, { dtype: g.dtype, device }).reshape(wshape)),
    );
  }
  return gx;
}

/**
 * A dim whose size an explicit scale_factor leaves unchanged: PyTorch's forward copies it, while
 * its backward still spreads the gradient through that scale's windows. The same here.
 */
class UnchangedDim extends Function {
  static override forward(
    ctx: FunctionCtx,
    x: Tensor,
    dim: number,
    win: Windows,
  ): Tensor {
    ctx.dim = dim;
    ctx.win = win;
    return x.clone();
  }

  static override backward(ctx: FunctionCtx, g: Tensor): [Tensor, null, null] {
    const dim = ctx.dim as number;
    const win = ctx.win as Windows;
    return [resampleDimTransposed(g, dim, g.shape[dim]!, win), null, null];
  }
}

/** `x` resized along `dim` to `outSize` (one separable pass). */
function resizeDim(
  x: Tensor,
  dim: number,
  outSize: number,
  scale: number | undefined,
  mode: string,
  alignCorners: boolean,
): Tensor {
  const inSize = x.shape[dim]!;
  const device = x.device;
  // The index and weight tables have `outSize` entries each, a size the caller chose: typed
  // arrays checked against the CPU budget first (at most 4 taps and 4 weights, each also copied
  // to float64 by `tensor`), so that no size can exhaust V8's heap.
  checkHostAlloc("interpolate", outSize, 4 * (4 + 8) + 4 * (8 + 8));
  const idx = (v: Int32Array) => tensor(v, { dtype: "int64", device });
  const clampI = (v: number) => Math.min(Math.max(v, 0), inSize - 1);
  // Weights broadcast along `dim`: shape [1, …, out, …, 1].
  const wshape = x.shape.map((_, d) => (d === dim ? outSize : 1));
  const weight = (v: Float64Array) => tensor(v, { device }).reshape(wshape);
  if (mode === "nearest" || mode === "nearest-exact") {
    // PyTorch computes the nearest index in float32: so do we, to agree at exact boundaries.
    const f = Math.fround;
    const s = f(scale !== undefined ? 1 / scale : inSize / outSize);
    const src = new Int32Array(outSize);
    for (let i = 0; i < outSize; i++)
      src[i] = clampI(
        Math.floor(mode === "nearest" ? f(f(i) * s) : f(f(i + 0.5) * s)),
      );
    return x.index_select(dim, idx(src));
  }
  if (mode === "cubic") {
    const taps = [0, 1, 2, 3].map(() => new Int32Array(outSize));
    const ws = [0, 1, 2, 3].map(() => new Float64Array(outSize));
    for (let i = 0; i < outSize; i++) {
      const s = source(i, inSize, outSize, scale, alignCorners, true);
      const f = Math.floor(s);
      const w = cubicWeights(s - f);
      for (let k = 0; k < 4; k++) {
        taps[k]![i] = clampI(f - 1 + k);
        ws[k]![i] = w[k]!;
      }
    }
    let y: Tensor | undefined;
    for (let k = 0; k < 4; k++) {
      const term = x.index_select(dim, idx(taps[k]!)).mul(weight(ws[k]!));
      y = y === undefined ? term : y.add(term);
    }
    return y!;
  }
  // linear
  const lo = new Int32Array(outSize);
  const hi = new Int32Array(outSize);
  const w0 = new Float64Array(outSize);
  const w1 = new Float64Array(outSize);
  for (let i = 0; i < outSize; i++) {
    const s = source(i, inSize, outSize, scale, alignCorners, false);
    const f = Math.min(Math.floor(s), inSize - 1);
    lo[i] = f;
    hi[i] = Math.min(f + 1, inSize - 1);
    w1[i] = s - f;
    w0[i] = 1 - (s - f);
  }
  const a = x.index_select(dim, idx(lo));
  const b = x.index_select(dim, idx(hi));
  return a.mul(weight(w0)).add(b.mul(weight(w1)));
}

/**
 * Resizes the spatial dims of `input` (`[N, C, L]`, `[N, C, H, W]` or `[N, C, D, H, W]`) to `size`
 * or by `scale_factor`, as `torch.nn.functional.interpolate`.
 */
export function interpolate(
  input: Tensor,
  options?: InterpolateOptions,
): Tensor {
  const a = args("nn.functional.interpolate", arguments);
  ({ input } = a);
  options = omit(a, "input") as InterpolateOptions;
  const x = checkTensor("interpolate", "input", input);
  const mode = options.mode ?? "nearest";
  const rank = x.ndim - 2;
  if (rank < 1 || rank > 3)
    throw new TorchError(
      `Input Error: Only 3D, 4D and 5D input Tensors supported (got ${x.ndim}D) for the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact (got ${mode})`,
    );
  const need = SPATIAL[mode];
  const area = mode === "area";
  if (
    need === undefined &&
    mode !== "nearest" &&
    mode !== "nearest-exact" &&
    !area
  )
    throw new TorchError(
      `Input Error: Only 3D, 4D and 5D input Tensors supported (got ${x.ndim}D) for the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact (got ${mode})`,
    );
  if (
    (mode === "nearest" || mode === "nearest-exact" || area) &&
    options.align_corners != null
  )
    throw new TorchError(
      "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear",
    );
  if ((options.size == null) === (options.scale_factor == null))
    throw new TorchError(
      options.size == null
        ? "either size or scale_factor should be defined"
        : "only one of size or scale_factor should be defined",
    );
  const inSizes = x.shape.slice(2);
  let sizes: number[];
  let scales: (number | undefined)[];
  if (options.size != null) {
    sizes = perDim("output", options.size, inSizes);
    scales = sizes.map(() => undefined);
  } else {
    const f = perDim("scale_factor", options.scale_factor!, inSizes);
    sizes = inSizes.map((s, i) => Math.floor(s * f[i]!));
    scales = options.recompute_scale_factor ? f.map(() => undefined) : f;
  }
  const antialias = Boolean(options.antialias);
  if (antialias && !((mode === "bilinear" || mode === "bicubic") && rank === 2))
    throw new TorchError(
      "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D tensor as input",
    );
  if (need !== undefined && need !== rank)
    throw new TorchError(
      `Got ${x.ndim}D input, but ${mode} mode needs ${need + 2}D input`,
    );
  for (const s of sizes)
    if (!Number.isInteger(s) || s <= 0)
      throw new TorchError(
        `Input and output sizes should be greater than 0, but got input (${inSizes.join(", ")}) and output (${sizes.join(", ")})`,
      );
  checkDType(x, mode, rank, antialias);
  // "area" is adaptive average pooling to the output size, as in PyTorch.
  if (area)
    return rank === 1
      ? adaptive_avg_pool1d(x, sizes[0]!)
      : rank === 2
        ? adaptive_avg_pool2d(x, sizes)
        : adaptive_avg_pool3d(x, sizes);
  const kernel =
    mode === "bicubic" ? "cubic" : mode.includes("linear") ? "linear" : mode;
  const align = Boolean(options.align_corners);
  if (antialias || x.dtype === "uint8") {
    if (kernel === "linear" || kernel === "cubic")
      return separable(x, sizes, scales, kernel === "cubic", align, antialias);
  }
  return scope(() => {
    let y = x;
    for (let d = 0; d < rank; d++)
      y = resizeDim(y, d + 2, sizes[d]!, scales[d], kernel, align);
    return y === x ? x.clone() : y;
  });
}

/**
 * 2-D bilinear or bicubic through PyTorch's separable kernels (antialias, or uint8 input): the
 * width first, then the height, a dim of unchanged size left as it is.
 */
function separable(
  x: Tensor,
  sizes: readonly number[],
  scales: readonly (number | undefined)[],
  cubic: boolean,
  alignCorners: boolean,
  antialias: boolean,
): Tensor {
  const [inH, inW] = [x.shape[2]!, x.shape[3]!];
  const [outH, outW] = [sizes[0]!, sizes[1]!];
  const integer = x.dtype === "uint8";
  // PyTorch's CPU kernels misbehave on these shapes (they take the tensor for channels-last when
  // its width is 1): its generic kernel (antialias of floats, uint8 of more than 4 channels)
  // repeats the first output row down the height, and its uint8 kernel of 3 channels fails an
  // internal assert for a 1×1 output. webtorch refuses rather than differ.
  const name = `${integer ? "uint8 " : ""}${cubic ? "bicubic" : "bilinear"}${antialias ? " with antialias" : ""}`;
  if (
    (!integer || x.shape[1]! > 4) &&
    outW === 1 &&
    inH > 1 &&
    outH > 1 &&
    outH !== inH
  )
    throw new TorchError(
      `interpolate(): ${name} to an output width of 1 and a height of ${outH} from ${inH} is not supported: PyTorch's CPU kernel returns its first output row repeated there`,
    );
  if (
    integer &&
    x.shape[1] === 3 &&
    outH === 1 &&
    outW === 1 &&
    (inH !== 1 || inW !== 1)
  )
    throw new TorchError(
      `interpolate(): ${name} of 3 channels to a 1×1 output is not supported: PyTorch's CPU kernel fails an internal assert there`,
    );
  return scope(() => {
    let y = integer ? x.to("int32") : x;
    const dims = [
      [3, inW, outW, scales[1]],
      [2, inH, outH, scales[0]],
    ] as const;
    for (const [dim, inSize, outSize, scale] of dims) {
      const win = windows(
        inSize,
        outSize,
        scale,
        alignCorners,
        cubic,
        antialias,
      );
      if (outSize !== inSize) y = resampleDim(y, dim, win, integer);
      else if (!integer && !isIdentity(win))
        y = UnchangedDim.apply(y, dim, win) as Tensor;
    }
    if (integer) return y.to("uint8");
    return y === x ? x.clone() : y;
  });
}

/**
 * PyTorch's kernels take floating-point inputs, and uint8 for nearest (every rank) and 2-D
 * bilinear and bicubic; its message names the kernel that refuses.
 */
function checkDType(
  x: Tensor,
  mode: string,
  rank: number,
  antialias: boolean,
): void {
  if (x.is_floating_point()) return;
  if (antialias && x.dtype !== "uint8")
    throw new DTypeError(
      `"compute_index_ranges_weights" not implemented for '${scalarTypeName(x.dtype)}'`,
    );
  const nearest = mode === "nearest" || mode === "nearest-exact";
  if (
    x.dtype === "uint8" &&
    (nearest || ((mode === "bilinear" || mode === "bicubic") && rank === 2))
  )
    return;
  const kernel =
    mode === "area"
      ? rank === 3
        ? "adaptive_avg_pool3d_cpu"
        : "adaptive_avg_pool2d"
      : mode === "bicubic"
        ? "compute_indices_weights_cubic"
        : mode === "bilinear"
          ? "upsample_bilinear2d_channels_last"
          : mode.includes("linear")
            ? "compute_indices_weights_linear"
            : rank === 2
              ? "upsample_nearest2d_channels_last"
              : "compute_indices_weights_nearest";
  throw new DTypeError(
    `"${kernel}" not implemented for '${scalarTypeName(x.dtype)}'`,
  );
}

/** Alias of {@link interpolate} (deprecated in PyTorch, kept for ported code). */
export const upsample = interpolate;
